"""The game state machine: turn order, the cube's awkward cases, resignations, closed-out turns."""

from __future__ import annotations

import pytest

from tablecompanion.rules.actions import (
    AcceptResign,
    ActionError,
    Beaver,
    Double,
    OpeningRoll,
    Pass,
    PlayAction,
    RejectResign,
    Resign,
    Roll,
    StandingPlay,
    Take,
)
from tablecompanion.rules.cube import Cube
from tablecompanion.rules.errors import RulesError
from tablecompanion.rules.game import Game, GameRules
from tablecompanion.rules.match import Match
from tablecompanion.rules.position import Position

MONEY = GameRules(money=True)


def side(**points) -> list[int]:
    """A 25-slot side from keyword points: side(p6=14, bar=1)."""
    s = [0] * 25
    for key, n in points.items():
        s[24 if key == "bar" else int(key[1:]) - 1] = n
    return s


def closed_out() -> Position:
    """X on roll with a checker on the bar against O's closed board."""
    return Position(side(p6=14, bar=1), side(p1=2, p2=2, p3=2, p4=2, p5=2, p6=2, p8=3))


def last_checker() -> Position:
    """X on roll bears off his last checker next roll; O has none off and none in X's home."""
    return Position(side(p1=1), side(p6=15))


def started(x_die: int = 3, o_die: int = 1, rules: GameRules = MONEY) -> Game:
    g = Game(rules)
    g.apply(OpeningRoll(x_die, o_die))
    return g


def test_opening_roll_decides_who_moves_with_both_dice():
    g = Game(MONEY)
    assert g.awaiting == "opening_roll" and g.actor is None
    g.apply(OpeningRoll(2, 5))
    assert (g.turn, g.dice, g.awaiting) == ("O", (5, 2), "play")


def test_opening_ties_are_rerolled_and_other_actions_refused():
    g = Game(MONEY)
    g.apply(OpeningRoll(4, 4))
    assert g.awaiting == "opening_roll" and g.cube_value == 1
    for action in (Roll(3, 1), Double(), PlayAction("8/5 6/5")):
        with pytest.raises(ActionError):
            g.apply(action)


def test_automatic_doubles_turn_the_cube_up_to_the_limit():
    g = Game(GameRules(money=True, automatic_doubles=2))
    g.apply(OpeningRoll(3, 3))
    g.apply(OpeningRoll(6, 6))
    g.apply(OpeningRoll(1, 1))  # third tie: limit reached, cube stays
    assert (g.cube_value, g.cube_owner, g.auto_doubles) == (4, None, 2)
    g.apply(OpeningRoll(5, 2))
    assert g.turn == "X" and g.cube_value == 4 and g.cube_owner is None


def test_automatic_doubles_are_money_only():
    with pytest.raises(ActionError):
        GameRules(money=False, automatic_doubles=1)
    with pytest.raises(ActionError):
        Match(5, automatic_doubles=1)


def test_a_play_is_required_before_the_turn_ends():
    g = started()
    with pytest.raises(ActionError, match="a play is required before the turn ends"):
        g.apply(Roll(6, 5, player="O"))
    with pytest.raises(ActionError, match="already rolled"):
        g.apply(Double())


def test_must_roll_or_double_before_playing():
    g = started()
    g.apply(PlayAction("8/5 6/5"))
    with pytest.raises(ActionError, match="O must roll or double first"):
        g.apply(PlayAction("13/7"))


def test_wrong_player_is_named():
    g = started()
    g.apply(PlayAction("8/5 6/5"))
    with pytest.raises(ActionError, match="X cannot double: it is O's turn"):
        g.apply(Double(player="X"))
    with pytest.raises(ActionError, match="X cannot roll"):
        g.apply(Roll(6, 5, player="X"))


def test_illegal_play_text_is_refused_and_nothing_changes():
    g = started()
    before = (g.position, g.turn, g.dice, g.awaiting, len(g.history))
    with pytest.raises(ActionError, match="cannot play"):
        g.apply(PlayAction("24/18"))
    with pytest.raises(ActionError):
        g.apply(PlayAction(None))  # passing is not allowed when a play exists
    assert (g.position, g.turn, g.dice, g.awaiting, len(g.history)) == before


