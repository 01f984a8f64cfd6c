"""The board-aware roll reader on simulator renders: dice as what changed since the still board, values
from the top-face plane, and every void kind the rules know."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import calibrate_from_markers
from tablecompanion.rules.position import Position
from tablecompanion.sim import Camera, Die, Hand, Scene
from tablecompanion.sim.render import renderer_for
from tablecompanion.vision.dice import DiceReading
from tablecompanion.vision.roll_eval import checker_centres
from tablecompanion.vision.pip_grid import grid_read
from tablecompanion.vision.roll_reader import (
    DieSeen, RollReadError, RollReader, RollReaderConfig, RollReading, camera_from_homography, judge_dice, propose,
)


def _roll(dice, *, camera="default", hands=(), seed=3, home="right", config: RollReaderConfig | None = None):
    base = Scene.from_position(Position.initial(), dice=(), home=home)
    scene = replace(base, dice=tuple(dice), hands=tuple(hands))
    r = renderer_for(Camera.preset(camera), scene)
    ref, _ = r.render(base, seed=seed)
    img, truth = r.render(scene, seed=seed + 1)
    reader = RollReader(calibrate_from_markers(ref, home=home), config)
    reader.set_reference(ref, checker_centres(base))
    return reader, img, truth


def test_a_change_beyond_the_board_leaves_the_checkers_found_on_it():
    """Two views of the table that differ only beyond the board (an arm resting at the table's edge in
    one of them, as in the void footage's throw 3392, whose read-ahead searched for checkers again, 38 ms)
    show the same checkers: the checker search looks at the board alone. The same change on the board
    is a board changed."""
    from tablecompanion.vision.still_board import _masked_median

    base = Scene.from_position(Position.initial(), dice=())
    ref, _ = renderer_for(Camera.preset("default"), base).render(base, seed=3)
    reader = RollReader(calibrate_from_markers(ref))
    spec = reader.spec
    small = reader._small(ref)  # noqa: SLF001
    level = _masked_median(small, reader.search_mask)
    for (x, y), same in (((0.4 * spec.width, -45.0), True), ((0.3 * spec.width, 0.5 * spec.height), False)):
        arm = ref.copy()
        u, v = reader.calibration.board_to_image([(x, y)])[0]
        radius = int(round(reader.die_px_at(x, min(max(y, 0.0), spec.height))))  # about 3 die faces
        cv2.circle(arm, (int(round(u)), int(round(v))), radius, (40, 60, 90), -1)
        changed, _ = reader._changed(reader._small(arm), small, level)  # noqa: SLF001
        assert np.count_nonzero(changed) > 2 * reader._face_px_small  # noqa: SLF001 - in the search area
        assert reader._same_board(reader._small(arm), small, level) is same  # noqa: SLF001


def test_camera_model_from_the_homography_finds_the_simulated_camera():
    img, truth = None, None
    for preset in ("tilted", "steep"):
        base = Scene.from_position(Position.initial(), dice=())
        cam = Camera.preset(preset, distortion=(0.0,) * 5)
        img, truth = renderer_for(cam, base).render(base, seed=1)
        H = np.array(truth["homography_image_to_board"])
        model = camera_from_homography(H, (img.shape[1], img.shape[0]))
        f_true = truth["camera"]["K"][0][0]
        assert model.estimated_focal and abs(model.focal_px - f_true) / f_true < 0.03
        # a point 16 mm above the board projects where the true camera puts it
        K, R, t = (np.array(truth["camera"][k], float) for k in ("K", "R", "t"))
        p = np.array([700.0, 300.0, -16.0])
        true_px = K @ (R @ p + t.ravel())
        assert np.allclose(model.project(p[None])[0], true_px[:2] / true_px[2], atol=1.5)


def _in_open_space(reader, truth, clear_mm=40.0) -> bool:
    """Both dice clear of checkers, rails and each other: nothing they could lean on."""
    pts = [d["board_mm"][:2] for d in truth["dice"]]
    sx0, sy0, sx1, sy1 = reader.geometry.surface
    bx0, _, bx1, _ = reader.geometry.bar
    return all(min(math.dist(p, c) for c in reader.checkers_mm) > clear_mm and
               min(p[0] - sx0, sx1 - p[0], p[1] - sy0, sy1 - p[1], abs(p[0] - bx0), abs(p[0] - bx1)) > 15
               for p in pts) and math.dist(*pts) > 30


def _open_space_dice(a: int, b: int, config: RollReaderConfig | None = None):
    """The dice of the first throw of a-b that lands in open space (beside a checker it may be "unclear"),
    with the reader, frame and truth of that throw."""
    for k in range(10):
        dice = (Die(a, pose_seed=11 + k), Die(b, pose_seed=31 + k))
        reader, img, truth = _roll(dice, config=config)
        if _in_open_space(reader, truth):
            return dice, reader, img, truth
    pytest.fail("no throw in open space among the seeds tried")


def _open_space_roll(a: int, b: int):
    """The first throw of a-b that lands in open space: its reader, frame and truth."""
    return _open_space_dice(a, b)[1:]


def _rest_frames(dice, seed: int, n: int = 3):
    """``n`` more frames of the same throw at rest, each with its own sensor noise (as a camera gives them)."""
    base = Scene.from_position(Position.initial(), dice=(), home="right")
    scene = replace(base, dice=tuple(dice))
    r = renderer_for(Camera.preset("default"), scene)
    return [r.render(scene, seed=seed + 100 + i)[0] for i in range(n)]


def _with_colour_speck(img, centre, side, offset=0.85, radius=0.1):
    """``img`` with a small patch beside a die (``offset`` die sides right of its centre) tinted as no shading
    explains: what one frame's noise or a lamp's flicker band leaves beside a flat die."""
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.circle(mask, (int(round(centre[0] + offset * side)), int(round(centre[1]))), max(1, round(radius * side)), 255, -1)
    tinted = np.clip(img.astype(np.int16) + np.array([40, -40, 0], np.int16), 0, 255).astype(np.uint8)
    return np.where(mask[..., None] > 0, tinted, img)


def test_a_flat_die_s_body_is_looked_at_again_in_the_mean_of_its_rest():
    """Body beyond a flat die's outline in one frame only (noise, a flickering lamp's band) calls it tilted;
    the decision measures it again on the mean of the still frames the watcher hands over, where it fades.
    A tilted die's side face is in every frame, so its roll stays void. Measured without the tilt net, which
    since the thirty-fourth session may clear such a little body in one frame when it is sure the die is flat."""
    no_net = RollReaderConfig(tilt_net=None)
    dice, reader, img, truth = _open_space_dice(6, 3, no_net)
    first = reader.read(img, roller="bottom")
    assert first.verdict == "valid", first.reason
    die = first.dice[0]
    speck = _with_colour_speck(img, die.centre, die.reading.size)
    rest = _rest_frames(dice, seed=3)

    reader, _, _ = _roll(dice, config=no_net)
    alone = reader.read(speck, roller="bottom")
    assert alone.verdict == "void" and "body shows" in alone.reason  # one frame: tilted

    reader, _, _ = _roll(dice, config=no_net)
    reader.use_rest_frames([speck, *rest])
    looked_again = reader.read(speck, roller="bottom")
    assert looked_again.verdict == "valid", looked_again.reason
    assert sorted(looked_again.values) == sorted(first.values)
    again = next(d for d in looked_again.dice if math.dist(d.centre, die.centre) < 2)
    assert again.features["frames_averaged"] == 4
    assert again.features["beyond_mm2"] <= reader.config.second_look_flat_mm2
    assert again.features["beyond_one_frame_mm2"] > reader.config.max_beyond_area

    reader, _, _ = _roll(dice, config=no_net)
    reader.use_rest_frames([speck, img[:, ::-1].copy()])  # a frame of another view is no part of the rest
    assert reader.read(speck, roller="bottom").verdict == "void"

    tilted = (replace(dice[0], state="cocked"), dice[1])
    reader, img, truth = _roll(tilted, config=no_net)
    reader.use_rest_frames([img, *_rest_frames(tilted, seed=3)])
    assert reader.read(img, roller="bottom").verdict != "valid"


def test_the_second_look_asks_the_tilt_net_again_on_the_mean_of_the_rest():
    """The second look measures a die's body again on the mean of its still frames; the tilt net's word on
    that die is asked again there too, not carried over from the one frame (whose noise the mean removes).
    The net vouches for no die here (``tilt_net_flat`` 0), so the speck's die gets its second look."""
    config = RollReaderConfig(tilt_net_flat=0.0)
    dice, reader, img, truth = _open_space_dice(6, 3, config)
    die = reader.read(img, roller="bottom").dice[0]
    speck = _with_colour_speck(img, die.centre, die.reading.size)
    still = [speck, *_rest_frames(dice, seed=3)]

    reader, _, _ = _roll(dice, config=config)
    reader.use_rest_frames(still)
    reading = reader.read(speck, roller="bottom")
    assert reading.verdict == "valid", reading.reason
    again = next(d for d in reading.dice if math.dist(d.centre, die.centre) < 2)
    f = again.features
    assert f["frames_averaged"] == len(still) and "tilt_p_one_frame" in f
    mean = np.mean(np.stack(still), axis=0, dtype=np.float32).round().astype(np.uint8)
    on_mean = reader.tilt_net.p_tilted(reader.tilt_patch(mean, f["g_centre_mm"], f["face_turn"]))
    assert f["tilt_p"] == pytest.approx(on_mean, abs=1e-6)
    assert f["tilt_p"] != f["tilt_p_one_frame"]


