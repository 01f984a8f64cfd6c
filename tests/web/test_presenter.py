"""What the views derive from a snapshot: the board by X/O, legal plays as single-die steps, the SVG's
seating, and the app factory's defaults."""

from __future__ import annotations

import re

from tablecompanion.referee import Referee, TableSettings
from tablecompanion.web import create_app
from tablecompanion.web import presenter
from tablecompanion.web.board_svg import render_board


def referee(**settings):
    return Referee("t", TableSettings(players=("Ann", "Bo"), **settings))


def test_steps_split_plays_into_single_dice():
    ref = referee()
    ref.act({"action": "roll", "dice": [6, 5]})
    steps = {p["play"]: p["steps"] for p in presenter.play_steps(ref.snapshot())}
    assert steps["24/13"] in ([[24, 18], [18, 13]], [[24, 19], [19, 13]])
    assert len(steps) == len(ref.snapshot()["legal_plays"])


def test_steps_bearing_off_use_0():
    from tablecompanion.rules import Position

    mine = [3, 2, 1] + [0] * 22  # points 1, 2, 3 hold 3, 2 and 1 checkers; nine are off
    theirs = [0] * 18 + [5, 5, 5, 0, 0, 0, 0]
    pos = Position.from_board(mine, theirs)
    snap = {"position_id": pos.position_id(), "turn": "X", "dice": [6, 5],
            "legal_plays": [str(p) for p in pos.legal_plays((6, 5))]}
    plays = presenter.play_steps(snap)
    assert [p["play"] for p in plays] == ["3/off 2/off"]  # one checker on 3, two on 2
    assert sorted(plays[0]["steps"]) == [[2, 0], [3, 0]]


def test_bar_entry_steps_use_25():
    from tablecompanion.rules import Position

    start = Position.initial()
    mine = list(start.on_roll)
    mine[23] -= 1  # one back checker hit: on the bar
    mine[24] = 1
    pos = Position.from_board(mine, start.opponent)
    snap = {"position_id": pos.position_id(), "turn": "X", "dice": [5, 2],
            "legal_plays": [str(p) for p in pos.legal_plays((5, 2))],
            "board": {"X": mine, "O": list(start.opponent)}}
    plays = presenter.play_steps(snap)
    assert plays and all(p["steps"] and 25 in (p["steps"][0][0], p["steps"][1][0]) for p in plays)
    assert any(p["steps"][0] in ([25, 20], [25, 23]) for p in plays)
    model = presenter.board_model(snap)
    svg = str(render_board(snap, model))
    assert re.search(r'class="barzone" data-side="X" data-n="1"', svg)
    assert re.search(r'class="pt" data-x="24" data-owner="X" data-n="1"', svg)


def test_board_model_by_player():
    ref = referee()
    ref.act({"action": "roll", "dice": [2, 6]})  # O starts
    ref.act({"action": "play", "play": "24/18 13/11"})
    model = presenter.board_model(ref.snapshot())
    assert model.o[17] == 1 and model.o[23] == 1  # O's 18 and 24 in O's numbering
    assert model.at_x_point(7) == ("O", 1)  # O's 18 is X's 7
    assert sum(model.x) == 15 and model.off("O") == 0


def test_seating_moves_points_and_home():
    snap = referee(bottom_player="O", home="left").snapshot()
    model = presenter.board_model(snap)
    right = render_board(snap, model, bottom="X", home="right")
    left = render_board(snap, model, bottom="O", home="left")

    def x_of(svg, xp):
        m = re.search(rf'class="pt" data-x="{xp}"[^>]*data-ax="([0-9.]+)" data-ay="([0-9.]+)"', str(svg))
        return float(m.group(1)), float(m.group(2))

    # home right, X at the bottom: X's 1 point is bottom right
    x1, y1 = x_of(right, 1)
    x12, _ = x_of(right, 12)
    x24, y24 = x_of(right, 24)
    assert x1 > x12 and y1 > y24 and x24 > x12
    # O at the bottom with home on the left: O's 1 point (X's 24) is bottom left
    ox, oy = x_of(left, 24)
    assert ox < x_of(left, 13)[0] and oy > x_of(left, 1)[1]


def test_crawford_labels():
    assert presenter.crawford_label({"crawford": "crawford", "match_length": 7}) == "Crawford game"
    assert presenter.crawford_label({"crawford": "post", "match_length": 7}) == "post-Crawford"
    assert presenter.crawford_label({"crawford": "pre", "match_length": 7}) == ""
    assert presenter.crawford_label({"crawford": "post", "match_length": 1}) == ""


def test_create_app_opens_a_hall_and_keeps_its_session_key(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "d"), "TESTING": True})
    assert app.extensions["tablecompanion"].hall.tables() == []
    key = app.config["SECRET_KEY"]
    assert len(key) >= 32
    again = create_app({"DATA_DIR": str(tmp_path / "d"), "TESTING": True})
    assert again.config["SECRET_KEY"] == key  # operators stay signed in across a restart
    assert app.test_client().get("/api/tables").get_json() == []
