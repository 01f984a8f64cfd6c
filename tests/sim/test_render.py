"""Rendered frames: determinism, truth that matches the pixels, things drawn where geometry says."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecompanion.geometry import MARKER_IDS, BoardGeometry
from tablecompanion.rules.position import Position
from tablecompanion.sim import Camera, Die, Hand, Renderer, Scene, render_frame
from tablecompanion.sim.scene import points_from_mapping

EMPTY = Scene(cube=None)


def test_same_seed_same_bytes_different_seed_different_noise(small_camera):
    scene = Scene.from_position(Position.initial(), dice=(Die(6, pose_seed=1), Die(3, pose_seed=2)))
    a, ta = render_frame(scene, small_camera, seed=4)
    b, tb = render_frame(scene, small_camera, seed=4)
    c, tc = render_frame(scene, small_camera, seed=5)
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()
    # Pinned dice: only the noise differs, so the truth is the same and the pictures are close.
    assert ta["dice"] == tc["dice"]
    assert np.abs(a.astype(int) - c.astype(int)).mean() < 6


def test_frame_is_a_photo_not_a_diagram(small_camera):
    img, _ = render_frame(Scene.from_position(Position.initial()), small_camera, seed=1)
    assert img.dtype == np.uint8 and img.shape == (270, 480, 3)
    # Texture, gradient and noise: a felt patch is not one flat colour.
    patch = img[120:150, 330:360].astype(float)
    assert patch.std() > 1.5
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 5000


def test_truth_homography_and_markers_agree_with_geometry():
    cam = Camera(width=1280, height=720)
    img, truth = render_frame(Scene(markers=True), cam, seed=0)
    geo = BoardGeometry()
    H = np.array(truth["homography_image_to_board"])
    K, dist = np.array(truth["camera"]["K"]), np.array(truth["camera"]["dist"])
    for mid in MARKER_IDS.values():
        px = np.array(truth["markers"][str(mid)], np.float64).reshape(-1, 1, 2)
        und = cv2.undistortPoints(px, K, dist, P=K).reshape(-1, 2)
        mm = cv2.perspectiveTransform(und.reshape(-1, 1, 2), H).reshape(-1, 2)
        assert np.allclose(mm, np.array(geo.marker_corners(mid)), atol=0.05)
    # And a real detector finds the stickers where the truth says.
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for c, i in zip(corners, ids.ravel()):
        assert np.abs(c.reshape(4, 2) - np.array(truth["markers"][str(i)])).max() < 2.5


def test_no_markers_when_they_are_off(small_camera):
    img, truth = render_frame(Scene(markers=False), Camera(width=1280, height=720), seed=0)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    _, ids, _ = detector.detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert (ids is None or len(ids) == 0) and truth["markers"] is None  # OpenCV 5.1 says none with an empty array


@pytest.mark.parametrize("home", ["right", "left"])
def test_checkers_are_drawn_on_their_geometry_slots(home):
    cam = Camera(width=640, height=360, noise=0.0, jpeg_quality=None)
    r = Renderer(cam, home=home)
    geo = BoardGeometry(home=home)
    scene = Scene.from_position(Position.initial(), dice=(), home=home, cube=None)
    empty = Scene(home=home, cube=None)
    full, _ = r.render(scene, 0)
    bare, _ = r.render(empty, 0)
    diff = np.abs(full.astype(int) - bare.astype(int)).sum(axis=2)
    t = geo.spec.checker_thickness
    for p in range(1, 25):
        colour, count = scene.points[p - 1]
        slot = geo.checker_slots(p, 1)[0]
        u, v = r.model.project(np.array([[slot.x, slot.y, -t]]))[0]
        changed = diff[int(v) - 6:int(v) + 7, int(u) - 6:int(u) + 7].mean()
        if count:
            assert changed > 15, f"point {p}: no checker drawn at its slot"
        else:
            assert changed < 2, f"point {p}: something drawn on an empty point"


def test_a_pile_reads_as_a_pile(small_camera):
    cam = Camera(width=640, height=360, noise=0.0, jpeg_quality=None)
    r = Renderer(cam)
    five = Scene(points=points_from_mapping({6: ("light", 5)}), cube=None)
    seven = Scene(points=points_from_mapping({6: ("light", 7)}), cube=None)
    a, _ = r.render(five, 0)
    b, _ = r.render(seven, 0)
    slot = BoardGeometry().checker_slots(6, 7)[5]
    assert slot.layer == 1
    u, v = r.model.project(np.array([[slot.x, slot.y, -14.0]]))[0]
    region = (slice(int(v) - 20, int(v) + 20), slice(int(u) - 20, int(u) + 20))
    assert np.abs(a[region].astype(int) - b[region].astype(int)).mean() > 8


def test_flat_dice_are_valid_and_show_their_value(small_camera):
    for seed in range(4):
        scene = Scene.from_position(Position.initial(), dice=(5, 2))
        _, truth = render_frame(scene, small_camera, seed=seed)
        geo = BoardGeometry()
        rh = geo.right_hand_board("bottom")
        for d, value in zip(truth["dice"], (5, 2)):
            assert d["state"] == "flat" and d["valid"] and d["top_value"] == value
            assert d["tilt_deg"] < 1
            x, y = d["board_mm"]
            assert rh[0] <= x <= rh[2] and rh[1] <= y <= rh[3]


@pytest.mark.parametrize("state", ["cocked", "leaning-on-checker", "against-edge"])
def test_tilted_dice_show_side_faces_and_are_void(state):
    cam = Camera.preset("top", width=640, height=360)
    scene = Scene.from_position(Position.initial(), dice=(Die(4, state), Die(1)))
    _, truth = render_frame(scene, cam, seed=3)
    d = truth["dice"][0]
    assert not d["valid"] and d["state"] == state
    assert d["tilt_deg"] > 10
    assert len(d["visible_faces"]) >= 2
    assert d["top_value"] == 4


@pytest.mark.parametrize("state", ["wrong-half", "across-bar", "off-board"])
def test_misplaced_dice_lie_outside_the_right_hand_board(state, small_camera):
    scene = Scene.from_position(Position.initial(), dice=(Die(6, state), Die(2)))
    _, truth = render_frame(scene, small_camera, seed=2)
    d = truth["dice"][0]
    geo = BoardGeometry()
    x, y = d["board_mm"]
    rh = geo.right_hand_board("bottom")
    assert not d["valid"]
    assert not (rh[0] + 8 <= x <= rh[2] - 8 and rh[1] + 8 <= y <= rh[3] - 8)


def test_die_on_a_checker_rests_on_its_top(small_camera):
    scene = Scene.from_position(Position.initial(), dice=(Die(3, "on-checker"), Die(5)))
    _, truth = render_frame(scene, small_camera, seed=1)
    d = truth["dice"][0]
    assert d["height_mm"] >= 6.9 and not d["valid"]


def test_a_translucent_die_has_opaque_pips_a_tinted_body_and_its_far_pips_show_through():
    """Casino dice are clear acrylic with painted pips: the top's pips are as white as an opaque die's, the
    board seen through the body takes its colour, and the bottom face's pips show faintly through the top."""
    geo = BoardGeometry()
    cam = Camera.preset("top", width=2560, height=1440, noise=0.0, jpeg_quality=None, distortion=(0, 0, 0, 0, 0),
                        vignette=0.0)
    r = Renderer(cam)
    base = Scene.from_position(Position.initial(), dice=(), cube=None)
    rh = geo.right_hand_board("bottom")
    x, y, s = (rh[0] + rh[2]) / 2, geo.spec.height / 2 + 10, geo.spec.die_size  # on the bare surface
    img, truth = r.render(base.replace(dice=(Die(1, x=x, y=y, yaw=0, style="translucent"),)), 0)
    off = np.array(truth["dice"][0]["top_centre_px"]) - r.model.project(np.array([[x, y, s]]))[0]

    def at(u: float, v: float) -> np.ndarray:  # the frame's BGR at (u, v) die sides from the top's centre
        px = r.model.project(np.array([[x + u * s, y + v * s, s]]))[0] + off
        return img[int(round(px[1])), int(round(px[0]))].astype(int)

    assert at(0, 0).min() >= 200  # the 1's pip: paint, not half the board
    body = at(0.25, 0.25)
    assert body[2] > 2 * body[1]  # the green surface seen through red acrylic
    # the 6 underneath: two of these four places lie over one of its pips, two between its columns
    grey = sorted(int(at(u, v).sum()) for u, v in ((0.25, 0), (-0.25, 0), (0, 0.25), (0, -0.25)))
    assert grey[2] - grey[1] > 40