def test_play_objects_from_legal_plays_are_accepted_and_foreign_ones_refused():
    g = started()
    plays = g.legal_plays()
    assert len(plays) == 16  # gnubg's count for 3-1 from the start
    other = Position.initial().legal_plays((6, 5))[0]
    with pytest.raises(ActionError, match="6-5, not 3-1"):
        g.apply(PlayAction(other))
    g.apply(PlayAction(plays[0]))
    assert g.turn == "O"


def test_same_player_cannot_double_twice_in_a_row():
    g = started()
    g.apply(PlayAction("8/5 6/5"))
    g.apply(Double())
    g.apply(Take())
    assert g.cube == Cube(2, "X") and g.awaiting == "roll"  # the doubler O must now roll
    with pytest.raises(ActionError, match="O cannot double: X owns the cube"):
        g.apply(Double())
    g.apply(Roll(6, 4))
    g.apply(PlayAction("24/14"))
    assert g.awaiting == "roll_or_double"  # X owns the cube and may redouble
    g.apply(Double())
    g.apply(Take())
    assert g.cube == Cube(4, "O")


def test_refused_redouble_pays_the_previous_stake():
    g = started()
    g.apply(PlayAction("8/5 6/5"))
    g.apply(Double())  # O doubles to 2
    g.apply(Take())
    g.apply(Roll(2, 1))
    g.apply(PlayAction("13/11 6/5"))
    g.apply(Double())  # X redoubles to 4
    g.apply(Pass())
    assert (g.result.winner, g.result.points, g.result.how) == ("X", 2, "pass")
    assert g.awaiting == "game_over"
    with pytest.raises(ActionError, match="the game is over"):
        g.apply(Roll(1, 2))


def test_beaver_take_and_pass():
    rules = GameRules(money=True, beaver=True)
    g = started(rules=rules)
    g.apply(PlayAction("8/5 6/5"))
    g.apply(Double())  # O doubles to 2
    g.apply(Beaver())  # X takes at 2 and redoubles to 4, keeping the cube
    assert g.awaiting == "take_or_pass" and g.actor == "O"
    g.apply(Take())
    assert g.cube == Cube(4, "X") and g.turn == "O" and g.awaiting == "roll"

    g = started(rules=rules)
    g.apply(PlayAction("8/5 6/5"))
    g.apply(Double())
    g.apply(Beaver())
    with pytest.raises(ActionError, match="raccoon"):
        g.apply(Beaver())
    g.apply(Pass())  # O refuses the beaver: pays the 2 of the taken double
    assert (g.result.winner, g.result.points) == ("X", 2)


def test_beaver_needs_the_option():
    g = started()
    g.apply(PlayAction("8/5 6/5"))
    g.apply(Double())
    with pytest.raises(ActionError, match="beavers are not allowed"):
        g.apply(Beaver())
    with pytest.raises(ActionError):
        GameRules(money=False, beaver=True)


def test_closed_out_player_may_double_and_passes_the_roll():
    g = Game(MONEY, position=closed_out(), turn="X")
    assert g.awaiting == "roll_or_double"
    g.apply(Double())
    g.apply(Take())
    g.apply(Roll(6, 5))
    assert g.awaiting == "play" and g.legal_plays() == []
    with pytest.raises(ActionError):
        g.apply(PlayAction("bar/20"))
    g.apply(PlayAction(None))  # the empty play: the turn passes unchanged
    assert g.turn == "O" and g.position == closed_out().swapped()

    g = Game(MONEY, position=closed_out(), turn="X", cube=Cube(2, "X"))
    assert g.why_cannot_double() is None
    g.apply(Double())
    assert g.awaiting == "take_or_pass"