def test_a_good_roll_is_valid_with_its_values():
    reader, img, truth = _open_space_roll(6, 3)
    rr = reader.read(img, roller="bottom")
    assert rr.verdict == "valid", rr.reason
    assert sorted(rr.values) == sorted(d["top_value"] for d in truth["dice"])
    for d in rr.dice:  # where it rests, within a few mm of the truth
        assert min(math.dist(d.board_mm, t["board_mm"][:2]) for t in truth["dice"]) < 4.0


@pytest.mark.parametrize("state,word", [("across-bar", "across the bar"), ("wrong-half", "wrong half"),
                                        ("off-board", "off the board")])
def test_misplaced_dice_void_the_roll(state, word):
    reader, img, _ = _roll((Die(5, state, pose_seed=21), Die(2, pose_seed=22)))
    rr = reader.read(img, roller="bottom")
    assert rr.verdict == "void" and word in rr.reason, rr.reason


def test_a_die_on_a_checker_is_cocked_and_never_given_a_value():
    reader, img, _ = _roll((Die(4, "on-checker", pose_seed=31), Die(1, pose_seed=32)))
    rr = reader.read(img, roller="bottom")
    assert rr.verdict == "void" and "resting on a checker" in rr.reason
    assert all(d.value is None for d in rr.dice if d.status != "flat")


@pytest.mark.parametrize("state", ["leaning-on-checker", "against-edge"])
def test_a_leaning_die_is_never_accepted(state):
    for k in range(3):
        reader, img, _ = _roll((Die(3, state, pose_seed=40 + k), Die(6, pose_seed=50 + k)), seed=k)
        rr = reader.read(img, roller="bottom")
        assert rr.verdict != "valid", (k, rr.reason)


def test_the_opening_roll_one_die_in_each_half():
    good = (Die(5, pose_seed=61, thrower="bottom"), Die(2, pose_seed=62, thrower="top"))
    reader, img, _ = _roll(good)
    rr = reader.read(img, opening=True)
    assert rr.verdict == "valid" and sorted(rr.values) == [2, 5]
    same = (Die(5, pose_seed=61, thrower="bottom"), Die(2, pose_seed=63, thrower="bottom"))
    reader, img, _ = _roll(same)
    rr = reader.read(img, opening=True)
    assert rr.verdict == "void" and "wrong half" in rr.reason


def test_a_hand_over_the_board_is_occlusion_not_a_roll():
    hand = Hand("bottom", x=700, y=300, height=60, spread=0.8)
    reader, img, _ = _roll((Die(6, pose_seed=71), Die(3, pose_seed=72)), hands=(hand,))
    rr = reader.read(img)
    assert rr.occluded and rr.verdict == "unclear" and rr.dice == ()


def test_the_still_board_again_is_no_roll():
    reader, img, _ = _roll(())
    rr = reader.read(img)
    assert rr.dice == () and rr.verdict == "void" and "only 0" in rr.reason


def test_bad_input_gives_clear_errors():
    reader, img, _ = _roll(())
    with pytest.raises(RollReadError, match="recalibrate"):
        reader.read(cv2.resize(img, (640, 360)))
    fresh = RollReader(reader.calibration)
    with pytest.raises(RollReadError, match="reference"):
        fresh.read(img)
    with pytest.raises(RollReadError):
        RollReader(None)


def _face(value: int, turn: float, side: int = 48, body=(235, 235, 235), pip=(25, 25, 25)) -> np.ndarray:
    img = np.full((side * 3, side * 3, 3), (60, 120, 60), np.uint8)
    c = side * 1.5
    t = math.radians(turn)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    sq = (np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]) @ rot.T * side + c).astype(np.int32)
    cv2.fillConvexPoly(img, sq, body)
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
             5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)], 6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
    for i, j in spots[value]:
        x, y = (np.array([i, j]) * 0.25 * side) @ rot.T + c
        cv2.circle(img, (int(round(x)), int(round(y))), int(0.085 * side), pip, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (3, 3), 0)


@pytest.mark.parametrize("value", range(1, 7))
def test_grid_reader_reads_every_face_at_any_turn(value):
    for turn, colours in ((0, {}), (33, {"body": (40, 30, 180), "pip": (240, 240, 240)}), (71, {})):
        g = grid_read(_face(value, turn, **colours), 48.0)
        assert g is not None and g.value == value, (value, turn, g)


DATA = __import__("pathlib").Path(__file__).parent / "data"


def test_grid_reader_reads_a_six_a_steep_camera_blurs():
    """A red 6 far from the steep camera, resampled onto its top plane (a crop the reader made): its pip
    columns blur to half a pip's response between the pips, and it is still a 6, not "no face"."""
    crop = cv2.imread(str(DATA / "steep-red-six-top-plane.png"))
    box = (46.8, 42.6, 94.8, 90.6)  # where the reader looked for the face's centre
    g = grid_read(crop, 48.0, centre_box=box)
    assert g is not None and g.value == 6 and g.margin > 50
    assert grid_read(crop, 48.0, centre_box=box, mid_ratio=0.5) is None  # the old threshold missed it


def test_a_translucent_four_is_read_with_the_die_reader_s_face_tolerance():
    """A translucent red 4 on its top plane (a crop the reader made: seed 0, case 72): the body seen
    through shades the blank places unevenly (32.4 Lab apart, over a clear face's 32), so the 4 was "no
    face" and a 5 whose middle pip place holds no pip at all (response 0) was read in its stead."""
    crop = cv2.imread(str(DATA / "translucent-four-top-plane.png"))
    box = (54.3, 51.1, 102.3, 99.1)
    config = RollReaderConfig()
    g = grid_read(crop, 48.0, centre_box=box, face_tol=config.loose_face_tol)
    assert g is not None and g.value == 4 and g.margin >= config.grid_min_margin
    assert config.face_tol < g.face_spread <= config.loose_face_tol
    strict = grid_read(crop, 48.0, centre_box=box, face_tol=config.face_tol)
    assert strict is not None and strict.value == 5 and strict.pip_contrast == 0.0  # the old answer


def test_a_face_no_stronger_than_the_caller_takes_is_not_searched_for():
    """``grid_read(min_pip_contrast=...)`` skips the search where no response within the lattice's reach
    is that strong (the reference under most dice: 157 of 161 looks for a picked-up die's ghost on seed 0).
    A face whose weakest pip is exactly that strong must still be found: the reach covers its pips."""
    from tablecompanion.vision.pip_grid import pip_response

    crop = cv2.imread(str(DATA / "translucent-four-top-plane.png"))
    box, tol = (54.3, 51.1, 102.3, 99.1), RollReaderConfig().loose_face_tol
    g = grid_read(crop, 48.0, centre_box=box, face_tol=tol)
    assert g is not None and g.value == 4 and g.pip_contrast > 0
    assert grid_read(crop, 48.0, centre_box=box, face_tol=tol, min_pip_contrast=g.pip_contrast) == g
    L, C = pip_response(crop, 0.17 * 48.0)
    strongest = max(float((np.maximum(p * L, 0) + 0.5 * C * (p * L > 2)).max()) for p in (-1.0, 1.0))
    assert g.pip_contrast < strongest
    assert grid_read(crop, 48.0, centre_box=box, face_tol=tol, min_pip_contrast=strongest + 0.01) is None
    # a small box in the crop's corner, the die out of reach: nothing there is as strong as its pips
    corner = (14.4, 14.4, 20.0, 20.0)
    far = grid_read(crop, 48.0, centre_box=corner, face_tol=tol)
    assert far is None or far.pip_contrast < g.pip_contrast
    assert grid_read(crop, 48.0, centre_box=corner, face_tol=tol, min_pip_contrast=g.pip_contrast) is None


def test_the_face_patterns_sums_are_each_patterns_pips():
    """``_pattern_sums`` spells the patterns out as shared corner pairs: each of its rows must be the sum
    over that pattern's pip places in ``FACE_PATTERNS``, in ``_PATTERNS``' order."""
    from tablecompanion.vision.pip_grid import _PATTERNS, FACE_PATTERNS, _pattern_sums

    assert [p for _, p in _PATTERNS] == [p for variants in FACE_PATTERNS.values() for p in variants]
    on = np.random.default_rng(4).random((9, 50)).astype(np.float32)
    sums = _pattern_sums(on, np.empty((len(_PATTERNS), 50), np.float32))
    for row, (_, places) in zip(sums, _PATTERNS):
        assert np.allclose(row, on[list(places)].sum(axis=0), atol=1e-5)


@pytest.mark.parametrize("shift", [(0.0, 12.0), (-9.0, 7.0), (30.0, -30.0)])
def test_two_boxes_scanned_as_one_read_as_each_alone(shift):
    """``grid_reads`` scans overlapping boxes of one crop once (the per-photo reader's centre and the box
    beyond it, away from the camera): each box's face is the one ``grid_read`` finds in it alone with the
    first box's pip threshold, the scores the same but for rounding."""
    from dataclasses import asdict

    from tablecompanion.vision.pip_grid import GridLook, grid_reads

    crop = cv2.imread(str(DATA / "translucent-four-top-plane.png"))
    first = (54.3, 51.1, 102.3, 99.1)
    beyond = (first[0] + shift[0], first[1] + shift[1], first[2] + shift[0], first[3] + shift[1])
    looks = [GridLook(centre_box=first, face_tol=48.0, alternatives_within=0.6),
             GridLook(centre_box=beyond, face_tol=32.0, exclude=((78.0, 75.0, 5.0),))]
    together = grid_reads(crop, 48.0, looks)
    alone = [grid_read(crop, 48.0, **asdict(looks[0])), grid_read(crop, 48.0, tau_box=first, **asdict(looks[1]))]
    assert together[0] is not None
    for a, b in zip(together, alone):
        assert (a is None) == (b is None)
        if a is not None:
            assert (a.value, a.centre, a.turn_deg, len(a.alternatives)) == (b.value, b.centre, b.turn_deg, len(b.alternatives))
            assert a.score == pytest.approx(b.score, abs=1e-3) and a.margin == pytest.approx(b.margin, abs=1e-3)


