"""What makes a render read as a webcam photo, checked where it could be false: the board stands on a lower
table (side wall, shadow), the frame's inner faces, the camera's processing applied the same to every part
of the picture, and all of it without moving anything off the calibration plane z = 0."""

from __future__ import annotations

import numpy as np
import pytest

from tablecompanion.rules.position import Position
from tablecompanion.sim import Camera, Die, Hand, Renderer, Scene
from tablecompanion.sim.board import TABLE_DEPTH_MM
from tablecompanion.sim.style import STYLES

QUIET = dict(width=640, height=360, noise=0.0, jpeg_quality=None)


@pytest.fixture(scope="module")
def tilted() -> Renderer:
    return Renderer(Camera.preset("tilted", **QUIET))


def _px(r: Renderer, x: float, y: float, z: float) -> tuple[int, int]:
    u, v = r.model.project(np.array([[x, y, z]]))[0]
    return int(round(u)), int(round(v))


def test_near_side_wall_shows_to_a_tilted_camera_and_not_from_above(tilted):
    s = tilted.spec
    # told apart by hue (red over blue), which shadows and shading leave alone: the frame's wood is much
    # redder than the table's
    frame = _hue(np.array(STYLES["tournament"].frame_colour, float))
    table = _hue(np.array(STYLES["tournament"].table_colour, float))
    assert frame > table + 0.8
    # the middle of the near side wall, half way down to the table
    u, v = _px(tilted, s.width / 2, s.height, TABLE_DEPTH_MM / 2)
    seen = _hue(tilted.albedo[v - 1:v + 2, u - 3:u + 4].reshape(-1, 3).mean(axis=0))
    assert abs(seen - frame) < abs(seen - table)
    # the wall lies between the board's near edge and the table: the table point under the edge is lower
    # in the picture than the edge itself
    assert _px(tilted, s.width / 2, s.height, TABLE_DEPTH_MM)[1] >= _px(tilted, s.width / 2, s.height, 0.0)[1] + 2
    # straight above the board no side wall faces the camera: just outside the outline is table
    top = Renderer(Camera.preset("top", **QUIET))
    u, v = _px(top, s.width / 2, s.height + 15, TABLE_DEPTH_MM)
    seen = _hue(top.albedo[v - 1:v + 2, u - 3:u + 4].reshape(-1, 3).mean(axis=0))
    assert abs(seen - table) < abs(seen - frame)


def _hue(bgr) -> float:
    return float(bgr[2]) / max(float(bgr[0]), 1.0)


def test_board_throws_its_shadow_on_the_table_away_from_the_lamp():
    cam = Camera.preset("top", **QUIET)
    r = Renderer(cam, markers=False)
    s = r.spec
    lx, ly, _ = cam.light_mm
    img, _ = r.render(Scene(cube=None, markers=False), seed=0)
    grey = img.astype(float).mean(axis=2)

    def strip(x0, x1, y0, y1):
        a, b = _px(r, x0, y0, TABLE_DEPTH_MM), _px(r, x1, y1, TABLE_DEPTH_MM)
        return grey[min(a[1], b[1]):max(a[1], b[1]) + 1, min(a[0], b[0]):max(a[0], b[0]) + 1].mean()

    # the lamp is above the board's top edge: the table just beyond the bottom edge lies in the board's
    # shadow, the table just beyond the top edge in the lamp's light (same distance from the edge)
    assert ly < s.height / 2
    x0, x1 = s.width * 0.3, s.width * 0.7
    near_lamp = strip(x0, x1, -30, -10)
    away = strip(x0, x1, s.height + 10, s.height + 30)
    assert away < 0.85 * near_lamp


