"""The reader on single pictures: an arm over the board marks what it can hide uncertain (and no arm marks
nothing), a die on a point is not a checker, dark checkers on dark points are seen."""

from __future__ import annotations

import functools

import cv2
import pytest

from tablecompanion.geometry import BoardGeometry
from tablecompanion.rules import Position
from tablecompanion.sim import Camera, Hand, Renderer, Scene
from tablecompanion.sim.scene import Die
from tablecompanion.vision.board_eval import truth_calibration
from tablecompanion.vision.board_reader import BoardReadError, read_board

cv2.setNumThreads(1)
MIDGAME = "4HPwATDgc/ABMA"


@functools.lru_cache(maxsize=None)
def _renderer(style: str, camera: str) -> Renderer:
    return Renderer(Camera.preset(camera), style, "right", True)


def _read(scene: Scene, style: str = "tournament", camera: str = "default", seed: int = 3):
    renderer = _renderer(style, camera)
    img, _ = renderer.render(scene, seed=seed)
    return read_board(img, truth_calibration(renderer))


def _wrong(reading, scene: Scene) -> list[int]:
    out = reading.to_json()["points"]
    return [p for p in range(1, 25)
            if (out[str(p)]["side"], out[str(p)]["count"]) != ((scene.points[p - 1][0] if scene.points[p - 1][1] else None),
                                                                scene.points[p - 1][1])]


@pytest.mark.parametrize("style", ["tournament", "classic", "leather"])
def test_no_arm_no_uncertain_points(style):
    scene = Scene.from_position(MIDGAME, dice=(6, 3), style=style)
    reading = _read(scene, style)
    assert reading.checkers.uncertain == []
    assert _wrong(reading, scene) == []


def test_an_arm_over_the_board_makes_the_points_it_hides_uncertain_not_wrong():
    arm = Hand("bottom", x=520.0, y=330.0, sleeve=(150, 60, 30), spread=0.7)
    scene = Scene.from_position(MIDGAME, dice=(6, 3), hands=(arm,))
    reading = _read(scene)
    uncertain = set(reading.checkers.uncertain)
    assert uncertain, "an arm across the bottom frame must mark points uncertain"
    assert uncertain <= set(range(1, 13))  # it came in over the bottom edge: the bottom row
    assert set(_wrong(reading, scene)) <= uncertain
    assert reading.to_json()["position_id"] is None


def test_dark_checkers_on_dark_points_and_a_die_on_a_point():
    """Classic board (black points, black checkers): the opening position's dark checkers on 1, 17 and 19
    sit on dark points; a die lies on the empty 4-point's base."""
    slot = BoardGeometry().checker_slots(4, 1)[0]
    scene = Scene.from_position(Position.initial(), style="classic", dice=(Die(5, x=slot.x, y=slot.y, pose_seed=1),))
    reading = _read(scene, "classic", "tilted")
    assert _wrong(reading, scene) == []
    assert reading.to_json()["position_id"] == Position.initial().position_id()


def test_unreadable_frames_raise_the_reader_error():
    with pytest.raises(BoardReadError):
        read_board(None)
    renderer = _renderer("tournament", "default")
    img, _ = renderer.render(Scene.from_position(MIDGAME, dice=()), seed=0)
    with pytest.raises(BoardReadError):
        read_board(cv2.resize(img, (640, 360)), truth_calibration(renderer))  # a profile for another size
