"""Scenes from rules positions: the physical board must hold exactly the position's checkers."""

from __future__ import annotations

import random

import pytest

from tablecompanion.rules.position import Position
from tablecompanion.sim import Cube, Die, Hand, Scene, SimError
from tablecompanion.sim.scene import points_from_mapping


def _random_positions(n: int, seed: int = 5) -> list[Position]:
    rnd = random.Random(seed)
    out = []
    pos = Position.initial()
    for _ in range(n):
        dice = (rnd.randint(1, 6), rnd.randint(1, 6))
        plays = pos.legal_plays(dice)
        pos = pos.apply(rnd.choice(plays)) if plays else pos.swapped()
        out.append(pos)
    return out


@pytest.mark.parametrize("bottom", ["on_roll", "opponent"])
def test_from_position_round_trips_through_the_physical_board(bottom):
    for pos in _random_positions(60):
        scene = Scene.from_position(pos, bottom=bottom, dice=(3, 1))
        b, t = scene.boards()
        expected = (pos.on_roll, pos.opponent) if bottom == "on_roll" else (pos.opponent, pos.on_roll)
        assert (b, t) == (tuple(expected[0]), tuple(expected[1]))
        assert scene.roller == ("bottom" if bottom == "on_roll" else "top")
        on_table = sum(n for _, n in scene.points) + sum(n for _, n in scene.bar) + sum(n for _, n in scene.off)
        assert on_table == 30


def test_initial_position_puts_the_top_players_24_point_on_bottom_point_1():
    scene = Scene.from_position(Position.initial(), bottom_colour="dark")
    # The bottom player's back checkers sit on their 24 point; the top player's on bottom point 1.
    assert scene.points[23] == ("dark", 2)
    assert scene.points[0] == ("light", 2)
    assert scene.points[5] == ("dark", 5) and scene.points[18] == ("light", 5)


def test_position_id_is_accepted_and_bad_ids_are_a_sim_error():
    scene = Scene.from_position("4HPwATDgc/ABMA", dice=())
    assert scene.boards()[0] == tuple(Position.initial().on_roll)
    with pytest.raises(SimError, match="position ID"):
        Scene.from_position("not-an-id!!")


@pytest.mark.parametrize(
    "make",
    [
        lambda: Die(7),
        lambda: Die(3, state="floating"),
        lambda: Die(3, style="gold"),
        lambda: Cube(3),
        lambda: Hand(player="left"),
        lambda: Scene(points=points_from_mapping({1: ("light", 16)})),
        lambda: Scene.from_boards([2] + [0] * 24, [0] * 23 + [1, 0]),  # both on bottom point 1
        lambda: Scene(style="plastic"),
    ],
)
def test_bad_scene_input_is_a_readable_sim_error(make):
    with pytest.raises(SimError):
        make()
