"""Notation in and out: the variants players write, and typed errors that say why."""

from __future__ import annotations

import pytest

from tablecompanion.rules import (
    IllegalPlayError,
    Move,
    NotationError,
    Position,
    RulesError,
    parse_paths,
)
from tablecompanion.rules import movegen

START = Position.initial()
# On roll: one checker on the bar, 2 on 24, 4 on 13, 3 on 8, 5 on 6. Opponent: the starting position.
ON_BAR = Position.from_board(
    [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1],
    [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0],
)


def board(on_roll: dict, opponent: dict) -> Position:
    """A position from ``{point: count}`` dicts (point 25 = bar), each side in its own numbering."""
    a, b = [0] * 25, [0] * 25
    for p, n in on_roll.items():
        a[p - 1] = n
    for p, n in opponent.items():
        b[p - 1] = n
    return Position.from_board(a, b)


@pytest.mark.parametrize(
    "text,dice,canonical",
    [
        ("8/5 6/5", (3, 1), "8/5 6/5"),
        ("6/5 8/5", (1, 3), "8/5 6/5"),  # any order, dice either way round
        ("8/5, 6/5", (3, 1), "8/5 6/5"),
        ("24/20", (3, 1), "24/20"),  # one checker, both dice
        ("24/21 21/20", (3, 1), "24/20"),  # the same, written out
        ("24/23/20", (3, 1), "24/20"),
        ("8/5(2) 6/3(2)", (3, 3), "8/5(2) 6/3(2)"),
        ("8/5 8/5 6/3 6/3", (3, 3), "8/5(2) 6/3(2)"),  # repeats written out (Galaxy files)
        ("6/3 8/5 6/3 8/5", (3, 3), "8/5(2) 6/3(2)"),
        ("13/7(2) 8/2(2)", (6, 6), "13/7(2) 8/2(2)"),
        ("24/18(2) 13/7(2)", (6, 6), "24/18(2) 13/7(2)"),
        ("24/16(2)", (4, 4), "24/16(2)"),
        ("24/20/16 24/16", (4, 4), "24/16(2)"),
        ("13/4 6/3", (3, 3), "13/4 6/3"),
        ("24/13", (6, 5), "24/13"),
        ("  13/7   8/7 ", (6, 1), "13/7 8/7"),
        ("13/11 13/8", (5, 2), "13/11 13/8"),
        ("13-7 8-7", (6, 1), "13/7 8/7"),  # FIBS / Jellyfish dashes
        ("24-18-13", (6, 5), "24/13"),
    ],
)
def test_variants_parse_to_the_canonical_play(text, dice, canonical):
    play = START.parse_play(text, dice)
    assert str(play) == canonical
    assert play in START.legal_plays(dice)
    assert START.parse_play(str(play), dice) == play


def test_bar_and_off_spellings():
    for text in ("bar/20 13/7", "25/20 13/7", "b/20 13/7", "BAR/20 13/7", "bar-20 13-7"):
        assert str(ON_BAR.parse_play(text, (6, 5))) == "bar/20 13/7"
    home = board({6: 2, 5: 3, 4: 10}, {1: 15})
    for text in ("6/off 5/off", "6/0 5/0", "6/o 5/o", "5/off 6/off", "6-off 5-off"):
        assert str(home.parse_play(text, (6, 5))) == "6/off 5/off"


def test_missing_hit_marks_are_added():
    # opponent blot on the on-roll player's 5 point (opponent's 20)
    pos = board({6: 5, 8: 3, 13: 5, 24: 2}, {20: 1, 13: 4, 8: 3, 6: 5, 24: 2})
    assert str(pos.parse_play("8/5 6/5", (3, 1))) == "8/5* 6/5"
    assert str(pos.parse_play("8/5* 6/5", (3, 1))) == "8/5* 6/5"
    assert pos.parse_play("8/5 6/5", (3, 1)).hits == 1


def test_hit_in_passing_shows_the_intermediate_point():
    pos = board({6: 5, 8: 3, 13: 5, 24: 2}, {18: 1, 13: 4, 8: 3, 6: 5, 24: 2})  # blot on our 7
    play = pos.parse_play("13/7*/5", (6, 2))
    assert str(play) == "13/7*/5" and play.hits == 1
    # "13/5" without the mark means the quiet way round (via 11), as gnubg writes it
    quiet = pos.parse_play("13/5", (6, 2))
    assert quiet.hits == 0 and str(quiet) == "13/5"
    assert quiet != play


def test_ambiguous_combined_move_is_refused():
    # blots on our 7 and our 11: 13/5 with 6-2 hits either way
    pos = board({6: 5, 8: 3, 13: 5, 24: 2}, {18: 1, 14: 1, 13: 3, 8: 3, 6: 5, 24: 2})
    with pytest.raises(NotationError, match="ambiguous"):
        pos.parse_play("13/5", (6, 2))
    assert pos.parse_play("13/11*/5", (6, 2)).hit_points == (11,)