def test_die_outline_covers_changed_pixels():
    cam = Camera(width=640, height=360, noise=0.0, jpeg_quality=None)
    r = Renderer(cam)
    base = Scene.from_position(Position.initial(), dice=(), cube=None)
    with_die = base.replace(dice=(Die(6, x=560.0, y=275.0, yaw=20),))
    a, _ = r.render(base, 0)
    b, truth = r.render(with_die, 0)
    outline = np.array(truth["dice"][0]["outline_px"], np.float32)
    mask = np.zeros(a.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, outline.astype(np.int32), 1)
    diff = np.abs(a.astype(int) - b.astype(int)).sum(axis=2) > 60
    inside = diff[mask > 0].mean()
    assert inside > 0.6
    far = diff.copy()
    far[cv2.dilate(mask, np.ones((25, 25), np.uint8)) > 0] = False
    assert far.sum() == 0  # nothing but the die (and its shadow next to it) changed


def test_hand_mask_marks_the_hand(small_camera):
    cam = Camera(width=640, height=360, noise=0.0, jpeg_quality=None)
    r = Renderer(cam)
    base = Scene.from_position(Position.initial(), dice=(), cube=None)
    a, ta = r.render(base, 0)
    b, tb = r.render(base.replace(hands=(Hand("bottom", 560, 380, holding="light"),)), 0)
    assert ta["hand_mask"] is None
    mask = tb["hand_mask"]
    assert mask.dtype == bool and 0.01 < mask.mean() < 0.5
    diff = np.abs(a.astype(int) - b.astype(int)).sum(axis=2) > 30
    assert diff[mask].mean() > 0.7
    # The hand comes from the bottom player's edge.
    ys = np.nonzero(mask)[0]
    assert ys.max() >= mask.shape[0] - 2


