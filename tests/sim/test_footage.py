"""Match footage: the truth read back gives the match's positions and events, injections included."""

from __future__ import annotations

import json

import pytest

from tablecompanion.rules.actions import PlayAction
from tablecompanion.rules.matfile import match_from_mat, parse_mat
from tablecompanion.sim import Camera, SimError
from tablecompanion.sim.footage import iter_match_frames, parse_inject, render_match, script_match

TINY = Camera(width=192, height=108, jpeg_quality=None)


def _rules_plays(match_path):
    """(mover, dice, X's board, O's board) after every play, from the rules engine's own replay."""
    match, report = match_from_mat(parse_mat(match_path.read_text()))
    assert report.ok, report.errors
    out = []
    for record in match.games:
        for turn in record.game.history:
            if isinstance(turn.action, PlayAction) and turn.play is not None:
                after = turn.play.result()  # mover still on roll
                mover = turn.actor
                boards = {mover: tuple(after.on_roll), ("O" if mover == "X" else "X"): tuple(after.opponent)}
                out.append((mover, tuple(sorted(turn.dice)), boards["X"], boards["O"]))
    return out


def test_script_matches_the_rules_engine_for_a_whole_match(match_path):
    script = script_match(match_path)
    plays = [t for t in script.turns if t.kind == "roll" and t.play is not None]
    expected = _rules_plays(match_path)
    assert len(plays) == len(expected) > 50
    for t, (mover, dice, x, o) in zip(plays, expected):
        assert t.player == mover and tuple(sorted(t.dice)) == dice
        assert t.boards_after["X"] == x and t.boards_after["O"] == o


def _read_back(frames):
    """What a consumer of truth.jsonl sees: boards at each play_made, settled rolls, other events."""
    plays, rolls, kinds = [], [], []
    for truth in frames:
        for ev in truth["events"]:
            kinds.append(ev["type"])
            if ev["type"] == "play_made":
                plays.append((ev["player"], tuple(truth["board"]["X"]), tuple(truth["board"]["O"])))
            if ev["type"] == "roll_settled" and ev["valid"]:
                rolls.append((ev["player"], tuple(sorted(ev["dice"]))))
    return plays, rolls, kinds


@pytest.mark.slow
def test_truth_round_trips_positions_and_events(match_path):
    turns = []
    frames = [t for _, t in iter_match_frames(match_path, seed=3, camera=TINY, max_turns=12, encode=False, turns_out=turns)]
    plays, rolls, kinds = _read_back(frames)
    expected = _rules_plays(match_path)[: len(plays)]
    assert len(plays) >= 10
    assert plays == [(m, x, o) for m, _, x, o in expected]
    assert rolls == [(m, d) for m, d, _, _ in expected][: len(rolls)]
    # Every roll is settled before its play and picked up after it.
    assert kinds.count("roll_settled") == kinds.count("dice_picked_up")
    assert kinds.count("play_made") == len(plays)
    # Frames are numbered, 30 fps, and the board never holds more than 15 checkers a side.
    assert [t["frame"] for t in frames] == list(range(len(frames)))
    assert frames[30]["t"] == pytest.approx(1.0)
    colour = {"X": "light", "O": "dark"}
    for t in frames:
        for p in ("X", "O"):
            assert sum(t["board"][p]) <= 15
            # A checker in a hand is neither on the board nor borne off.
            held = 1 if t["in_hand"] == colour[p] else 0
            assert t["off"][colour[p]] == 15 - sum(t["board"][p]) - held
    # The opening roll: one die in each player's right-hand board, each valid there.
    first = next(t for t in frames if any(e["type"] == "roll_settled" for e in t["events"]))
    ev = next(e for e in first["events"] if e["type"] == "roll_settled")
    assert ev["opening"] and sorted(ev["by_player"].values()) == sorted(ev["dice"])
    assert sorted(d["thrower"] for d in first["dice"]) == ["bottom", "top"]
    assert all(d["valid"] for d in first["dice"])
    assert [(r["player"], r["play"]) for r in turns if r["kind"] == "roll"][:3] == [
        (tt.player, tt.play) for tt in script_match(match_path).turns if tt.kind == "roll"
    ][:3]