def test_frame_inner_face_is_painted_only_where_the_camera_sees_it(tilted):
    """The far frame's inner face faces a camera behind the bottom player: a band of dark wood just inside
    the frame's far edge. The near frame's face turns away from it: the surface there is untouched."""
    s, geo = tilted.spec, tilted.geo
    x = (geo.half("right")[0] + geo.half("right")[2]) / 2
    far = tilted.albedo[_px(tilted, x, s.frame_width + 1.0, 0.0)[::-1]].astype(float)
    near = tilted.albedo[_px(tilted, x, s.height - s.frame_width - 1.0, 0.0)[::-1]].astype(float)
    assert far.sum() < near.sum() * 0.8
    top = Renderer(Camera.preset("top", **QUIET))
    band = top.albedo[_px(top, x, s.frame_width + 3.0, 0.0)[::-1]].astype(float)
    assert band.sum() > far.sum()  # from above the face is a sliver


def test_a_frame_is_developed_alike_wherever_something_was_drawn(tilted):
    """Dice and hands are drawn over the static layer each frame and only their rectangle is put through
    the camera's processing: away from them the picture is exactly the static board's."""
    base = Scene.from_position(Position.initial(), dice=())
    busy = base.replace(dice=(Die(6, pose_seed=1), Die(3, pose_seed=2)), hands=(Hand("bottom", 560, 380),))
    a, _ = tilted.render(base, seed=0)
    b, truth = tilted.render(busy, seed=0)
    diff = np.abs(a.astype(int) - b.astype(int)).sum(axis=2) > 0
    assert diff.any()
    ys, xs = np.nonzero(diff)
    # every changed pixel lies near a die, the hand or its shadow: nothing changes in the far top corner
    assert not diff[: int(0.25 * diff.shape[0]), : int(0.25 * diff.shape[1])].any()
    # and no seam: the changed region is no rectangle outline (its top row and side columns are mostly
    # unchanged; the arm runs out of the picture at the bottom)
    y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
    assert diff[y0, x0:x1 + 1].mean() < 0.5
    assert diff[y0:y1 + 1, x0].mean() < 0.5 and diff[y0:y1 + 1, x1].mean() < 0.5


def test_a_die_beyond_the_board_lies_on_the_table(tilted):
    geo = tilted.geo
    for seed in range(40):
        scene = Scene.from_position(Position.initial(), dice=(Die(4, "off-board", pose_seed=seed), Die(2)))
        _, truth = tilted.render(scene, seed=0)
        d = truth["dice"][0]
        x, y = d["board_mm"]
        if not (0 <= x <= geo.spec.width and 0 <= y <= geo.spec.height):
            break
    else:
        pytest.fail("no off-board die landed beyond the board in 40 seeds")
    top = np.array(_px(tilted, x, y, TABLE_DEPTH_MM - geo.spec.die_size), float)
    assert np.abs(np.array(d["top_centre_px"]) - top).max() < 1.5
    assert d["height_mm"] == 0.0 and not d["valid"]


def test_checkers_are_not_all_one_tone(tilted):
    scene = Scene.from_position(Position.initial(), dice=(), cube=None)
    img, _ = tilted.render(scene, seed=0)
    geo = tilted.geo
    t = geo.spec.checker_thickness
    tones = []
    for slot in geo.checker_slots(6, 5):  # five light checkers in a row on the bottom player's 6 point
        u, v = _px(tilted, slot.x, slot.y, -t)
        tones.append(img[v - 2:v + 3, u - 2:u + 3].reshape(-1, 3).mean(axis=0))
    spread = np.ptp(np.array(tones), axis=0).max()
    assert 1.0 < spread < 40


def _mirror_point(cam: Camera, renderer: Renderer) -> np.ndarray:
    """Where the board's top mirrors the lamp into the camera: the point on z = 0 on the line from the
    camera to the lamp's image under the board."""
    c = renderer.model.centre
    lx, ly, lh = cam.light_mm
    s = -c[2] / (-c[2] + lh)
    return np.array([[c[0] + (lx - c[0]) * s, c[1] + (ly - c[1]) * s, 0.0]])