@pytest.mark.parametrize(
    "pos,text,dice,error,message",
    [
        (START, "9/3 8/5", (6, 3), IllegalPlayError, "no checker on 9"),
        (START, "8/2 6/1", (6, 5), IllegalPlayError, "1 is blocked"),
        (ON_BAR, "13/7 8/3", (6, 5), IllegalPlayError, "must enter from the bar first"),
        (ON_BAR, "bar/19 19/14", (6, 5), IllegalPlayError, "19 is blocked"),
        (START, "6/5", (6, 1), IllegalPlayError, "both dice can be played: 6/5 alone is not enough"),
        (START, "24/23 8/7 6/5", (1, 1), IllegalPlayError, "4 of the four 1s can be played"),
        (START, "13/8", (6, 3), IllegalPlayError, "13/8 is 5 pips"),
        (START, "24/18 13/7", (6, 5), IllegalPlayError, "moves 12 pips"),
        (START, "8/5*", (3, 1), IllegalPlayError, "no blot to hit on 5"),
        (START, "6/off 6/off", (6, 6), IllegalPlayError, "still outside the home board"),
        (START, "", (3, 1), IllegalPlayError, "passing is not allowed"),
        (START, "13.7 8.7", (6, 1), NotationError, "is not a move"),
        (START, "13-7-", (6, 1), NotationError, "is not a move"),
        (START, "24/28", (4, 4), NotationError, "no point 28"),
        (START, "7/13", (6, 6), NotationError, "higher to lower"),
        (START, "off/3", (3, 3), NotationError, "cannot start off the board"),
        (START, "13/bar", (6, 6), NotationError, "only come from the bar"),
        (START, "8/5(7)", (3, 3), NotationError, "1 to 4 times"),
        (START, "8/5 8/5 8/5 6/3 6/3", (3, 3), NotationError, "at most 4"),
        (START, "8/5", (7, 3), RulesError, "dice must be two numbers"),
    ],
)
def test_errors_say_why(pos, text, dice, error, message):
    with pytest.raises(error, match=message):
        pos.parse_play(text, dice)


def test_the_reason_given_is_about_the_move_as_written():
    """'6/off' with 6-1 and a checker outside: the reason names the 6 point (as written), not the 5
    point a 6/5/off split would bear off from."""
    pos = board({13: 1, 6: 14}, {13: 2, 18: 2, 1: 11})
    with pytest.raises(IllegalPlayError, match="cannot bear off from 6: 1 checker is still outside"):
        pos.parse_play("6/off", (6, 1))
    with pytest.raises(IllegalPlayError, match=r"13/7: 7 is blocked \(the 6 from 13\)"):
        pos.parse_play("13/7", (6, 1))


def test_a_play_written_in_an_illegal_order_is_the_legal_play_with_that_result():
    """gnubg's own .mat export writes 7/off played with 6-2 (7/5/off) as '7/1 1/0': step by step in
    that order it is illegal (a checker is on 4), but the checkers end where the legal play puts
    them, and gnubg's importer accepts it. So do we; a result no legal play has is still refused."""
    pos = board({7: 1, 4: 1, 2: 3}, {1: 15})
    assert str(pos.parse_play("7/1 1/0", (6, 2))) == "7/off"
    assert str(pos.parse_play("7/1 1/off", (2, 6))) == "7/off"
    assert str(pos.parse_play("7/3 3/off", (6, 2))) == "7/off"  # gnubg's `move` takes this too
    with pytest.raises(IllegalPlayError, match="7/off 4/2: "):
        pos.parse_play("7/off 4/2", (6, 2))  # refused by gnubg as well
    with pytest.raises(IllegalPlayError, match="4/off"):
        pos.parse_play("7/1 4/off", (6, 2))  # no legal play takes the 4 off


def test_bear_off_from_a_lower_point_while_higher_checkers_remain():
    pos = board({6: 1, 3: 1, 2: 13}, {1: 15})
    with pytest.raises(IllegalPlayError, match="while a checker is on 6"):
        pos.parse_play("3/off 2/off", (5, 4))


def test_readme_bear_off_examples():
    pos = board({5: 1, 3: 1}, {1: 15})
    assert {str(p) for p in pos.legal_plays((6, 1))} == {"5/off 3/2", "5/off"}
    assert str(pos.parse_play("5/4/off", (6, 1))) == "5/off"  # 5/4 then 4/off: 3 stays
    assert str(pos.parse_play("5/4 4/off", (6, 1))) == "5/off"
    assert {str(p) for p in pos.legal_plays((2, 1))} == {"3/off", "5/2", "5/4 3/1"}


