"""LedState: validation and the helpers the referee composes states with."""

from __future__ import annotations

from collections import namedtuple

import pytest

from tablecompanion.leds.state import LedState, LedStateError, Light, legal_destinations, physical_point

Move = namedtuple("Move", "source dest hit")


class FakePlay:
    def __init__(self, *moves):
        self.moves = tuple(Move(s, d, False) for s, d in moves)


class FakePosition:
    """Only what LedState needs: legal_plays(dice) -> plays with moves in the mover's numbering."""

    def __init__(self, plays):
        self.plays = plays
        self.asked = None

    def legal_plays(self, dice):
        self.asked = dice
        return self.plays


def test_default_state_is_all_off():
    s = LedState()
    assert s.lit_points() == {}
    assert s.turn is None and s.cube_value == 1 and s.cube_owner is None and s.status == "normal"


def test_state_is_immutable_and_hashable():
    s = LedState().with_point(5, "red")
    with pytest.raises(AttributeError):
        s.turn = "top"  # type: ignore[misc]
    assert hash(s) == hash(LedState().with_point(5, "red"))
    assert s != LedState()


@pytest.mark.parametrize("bad", [
    lambda: Light("chartreuse"),
    lambda: Light("red", "strobe"),
    lambda: LedState().with_point(0, "red"),
    lambda: LedState().with_point(25, "red"),
    lambda: LedState().with_turn("left"),
    lambda: LedState().with_cube(3),
    lambda: LedState().with_cube(2, "middle"),
    lambda: LedState().with_status("panic"),
    lambda: LedState().with_brightness(300),
])
def test_invalid_states_raise_clear_errors(bad):
    with pytest.raises(LedStateError):
        bad()


def test_physical_point_mapping():
    assert physical_point(1, "bottom") == 1
    assert physical_point(1, "top") == 24
    assert physical_point(13, "top") == 12


def test_legal_destinations_include_intermediate_points_and_bear_off():
    pos = FakePosition([FakePlay((24, 18), (18, 15)), FakePlay((6, 0), (8, 5))])
    assert legal_destinations(pos, (6, 3)) == {18, 15, 0, 5}
    assert pos.asked == (6, 3)
    assert legal_destinations(pos, (6, 3), source=24) == {18, 15}
    assert legal_destinations(pos, (6, 3), source=8) == {5}
    assert legal_destinations(pos, (6, 3), source=13) == set()


def test_for_legal_destinations_maps_a_top_mover_to_physical_points():
    pos = FakePosition([FakePlay((24, 18)), FakePlay((3, 0))])
    bottom = LedState().for_legal_destinations(pos, (6, 3), mover="bottom")
    top = LedState().for_legal_destinations(pos, (6, 3), mover="top")
    assert set(bottom.lit_points()) == {18}
    assert bottom.trays[0] == Light("green", "on") and bottom.turn == "bottom"
    assert set(top.lit_points()) == {7}
    assert top.trays[1] == Light("green", "on") and top.turn == "top"


def test_for_legal_destinations_clears_old_points_but_keeps_cube_and_status():
    pos = FakePosition([FakePlay((13, 10))])
    old = LedState().with_point(1, "red").with_cube(4, "top").with_status("waiting")
    new = old.for_legal_destinations(pos, (3, 1))
    assert set(new.lit_points()) == {10}
    assert (new.cube_value, new.cube_owner, new.status) == (4, "top", "waiting")


def test_for_legal_destinations_rejects_bad_dice():
    with pytest.raises(LedStateError):
        LedState().for_legal_destinations(FakePosition([]), (7, 1))


def test_for_illegal_play_blinks_red_in_either_numbering():
    s = LedState().for_illegal_play([8, 5])
    assert s.lit_points() == {8: Light("red", "blink"), 5: Light("red", "blink")}
    t = LedState().for_illegal_play([25, 20, 0], mover="top")
    assert set(t.lit_points()) == {5}
    assert t.bar[1] == Light("red", "blink") and t.trays[1] == Light("red", "blink")


def test_with_real_rules_opening_roll():
    rules = pytest.importorskip("tablecompanion.rules")
    pos = rules.Position.initial()
    s = LedState().for_legal_destinations(pos, (6, 3))
    # opening 63 for the bottom player: from 24, 13, 8 and 6
    assert set(s.lit_points()) == {2, 3, 4, 5, 7, 10, 15, 18, 21}
