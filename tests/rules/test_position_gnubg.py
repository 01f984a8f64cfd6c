"""Legal plays agree with GNU Backgammon on every case of the dev file (same set of results)."""

from __future__ import annotations

import pytest

from tablecompanion.rules import Position


def test_dev_file_has_500_cases(legal_cases):
    assert len(legal_cases) == 500


def test_board_and_position_id_agree(legal_cases):
    for case in legal_cases:
        pos = Position.from_board(case["board"]["on_roll"], case["board"]["opponent"])
        assert pos == Position.from_position_id(case["position_id"]), case["id"]
        assert pos.position_id() == case["position_id"], case["id"]
        assert pos.position_id() == case["gnubg_id"].split(":")[0], case["id"]


def test_legal_play_results_match_gnubg(legal_cases):
    mismatches = []
    for case in legal_cases:
        pos = Position.from_position_id(case["position_id"])
        plays = pos.legal_plays(case["dice"])
        mover_view = {p.result().position_id() for p in plays}
        passed = {pos.apply(p).position_id() for p in plays}
        expected = {entry["mover_view_position_id"] for entry in case["legal"]}
        expected_next = {entry["next_position_id"] for entry in case["legal"]}
        if mover_view != expected or passed != expected_next or len(plays) != case["n_legal"]:
            mismatches.append((case["id"], case["tags"], len(plays), case["n_legal"]))
            continue
        used = {p.dice_used for p in plays}
        assert used <= {case["max_dice_used"]}, case["id"]
    assert not mismatches, mismatches


def test_every_gnubg_move_string_parses_to_its_result(legal_cases):
    for case in legal_cases:
        pos = Position.from_position_id(case["position_id"])
        plays = pos.legal_plays(case["dice"])
        for entry in case["legal"]:
            play = pos.parse_play(entry["move"], case["dice"])
            assert play in plays, (case["id"], entry["move"])
            assert play.result().position_id() == entry["mover_view_position_id"], (case["id"], entry["move"])


def test_str_round_trips_for_every_legal_play(legal_cases):
    for case in legal_cases:
        pos = Position.from_position_id(case["position_id"])
        for play in pos.legal_plays(case["dice"]):
            again = pos.parse_play(str(play), case["dice"])
            assert again == play, (case["id"], str(play))
            assert str(again) == str(play)


@pytest.mark.parametrize(
    "dice,count",
    [((2, 1), 15), ((3, 1), 16), ((4, 1), 14), ((5, 1), 8), ((6, 1), 10), ((3, 2), 17), ((4, 2), 18),
     ((5, 2), 8), ((6, 2), 14), ((4, 3), 17), ((5, 3), 9), ((6, 3), 14), ((5, 4), 9), ((6, 4), 14),
     ((6, 5), 7), ((1, 1), 42), ((2, 2), 75), ((3, 3), 73), ((4, 4), 52), ((5, 5), 4), ((6, 6), 11)],
)
def test_opening_counts(dice, count):
    assert len(Position.initial().legal_plays(dice)) == count


def test_notation_is_exactly_gnubgs(legal_cases):
    """Our canonical text for each result is the string gnubg printed for it."""
    for case in legal_cases:
        pos = Position.from_position_id(case["position_id"])
        ours = {p.result().position_id(): str(p) for p in pos.legal_plays(case["dice"])}
        for entry in case["legal"]:
            assert ours[entry["mover_view_position_id"]] == entry["move"], case["id"]