def _read_case(seed: int, index: int, *configs: dict, kind: str | None = None):
    """A roll_eval case (its kind changed to ``kind``), rendered once and read with the default settings
    changed by each of ``configs`` (the defaults alone when none): the case, its truth, the readings.
    Rendered as the cases were found, in a room without a window (the simulator mirrors one by default
    since the twentieth session, which changes the steep camera's cases: seed 5's case 98 then reads 3-5
    even with the check its test is about turned off)."""
    from tablecompanion.vision.roll_eval import make_cases, render_case

    case = make_cases(index + 1, seed)[index]
    if kind is not None:
        case = replace(case, kind=kind)
    ref, img, truth, scene = render_case(case, window_glint=0.0)
    readings = []
    for config in configs or ({},):
        reader = RollReader(calibrate_from_markers(ref, home=scene.home), replace(RollReaderConfig(), **config))
        reader.set_reference(ref, checker_centres(scene))
        readings.append(reader.read(img, roller=scene.roller, opening=case.kind == "opening"))
    return case, truth, readings


def _die_at(rr, truth_die) -> DieSeen:
    return min(rr.dice, key=lambda d: math.dist(d.centre, truth_die["top_centre_px"]))


def test_an_uneven_face_on_a_die_not_quite_flat_is_unclear():
    """A white 1 tilted 22 degrees (seed 11, case 29 of the tilted set): its lattice straddles its top and
    a side face (blank places 34 Lab apart), and its body leaves 2.75 mm^2 beyond a flat die's outline,
    under the tilt test's 4. Read with the loose face tolerance it would be accepted; an uneven face must
    have a flat die's outline. (Since the thirty-sixth session the tilt net calls it first: measured without.)"""
    no_net = {"tilt_net_cocked": 2.0, "tilt_net_unsure": 2.0}
    _, truth, (rr, loose, with_net) = _read_case(11, 29, no_net, {**no_net, "loose_face_beyond": math.inf}, {},
                                                 kind="cocked")
    assert [d["state"] for d in truth["dice"]] == ["cocked", "flat"]
    assert rr.verdict != "valid", rr.reason
    tilted = _die_at(rr, truth["dice"][0])
    assert tilted.value is None and tilted.reason.startswith("uneven face")
    assert loose.verdict == "valid"  # what the rule stops
    assert _die_at(with_net, truth["dice"][0]).reason == "tilted (the tilt net sees it so)"


def test_a_face_read_only_with_the_loose_tolerance_is_no_rival_of_a_clear_face():
    """A white 1 from above (seed 3, case 228): its clear face (blank places 2 Lab apart) beats a "2" of its
    pip and a side face's pip (blank places 44 apart, read only with the translucent dice's tolerance) by
    3: counted as a rival, that 2 leaves the 1 unsure (measured without the later rule for a face another
    outscores, which takes the 1 for the outline it alone explains)."""
    _, _, (rr, rivals) = _read_case(3, 228, {}, {"loose_rivals": True, "rival_face_outline": False})
    assert rr.verdict == "valid" and sorted(rr.values) == [1, 6], rr.reason
    assert rivals.verdict == "unclear"


def test_a_face_sure_only_without_its_loose_rival_needs_a_flat_die_s_outline():
    """A white 1 tilted in open space (seed 11, case 143 of the tilted set) leaves 3.25 mm^2 of body beyond
    a flat die's outline, under the tilt test's 4. Its clear 1 is sure only because a "2" beside it (read
    with the loose tolerance) is no rival; then the outline must be a flat die's within 1 mm^2."""
    _, truth, (rr,) = _read_case(11, 143, {"tilt_net_cocked": 2.0, "tilt_net_unsure": 2.0}, kind="cocked")  # the net would call it first
    assert [d["state"] for d in truth["dice"]] == ["cocked", "flat"]
    assert rr.verdict != "valid", rr.reason
    tilted = _die_at(rr, truth["dice"][0])
    assert tilted.value is None and tilted.reason.startswith("another face read beside it")
    config = RollReaderConfig()
    assert config.loose_face_beyond < tilted.features["beyond_mm2"] <= config.max_beyond_area


@pytest.mark.parametrize("seed, index, values, side", [(0, 160, (6, 2), 3), (0, 216, (1, 6), 4)])
def test_the_top_beyond_a_side_face_both_readers_read(seed, index, values, side):
    """From the steep camera both readers read a flat die by its side face (a red 6's side 3, a white 1's
    side 4): that face's outline leaves the top beyond it, and the die was "tilted". The clear face beyond
    it, whose flat outline holds the side face and the whole die, is the top. (The 6 of case 216 lies
    13.6 mm from the far rail, within the rail's reach since 2026-11-25's ninth session: the reach is the one
    before, so that the test is of the faces. Since the twenty-sixth session the first look finds both tops
    beyond the per-photo reader's centre, ``hyp_top_shift``, off here for the same reason.)"""
    reach = {"rail_touch_mm": 0.7, "hyp_top_shift": 0.0}
    _, truth, (rr, old) = _read_case(seed, index, reach, {"top_beyond_side": False, **reach})
    assert all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "valid" and sorted(rr.values) == sorted(values), rr.reason
    assert [d.features["side_face_read"][0] for d in rr.dice if "side_face_read" in d.features] == [side]
    assert old.verdict == "void" and "tilted" in old.reason


def test_the_top_beyond_a_side_face_passes_the_tilt_test_any_flat_die_passes():
    """A red 6 under the steep camera (seed 1, case 214) read by its side face, a 3, whose outline leaves 84 mm^2
    of the die beyond it. The clear 6 beyond it (margin 190) holds the die within 3.25 mm^2: under the tilt
    test's 4, over the 1 mm^2 the rule first asked for, when the roll was void. (The first look now finds
    the 6 beyond the per-photo reader's centre, ``hyp_top_shift``: off here, so that the test is of this rule.)"""
    first = {"hyp_top_shift": 0.0}
    _, truth, (rr, strict) = _read_case(1, 214, first, {"top_beyond_explains": 1.0, **first})
    assert all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "valid" and sorted(rr.values) == [5, 6], rr.reason
    six = next(d for d in rr.dice if d.value == 6)
    assert six.features["side_face_read"][0] == 3
    assert 1.0 < six.features["beyond_mm2"] <= RollReaderConfig().max_beyond_area
    assert strict.verdict == "void" and "tilted" in strict.reason


@pytest.mark.parametrize("seed, index, camera, values, before", [
    (2, 266, "steep", [4, 5], "void"),  # the 5 read by a side face: "its body shows"
    (1, 89, "tilted", [1, 5], "unclear"),  # the 5's top beyond the box: no face sure there, "unreadable"
])
def test_the_top_is_looked_for_beyond_the_per_photo_readers_centre(seed, index, camera, values, before):
    """The per-photo reader centres a die on all it sees of it, its side faces too: from a tilted or
    steep camera the top lies beyond that centre, away from the camera, and the grid reader looked for
    it only within half a side of it. A clear face found as far again beyond, scoring higher than what
    the first look found, is the top."""
    # the code before; the later rule that a face read alone has pips alike is off too (it makes the first
    # case's 5 unclear, not void), and so is the rule for a face another outscores (which reads the second
    # case's 5 from the far look's faces as well); the tilt net's unsure band off in both (seed 1's 89 is a flat
    # 5 the net scores 0.54, put to the players since the fortieth session, with the values read here)
    unsure_off = {"tilt_net_unsure": 2.0}
    case, truth, (rr, off) = _read_case(seed, index, unsure_off, {"hyp_top_shift": 0.0, "grid_even_pips": 0.0,
                                                                  "rival_face_outline": False, **unsure_off})
    assert case.preset == camera and all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "valid" and sorted(rr.values) == values, rr.reason
    assert off.verdict == before, off.reason


def test_two_dice_lying_close_under_the_steep_camera_are_read_from_one_blob():
    """Two translucent dice side by side under the steep camera (seed 0, case 154): each die's change is
    stretched by its height seen at 40 degrees, and together they are one blob 41.4 mm across its short side.
    Under the limit before (2.4 die sides, 38.4 mm) the blob was no dice at all and the roll was void, "only
    0 of 2 dice seen"; a moved checker is wider still (next test)."""
    case, truth, (rr, before) = _read_case(0, 154, {}, {"max_blob_short": 2.4})
    assert case.preset == "steep" and all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "valid" and sorted(rr.values) == [1, 5], rr.reason
    assert before.verdict == "void" and before.reason.startswith("only 0 of 2 dice seen")