def test_tilted_camera_changes_the_view_but_truth_follows():
    cam = Camera.preset("tilted", width=640, height=360)
    img, truth = render_frame(Scene.from_position(Position.initial()), cam, seed=0)
    H = np.array(truth["homography_image_to_board"])
    assert abs(H[2, 1]) > 1e-4  # real perspective, not an affine top view
    geo = BoardGeometry()
    K, dist = np.array(truth["camera"]["K"]), np.array(truth["camera"]["dist"])
    c = np.array(truth["dice"][0]["top_centre_px"], np.float64).reshape(1, 1, 2)
    und = cv2.undistortPoints(c, K, dist, P=K)
    x, y = cv2.perspectiveTransform(und, H).ravel()
    # The top of a 16 mm die seen at a tilt lands off its footprint, but within a die's size or so.
    bx, by = truth["dice"][0]["board_mm"]
    assert np.hypot(x - bx, y - by) < geo.spec.die_size * 1.5


def test_hand_mask_can_be_rebuilt_from_the_compact_truth():
    from tablecompanion.sim.hands import mask_from_truth

    cam = Camera(width=640, height=360)
    base = Scene.from_position(Position.initial(), dice=())
    _, truth = render_frame(base.replace(hands=(Hand("top", 300, 160, spread=0.8, elbow_mm=(60.0, 300.0)),)), cam, seed=0)
    rebuilt = mask_from_truth(truth["hands"], truth["camera"])
    drawn = truth["hand_mask"]
    iou = (rebuilt & drawn).sum() / (rebuilt | drawn).sum()
    assert iou > 0.98  # the same field draws the hand and rebuilds its mask: only the lens blur differs
    # the arm's angle is in the truth: the same hand from the default elbow covers other pixels
    default = mask_from_truth([{k: v for k, v in truth["hands"][0].items() if k != "elbow_mm"}], truth["camera"])
    assert (default & drawn).sum() / (default | drawn).sum() < 0.9