def test_a_varnished_board_mirrors_the_lamp_where_nothing_covers_it():
    """Varnished wood shows the lamp as a pale patch round its mirror point; a matte finish, the felt of a
    tournament board and the paper markers show none, and a checker standing in the patch hides it."""
    from dataclasses import replace

    cam = Camera.preset("top", noise=0.0, jpeg_quality=None)
    matte = replace(STYLES["classic"], surface_gloss=0.0, frame_gloss=0.0)
    glossy_r, matte_r = Renderer(cam, "classic"), Renderer(cam, matte)
    mirror = _mirror_point(cam, glossy_r)
    point = glossy_r.geo.point_at(*mirror[0, :2])
    assert point is not None  # the top camera sees the lamp's image on a point, near the far edge
    scenes = [Scene(style="classic"), Scene(style="classic", points=tuple(
        ("dark", 5) if p == point else (None, 0) for p in range(1, 25)))]
    (bare, _), (bare_matte, _) = (r.render(scenes[0], seed=0) for r in (glossy_r, matte_r))
    x, y = np.round(glossy_r.model.project(mirror)[0]).astype(int)
    lift = bare.astype(int) - bare_matte.astype(int)
    assert lift[y - 3:y + 4, x - 3:x + 4].mean() > 15
    far = np.round(glossy_r.model.project(np.array([[60.0, glossy_r.spec.height - 60.0, 0.0]]))[0]).astype(int)
    assert abs(lift[far[1] - 3:far[1] + 4, far[0] - 3:far[0] + 4].mean()) < 3
    # a checker standing in the patch: its top is the same with and without the varnish under it
    (full, _), (full_matte, _) = (r.render(scenes[1], seed=0) for r in (glossy_r, matte_r))
    cx, cy, *_ = min(glossy_r.checker_places(scenes[1]), key=lambda c: np.hypot(c[0] - mirror[0, 0], c[1] - mirror[0, 1]))
    u, v = np.round(glossy_r.model.project(np.array([[cx, cy, -glossy_r.spec.checker_thickness]]))[0]).astype(int)
    assert abs((full.astype(int) - full_matte.astype(int))[v - 3:v + 4, u - 3:u + 4].mean()) < 2
    felt = Renderer(cam, "tournament")
    assert felt._varnish[y, x] == 0 and felt._varnish.max() > 0  # the felt is matte, its frame lacquered
    for marker_id in (0, 1, 2, 3):
        centre = np.mean(glossy_r.geo.marker_corners(marker_id), axis=0)
        u, v = np.round(glossy_r.model.project(np.array([[*centre, 0.0]]))[0]).astype(int)
        assert glossy_r._varnish[v, u] == 0


def test_glossy_tops_mirror_the_window_only_when_the_camera_looks_along_the_board():
    """The window in the wall beyond the top player: a steep camera sees it in the tops of the far
    checkers (brighter there than the same checkers without it, its glazing bar a darker band), the
    near checkers and a camera from straight above never."""
    scene = Scene.from_position(Position.initial(), dice=())
    lifts = {}
    for preset in ("steep", "top"):
        pics = []
        for weight in (0.0, 0.3):
            r = Renderer(Camera.preset(preset, window_glint=weight, **QUIET))
            pics.append(r.render(scene, seed=0)[0].astype(int))
        lift = (pics[1] - pics[0]).sum(axis=2)
        tops = {}
        for x, y, layer, *_ in r.checker_places(scene):
            u, v = _px(r, x, y, -(layer + 1) * r.spec.checker_thickness)
            if 0 <= u < 640 and 0 <= v < 360:
                tops[(x, y, layer)] = lift[v - 1:v + 2, u - 1:u + 2].mean()
        lifts[preset] = (tops, r)
    steep, r = lifts["steep"]
    far = [d for (x, y, _), d in steep.items() if y < r.spec.height / 2]
    near = [d for (x, y, _), d in steep.items() if y > r.spec.height / 2]
    assert max(far) > 20 and max(abs(d) for d in near) < 3
    assert max(abs(d) for d in lifts["top"][0].values()) < 3