@pytest.mark.parametrize("camera", ["top", "steep"])
def test_a_checker_moved_onto_an_empty_point_is_wider_than_any_pair_of_dice(camera):
    """The blob limits keep a moved checker out of the dice: 13/11 13/7 from the opening position puts two
    checkers on empty points, each a change 2.9-3.1 die sides across every way (46-50 mm with its shadow,
    under any camera), clear of the short-side limit (2.65 sides, 42.4 mm) that two dice lying close fit
    under. Nothing there is read as a die."""
    pos = Position.initial()
    play = next(p for p in pos.legal_plays((6, 2)) if str(p) == "13/11 13/7")
    base = Scene.from_position(pos, dice=())
    r = renderer_for(Camera.preset(camera), base)
    ref, _ = r.render(base, seed=3)
    img, _ = r.render(Scene.from_position(pos.apply(play), dice=()), seed=4)
    reader = RollReader(calibrate_from_markers(ref))
    reader.set_reference(ref, checker_centres(base))
    limit = reader.config.max_blob_short * reader.spec.die_size
    discs = [b for b in reader.changed_blobs(img)[0] if b["side_mm"] < 3.5 * reader.spec.die_size]
    assert len(discs) == 2
    assert all(b["short_mm"] > limit + 3.0 for b in discs), [b["short_mm"] for b in discs]
    assert reader.read(img).dice == ()


@pytest.mark.parametrize("seed, index, values", [(2, 102, (4, 3)), (1, 101, (5, 3))])
def test_a_die_s_side_face_is_not_a_third_die(seed, index, values):
    """Seen from the steep camera, a die's side face stretched onto the top-face plane lies more than a
    side from its top; the per-photo reader took it for a die (seed 2, case 102: a red die on varnished
    wood; seed 0's case 270 until the board's varnish mirrored the lamp), or a black
    die's top and side face on a dark point changed the board as two blobs (seed 1, case 101). The roll
    was "3 dice seen". Within a read die's flat outline no other die can rest: it is a side face."""
    case, truth, (rr, old) = _read_case(seed, index, {}, {"drop_side_faces": False})
    assert case.preset == "steep" and all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "valid" and sorted(rr.values) == sorted(values), rr.reason
    assert old.verdict == "unclear" and old.reason == "3 dice seen, expected 2: re-roll"


@pytest.mark.parametrize("angle", [0, 30, 45, 60])
def test_a_line_lit_all_along_is_no_row_of_pips(angle):
    """A triangle's tip or an inlay: pip-like all along, and lit between its "pips"."""
    img = np.full((144, 144, 3), (40, 60, 90), np.uint8)
    t = math.radians(angle)
    ends = [(int(72 + s * 100 * math.cos(t)), int(72 + s * 100 * math.sin(t))) for s in (-1, 1)]
    cv2.line(img, ends[0], ends[1], (200, 220, 230), 6, cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (3, 3), 0)
    assert grid_read(img, 48.0, mid_ratio=1.5).value == 3  # without the test it would be a 3
    g = grid_read(img, 48.0)
    assert g is None or g.value != 3


@pytest.mark.parametrize("angle", [0, 30, 45, 60, 90])
def test_a_line_along_the_camera_s_view_is_no_row_of_pips(angle):
    """The gap between two pips may keep more of their response along a steep camera's view, which blurs
    them together; a line lit all along keeps all of it, and a triangle's tip lies along that view."""
    t = math.radians(angle)
    for width in (4, 6, 8):
        for blur in (0.8, 2.0, 3.0):
            img = np.full((144, 144, 3), (40, 60, 90), np.uint8)
            ends = [(int(72 + s * 100 * math.cos(t)), int(72 + s * 100 * math.sin(t))) for s in (-1, 1)]
            cv2.line(img, ends[0], ends[1], (200, 220, 230), width, cv2.LINE_AA)
            img = cv2.GaussianBlur(img, (0, 0), blur)
            g = grid_read(img, 48.0, view=(math.cos(t), math.sin(t), 1.2))
            assert g is None or g.value != 3, (width, blur, g)


def _blurred_along_x(img: np.ndarray, stretch: float, blur: float) -> np.ndarray:
    """``img`` as the top plane shows a picture taken at an angle: the camera's blur ``stretch`` times wider
    along x (the view's direction) than across it."""
    h, w = img.shape[:2]
    small = cv2.GaussianBlur(cv2.resize(img, (int(round(w / stretch)), h), interpolation=cv2.INTER_AREA), (0, 0), blur)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def test_a_six_whose_rows_the_view_blurs_together_is_still_a_six():
    """A 6 turned so that its rows of three lie along the camera's view, seen 48 degrees from straight down:
    the blur, stretched along the view on the top plane, lights the gaps between a row's pips (0.6-1.07 of
    the weakest pip on the steep camera's renders), and the 6 was no face. Told the view, the grid reader
    allows for it along the view and only there."""
    img = _blurred_along_x(_face(6, 90), 1.5, 2.0)
    depth = math.sqrt(1.5 ** 2 - 1)
    assert grid_read(img, 48.0) is None
    g = grid_read(img, 48.0, view=(1.0, 0.0, depth))
    assert g is not None and g.value == 6 and g.margin > 50
    across = grid_read(img, 48.0, view=(0.0, 1.0, depth))  # a view across the rows explains no lit gap
    assert across is None or across.value != 6


def test_a_six_under_the_steep_camera_is_read():
    """Seed 5, case 155: a white 6 under the steep camera, its rows along the view; without the view's
    blur allowed for, "unreadable"."""
    _, truth, (rr, before) = _read_case(5, 155, {}, {"view_blur": False})
    assert sorted(d["top_value"] for d in truth["dice"]) == [1, 6] and all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "valid" and sorted(rr.values) == [1, 6], rr.reason
    assert before.verdict == "unclear" and None in before.values


@pytest.mark.parametrize("seed, index", [(0, 100), (1, 156)])
def test_a_1_a_rival_outscores_is_read_when_only_its_outline_holds_the_die(seed, index):
    """A black 1 (seed 0, case 100) and a white one (seed 1, case 156) under the steep camera: a top pip and
    a side face's make a "2" that outscores the 1 (found by the look beyond, away from the camera, or as a
    rival), so neither was read. The 2's blank places straddle the top and a side face (14-46 Lab apart)
    and its outline leaves more of the die's body beyond it than the tilt test allows a flat die; the 1's
    holds it whole: the die is a 1."""
    _, truth, (rr, before) = _read_case(seed, index, {}, {"rival_face_outline": False})
    assert all(d["valid"] for d in truth["dice"]) and 1 in [d["top_value"] for d in truth["dice"]]
    assert rr.verdict == "valid" and sorted(rr.values) == sorted(d["top_value"] for d in truth["dice"]), rr.reason
    assert [d.value for d in rr.dice if "rival_face_over" in d.features] == [1]
    assert before.verdict == "unclear" and None in before.values


def test_a_side_pip_beside_a_1_seen_from_nearly_above_is_a_tilted_die_s():
    """Seed 11, case 229 of the tilted set: a white 1 tilted 20 degrees under the top camera, its rival "2" (a
    top pip and a side face's, blank places 22 Lab apart) leaving 6.5 mm^2 beyond its outline. From nearly
    above (0.3 of a side seen down a flat die's side) a flat die shows no side face's pip, so that "2" may be
    the top and the 1 is not taken; where such faces are excused everywhere, the roll is accepted."""
    _, truth, (rr, loose) = _read_case(11, 229, {}, {"side_pip_depth": 0.0, "tilt_net_cocked": 2.0, "tilt_net_unsure": 2.0}, kind="cocked")
    assert not all(d["valid"] for d in truth["dice"])
    assert rr.verdict != "valid"
    assert loose.verdict == "valid"


def test_a_black_2_neither_reader_takes_is_not_read_as_a_1():
    """Held-out seed 6, case 266: a black 2 on a dark point under the steep camera, which neither reader
    takes (the grid reader's 1, on one of its pips, leads the 2 by 1.3). Its flat outline leaves 10 mm^2
    of body beyond it on that board, the 1's none: a version that gave such a change's faces to the outline
    rules read the roll as 6-1. The change stays a die left unread."""
    _, truth, (rr,) = _read_case(6, 266)
    assert sorted(d["top_value"] for d in truth["dice"]) == [2, 6] and all(d["valid"] for d in truth["dice"])
    assert 1 not in rr.values
    assert rr.verdict != "valid" or sorted(rr.values) == [2, 6]


def test_a_2_with_a_dim_pip_is_not_read_as_a_1_on_its_other_pip():
    """Seed 0, case 214: a white 2 under the steep camera, one pip dim (50 against 101), so not a clear face,
    and a clear "1" on its bright pip; both outlines hold the die. Its blank places are even (3 Lab apart)
    and the per-photo reader read it as a 2: it may be the top, so the die is not taken for a 1 (a first
    version of the rule, which left out every face that is not clear, accepted the roll as 4-1)."""
    _, truth, (rr,) = _read_case(0, 214)
    assert sorted(d["top_value"] for d in truth["dice"]) == [2, 4]
    assert rr.verdict != "valid" or sorted(rr.values) == [2, 4]
    assert 1 not in rr.values


def test_a_side_face_pip_beside_a_1_does_not_make_it_a_2():
    """Seen from the side, a flat 1 shows a side face's pips beside its top. A top pip and a side pip
    make a "2" that outscores the 1; the 2's outline leaves the die's top beyond it, the 1's holds the die
    whole: the die is a 1 (the simulator's case 89 of seed 0: two white 1s, the tilted camera)."""
    _, truth, (rr, strict) = _read_case(0, 89, {}, {"outline_explains": -1.0})
    assert [d["top_value"] for d in truth["dice"]] == [1, 1] and all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "valid" and rr.values == (1, 1), rr.reason
    chosen = [d.features["outline_over"] for d in rr.dice if "outline_over" in d.features]
    assert chosen and all(face == 2 and over > RollReaderConfig().max_beyond_area for face, over in chosen)
    # without the outline's say the readers disagree (1 and 2: asked again) or the 2 stands and its outline
    # shows body beyond it (void: tilted)
    assert strict.verdict in ("unclear", "void")