def test_a_left_hand_is_the_right_one_mirrored():
    """A left hand reaches with its forearm from its left and its thumb on its right: straight down over the
    board's centre line, it is the right hand's picture mirrored, and its truth rebuilds it."""
    from tablecompanion.sim.hands import mask_from_truth

    cam = Camera(width=640, height=360, tilt_deg=0.0, yaw_deg=0.0, distortion=(0.0,) * 5)
    base = Scene.from_position(Position.initial(), dice=())
    geo = BoardGeometry()
    x = geo.spec.width / 2
    masks = {}
    for left in (False, True):
        _, truth = render_frame(base.replace(hands=(Hand("bottom", x, 420.0, spread=0.6, left=left),)), cam, seed=0)
        assert truth["hands"][0]["hand"] == ("left" if left else "right")
        masks[left] = truth["hand_mask"]
        rebuilt = mask_from_truth(truth["hands"], truth["camera"])
        assert (rebuilt & masks[left]).sum() / (rebuilt | masks[left]).sum() > 0.98
    right, left = masks[False], masks[True]
    assert not (right == left).all()
    mirrored = right[:, ::-1]  # the board's centre line is the picture's middle column (up to half a pixel)
    best = max((np.roll(mirrored, k, axis=1) & left).sum() / (np.roll(mirrored, k, axis=1) | left).sum() for k in (-1, 0, 1))
    assert best > 0.95
    # the forearm leaves the picture on the hand's own side
    rows = slice(340, 360)
    cols = np.nonzero(left[rows].any(axis=0))[0]
    assert cols.mean() < 320 < np.nonzero(right[rows].any(axis=0))[0].mean()


@settings(max_examples=40, deadline=None)
@given(
    value=st.integers(1, 6),
    state=st.sampled_from(["flat", "cocked", "leaning-on-checker", "on-checker", "against-edge", "across-bar",
                           "wrong-half", "off-board"]),
    seed=st.integers(0, 10_000),
    bottom=st.sampled_from(["on_roll", "opponent"]),
)
def test_any_die_state_reads_its_value_and_only_flat_dice_are_valid(value, state, seed, bottom):
    cam = Camera(width=160, height=90, jpeg_quality=None)
    scene = Scene.from_position(Position.initial(), bottom=bottom, dice=(Die(value, state), Die(1)))
    _, truth = render_frame(scene, cam, seed=seed)
    d = truth["dice"][0]
    assert d["top_value"] == value
    assert d["valid"] == (state == "flat")
    assert truth["dice"][1]["valid"]
    if state in ("cocked", "leaning-on-checker", "against-edge"):
        assert d["tilt_deg"] > 10
    else:
        assert d["tilt_deg"] < 1


def test_a_passing_shadow_darkens_only_its_part_of_the_table():
    cam = Camera(width=320, height=180, noise=0.0, jpeg_quality=None)
    r = Renderer(cam)
    scene = Scene.from_position(Position.initial(), dice=())
    plain, _ = r.render(scene, 0)
    shaded, truth = r.render(scene, 0, shade=(300.0, 250.0, 120.0, 0.3))
    cx, cy = (int(v) for v in truth["shade"]["centre_px"])
    assert shaded[cy, cx].mean() < plain[cy, cx].mean() * 0.8
    assert (shaded[:, -10:] == plain[:, -10:]).all()  # far away: untouched