@pytest.mark.slow
def test_injected_void_rolls_and_illegal_plays_are_marked_and_corrected(match_path):
    frames = [t for _, t in iter_match_frames(
        match_path, seed=11, camera=TINY, max_turns=10, encode=False,
        inject="cocked:0.4,misplaced:0.3,illegal:0.6,correction:0.5")]
    plays, rolls, kinds = _read_back(frames)
    expected = _rules_plays(match_path)[: len(plays)]
    # Injections never change the match: the positions after each play are still the recorded ones.
    assert plays == [(m, x, o) for m, _, x, o in expected]
    assert "roll_void" in kinds and "illegal_play" in kinds and "correction" in kinds
    assert kinds.count("illegal_play") == kinds.count("correction")
    voids = [ev for t in frames for ev in t["events"] if ev["type"] == "roll_settled" and not ev["valid"]]
    assert voids and all(any(s != "flat" for s in ev["states"]) for ev in voids)
    # A void roll's dice are marked invalid in the frame truth while they lie there.
    void_frames = [t for t in frames if t["phase"] == "settled" and any(not d["valid"] for d in t["dice"])]
    assert void_frames
    # The illegal position shown is not the recorded one.
    for t in frames:
        for ev in t["events"]:
            if ev["type"] == "illegal_play":
                recorded = {(x, o) for _, _, x, o in expected}
                assert (tuple(ev["boards"]["X"]), tuple(ev["boards"]["O"])) not in recorded


def test_footage_is_deterministic_for_a_seed(match_path):
    def run(seed):
        return [(img.tobytes(), json.dumps({k: v for k, v in t.items() if k != "hand_mask"}, sort_keys=True))
                for img, t in iter_match_frames(match_path, seed=seed, camera=TINY, max_turns=2, inject="cocked:0.5")]

    a, b, c = run(1), run(1), run(2)
    assert a == b
    assert a != c


def test_each_reach_has_its_own_arm_angle_and_grip(match_path):
    """One hand curling the same way from the same angle every time gave footage away: each move draws
    where the arm comes from, and the fingers open on the way out and close to a pinch on arrival."""
    reaches = []
    for _, t in iter_match_frames(match_path, seed=0, camera=TINY, max_turns=3, encode=False):
        for hand in t["hands"]:
            if not reaches or reaches[-1][0] != tuple(hand["elbow_mm"]):
                reaches.append((tuple(hand["elbow_mm"]), []))
            reaches[-1][1].append(hand["spread"])
    assert len({elbow for elbow, _ in reaches}) >= 4
    assert all(60.0 <= across <= 280.0 and 280.0 <= back <= 480.0 for (across, back), _ in reaches)
    spreads = [s for _, ss in reaches for s in ss]
    assert min(spreads) <= 0.3 and max(spreads) >= 0.4
    assert all(0.0 <= s <= 1.0 for s in spreads)


def test_render_match_writes_frames_and_truth(match_path, tmp_path):
    summary = render_match(match_path, tmp_path, seed=0, camera=TINY, max_turns=2)
    lines = (tmp_path / "truth.jsonl").read_text().splitlines()
    assert summary["frames"] == len(lines) == len(list((tmp_path / "frames").glob("*.jpg")))
    first = json.loads(lines[0])
    assert first["events"][0]["type"] == "game_start" and first["file"] == "frames/000000.jpg"
    header = json.loads((tmp_path / "match.json").read_text())
    assert header["frames"] == len(lines) and len(header["homography_image_to_board"]) == 3
    turns = [json.loads(x) for x in (tmp_path / "turns.jsonl").read_text().splitlines()]
    assert len(turns) == 2 and turns[0]["position_id_before"] == "4HPwATDgc/ABMA"
    hands = [json.loads(x)["hand_bbox"] for x in lines]
    assert any(h is not None for h in hands)


@pytest.mark.parametrize("text", ["wobbly:0.1", "cocked:2", "cocked:x"])
def test_bad_injections_are_sim_errors(text):
    with pytest.raises(SimError):
        parse_inject(text)


def test_missing_match_file_is_a_sim_error(tmp_path):
    with pytest.raises(SimError, match="cannot read"):
        script_match(tmp_path / "nope.mat")
    bad = tmp_path / "bad.mat"
    bad.write_text("hello\n")
    with pytest.raises(SimError):
        script_match(bad)