def test_crawford_game_refuses_doubles():
    g = Game(GameRules(crawford_game=True), position=Position.initial(), turn="X")
    assert g.awaiting == "roll"
    with pytest.raises(ActionError, match="no doubling in the Crawford game"):
        g.apply(Double())


@pytest.mark.parametrize("owner,points", [(None, 1), ("X", 4)])
def test_jacoby_counts_gammons_only_once_the_cube_is_turned(owner, points):
    value = 1 if owner is None else 2
    g = Game(GameRules(money=True, jacoby=True), position=last_checker(), turn="X", cube=Cube(value, owner))
    g.apply(Roll(2, 1))
    g.apply(PlayAction("1/off"))
    assert g.result.level == "gammon" and g.result.points == points


def test_backgammon_and_backgammon_as_gammon():
    pos = Position(side(p1=1), side(p6=14, p20=1))  # O still has a checker in X's home board
    g = Game(MONEY, position=pos, turn="X")
    g.apply(Roll(2, 1))
    g.apply(PlayAction("1/off"))
    assert (g.result.level, g.result.points) == ("backgammon", 3)
    g = Game(GameRules(money=True, backgammon_as_gammon=True), position=pos, turn="X")
    g.apply(Roll(2, 1))
    g.apply(PlayAction("1/off"))
    assert (g.result.level, g.result.counted, g.result.points) == ("backgammon", "gammon", 2)


def test_resignation_rejected_then_accepted():
    g = started()
    g.apply(PlayAction("8/5 6/5"))
    g.apply(Resign("gammon"))  # O, on turn, offers a gammon
    assert g.awaiting == "resign_response" and g.actor == "X" and g.resignation_offered == "gammon"
    with pytest.raises(ActionError, match="accept or reject"):
        g.apply(Roll(3, 3))
    g.apply(RejectResign())
    assert g.awaiting == "roll_or_double" and g.turn == "O"
    g.apply(Double())
    g.apply(Resign("single"))  # X would rather resign than answer the double
    assert g.actor == "O"
    g.apply(AcceptResign(player="O"))
    assert (g.result.winner, g.result.level, g.result.points, g.result.resigned) == ("O", "single", 1, True)


def test_resign_levels_are_checked():
    with pytest.raises(ActionError):
        Resign("quadruple")
    with pytest.raises(ActionError):
        Roll(7, 1)
    with pytest.raises(ActionError):
        Double(player="Z")
    assert isinstance(ActionError("x"), RulesError)


def test_an_uncorrected_illegal_play_stands():
    g = started()  # X to play 3-1
    before = g.position
    wrong = Position(side(p6=5, p7=1, p8=3, p13=4, p24=2), before.opponent)  # 13/7: a 6 played with 3-1
    assert sum(wrong.on_roll) == 15
    g.apply(StandingPlay(wrong, "13/7", player="X"))
    assert g.turn == "O" and g.position == wrong.swapped() and g.awaiting == "roll_or_double"
    assert g.history[-1].notes == {"illegal": True, "text": "13/7"}
    with pytest.raises(ActionError):
        g.apply(StandingPlay(wrong))  # not in the play phase any more


def test_a_standing_play_that_matches_a_legal_one_is_recorded_as_legal():
    g = started()
    legal = g.legal_plays()[0]
    g.apply(StandingPlay(legal.result()))
    assert g.history[-1].play == legal and g.history[-1].notes == {"illegal": False}


def test_a_standing_play_can_end_the_game_and_checkers_are_conserved():
    g = Game(MONEY, position=last_checker(), turn="X")
    g.apply(Roll(2, 1))
    with pytest.raises(ActionError, match="opponent's checkers"):
        g.apply(StandingPlay(Position(side(), side(p6=14))))
    g.apply(StandingPlay(Position(side(), side(p6=15))))
    assert g.result.winner == "X" and g.result.level == "gammon"


def test_copies_are_independent():
    g = started()
    twin = g.copy()
    g.apply(PlayAction("8/5 6/5"))
    assert twin.awaiting == "play" and twin.turn == "X" and len(twin.history) == 1