def test_shadow_schedule_is_deterministic_and_comes_and_goes():
    from tablecompanion.geometry import BoardSpec
    from tablecompanion.sim.footage_light import PassingShadows

    def run(seed):
        s = PassingShadows(seed, 30.0, BoardSpec())
        return [s.at(i) for i in range(30 * 90)]

    a, b = run(4), run(4)
    assert a == b
    on = [x is not None for x in a]
    assert any(on) and not all(on)
    assert max(x[3] for x in a if x) <= 0.3


@pytest.mark.parametrize("elbow", [(60.0, 280.0), (60.0, 480.0), (280.0, 480.0)])
def test_an_arm_reaching_from_under_a_steep_camera_renders(elbow):
    """A hand at the near edge whose forearm passes under (or behind) a steep camera: its far end and its
    shadow have no sane image, and once overflowed the renderer (footage of match 43, classic/steep)."""
    import warnings

    from tablecompanion.sim.hands import mask_from_truth

    cam = Camera.preset("steep", width=640, height=360)
    base = Scene.from_position(Position.initial(), dice=())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow in a cast is a bug here, not noise
        for y in (560.0, 620.0):
            img, truth = render_frame(base.replace(hands=(Hand("bottom", 100.0, y, height=76.0, elbow_mm=elbow),)), cam, seed=0)
            drawn = truth["hand_mask"]
            assert img.shape == (360, 640, 3) and drawn.any()
            rebuilt = mask_from_truth(truth["hands"], truth["camera"])
            assert (rebuilt & drawn).sum() / (rebuilt | drawn).sum() > 0.95


def _sleeve_and_forearm_widths(hand):
    """Widths (px) across the arm, straight down from above: the sleeve just past its cuff, the forearm
    just before it and at the wrist; and whether any sleeve pixel lies beyond the cuff's plane."""
    from tablecompanion.geometry import BoardSpec
    from tablecompanion.sim.hands import hand_capsules, hand_field, project_capsules

    cam = Camera(width=640, height=360, tilt_deg=0.0, yaw_deg=0.0, distortion=(0.0,) * 5)
    model = Renderer(cam).model
    ph = project_capsules(hand_capsules(hand, BoardSpec()), model.K, model.dist, model.R, model.t)
    i = ph.caps.kind.index("sleeve")
    arm = i - 1  # the forearm: the piece before the sleeve
    field = hand_field(ph, 0, 0, 640, 360, 1, shading=True)
    a, b = ph.a[i], ph.b[i]
    axis = (b - a) / np.linalg.norm(b - a)
    ys, xs = np.mgrid[0:360, 0:640]
    along = (xs - a[0]) * axis[0] + (ys - a[1]) * axis[1]
    across = (xs - a[0]) * -axis[1] + (ys - a[1]) * axis[0]

    def width(piece, at):
        band = (field.top == piece) & (np.abs(along - at) < 0.5)
        return float(np.ptp(across[band])) if band.any() else 0.0

    wrist_at = float(((ph.a[arm] - a) @ axis))
    return (width(i, 3.0), width(arm, -3.0), width(arm, wrist_at + 0.35 * (0.0 - wrist_at)),
            bool(((field.top == i) & (along < -0.5)).any()), float(ph.ra[i]))


def test_a_sleeve_ends_square_at_its_cuff_round_a_forearm_that_widens():
    """A rounded sleeve end read as a sausage: a cuff is cut square (its full width a few pixels past its
    edge, nothing of it beyond), and the forearm coming out of it is wider there than at the wrist."""
    sleeve, forearm, wrist, beyond, cuff_r = _sleeve_and_forearm_widths(Hand("bottom", 420.0, 120.0, spread=0.4))
    assert not beyond
    assert sleeve > 0.85 * 2 * cuff_r  # a round cap would be about 2 sqrt(2 r 3) wide here: far less
    assert wrist < forearm < sleeve