@pytest.mark.parametrize("index", [158, 227, 310])
def test_a_1_whose_rivals_are_side_faces_is_read(index):
    """A 1 seen at an angle (seed 0: steep leather, top classic, tilted leather): its pip and a side face's
    make a "2" or "3" that comes close to the 1's score, so the grid reader's 1 lacks its margin and the die
    was left unread. With the 1 on top a flat die's outline holds the whole body, with each rival on top the
    body lies beyond it: the die is a 1. (The rule for a face the grid reader did not rank first reads these
    too, so both are off for the die left unread.)"""
    _, truth, (rr, before) = _read_case(0, index, {}, {"weak_face_outline": False, "rival_face_outline": False})
    assert all(d["valid"] for d in truth["dice"]) and 1 in [d["top_value"] for d in truth["dice"]]
    assert rr.verdict == "valid" and sorted(rr.values) == sorted(d["top_value"] for d in truth["dice"]), rr.reason
    taken = [d for d in rr.dice if "weak_face_over" in d.features]
    assert [d.value for d in taken] == [1]
    assert before.verdict == "unclear" and None in before.values


@pytest.mark.parametrize("seed, index, kind", [(0, 245, None), (11, 161, "cocked"), (11, 229, "cocked")])
def test_a_cocked_die_with_a_weak_face_gets_no_value(seed, index, kind):
    """The same rule gives no tilted die a value (seed 0 case 245: a red 1 read flat beside a cocked die).
    Seed 11's two were taken by its first version: a red die tilted 28 degrees whose uneven face read as a 1
    (blank places 45 apart), and a white 1 tilted 20 degrees under the top camera whose rival "2" left only
    6.5 mm^2 beyond its outline; now a face must be clear and each rival leave more than 8 mm^2."""
    _, truth, (rr, loose) = _read_case(seed, index, {}, {"face_tol": 48.0, "weak_rival_beyond": 4.0, "tilt_net_cocked": 2.0, "tilt_net_unsure": 2.0},
                                      kind=kind)
    assert not all(d["valid"] for d in truth["dice"])
    assert rr.verdict != "valid"
    cocked = next(d for d in truth["dice"] if not d["valid"])
    assert _die_at(rr, cocked).value is None
    if kind:  # with uneven faces allowed and rivals beyond 4 mm^2, as the first version had, it is accepted
        assert loose.verdict == "valid"


def test_a_faint_side_pip_agreed_on_by_both_readers_is_no_pip_of_the_top():
    """Seed 9 case 143: a black 1 beside a checker under the tilted camera. Its pip and a side face's faint
    one (contrast 23) make a "2" that both readers read on the rectified crop, and the roll was accepted as
    5-2. Agreeing needs the same pip contrast as the grid reader alone (25) now: the die is not read as a 2.
    It was asked again until the thirty-second session; now the rule for a face another outscores reads it
    as the 1 whose outline alone holds the die. (The body model, since the thirty-first session, also finds
    the side face beyond a flat 2's outline: the rule is measured without it.)"""
    _, truth, (rr, before) = _read_case(9, 143, {}, {"grid_agree_contrast": 15.0, "body_model": None,
                                                         "tilt_net_cocked": 2.0, "tilt_net_unsure": 2.0})
    assert sorted(d["top_value"] for d in truth["dice"]) == [1, 5] and all(d["valid"] for d in truth["dice"])
    assert before.verdict == "valid" and sorted(before.values) == [2, 5]
    assert 2 not in rr.values and (rr.verdict != "valid" or sorted(rr.values) == [1, 5]), rr.reason


def test_grid_reader_sees_no_face_on_plain_felt():
    felt = np.full((144, 144, 3), (60, 120, 60), np.uint8)
    g = grid_read(felt, 48.0)
    assert g is None or g.pip_contrast < 15


def test_judge_dice_void_before_unclear_and_unclear_before_valid():
    def die(value, status="flat", placement="ok", reason=""):
        return DieSeen(value, status, placement, (0.0, 0.0), (0.0, 0.0), 1.0, reason)

    assert judge_dice([die(6), die(3)]) == ("valid", "6-3")
    assert judge_dice([die(None, "unclear"), die(3)])[0] == "unclear"
    assert judge_dice([die(None, "unclear"), die(3, placement="wrong half")])[0] == "void"
    assert judge_dice([die(None, "cocked", reason="resting on a checker"), die(3)])[1] == \
        "die 1 cocked (resting on a checker)"
    assert judge_dice([die(6)])[0] == "void"
    reading = DieSeen(4, "cocked", "ok", (1.0, 2.0), (0.0, 0.0), 0.9, "tilted",
                      DiceReading(4, (1.0, 2.0), (), 0.9, "flat")).as_reading()
    assert reading.value is None and reading.status == "cocked"


# -- reading ahead and what is no arrival (the latency work: benchmarks/bench_roll.py) ---------------------
def _table(camera="default", seed=3):
    """A renderer, the empty board's scene and its reference frame, and a reader knowing the checkers."""
    base = Scene.from_position(Position.initial(), dice=())
    r = renderer_for(Camera.preset(camera), base)
    ref, _ = r.render(base, seed=seed)
    reader = RollReader(calibrate_from_markers(ref))
    reader.set_reference(ref, checker_centres(base))
    return r, base, ref, reader


