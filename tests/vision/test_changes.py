"""Where the board's picture changed between two readings (``vision.changes``), on simulator frames: a checker
put on a pile marks its point touched and leaves its neighbours looking as they did; light that changes
over part of the board, or over all of it, touches nothing."""

from __future__ import annotations

import functools

import cv2
import numpy as np

from tablecompanion.rules import Position
from tablecompanion.sim import Camera, Renderer, Scene
from tablecompanion.vision.board_eval import truth_calibration
from tablecompanion.vision.board_reader import read_board
from tablecompanion.vision.changes import point_changes, still_and_changed

cv2.setNumThreads(1)


@functools.lru_cache(maxsize=None)
def _renderer(style: str, camera: str) -> Renderer:
    return Renderer(Camera.preset(camera), style, "right", True)


def _two_piles() -> tuple[Position, Position]:
    """Match 50's O 6-5 (7/2 7/1) onto piles of 7 and 5 beside each other: before and after."""
    mover = [0] * 25
    mover[0], mover[1], mover[6] = 7, 5, 3
    opponent = [0] * 25
    opponent[5] = 15
    before = Position.from_board(mover, opponent)
    return before, before.parse_play("7/2 7/1", (6, 5)).result()


def _reading(position: Position, seed: int, style: str = "tournament", camera: str = "top", **render):
    renderer = _renderer(style, camera)
    scene = Scene.from_boards(position.on_roll, position.opponent, dice=(), style=style)
    img, _ = renderer.render(scene, seed=seed, **render)
    return read_board(img, truth_calibration(renderer))


def test_a_checker_put_on_a_pile_touches_its_point_and_no_other():
    before, after = _two_piles()
    a, b = _reading(before, 1), _reading(after, 2, gain=1.04)  # the camera's exposure drifted a little, too
    still, changed = still_and_changed(point_changes(a.picture, b.picture, a.calibration.geometry, a.px_per_mm))
    assert changed == {1, 2, 7}
    assert still == set(range(1, 25)) - {1, 2, 7}


def test_a_shadow_over_half_the_board_touches_nothing():
    before, _ = _two_piles()
    a = _reading(before, 1, style="classic", camera="tilted")
    b = _reading(before, 5, style="classic", camera="tilted", shade=(250.0, 300.0, 150.0, 0.3))
    shares = point_changes(a.picture, b.picture, a.calibration.geometry, a.px_per_mm)
    assert max(shares.values()) < 0.02
    assert point_changes(a.picture, b.picture[:-1], a.calibration.geometry, a.px_per_mm) == {}


def test_the_observation_carries_the_touched_points_in_the_movers_numbering():
    """O sits at the top: its 1- and 2-points are the bottom player's 24 and 23."""
    before, after = _two_piles()
    top = lambda p: Position.from_board(p.opponent, p.on_roll)  # noqa: E731 - the same board, bottom player on roll
    a, b = _reading(top(before), 1), _reading(top(after), 2)
    seen = b.observation("dark", "top", before=a, off_before=0)
    assert seen.changed == {1, 2, 7} and not seen.changed & seen.still
    assert {3, 4, 5, 6, 8} <= seen.still
    # without the picture before the turn, nothing is said
    alone = b.observation("dark", "top")
    assert alone.still == alone.changed == frozenset()
    # a picture of another size (another camera) is not compared
    b.picture = np.zeros((10, 10, 3), np.uint8)
    assert b.observation("dark", "top", before=a).changed == frozenset()