def test_each_finger_curls_on_its_own_and_the_truth_says_how():
    """A grab with the ring and little fingers curled more covers other pixels than the same grab with
    all four alike, and its truth rebuilds its own mask, not the alike one's."""
    from tablecompanion.sim.hands import mask_from_truth

    cam = Camera(width=640, height=360, tilt_deg=0.0, yaw_deg=0.0)
    base = Scene.from_position(Position.initial(), dice=())
    curled = Hand("bottom", 420.0, 200.0, spread=0.3, fingers=(0.0, 0.1, 0.8, 0.9))
    _, truth = render_frame(base.replace(hands=(curled,)), cam, seed=0)
    assert truth["hands"][0]["fingers"] == [0.0, 0.1, 0.8, 0.9]
    drawn = truth["hand_mask"]
    rebuilt = mask_from_truth(truth["hands"], truth["camera"])
    assert (rebuilt & drawn).sum() / (rebuilt | drawn).sum() > 0.98
    alike = mask_from_truth([{k: v for k, v in truth["hands"][0].items() if k != "fingers"}], truth["camera"])
    assert (alike ^ drawn).sum() > 30  # the two outer fingers lie elsewhere
    with pytest.raises(Exception, match="fingers"):
        Hand(fingers=(0.0, 0.0, 2.0, 0.0))


def test_a_held_checker_sits_between_the_thumb_and_the_fingertips():
    """Holding, the thumb grips the checker's near rim and the fingertips its far one: their tips lie about
    a checker's width apart, with the hand's (x, y), where the held checker is drawn, between them.
    Without a checker the fingertips are at the hand's (x, y) and the thumb closes in on them."""
    from tablecompanion.geometry import BoardSpec
    from tablecompanion.sim.hands import hand_capsules

    spec = BoardSpec()

    def tips(holding):
        caps = hand_capsules(Hand("bottom", 400.0, 300.0, spread=0.15, holding=holding), spec)
        end = {(int(d), int(j)): b[:2] for d, j, b in zip(caps.digit, caps.joint, caps.b)}
        return (end[(0, 3)] + end[(1, 3)]) / 2, end[(4, 3)]

    fingers, thumb = tips("light")
    span = np.linalg.norm(fingers - thumb)
    assert 0.75 * spec.checker_diameter < span < 1.1 * spec.checker_diameter
    assert np.linalg.norm((fingers + thumb) / 2 - (400.0, 300.0)) < 5.0
    fingers, thumb = tips(None)
    assert np.linalg.norm(fingers - (400.0, 300.0)) < 1.0  # the pinch: the fingertips at the hand's (x, y)
    assert np.linalg.norm(fingers - thumb) < span - 5.0


def _arm(hand):
    """(wrist, elbow, shoulder) of a hand's arm in world mm (z down), from its capsules."""
    from tablecompanion.geometry import BoardSpec
    from tablecompanion.sim.hands import SLEEVE, hand_capsules

    caps = hand_capsules(hand, BoardSpec())
    fore, upper = (i for i, kind in enumerate(caps.kind) if kind == SLEEVE)
    return caps.a[fore - 1], caps.b[fore], caps.a[upper], caps


@pytest.mark.parametrize("player, left", [("bottom", False), ("top", False), ("bottom", True)])
def test_a_near_reach_bends_the_elbow_out_and_a_far_one_leans_in_almost_straight(player, left):
    """The arm is two bones of fixed length: reaching near one's own edge bends it, the elbow out to the
    hand's own side and above the board; reaching across the board straightens it."""
    from tablecompanion.sim.hands import FOREARM_MM

    near_y, far_y = (470.0, 90.0) if player == "bottom" else (80.0, 460.0)

    def bend(y):
        wrist, elbow, _, caps = _arm(Hand(player, 400.0, y, left=left))
        fore = caps.b[-1] - elbow  # the upper arm's piece, from the elbow on past the shoulder
        a, b = elbow - wrist, fore
        assert abs(np.linalg.norm(a) - FOREARM_MM) < 8.0  # the forearm keeps its length (wrist taken 6 mm low)
        assert -elbow[2] >= 44.0  # never down on the board
        cos = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
        return np.degrees(np.arccos(np.clip(cos, -1, 1))), elbow, wrist

    near, elbow, wrist = bend(near_y)
    far, _, _ = bend(far_y)
    assert near > 50.0 and far < 32.0  # a far reach leaves the elbow a little bent (the arm at 97 % of its length)
    own_side = 1.0 if (player == "bottom") != left else -1.0  # a right hand's right, seen from its player
    assert (elbow[0] - wrist[0]) * own_side > 60.0