def _count_reads(monkeypatch, reader) -> list:
    calls: list = []
    real = reader._read
    monkeypatch.setattr(reader, "_read", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_a_read_ahead_answers_the_read_when_nothing_moved_since(monkeypatch):
    r, base, ref, reader = _table()
    scene = replace(base, dice=(Die(5, pose_seed=81), Die(2, pose_seed=82)))
    img, _ = r.render(scene, seed=4)
    later, _ = r.render(scene, seed=5)  # the next quiet frame: the same dice, other sensor noise
    calls = _count_reads(monkeypatch, reader)
    reader.prefetch(img)
    assert len(calls) == 1 and reader.last is None  # read, not delivered
    reader.set_reference(ref)  # the watcher's hook again with the same frame: the read-ahead is kept
    rr = reader.read(later)
    assert len(calls) == 1 and reader.last is rr
    fresh = RollReader(reader.calibration)
    fresh.set_reference(ref, checker_centres(base))
    assert rr == fresh.read(img)


def test_a_read_ahead_is_dropped_when_a_die_moved_or_the_reference_changed(monkeypatch):
    r, base, ref, reader = _table()
    img, _ = r.render(replace(base, dice=(Die(5, pose_seed=81), Die(2, pose_seed=82))), seed=4)
    moved, _ = r.render(replace(base, dice=(Die(5, pose_seed=83), Die(2, pose_seed=82))), seed=5)
    calls = _count_reads(monkeypatch, reader)
    reader.prefetch(img)
    rr = reader.read(moved)  # a die rolled on after the read-ahead: the frame is read again
    assert len(calls) == 2
    fresh = RollReader(reader.calibration)
    fresh.set_reference(ref, checker_centres(base))
    assert rr == fresh.read(moved)
    reader.prefetch(img)
    reader.set_reference(ref.copy(), checker_centres(base))  # another reference: the read-ahead is stale
    reader.read(img)
    assert len(calls) == 4
    reader.prefetch(img)
    reader.read(img, roller="top")  # asked for another roller than read ahead
    assert len(calls) == 6


def _spy_grid(monkeypatch) -> list:
    """Counts the roll reader's pip-grid searches (its own and its outline checks')."""
    import tablecompanion.vision.outline_faces as faces_mod
    import tablecompanion.vision.roll_reader as rr_mod

    calls: list = []
    real = rr_mod.grid_read
    for mod in (rr_mod, faces_mod):
        monkeypatch.setattr(mod, "grid_read", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_dice_picked_up_after_the_reference_are_not_searched_again(monkeypatch):
    """A re-throw often starts before the table is still again, so the board before it still shows the
    last throw's dice: where they lay the frame changed, but nothing arrived there."""
    r, base, ref, reader = _table()
    first = replace(base, dice=(Die(5, pose_seed=81), Die(2, pose_seed=82)))
    second = replace(base, dice=(Die(6, pose_seed=91), Die(1, pose_seed=92)))
    img1, t1 = r.render(first, seed=4)
    img2, t2 = r.render(second, seed=5)
    rr1 = reader.read(img1)
    assert len(rr1.dice) == 2
    reader.set_reference(img1, checker_centres(base))  # the board before the re-throw: the old dice on it
    grids = _spy_grid(monkeypatch)
    rr2 = reader.read(img2)
    with_history = len(grids)
    fresh = RollReader(reader.calibration)  # the same read without knowing where the last dice lay
    fresh.set_reference(img1, checker_centres(base))
    rr_fresh = fresh.read(img2)
    assert with_history < len(grids) - with_history
    assert rr2.verdict == rr_fresh.verdict and rr2.values == rr_fresh.values
    old = [d["board_mm"][:2] for d in t1["dice"]]
    assert all(min(math.dist(d.board_mm, p) for p in old) > 12 for d in rr2.dice
               if min(math.dist(d.board_mm, q["board_mm"][:2]) for q in t2["dice"]) > 12)


def test_a_die_landing_where_the_last_one_lay_is_still_read():
    r, base, ref, reader = _table()
    img1, t1 = r.render(replace(base, dice=(Die(5, pose_seed=81), Die(2, pose_seed=82))), seed=4)
    rr1 = reader.read(img1)
    assert len(rr1.dice) == 2
    x, y = t1["dice"][0]["board_mm"][:2]
    x += 10.0  # overlapping the old die's place (exactly on it, the two faces differ only at a few pips)
    img2, t2 = r.render(replace(base, dice=(Die(3, x=x, y=y, pose_seed=93), Die(6, pose_seed=94))), seed=5)
    reader.set_reference(img1, checker_centres(base))
    rr2 = reader.read(img2)
    fresh = RollReader(reader.calibration)
    fresh.set_reference(img1, checker_centres(base))
    assert (rr2.verdict, rr2.values) == (lambda f: (f.verdict, f.values))(fresh.read(img2))
    assert any(math.dist(d.board_mm, (x, y)) < 8 for d in rr2.dice)


def test_a_change_an_earlier_still_view_already_showed_is_not_searched(monkeypatch):
    """The runner's empty-table view after the pick-up is fresher than the board before the throw's motion
    when the play ran into the throw: what changed between the two (a checker pushed aside, here a
    die-sized spot) changed before the throw and is not searched for a die face."""
    r, base, ref, reader = _table()
    scene = replace(base, dice=(Die(5, pose_seed=81), Die(2, pose_seed=82)))
    img, _ = r.render(scene, seed=7)
    empty_after, _ = r.render(base, seed=6)
    x, y = (float(v) for v in reader.calibration.board_to_image([(560.0, 250.0)])[0])
    for frame in (img, empty_after):  # something die-sized arrived before the throw, and stays
        cv2.circle(frame, (int(x), int(y)), 9, (40, 60, 140), -1, cv2.LINE_AA)
    reader.set_reference(empty_after)  # the runner's view after the pick-up
    reader.set_reference(ref, checker_centres(base))  # the board before the throw's motion (older)
    grids = _spy_grid(monkeypatch)
    rr = reader.read(img)
    with_view = len(grids)
    fresh = RollReader(reader.calibration)
    fresh.set_reference(ref, checker_centres(base))
    rr_fresh = fresh.read(img)
    without = len(grids) - with_view
    assert with_view < without
    assert (rr.verdict, rr.values) == (rr_fresh.verdict, rr_fresh.values)
    # once a read is delivered the views before it are forgotten: the spot is searched again
    reader.set_reference(ref.copy(), checker_centres(base))
    before = len(grids)
    reader.read(img)
    assert len(grids) - before == without


def test_a_checker_moved_before_the_throw_is_not_searched_whatever_its_size(monkeypatch):
    """The same for a change larger than a die: a checker the play moved, three die sides across, that the
    earlier still view already shows. It used to be searched all over for a die the per-photo reader had
    missed (60-70 ms of the read on the demo footage); with the earlier view it is not searched at all."""
    r, base, ref, reader = _table()
    scene = replace(base, dice=(Die(5, pose_seed=81), Die(2, pose_seed=82)))
    img, _ = r.render(scene, seed=7)
    empty_after, _ = r.render(base, seed=6)
    x, y = (float(v) for v in reader.calibration.board_to_image([(560.0, 250.0)])[0])
    d = reader.die_px_at(560.0, 250.0)
    for frame in (img, empty_after):  # what shows of a red checker moved on a red point: part of its rim
        cv2.ellipse(frame, (int(x), int(y)), (int(1.7 * d), int(0.9 * d)), 20, 0, 360, (40, 60, 140), -1, cv2.LINE_AA)
    reader.set_reference(empty_after)
    reader.set_reference(ref, checker_centres(base))
    grids = _spy_grid(monkeypatch)
    rr = reader.read(img)
    with_view = len(grids)
    fresh = RollReader(reader.calibration)
    fresh.set_reference(ref, checker_centres(base))
    big = [b for b in fresh.changed_blobs(img)[0] if b["side_mm"] > 3 * fresh.spec.die_size]
    assert big, "the moved checker should be one changed blob over three die sides long"
    rr_fresh = fresh.read(img)
    assert with_view < len(grids) - with_view
    assert (rr.verdict, sorted(rr.values)) == (rr_fresh.verdict, sorted(rr_fresh.values)) == ("valid", [2, 5])


def test_checkers_are_found_once_per_board(monkeypatch):
    """References come every few quiet frames; the checker search runs again only when the board changed
    (dice arriving or leaving do not change where the checkers stand)."""
    base = Scene.from_position(Position.initial(), dice=())
    r = renderer_for(Camera.preset("default"), base)
    frames = [r.render(base, seed=s)[0] for s in (1, 2)]
    with_dice, _ = r.render(replace(base, dice=(Die(5, pose_seed=81), Die(2, pose_seed=82))), seed=3)
    played = Scene.from_position(Position.initial().apply(Position.initial().parse_play("13/7 8/7", (6, 1))), dice=())
    after_play, _ = r.render(played, seed=4)
    reader = RollReader(calibrate_from_markers(frames[0]))
    finds: list = []
    real = reader._find_checkers
    monkeypatch.setattr(reader, "_find_checkers", lambda f: finds.append(1) or real(f))
    reader.set_reference(frames[0])
    first = reader.checkers_mm.copy()
    assert len(finds) == 1 and len(first) >= 20  # 30 checkers, piles partly hidden
    assert len(reader.read(with_dice).dice) == 2
    for frame in (frames[1], with_dice):  # the same board: other sensor noise; the last throw's dice on it
        reader.set_reference(frame)
        assert len(finds) == 1 and np.array_equal(reader.checkers_mm, first)
    reader.set_reference(after_play)  # a checker was moved: found again
    assert len(finds) == 2
    seven = [p for p in reader.checkers_mm if min(math.dist(p, q) for q in first) > 20]
    assert seven, "the checkers on the 7 point are new"
    reader.set_reference(frames[1])  # back to the first board (an undo): remembered
    assert len(finds) == 2 and np.array_equal(reader.checkers_mm, first)


def test_checkers_learned_ahead_serve_a_later_reference_of_the_same_board(monkeypatch):
    """``learn_checkers`` (the camera pipeline, when a throw starts while the last dice still lie) finds a
    board's checkers without making it the reference: the reference given later, once those dice are seen
    picked up, finds them at once instead of on the roll's read-ahead."""
    base = Scene.from_position(Position.initial(), dice=())
    played = Scene.from_position(Position.initial().apply(Position.initial().parse_play("13/7 8/7", (6, 1))), dice=())
    r = renderer_for(Camera.preset("default"), base)
    ref, _ = r.render(base, seed=1)
    with_old_dice, _ = r.render(replace(played, dice=(Die(6, pose_seed=81), Die(1, pose_seed=82))), seed=2)
    after_play, _ = r.render(played, seed=3)
    reader = RollReader(calibrate_from_markers(ref))
    reader.set_reference(ref)
    finds: list = []
    real = reader._find_checkers
    monkeypatch.setattr(reader, "_find_checkers", lambda f: finds.append(1) or real(f))
    assert len(reader.read(with_old_dice).dice) == 2  # the last roll, read: its dice lie on the new board
    reader.learn_checkers(with_old_dice)
    assert len(finds) == 1 and reader.reference is not None
    assert not np.array_equal(reader.reference, reader._small(with_old_dice))  # the reference is unchanged
    reader.set_reference(after_play)  # the same board, the dice gone: no search
    assert len(finds) == 1
    fresh = RollReader(reader.calibration)
    fresh.set_reference(after_play)
    assert len(fresh.checkers_mm) == len(reader.checkers_mm)
    assert max(min(math.dist(p, q) for q in fresh.checkers_mm) for p in reader.checkers_mm) < 5.0  # Hough steps


def test_a_board_learned_ahead_serves_only_a_reference_of_the_same_board_and_evicts_none(monkeypatch):
    """``learn_ahead`` (the watcher, while the dice of a throw that ran into the last play still roll) finds
    the checkers of the board that play left, kept apart from the boards known: a reference of that board
    then finds them at once (not on the read-ahead); a board learned that the reference does not show (made
    too early) costs a search at the reference as before; and the boards known stay known."""
    start = Position.initial()
    base = Scene.from_position(start, dice=())
    played = Scene.from_position(start.apply(start.parse_play("13/7 8/7", (6, 1))), dice=())
    # a board the reference will not show: one checker of the play elsewhere (as a board made before the
    # play's last checker had stood still would be)
    other = Scene.from_position(start.apply(start.parse_play("13/7 6/5", (6, 1))), dice=())
    r = renderer_for(Camera.preset("default"), base)
    ref, _ = r.render(base, seed=1)
    reader = RollReader(calibrate_from_markers(ref))
    finds: list = []
    real = reader._find_checkers
    monkeypatch.setattr(reader, "_find_checkers", lambda f: finds.append(1) or real(f))
    reader.set_reference(ref)
    known = list(reader._checker_boards)
    reader.learn_ahead(r.render(played, seed=2)[0])
    assert len(finds) == 2 and reader.reference is not None and reader._checker_boards == known
    reader.learn_ahead(r.render(played, seed=3)[0])  # the same board again (other noise): no search
    reader.learn_ahead(r.render(base, seed=4)[0])  # a board known: no search
    assert len(finds) == 2
    reader.set_reference(r.render(base, seed=5)[0])  # the board before the motion, handed over again
    assert len(finds) == 2
    reader.set_reference(r.render(played, seed=6)[0])  # the reference at the read-ahead: found at once
    assert len(finds) == 2
    fresh = RollReader(reader.calibration)
    fresh.set_reference(r.render(played, seed=6)[0])
    assert len(fresh.checkers_mm) == len(reader.checkers_mm)
    assert max(min(math.dist(p, q) for q in fresh.checkers_mm) for p in reader.checkers_mm) < 5.0
    early = RollReader(reader.calibration)
    early_finds: list = []
    real_early = early._find_checkers
    monkeypatch.setattr(early, "_find_checkers", lambda f: early_finds.append(1) or real_early(f))
    early.set_reference(ref)
    early.learn_ahead(r.render(other, seed=7)[0])
    assert len(early_finds) == 2
    early.set_reference(r.render(played, seed=8)[0])
    assert len(early_finds) == 3


def test_a_face_fitted_half_off_the_die_is_no_second_die():
    """A white 5 under the steep camera, at the far side (held-out seed 3, case 272, an opening roll): the first
    look reads a 3 on one of its diagonals, and the search for a second die in its blob fitted a 2 on the
    other, turned so that 31 % of that face's square lies off the changed blob. The roll was three dice and
    unclear: a good opening roll thrown again. A face mostly off the changed blob is no die
    (``second_die_on_blob``): the 5 is read and the roll is 5-1. (``hyp_top_shift`` and ``grid_even_pips``,
    which read such a die by other ways since the twenty-sixth and twenty-eighth sessions, are off, so that
    the test is of the search. The case first found, seed 5's 98, where the fitted face was a 3 and the
    roll was accepted as 3-3, no longer misleads the search under OpenCV 5.1's render; this one does under
    5.0 and 5.1 alike.)"""
    first = {"hyp_top_shift": 0.0, "grid_even_pips": 0.0}
    no_net = {"tilt_net_cocked": 2.0, "tilt_net_unsure": 2.0}
    case, truth, (rr, old) = _read_case(3, 272, first, {"second_die_on_blob": 0.0, **no_net, **first})
    assert case.kind == "opening" and case.preset == "steep"
    assert sorted(d["top_value"] for d in truth["dice"]) == [1, 5] and all(d["valid"] for d in truth["dice"])
    five = next(d for d in truth["dice"] if d["top_value"] == 5)
    on_five = [d for d in old.dice if math.dist(d.centre, five["top_centre_px"]) < 20]
    assert old.verdict == "unclear" and len(old.dice) == 3 and len(on_five) == 2, old.reason
    assert rr.verdict == "valid" and sorted(rr.values) == [1, 5], rr.reason


@pytest.mark.parametrize("seed, index", [(0, 154), (1, 10)])
def test_a_face_centred_beyond_its_blobs_extent_is_mostly_off_the_blob(seed, index):
    """Why the search for a second die in a blob looks for its centre only within the blob's extent on
    the top plane (``second_die_within_blob``): a face centred beyond it, at any turn, has about half its
    square off the blob (a square is symmetric about its centre; the view's perspective adds a little),
    under the share ``second_die_on_blob`` asks for, so a face found there was never taken. Seed 0's case
    154 is two dice in one blob under the steep camera, seed 1's case 10 two dice apart from above. The
    rolls read the same with the whole crop searched."""
    from types import SimpleNamespace

    from tablecompanion.vision.roll_eval import make_cases, render_case

    case = make_cases(index + 1, seed)[index]
    ref, img, truth, scene = render_case(case, window_glint=0.0)
    reader = RollReader(calibrate_from_markers(ref, home=scene.home))
    reader.set_reference(ref, checker_centres(scene))
    k = reader.config.rect_px_per_mm
    blobs = reader.changed_blobs(img)[0]
    assert blobs
    for blob in blobs:
        top = reader._blob_on_top_plane(blob)  # noqa: SLF001
        lo, hi = top.min(axis=0), top.max(axis=0)
        shares = []
        for t in np.linspace(0.0, 1.0, 11):
            x, y = lo + t * (hi - lo)
            for cx, cy in ((lo[0] - 0.1, y), (hi[0] + 0.1, y), (x, lo[1] - 0.1), (x, hi[1] + 0.1)):
                for turn in range(0, 90, 15):
                    face = SimpleNamespace(centre=(cx * k, cy * k), turn_deg=float(turn))
                    shares.append(reader._face_share_on_blob(face, (0.0, 0.0), blob))  # noqa: SLF001
        middle = SimpleNamespace(centre=tuple((lo + hi) / 2 * k), turn_deg=0.0)
        assert reader._face_share_on_blob(middle, (0.0, 0.0), blob) > 0.9  # noqa: SLF001 - the measure works
        assert 0.3 < max(shares) < 0.65 < reader.config.second_die_on_blob
    rolls = []
    for within in (True, False):
        r = RollReader(reader.calibration, RollReaderConfig(second_die_within_blob=within))
        r.set_reference(ref, checker_centres(scene))
        rr = r.read(img, roller=scene.roller, opening=case.kind == "opening")
        rolls.append((rr.verdict, rr.reason, [d.value for d in rr.dice]))
    assert rolls[0] == rolls[1]


def test_a_flat_die_touching_a_checker_is_put_to_the_players_not_accepted():
    """A flat die beside a checker may as well lean on it, so the roll is not accepted; the values it shows
    are kept as a proposal for a person who sees it lie flat (pose seeds 12 and 32: the 3 lands against a
    checker of the 6-point's stack). Without the tilt net; with it, a die beside checkers alone that the net
    is sure lies flat is read (thirty-fourth session)."""
    dice = (Die(6, pose_seed=12), Die(3, pose_seed=32))
    reader, img, truth = _roll(dice, config=RollReaderConfig(tilt_net=None))
    rr = reader.read(img, roller="bottom")
    assert rr.verdict == "unclear" and "touching a checker" in rr.reason
    assert rr.values.count(None) == 1  # the touching die has no value
    assert sorted(rr.proposal) == sorted(d["top_value"] for d in truth["dice"]) == [3, 6]
    # the watcher's question gives the same answer from the readings it got
    readings = [d.as_reading() for d in rr.dice]
    assert sorted(reader.proposal_for(readings, "bottom")) == [3, 6]
    netted, img, _ = _roll(dice)
    vouched = netted.read(img, roller="bottom")
    beside = [d for d in vouched.dice if d.features.get("support") == "a checker"]
    assert beside and all(d.features["tilt_p"] <= netted.config.tilt_net_flat_checker for d in beside)
    assert vouched.verdict == "valid" and sorted(vouched.values) == [3, 6]


def _seen(value, status="flat", placement="ok", reason="", proposed=None):
    return DieSeen(value, status, placement, (0.0, 0.0), (0.0, 0.0), 1.0, reason, proposed=proposed)


def test_only_a_roll_unclear_for_what_a_die_touches_is_proposed():
    touching = _seen(None, "unclear", reason="touching a checker: it may lean on it", proposed=3)
    assert propose([_seen(6), touching]) == (6, 3)
    assert propose([touching, replace(touching, proposed=5)]) == (3, 5)
    assert propose([_seen(6), _seen(3)]) is None  # nothing in doubt: nothing to propose
    assert propose([_seen(None, "cocked", reason="resting on a checker"), touching]) is None
    assert propose([_seen(None, "unclear", reason="unreadable"), touching]) is None
    assert propose([_seen(6, placement="across the bar"), touching]) is None
    assert propose([touching]) is None  # one die of two seen


def test_an_opening_roll_is_proposed_in_the_order_seen_unless_its_dice_are_equal():
    """One die each: the reader gives the values as it saw the dice (the caller, who knows the halves, says
    whose is whose); equal opening dice are rolled again whatever the die does, so they are no proposal."""
    touching = _seen(None, "unclear", reason="touching the board's edge: it may lean on it", proposed=3)
    reason = "die 2 unclear (touching the board's edge: it may lean on it): re-roll"
    opening = RollReading((_seen(6), touching), "unclear", reason, opening=True)
    assert opening.proposal == (6, 3)
    assert RollReading((touching, _seen(6)), "unclear", reason, opening=True).proposal == (3, 6)
    assert RollReading((_seen(3), touching), "unclear", reason, opening=True).proposal is None
    assert RollReading((_seen(3), touching), "unclear", reason).proposal == (3, 3)  # a later roll's doubles are


def test_a_roll_under_mains_flicker_is_read_as_without_it():
    """Lamps on 50 Hz mains leave a rolling shutter's bands in the picture, at another phase in the
    reference than in the roll's frame: 6 % bands summed over B, G and R read as change on every light
    point until the reference is brought to the frame's light band by band."""
    from tablecompanion.sim.footage_light import MainsFlicker

    reader, img, truth = _open_space_roll(5, 2)
    plain = reader.read(img, roller="bottom")
    bands = MainsFlicker(seed=0, fps=30.0, depth=0.06, height=img.shape[0])
    reference = reader.reference_full
    flickered = np.clip(img.astype(np.float32) * bands.rows(1)[:, None, None], 0, 255).astype(np.uint8)
    under = RollReader(reader.calibration)
    under.set_reference(np.clip(reference.astype(np.float32) * bands.rows(0)[:, None, None], 0, 255).astype(np.uint8),
                        reader.checkers_mm)
    rr = under.read(flickered, roller="bottom")
    assert plain.verdict == "valid" and rr.verdict == plain.verdict, rr.reason
    assert sorted(rr.values) == sorted(plain.values) == [2, 5]
    blobs, area = under.changed_blobs(flickered)
    assert area < 6.0  # two dice and their shadows, no "hand"


@pytest.mark.parametrize("seed, index", [(15, 312), (3, 90)])
def test_a_face_read_alone_whose_pips_are_unalike_gives_no_value(seed, index):
    """A black 1 seen from the tilted camera, a side face's dim pips beside its top (seed 15's case 312,
    seed 3's case 90): the grid reader's best face was a "2" of the top pip and a side face's, the weakest
    a quarter and a third of the strongest, and the roll was accepted as 4-2. One face's pips are painted
    alike and lie in one plane: the die is unclear (kept as a die: the roll asks for a re-roll, not void). The
    rule is measured without the body model, which also calls such a die cocked (thirty-first session)."""
    _, truth, (rr, old) = _read_case(seed, index, {}, {"grid_even_pips": 0.0, "body_model": None, "tilt_net_cocked": 2.0, "tilt_net_unsure": 2.0})
    assert sorted(d["value"] for d in truth["dice"]) == [1, 4]
    assert old.verdict == "valid" and sorted(d.value for d in old.dice) == [2, 4]  # what the rule stops
    assert rr.verdict == "unclear", rr.reason
    one = _die_at(rr, next(t for t in truth["dice"] if t["value"] == 1))
    assert one.value is None and one.reason == "its pips unlike one face's"


def test_the_grid_reader_asks_even_pips_only_of_a_face_it_reads_alone():
    from tablecompanion.vision.pip_grid import GridReading

    reader = RollReader.__new__(RollReader)
    reader.config = RollReaderConfig()
    uneven = GridReading(2, (0.0, 0.0), 0.0, 120.0, 60.0, 40.0, ((0.0, 0.0), (1.0, 1.0)), strongest_pip=120.0)
    assert not reader._grid_sure(uneven)
    assert reader._grid_sure(uneven, agree=True)  # the per-photo reader reads the same value
    assert reader._grid_sure(uneven, even=False)
    assert reader._grid_sure(replace(uneven, strongest_pip=70.0))


def test_a_die_the_reader_calls_cocked_just_beyond_a_checkers_reach_may_lean_on_it():
    """A translucent die leaning 30 degrees on a checker under the steep camera (seed 10's void-only set,
    case 50): the grid reader's clear 3 stood, and the top it read lies pushed away from the checker, just
    beyond the reach within which a die may lean on one: the roll was accepted as 3-3. The per-photo reader
    was sure the die is cocked; with that, the reach is a little longer (``reader_cocked_reach``) and the die
    is unclear. (Rendered with the simulator's own window, as the void-only set was; in a room without one
    the die is unclear either way.)

    Found under OpenCV 5.0, whose render puts the die's top 2.29 sides from the checker's centre, 0.07 beyond
    the plain reach of 2.23; 5.1's puts it at 2.17, inside it, and no other case of about 3000 searched
    lies in the rule's band under both. So the plain reach (``touch_mm``) is set here to end a tenth of a side
    short of where this render reads the die (0.82 sides beyond the rim under 5.0, against the shipped
    0.85): the rule is then what decides, whichever OpenCV renders the case."""
    from tablecompanion.geometry import BoardSpec
    from tablecompanion.vision.roll_eval import make_cases, render_case

    case = replace(make_cases(51, 10)[50], kind="leaning-on-checker")
    ref, img, truth, scene = render_case(case)
    assert [d["state"] for d in truth["dice"]] == ["leaning-on-checker", "flat"]
    off = {"tilt_net_cocked": 2.0, "tilt_net_unsure": 2.0}  # the tilt net, since the thirty-fourth session, calls this die cocked first
    config, spec = RollReaderConfig(), BoardSpec()
    f = _die_at(_read_with(ref, img, scene, off), truth["dice"][0]).features
    assert f["r_status"] == "cocked" and f["r_conf"] >= config.reader_cocked_conf
    touch = f["checker_dist"] - spec.checker_diameter / 2 / spec.die_size - 0.1
    assert 0.5 < touch <= config.touch_mm
    rr, old = (_read_with(ref, img, scene, {"touch_mm": touch, **config_})
               for config_ in (off, {"reader_cocked_reach": 0.0, **off}))
    assert old.verdict == "valid", old.reason  # what the rule stops
    assert rr.verdict != "valid", rr.reason
    leaning = _die_at(rr, truth["dice"][0])
    assert leaning.value is None and leaning.reason == "touching a checker: it may lean on it"
    now = _read_with(ref, img, scene, {})
    assert now.verdict == "void" and _die_at(now, truth["dice"][0]).reason == "tilted (the tilt net sees it so)"


def _read_with(ref, img, scene, config: dict):
    reader = RollReader(calibrate_from_markers(ref, home=scene.home), replace(RollReaderConfig(), **config))
    reader.set_reference(ref, checker_centres(scene))
    return reader.read(img, roller=scene.roller)


def test_a_die_both_readers_miss_is_unclear_not_off_the_board():
    """A black 1 seen by the tilted camera beside its side face's pips (seed 5, case 314, an opening roll):
    neither reader reads it, and the throw was "only 1 of 2 dice seen (off the board or hidden?)", void.
    Its change on the board is a die's, so it is the missing die, unclear: a re-roll, not a ruling that it
    left the board. A die that did leave the board changes nothing there: still void."""
    from tablecompanion.vision.roll_eval import make_cases, render_case

    case, truth, (rr, before) = _read_case(5, 314, {}, {"unread_change_fills": False})
    assert case.kind == "opening" and all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "unclear" and len(rr.dice) == 2, rr.reason
    missed = _die_at(rr, next(d for d in truth["dice"] if d["value"] == 1))
    assert missed.value is None and missed.reason == "unreadable"
    assert before.verdict == "void" and before.reason.startswith("only 1 of 2 dice seen")

    case = make_cases(315, 5)[314]
    ref, _, _, scene = render_case(case, window_glint=0.0)
    gone = replace(scene, dice=tuple(d for d in scene.dice if d.value != 1))  # the 1 jumped off the table
    img, _ = renderer_for(Camera.preset(case.preset), gone).render(gone, seed=7)
    reader = RollReader(calibrate_from_markers(ref, home=scene.home))
    reader.set_reference(ref, checker_centres(scene))
    off = reader.read(img, roller=scene.roller, opening=True)
    assert off.verdict == "void" and off.reason.startswith("only 1 of 2 dice seen"), off.reason


@pytest.mark.parametrize("seed, index, values", [(2, 62, [1, 4]), (2, 255, [1, 5])])
def test_a_black_die_on_a_dark_point_is_found_by_a_fainter_change(seed, index, values):
    """A black 1 on the classic board's dark point (seed 2: case 62 under the top camera, an opening roll;
    case 255 under the tilted camera) changes the board by less than ``diff_threshold`` but for its pip: no
    blob, and the throw was "only 1 of 2 dice seen", void. A throw short of a die is searched again at
    ``faint_threshold``, away from the change already seen, and the die is read."""
    case, truth, (rr, before) = _read_case(seed, index, {}, {"faint_threshold": 0})
    assert case.style == "classic" and case.dice_style == "black-white-pips" and all(d["valid"] for d in truth["dice"])
    assert rr.verdict == "valid" and sorted(rr.values) == values, rr.reason
    assert before.verdict == "void" and before.reason.startswith("only 1 of 2 dice seen"), before.reason


def test_a_die_tilted_only_if_the_face_read_is_its_top_is_unclear():
    """Seed 2's case 272, the opening roll under the steep camera: a black 1 whose pip and a side face's pip
    the grid reader read as a 2. The die's body lies beyond a flat 2's outline, and the roll was void, "die 1
    cocked (its body shows ...)"; but a 1 found on the same die holds the body within a flat 1's outline.
    Which face is the top decides whether the die is tilted, so it is unclear (re-roll), and never accepted."""
    case, truth, (rr, before) = _read_case(2, 272, {}, {"other_face_unclear": False})
    assert case.kind == "opening" and case.preset == "steep" and all(d["valid"] for d in truth["dice"])
    die = _die_at(rr, next(d for d in truth["dice"] if d["value"] == 1))
    assert rr.verdict == "unclear" and die.status == "unclear" and die.value is None, rr.reason
    assert "not a 1's" in die.reason and die.features["tilt_why"].startswith("tilted (its body shows")
    assert before.verdict == "void" and "its body shows" in before.reason, before.reason


@pytest.mark.parametrize("camera", ["top", "steep"])
@pytest.mark.parametrize("style", ["classic", "leather"])
def test_the_fainter_search_finds_no_die_on_a_board_without_dice(camera, style):
    """The search at ``faint_threshold`` runs whenever a throw is short of dice, so on a board with none it
    sees only the frame's noise and a few per cent of exposure drift against the reference: no die, no
    unreadable die, and the call stays "only 0 of 2 dice seen"."""
    base = Scene.from_position(Position.initial(), dice=(), style=style)
    r = renderer_for(Camera.preset(camera), base)
    ref, _ = r.render(base, seed=11, gain=0.98)
    img, _ = r.render(base, seed=12, gain=1.02)
    reader = RollReader(calibrate_from_markers(ref))
    reader.set_reference(ref, checker_centres(base))
    assert reader._faint_blobs(img, reader._small(img)) == []
    rr = reader.read(img)
    assert rr.dice == () and rr.verdict == "void" and rr.reason.startswith("only 0 of 2 dice seen"), rr.reason