def test_readme_two_on_the_bar_examples():
    # opponent holds his own points 2, 3, 5 and 6 = our 23, 22, 20, 19
    pos = board({25: 2, 6: 5, 8: 3, 13: 3}, {2: 2, 3: 2, 5: 2, 6: 2, 13: 7})
    assert [str(p) for p in pos.legal_plays((4, 1))] == ["bar/24 bar/21"]
    assert pos.legal_plays((3, 2)) == [] and pos.legal_plays((6, 6)) == []
    assert [str(p) for p in pos.legal_plays((4, 3))] == ["bar/21"]
    with pytest.raises(IllegalPlayError, match="forfeited"):
        pos.parse_play("bar/22", (3, 2))
    assert pos.parse_play("Cannot Move", (3, 2)).is_pass()
    assert pos.parse_play("", (6, 6)).is_pass()


def test_higher_die_rule_on_the_dev_cases(legal_cases):
    checked = 0
    for case in legal_cases:
        if "higher_die_rule" not in case["tags"]:
            continue
        pos = Position.from_position_id(case["position_id"])
        high, low = case["dice"]
        b, o = pos._lists()
        for s, t in movegen.single_moves(b, o, low):
            if t == 0:
                continue  # a bear-off the higher die can make as well
            text = f"{'bar' if s == 25 else s}/{'off' if t == 0 else t}"
            with pytest.raises(IllegalPlayError, match=f"the higher die must be played: the {high}"):
                pos.parse_play(text, case["dice"])
            checked += 1
    assert checked >= 5


def test_lower_die_only_cases_parse(legal_cases):
    cases = [c for c in legal_cases if "lower_die_only" in c["tags"]]
    assert cases
    for case in cases:
        pos = Position.from_position_id(case["position_id"])
        for entry in case["legal"]:
            play = pos.parse_play(entry["move"], case["dice"])
            assert play.dice_played == (case["dice"][1],)


def test_parse_paths_syntax():
    assert [p.points for p in parse_paths("bar/22 13/7*/5 8/4(2)")] == [
        (25, 22), (13, 7, 5), (8, 4), (8, 4)]
    assert [p.points for p in parse_paths("6/0 25/20")] == [(6, 0), (25, 20)]
    assert parse_paths("Cannot Move") == [] and parse_paths("  ") == []
    with pytest.raises(NotationError):
        parse_paths(None)  # type: ignore[arg-type]


def test_play_value_semantics():
    a = START.parse_play("24/20", (3, 1))
    b = START.parse_play("24/21/20", (3, 1))
    assert a == b and hash(a) == hash(b)
    assert a.moves == (Move(24, 21, False), Move(21, 20, False)) or a.moves == (
        Move(24, 23, False), Move(23, 20, False))
    assert sorted(a.dice_played) == [1, 3]
    assert repr(a) == "Position.from_position_id('4HPwATDgc/ABMA').parse_play('24/20', (3, 1))"
    assert eval(repr(a)) == a
    assert a != START.parse_play("13/9", (3, 1))
    for src, dst, hit in a.moves:  # three fields, as the other areas unpack them
        assert 1 <= dst < src <= 25 and hit is False


def test_every_legal_play_parses_back_from_the_ways_players_write_it():
    """Random awkward positions: each legal play written as shuffled single steps (with or without
    ``*``, 25/0 for bar/off), with dashes, with repeats written out, or in capitals, is that play."""
    import random
    import re

    from tests.rules.reference_moves import KINDS, random_position

    rng = random.Random(41)
    rolls = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]

    def name(p: int) -> str:
        return "bar" if p == 25 else "off" if p == 0 else str(p)

    checked = 0
    for i in range(64):
        pos = Position.from_board(*random_position(rng, KINDS[i % len(KINDS)]))
        for dice in rng.sample(rolls, 3):
            for play in pos.legal_plays(dice):
                text = str(play)
                steps = [f"{name(m.source)}/{name(m.dest)}{'*' if m.hit else ''}" for m in play.moves]
                bare = [f"{m.source}/{m.dest}" for m in play.moves]
                rng.shuffle(steps)
                rng.shuffle(bare)
                repeats_out = " ".join(
                    " ".join([m.group(1)] * int(m.group(2))) if (m := re.match(r"^(.*)\((\d)\)$", t)) else t
                    for t in text.split()
                )
                for variant in (" ".join(steps), " ".join(bare), text.replace("/", "-"), repeats_out, text.upper()):
                    assert pos.parse_play(variant, dice) == play, (pos.position_id(), dice, text, variant)
                    checked += 1
    assert checked > 1000
