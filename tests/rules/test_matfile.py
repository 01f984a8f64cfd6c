"""The .mat reader, checker and writer: column splitting, entries, gnubg's rules for Wins lines,
illegal actions reported with game and move number, and agreement with gnubg on 200 real matches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablecompanion.rules.actions import Beaver, Double, OpeningRoll, Pass, PlayAction, Roll, Take
from tablecompanion.rules.match import Match
from tablecompanion.rules.matfile import (
    MatFileError,
    check_mat,
    check_text,
    match_from_mat,
    parse_mat,
    split_columns,
    write_mat,
)
from tests.rules.conftest import need

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MATCHES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "matches"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_split_columns_like_gnubg():
    # two rolls: split just before the second one
    assert [p.strip() for p in split_columns("  3) 31: bar/21                         42: 24/20 13/11")] == [
        "31: bar/21",
        "42: 24/20 13/11",
    ]
    # a cube action on the right of a roll, and an empty left column
    assert [p.strip() for p in split_columns("  5) 22:                          Doubles => 2")] == ["22:", "Doubles => 2"]
    assert [p.strip() for p in split_columns("  1)                             53: 8/3 6/3")] == ["", "53: 8/3 6/3"]
    # a Wins line in X's column has no right part
    assert split_columns("      Wins 1 point")[1] is None
    left, right = split_columns(" 37)  Losses 7 point                                               Wins 7 point and the match")
    assert (left.strip(), right.strip()) == ("Losses 7 point", "Wins 7 point and the match")


def test_parse_headers_names_and_entries():
    mat = parse_mat(fixture("illegal_play.mat"))
    assert mat.length == 3 and mat.players == ("Ann", "Ben") and mat.crawford
    assert mat.headers["Site"] == "TableCompanion test fixture"
    assert [g.number for g in mat.games] == [1, 2, 3]
    assert mat.games[1].score == (1, 0)
    kinds = [(e.player, e.kind, e.move_number) for e in mat.games[1].entries]
    assert kinds == [
        ("O", "roll", 1),
        ("X", "roll", 2),
        ("O", "double", 2),
        ("X", "take", 3),
        ("O", "roll", 3),
        ("O", "win", None),
    ]
    assert mat.games[1].entries[1].text == "24/18(2) 13/7(2)"
    assert mat.games[1].entries[-1].value == 2


def test_not_a_match_file():
    with pytest.raises(MatFileError, match="point match"):
        parse_mat("hello\nworld\n")
    with pytest.raises(MatFileError, match="score"):
        parse_mat(" 3 point match\n\n Game 1\n nonsense\n")
    report = check_text("not a match")
    assert not report.ok and report.games == [] and "point match" in report.errors[0]


def test_first_illegal_action_is_reported_and_later_games_still_checked():
    report = check_text(fixture("illegal_play.mat"), "illegal_play.mat")
    assert not report.ok
    assert report.errors[0].startswith("game 1 move 2 (line 11, X): X cannot play '24/18' with 5-2")
    assert len(report.errors) == 1
    got = [(g.winner, g.points, g.resigned, g.verified) for g in report.games]
    assert got == [("X", 1, False, False), ("O", 2, True, True), (None, 0, False, True)]
    assert report.final_score == (1, 2)
    assert report.as_dict()["games"][2] == {"winner": None, "points": 0}


def test_roll_without_play_when_a_play_exists_is_illegal():
    report = check_text(fixture("missing_play.mat"))
    assert not report.ok and "no play is written although legal plays exist" in report.errors[0]


def test_wins_line_ends_a_running_game_as_gnubg_reads_it():
    # Galaxy credits 3 (points needed) on a 2-cube: gnubg reads a resigned gammon, worth 4
    report = check_text(fixture("galaxy_style.mat"))
    assert report.ok, report.errors
    assert [(g.winner, g.points, g.resigned) for g in report.games] == [("X", 4, True)]
    assert any("Losses" in n for n in report.notes)


def test_header_score_that_does_not_follow_is_an_error():
    text = fixture("illegal_play.mat").replace(" Ann : 1                        Ben : 2", " Ann : 0                        Ben : 2")
    report = check_text(text)
    assert any("the file's score 0-2 differs from the games before it, 1-2" in e for e in report.errors)


def _engine_match() -> Match:
    m = Match(0, ("Ann", "Ben"), beaver=True)
    m.apply(OpeningRoll(3, 1))
    m.apply(PlayAction("8/5 6/5"))
    m.apply(Double())
    m.apply(Beaver())
    m.apply(Take())  # O accepts the beaver: X owns a 4-cube
    m.apply(Roll(6, 5))
    m.apply(PlayAction("24/13"))
    m.apply(Double())  # X, owner of the 4-cube, redoubles to 8
    m.apply(Pass())
    return m


def test_writer_output_reads_back_to_the_same_match():
    m = _engine_match()
    assert (m.games[-1].winner, m.games[-1].points) == ("X", 4)
    text = write_mat(m, {"Site": "test"})
    assert text.startswith('; [Site "test"]\n')
    assert " 0 point match" in text and "Beavers => 4" in text and "Drops" in text
    # every move line is long enough for gnubg 1.07 not to read stale text
    assert all(len(line) >= 33 for line in text.splitlines() if line[:5].strip().endswith(")"))
    again, report = match_from_mat(parse_mat(text))
    assert report.ok, report.errors
    assert [(g.winner, g.points, g.how) for g in again.games] == [(g.winner, g.points, g.how) for g in m.games]
    def steps(match):
        return [(type(t.action), t.actor, t.position, t.dice, t.cube) for r in match.games for t in r.game.history]

    assert steps(again) == steps(m)


def test_a_resignation_right_after_the_opening_roll_keeps_the_dice():
    """The opening roll's winner resigns before playing it: the file keeps the dice alone (as after any
    roll), so the game reads back instead of ending before it started (found by hypothesis, seed
    16777217 of test_written_match_replays_to_the_same_games)."""
    from tablecompanion.rules.actions import AcceptResign, Resign

    m = Match(5, ("Ann", "Ben"))
    for action in (OpeningRoll(6, 5), Resign("gammon"), AcceptResign()):
        m.apply(action)
    text = write_mat(m)
    assert "65:" in text.split(" Game 1")[1]
    again, report = match_from_mat(parse_mat(text))
    assert report.ok, report.errors
    assert [(g.winner, g.points, g.how) for g in again.games] == [("O", 2, "resign")]


def _expected() -> dict[str, dict]:
    path = MATCHES / "gnubg_results.jsonl"
    if not path.exists():
        return {}
    return {r["file"]: r for r in map(json.loads, path.read_text().splitlines())}


@pytest.mark.slow
def test_agrees_with_gnubg_on_all_200_real_matches():
    expected = _expected()
    if not expected:
        need(MATCHES / "gnubg_results.jsonl")
    failed, games, agreeing = [], 0, 0
    for name, exp in sorted(expected.items()):
        report = check_mat(parse_mat((MATCHES / name).read_text(encoding="utf-8")), name)
        got = [(g.winner, g.points) for g in report.games]
        want = [(g["winner"], g["points"]) for g in exp["per_game"]]
        games += len(want)
        agreeing += sum(a == b for a, b in zip(got, want))
        if not report.ok or got != want or list(report.final_score) != exp["final_score"]:
            failed.append((name, report.errors[:1], got, want))
        resigned = [g.resigned for g in report.games]
        assert resigned == [g["resigned"] for g in exp["per_game"]], name
    assert not failed, f"{len(failed)} files differ, first: {failed[:2]}"
    assert len(expected) == 200 and games == 865 and agreeing == 865


def test_a_standing_illegal_play_is_written_as_played_and_flagged_on_reading():
    from tablecompanion.rules.actions import StandingPlay
    from tablecompanion.rules.position import Position

    m = Match(3, ("Ann", "Ben"))
    m.apply(OpeningRoll(3, 1))
    pos = m.game.position
    wrong = Position(pos.on_roll[:6] + (1,) + pos.on_roll[7:12] + (4,) + pos.on_roll[13:], pos.opponent)
    m.apply(StandingPlay(wrong, "13/7"))
    text = write_mat(m)
    assert "  1) 31: 13/7" in text
    report = check_text(text)
    assert not report.ok and "3-1" in report.errors[0] and "13/7" in report.errors[0]
