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


def test_a_window_mirrored_in_some_glossy_tops_loses_no_checker_of_that_side():
    """A bright window behind the far player, mirrored in the glossy tops of some dark checkers (steep camera):
    those read much lighter than the side's other checkers. The side's colour for telling strays was the
    median of its checkers ringed all round, most of them sheened, and the unsheened ones with part of the rim
    hidden were dropped as off-colour: piles of 4 and 3 read as empty, a 5 as 3."""
    from dataclasses import replace

    from tablecompanion.sim.scene import points_from_mapping

    mapping = {16: ("light", 2), 24: ("dark", 3), 4: ("dark", 1), 9: ("light", 2), 22: ("dark", 4), 15: ("dark", 5),
               11: ("dark", 2), 23: ("light", 3), 14: ("light", 1), 8: ("light", 4)}
    scene = Scene(points=points_from_mapping(mapping), style="classic")
    renderer = Renderer(replace(Camera.preset("steep"), window_glint=0.3), "classic", "right", True)
    img, _ = renderer.render(scene, seed=0)
    assert _wrong(read_board(img, truth_calibration(renderer)), scene) == []


def test_a_side_s_stray_is_told_by_every_colour_its_sure_checkers_show():
    """Strays (wood grain, a shadow's edge) are circles with a partial ring, off their side's colour. A side's
    checkers may show two colours (some sheened by a window): an unsure disc like either is kept, one like
    neither is dropped."""
    from tablecompanion.vision.checkers import CheckerConfig, Disc, drop_strays

    cfg = CheckerConfig()
    sure, unsure = cfg.ring_sure + 0.1, cfg.ring_sure - 0.15
    sheened = [Disc(0, i, 19, (88.0, 131.0, 132.0), "dark", ring=sure) for i in range(3)]
    plain = [Disc(50, i, 19, (47.0, 131.0, 131.0), "dark", ring=sure if i == 0 else unsure) for i in range(3)]
    grain = Disc(100, 0, 19, (150.0, 138.0, 165.0), "dark", ring=unsure)
    light = [Disc(200, i, 19, (225.0, 128.0, 135.0), "light", ring=sure) for i in range(2)]
    kept = drop_strays(sheened + plain + [grain] + light, cfg)
    assert grain not in kept and all(d in kept for d in sheened + plain + light)


def test_a_side_whose_sure_checkers_are_all_sheened_keeps_its_plain_ones():
    """A window mirrored in glossy tops: every dark checker ringed all round is sheened (the reflection
    sharpens the rim), the plain ones on dark points are ringed in part. A sheen is white light added, so a
    sheened colour lies on the way from the plain colour to white: the plain ones are the side's. Wood
    grain is not (white is not beyond the sheened grey from the wood), nor is light wood a light side's
    checker under a sheen (its cream lies too far along the way to white)."""
    from tablecompanion.vision.checkers import CheckerConfig, Disc, drop_strays

    cfg = CheckerConfig()
    sure, unsure = cfg.ring_sure + 0.1, cfg.ring_sure - 0.15
    sheened = [Disc(0, i, 19, (90.0 + 3 * i, 131.0, 132.0), "dark", ring=sure) for i in range(4)]
    plain = [Disc(50, i, 19, (47.0 + 3 * i, 131.0, 131.0), "dark", ring=unsure) for i in range(3)]
    grain = Disc(100, 0, 19, (150.0, 138.0, 165.0), "dark", ring=unsure)
    creams = [Disc(200, i, 19, (248.0, 128.0, 130.0), "light", ring=sure) for i in range(2)]
    cream = Disc(250, 0, 19, (228.0, 128.0, 134.0), "light", ring=unsure)
    light_wood = Disc(300, 0, 19, (180.0, 132.0, 150.0), "light", ring=unsure)
    kept = drop_strays(sheened + plain + [grain] + creams + [cream, light_wood], cfg)
    assert all(d in kept for d in sheened + plain + creams + [cream])
    assert grain not in kept and light_wood not in kept
    # brown leather near the way from a dark checker to white, but yellower: no sheen takes colour on
    # (tuning match 33, leather/tilted: a phantom fifth checker on a pile of four)
    plain_sure = [Disc(0, i, 19, (63.0, 135.0, 137.0), "dark", ring=sure) for i in range(4)]
    leather = Disc(100, 0, 19, (114.0, 136.0, 145.0), "dark", ring=unsure)
    assert leather not in drop_strays(plain_sure + [leather] + creams, cfg)


def test_unreadable_frames_raise_the_reader_error():
    with pytest.raises(BoardReadError):
        read_board(None)
    renderer = _renderer("tournament", "default")
    img, _ = renderer.render(Scene.from_position(MIDGAME, dice=()), seed=0)
    with pytest.raises(BoardReadError):
        read_board(cv2.resize(img, (640, 360)), truth_calibration(renderer))  # a profile for another size


@pytest.mark.parametrize("seed", [10, 11])
def test_the_back_checker_of_a_dark_pair_under_a_steep_camera_is_no_flat_board(seed):
    """Two dark checkers on the dark 1-point of the leather board, the camera steep (48 degrees): the front one
    hides part of the back one's rim (ring 0.69) and its face is the point's colour with little relief (2.7-5.7
    from one render's sensor noise to the next), which alone reads as flat board. One slot beyond a checker of
    its colour, in a slot no circle holds, it is that row's next checker (``checkers._next_in_row``)."""
    renderer = Renderer(Camera.preset("steep", width=1280, height=720, tilt_deg=48.0, window_glint=0.0), "leather",
                        "right", True)
    scene = Scene.from_position(Position.initial(), bottom="opponent", dice=(), style="leather")
    img, _ = renderer.render(scene, seed=seed)
    reading = read_board(img, truth_calibration(renderer))
    assert _wrong(reading, scene) == []


def test_a_circle_is_the_next_checker_of_a_row_only_in_a_free_slot_beyond_one_of_its_colour():
    from tablecompanion.vision.checkers import DEFAULT_CONFIG, Disc, _next_in_row

    geometry = BoardGeometry()
    slots = geometry.checker_slots(6, geometry.row_capacity())
    at = lambda k, side="dark", dx=0.0: Disc(slots[k].x + dx, slots[k].y, 21.0, (30.0, 0.0, 0.0), side)  # noqa: E731
    assert _next_in_row(at(1), [at(0)], geometry, DEFAULT_CONFIG)
    assert _next_in_row(at(1, dx=6.0), [at(0, dx=-6.0)], geometry, DEFAULT_CONFIG)  # found a little off their slots
    assert not _next_in_row(at(1), [at(0, "light")], geometry, DEFAULT_CONFIG)  # the row is the other side's
    assert not _next_in_row(at(1), [at(0), at(1)], geometry, DEFAULT_CONFIG)  # its slot is held
    assert not _next_in_row(at(2), [at(0)], geometry, DEFAULT_CONFIG)  # a slot left empty between
    assert not _next_in_row(at(0), [at(1)], geometry, DEFAULT_CONFIG)  # the edge's slot: nothing before it
    between = Disc((slots[1].x + slots[2].x) / 2, (slots[1].y + slots[2].y) / 2, 21.0, (30.0, 0.0, 0.0), "dark")
    assert not _next_in_row(between, [at(0), at(1)], geometry, DEFAULT_CONFIG)  # between slots: the board's