@pytest.mark.slow
def test_written_truth_files_round_trip_to_the_match(match_path, tmp_path):
    """What a consumer reads from disk (truth.jsonl, turns.jsonl), not the in-memory dicts: the boards at
    each play, the settled rolls and the position IDs are the rules engine's replay of the .mat file."""
    from tablecompanion.rules.position import Position

    render_match(match_path, tmp_path, seed=5, camera=TINY, max_turns=10, write_frames=False,
                 inject="cocked:0.2,illegal:0.2,correction:0.5")
    frames = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    plays, rolls, kinds = _read_back(frames)
    expected = _rules_plays(match_path)
    assert len(plays) >= 8
    assert plays == [(m, x, o) for m, _, x, o in expected[: len(plays)]]
    assert rolls == [(m, d) for m, d, _, _ in expected[: len(rolls)]]
    assert kinds.count("illegal_play") == kinds.count("correction")
    # turns.jsonl: each play's position ID after is the boards written beside it (mover's opponent on roll)
    for record in (json.loads(x) for x in (tmp_path / "turns.jsonl").read_text().splitlines()):
        if record["kind"] != "roll" or not record.get("play"):
            continue
        mover = record["player"]
        other = "O" if mover == "X" else "X"
        after = Position.from_position_id(record["position_id_after"])
        assert tuple(after.on_roll) == tuple(record["boards_after"][other])
        assert tuple(after.opponent) == tuple(record["boards_after"][mover])


def test_some_players_move_with_their_left_hand(match_path):
    """About one player in ten is left-handed: which hand a player uses is drawn once a match (its own
    generator) and kept for every reach; the truth says which."""
    seen = {}
    for seed in (0, 12, 13):
        for _, t in iter_match_frames(match_path, seed=seed, camera=TINY, max_turns=4, encode=False):
            for hand in t["hands"]:
                seen.setdefault((seed, hand["player"]), set()).add(hand["hand"])
    assert all(len(hands) == 1 for hands in seen.values())  # one hand per player per match
    kinds = {next(iter(hands)) for hands in seen.values()}
    assert kinds == {"left", "right"}
    assert seen[(0, "bottom")] == {"right"}


def test_mains_flicker_bands_roll_a_third_of_a_band_every_frame(match_path):
    """Under 100 Hz flicker a 30 fps rolling shutter shows 2.5 bands that move on a third of a cycle every
    frame; the truth carries the phase, depth 0 draws none, and an impossible depth is a clear error."""
    import numpy as np

    from tablecompanion.sim.footage_light import MainsFlicker

    f = MainsFlicker(seed=1, fps=30.0, depth=0.05, height=720)
    rows = [f.rows(i) for i in range(4)]
    assert all(abs(float(r.max()) - 1.05) < 0.002 and abs(float(r.min()) - 0.95) < 0.002 for r in rows)
    assert not np.allclose(rows[0], rows[1]) and np.allclose(rows[0], rows[3], atol=1e-4)  # 3 1/3 cycles a frame
    assert abs((f.phase(1) - f.phase(0)) % 1.0 - 1 / 3) < 1e-9
    frames = list(iter_match_frames(match_path, seed=0, camera=TINY, max_turns=1, flicker=0.05))[:3]
    same = MainsFlicker(seed=0, fps=30.0, depth=0.05, height=TINY.height)  # what the footage draws for its seed
    assert [t["flicker"] for _, t in frames] == [{"depth": 0.05, "phase": round(same.phase(i), 4)} for i in range(3)]
    plain = list(iter_match_frames(match_path, seed=0, camera=TINY, max_turns=1))[:3]
    assert all("flicker" not in t for _, t in plain)
    assert any((a.astype(int) - b.astype(int)).any() for (a, _), (b, _) in zip(frames, plain))
    with pytest.raises(SimError, match="flicker"):
        next(iter_match_frames(match_path, seed=0, camera=TINY, max_turns=1, flicker=0.5))


def test_the_room_light_changes_now_and_then_and_the_camera_catches_up(match_path):
    """A lamp switched steps the picture's brightness from one frame to the next; the auto-exposure brings
    it most of the way back within a few seconds; the same seed gives the same changes, and the truth says
    how the room is lit."""
    import numpy as np

    from tablecompanion.sim.footage_light import RoomLight

    room = RoomLight(seed=0, fps=30.0)
    gains = np.array([room.at(i)[0] for i in range(30 * 300)])
    again = RoomLight(seed=0, fps=30.0)
    assert [again.at(i)[0] for i in range(30 * 300)] == list(gains)
    switches = [e for e in room.events if e[1] == 1]
    assert switches, room.events
    start = switches[0][0]
    step = gains[start] / gains[start - 1]
    assert abs(step - 1.0) > 0.09  # 10-25 % from one frame to the next
    after = gains[start + 30 * 4] / gains[start - 1]
    assert abs(after - 1.0) < 0.45 * abs(step - 1.0)  # the camera caught up with most of it
    quiet = np.abs(np.diff(gains[: room.events[0][0]]))
    assert quiet.max() < 1e-9  # nothing changes before the first change
    frames = list(iter_match_frames(match_path, seed=0, camera=TINY, max_turns=1, light_changes=True))[:2]
    assert frames[0][1]["room_light"] == {"level": 1.0, "gain": 1.0, "tint": 0.0}