def test_the_bare_forearm_never_shows_through_the_sleeve_under_a_steep_camera():
    """The forearm's skin ends just inside the cuff: drawn on past it, its end showed as a bare patch in
    the middle of the sleeve wherever the arm rose towards a steep camera."""
    from tablecompanion.geometry import BoardSpec
    from tablecompanion.sim.hands import SLEEVE, field_block, hand_bbox, hand_capsules, hand_field, project_capsules

    cam = Camera.preset("steep", width=1280, height=720)
    model = Renderer(cam).model
    for hand in (Hand("bottom", 180.0, 120.0, elbow_mm=(160.0, 380.0)), Hand("top", 640.0, 430.0, elbow_mm=(100.0, 300.0)),
                 Hand("bottom", 300.0, 470.0, elbow_mm=(120.0, 330.0)), Hand("top", 560.0, 70.0, elbow_mm=(220.0, 420.0))):
        caps = hand_capsules(hand, BoardSpec())
        ph = project_capsules(caps, model.K, model.dist, model.R, model.t)
        x0, y0, x1, y1 = hand_bbox(ph, 1280, 720)
        k = field_block(ph)
        field = hand_field(ph, x0, y0, -(-(x1 - x0) // k), -(-(y1 - y0) // k), k, shading=True)
        forearm = caps.kind.index(SLEEVE) - 1
        sleeve = np.isin(field.top, [i for i, kind in enumerate(caps.kind) if kind == SLEEVE])
        assert sleeve.sum() > 200
        bare = (field.top == forearm) & (field.along > 0.9)  # the forearm where the sleeve covers it
        assert bare.sum() <= 2, (hand, int(bare.sum()))


@pytest.mark.parametrize("preset", ["top", "steep", "tilted"])
def test_a_sleeve_s_folds_run_round_the_arm(preset):
    """Folds are rings round the arm: the shading of their creases changes along the arm, hardly across
    it. Worked out on a grid three times coarser than the picture's, the narrow creases were caught by a
    sample here and there and the lamp drew a lattice of dimples over the sleeve (changing as much across
    the arm as along it)."""
    from tablecompanion.geometry import BoardSpec
    from tablecompanion.sim.hands import SLEEVE, field_block, hand_bbox, hand_capsules, hand_field, project_capsules

    renderer = Renderer(Camera.preset(preset, width=1280, height=720))
    model = renderer.model
    hands = (Hand("bottom", 420.0, 260.0, elbow_mm=(160.0, 380.0)), Hand("top", 640.0, 300.0, elbow_mm=(120.0, 330.0)))
    for hand in hands:
        caps = hand_capsules(hand, BoardSpec())
        ph = project_capsules(caps, model.K, model.dist, model.R, model.t)
        x0, y0, x1, y1 = hand_bbox(ph, 1280, 720)
        k = field_block(ph)
        gw, gh = -(-(x1 - x0) // k), -(-(y1 - y0) // k)
        field = hand_field(ph, x0, y0, gw, gh, k, shading=True)
        piece = caps.kind.index(SLEEVE)
        cloth = renderer._cloth(ph, field.top, x0, y0, gh, gw, k)
        d = ph.b[piece] - ph.a[piece]
        d = d / np.linalg.norm(d)
        gy, gx = np.gradient(cloth.crease)
        on = cv2.erode((field.top == piece).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0  # inside, off the outline
        assert on.sum() > 200
        along = np.abs(gx * d[0] + gy * d[1])[on].mean()
        across = np.abs(-gx * d[1] + gy * d[0])[on].mean()
        # rings bend a little and deepen and fade across the arm: 0.23-0.42 over four cameras and hands;
        # the coarse grid's dimples gave 0.84-1.29
        assert along > 0.01 and across < 0.55 * along, (hand, along, across)
