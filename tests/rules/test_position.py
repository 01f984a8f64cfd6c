"""Position values and the awkward corners of the rules, by hand and by the dev file's tags."""

from __future__ import annotations

import pickle

import pytest

from tablecompanion.rules import IllegalPlayError, Position, RulesError


def board(on_roll: dict, opponent: dict) -> Position:
    """A position from ``{point: count}`` dicts (point 25 = bar), each side in its own numbering."""
    a, b = [0] * 25, [0] * 25
    for p, n in on_roll.items():
        a[p - 1] = n
    for p, n in opponent.items():
        b[p - 1] = n
    return Position.from_board(a, b)


def results(pos: Position, dice) -> set[str]:
    return {str(p) for p in pos.legal_plays(dice)}


# -- value semantics --------------------------------------------------------------------------


def test_value_semantics():
    a, b = Position.initial(), Position.from_position_id("4HPwATDgc/ABMA")
    assert a == b and hash(a) == hash(b) and a is not b
    assert len({a, b}) == 1
    assert repr(a) == "Position.from_position_id('4HPwATDgc/ABMA')" and eval(repr(a)) == a
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(AttributeError):
        a.on_roll = ()  # type: ignore[misc]


def test_simple_facts():
    pos = board({25: 1, 6: 4, 1: 2}, {23: 2, 6: 5})
    assert pos.bar == (1, 0)
    assert pos.borne_off == (8, 8)
    assert pos.pip_counts() == (25 + 24 + 2, 46 + 30)
    assert pos.swapped().on_roll == pos.opponent and pos.swapped().swapped() == pos
    assert pos.is_contact()
    assert pos.checker_at(6) == ("on_roll", 4)
    assert pos.checker_at(1) == ("on_roll", 2)
    assert pos.checker_at(19) == ("opponent", 5)
    assert pos.checker_at(10) is None
    assert pos.winner() is None
    race = board({6: 1}, {6: 1})
    assert not race.is_contact() and race.all_home() and race.all_home("opponent")
    assert board({}, {6: 1}).winner() == "on_roll"
    with pytest.raises(RulesError):
        pos.checker_at(25)


def test_apply_checks_where_the_play_comes_from():
    start = Position.initial()
    other = board({6: 15}, {6: 15})
    play = start.legal_plays((3, 1))[0]
    with pytest.raises(IllegalPlayError, match="another position"):
        other.apply(play)
    with pytest.raises(TypeError):
        start.apply("8/5 6/5")  # type: ignore[arg-type]
    assert start.apply(play, pass_turn=False) == play.result()


def test_forfeited_roll_and_pass_play():
    closed = board({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    assert closed.legal_plays((6, 5)) == [] and not closed.has_legal_play((6, 5))
    passed = closed.pass_play((6, 5))
    assert passed.is_pass() and str(passed) == "" and passed.result() == closed
    with pytest.raises(IllegalPlayError, match="can be played"):
        Position.initial().pass_play((6, 5))


# -- the awkward corners ----------------------------------------------------------------------


def test_several_on_the_bar():
    # three on the bar, opponent's home board open except his 6 point (our 19)
    pos = board({25: 3, 6: 5, 8: 3, 13: 4}, {6: 2, 8: 3, 13: 5, 24: 5})
    # 6-5: the 6 is blocked, one checker enters with the 5; nothing else may move
    assert results(pos, (6, 5)) == {"bar/20"}
    # 5-5: three enter, the fourth 5 is played by any checker
    plays = pos.legal_plays((5, 5))
    assert all(str(p).startswith("bar/20(3)") or "bar/15" in str(p) for p in plays)
    assert all(p.dice_used == 4 for p in plays)
    # 4-3: both enter, the third stays on the bar
    assert results(pos, (4, 3)) == {"bar/22 bar/21"}
    with pytest.raises(IllegalPlayError, match="must enter from the bar first"):
        pos.parse_play("bar/21 13/10", (4, 3))


@pytest.mark.parametrize(
    "ours,theirs,expected,used",
    [
        # one checker on 13, the rest on our 1 point (they cannot bear off while 13 is out)
        ({13: 1, 1: 14}, {18: 2, 13: 13}, "13/10", 1),  # our 7 held: one 3 only
        ({13: 1, 1: 14}, {21: 2, 13: 13}, "13/7", 2),  # our 4 held: two 3s
        # rest on our 2 point, our 1 held: 13/4, then neither 4/1 nor a bear-off (4 is higher)
        ({13: 1, 2: 14}, {24: 2, 13: 13}, "13/4", 3),
    ],
)
def test_doubles_played_partly(ours, theirs, expected, used):
    pos = board(ours, theirs)
    plays = pos.legal_plays((3, 3))
    assert results(pos, (3, 3)) == {expected}
    assert [p.dice_used for p in plays] == [used]
    if used > 1:
        with pytest.raises(IllegalPlayError, match=f"{used} of the four 3s can be played"):
            pos.parse_play("13/10", (3, 3))


def test_dev_cases_of_each_awkward_tag(legal_cases):
    wanted = {"bar_multi", "doubles_play_1", "doubles_play_2", "doubles_play_3", "bearoff_overshoot",
              "bearoff_after_entering_home", "higher_die_rule", "lower_die_only", "no_move", "game_ending"}
    seen = {tag: 0 for tag in wanted}
    for case in legal_cases:
        tags = wanted.intersection(case["tags"])
        if not tags:
            continue
        pos = Position.from_position_id(case["position_id"])
        plays = pos.legal_plays(case["dice"])
        assert {p.result().position_id() for p in plays} == {
            e["mover_view_position_id"] for e in case["legal"]}, case["id"]
        for tag in tags:
            seen[tag] += 1
            if tag.startswith("doubles_play_"):
                assert {p.dice_used for p in plays} == {int(tag[-1])}, case["id"]
            if tag == "bearoff_overshoot":
                assert any(m.dest == 0 and die > m.source
                           for p in plays for m, die in zip(p.moves, p.dice_played)), case["id"]
            if tag == "bearoff_after_entering_home":
                assert not pos.all_home() and any(p.bears_off for p in plays), case["id"]
            if tag == "game_ending":
                assert any(p.result().winner() == "on_roll" for p in plays), case["id"]
            if tag == "lower_die_only":
                assert all(p.dice_played == (min(case["dice"]),) for p in plays), case["id"]
    assert all(seen.values()), seen


def test_bear_off_with_a_higher_die_only_from_the_highest_point():
    pos = board({3: 1, 2: 1}, {1: 15})
    assert results(pos, (6, 5)) == {"3/off 2/off"}
    pos = board({4: 1, 2: 2}, {1: 15})
    assert results(pos, (6, 1)) == {"4/off 2/1", "4/off"}  # "4/off" is 4/3 then 3/off
    # the 6 may only bear off the 4 (highest); the 1 plays anywhere, also before the 6
    assert "4/off 2/1" in results(pos, (6, 1))
    with pytest.raises(IllegalPlayError, match="while a checker is on 4"):
        pos.parse_play("2/off 2/1", (6, 1))


def test_bear_off_after_the_last_checker_comes_home():
    pos = board({8: 1, 6: 2, 2: 3}, {1: 15})
    plays = results(pos, (6, 2))
    assert "8/off" in plays  # 8/6 then 6/off: gnubg writes the whole way
    assert "8/2 6/4" in plays
    # bearing off before the last checker is home is refused with the reason
    with pytest.raises(IllegalPlayError, match="outside the home board"):
        pos.parse_play("6/off 2/off", (6, 2))
