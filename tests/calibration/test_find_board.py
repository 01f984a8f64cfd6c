"""Finding the board without markers, on drawn boards, simulator renders and real photographs."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import evaluate as ev
from tablecompanion.calibration.find_board import find_board, label_map, Proportions
from tablecompanion.calibration.synthetic import STYLES, photograph
from tablecompanion.calibration.model import apply_homography
from tablecompanion.geometry import BoardGeometry, BoardSpec

from .conftest import point_centres, real_photos


def truth_case(photo) -> ev.Case:
    return ev.Case("t", photo.image, apply_homography(np.linalg.inv(photo.homography), point_centres()))


@pytest.mark.parametrize("style, seed, hand", [(s, 40 + i, i % 2 == 1) for i, s in enumerate(sorted(STYLES))])
def test_drawn_boards_are_found_within_a_few_mm(style, seed, hand):
    photo = photograph(style=style, seed=seed, markers=False, hand=hand)
    cal = find_board(photo.image)
    assert cal is not None, f"{style} board not found"
    assert cal.source == "board"
    # low-contrast boards (cream) fit less tightly along the points' length
    assert ev.point_error_mm(cal, truth_case(photo)) < (8.0 if style == "cream" else 5.0)


def test_real_photo_table_top_and_board_texture():
    """A real photograph as the table and blended into the board's wood: still found."""
    paths = real_photos(2)
    table = cv2.imread(str(paths[0]))
    photo = photograph(style="classic", seed=77, markers=False, background=table)
    cal = find_board(photo.image)
    assert cal is not None and ev.point_error_mm(cal, truth_case(photo)) < 5.0


def test_warped_real_photo_of_a_board_with_a_known_homography():
    """A real photo pasted onto the board's surface (as a printed playmat would be), then warped."""
    paths = real_photos(2)
    texture = cv2.imread(str(paths[1]))
    photo = photograph(style="tournament", seed=78, markers=False)
    # blend the real photo over the whole frame at 25%: real noise, real textures, real lighting
    overlay = cv2.resize(texture, photo.image.shape[1::-1])
    image = cv2.addWeighted(photo.image, 0.75, overlay, 0.25, 0)
    cal = find_board(image)
    case = ev.Case("t", image, apply_homography(np.linalg.inv(photo.homography), point_centres()))
    assert cal is not None and ev.point_error_mm(cal, case) < 5.0


def test_bottom_edge_is_the_one_nearest_the_image_bottom():
    photo = photograph(style="tournament", seed=41, markers=False)
    turned = photo.image[::-1, ::-1].copy()
    cal = find_board(turned)
    assert cal is not None
    h = turned.shape[0]
    assert cal.point_polygon_image(1).mean(axis=0)[1] > h / 2  # the bottom player's points are at the bottom
    assert cal.point_polygon_image(24).mean(axis=0)[1] < h / 2
    left = cal.with_orientation(home="left")
    assert left.point_polygon_image(1).mean(axis=0)[0] < cal.point_polygon_image(1).mean(axis=0)[0]


def test_known_dimensions_are_kept_and_unknown_bar_is_fitted():
    spec = BoardSpec(bar_width=80)
    photo = photograph(spec=spec, style="classic", seed=43, markers=False)
    known = find_board(photo.image, spec)
    assert known is not None and known.spec == spec
    case = ev.Case("t", photo.image, apply_homography(np.linalg.inv(photo.homography), point_centres(BoardGeometry(spec))),
                   BoardGeometry(spec))
    assert ev.point_error_mm(known, case) < 5.0
    guessed = find_board(photo.image)
    assert guessed is not None and guessed.spec.bar_width == pytest.approx(80, abs=8)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_real_photos_without_a_board_find_nothing(index):
    paths = real_photos(3)
    image = cv2.imread(str(paths[index]))
    assert find_board(image) is None


def test_blank_and_noise_find_nothing():
    assert find_board(np.full((360, 640, 3), 127, np.uint8)) is None
    rng = np.random.default_rng(0)
    assert find_board(rng.integers(0, 255, (360, 640, 3), dtype=np.uint8)) is None


def test_label_map_has_every_class_where_the_board_has_it():
    props = Proportions.of(BoardSpec())
    labels = label_map(props, 0.5)
    counts = np.bincount(labels.ravel(), minlength=7)
    assert all(counts[k] > 0 for k in range(7))
    # the triangles: 12 per row, half of a point's strip each
    tri_area = counts[3:7].sum() / 0.25
    assert tri_area == pytest.approx(24 * 0.5 * 50 * 225, rel=0.12)  # rasterised edges count whole pixels


@pytest.mark.slow
@pytest.mark.parametrize("index", range(3))
def test_simulator_renders_are_found(index):
    pytest.importorskip("tablecompanion.sim", reason="the table simulator (tablecompanion.sim) is not importable")
    cases = list(ev.sim_cases(index + 1, seed=7))
    if len(cases) <= index:
        pytest.skip("the simulator could not render this case")
    case = cases[index]
    cal = find_board(case.image)
    assert cal is not None, case.name
    # the renders include lens distortion that a homography cannot follow: a few mm
    assert ev.point_error_mm(cal, case) < 6.0


@pytest.mark.slow
def test_simulator_render_with_hands_over_the_board():
    sim = pytest.importorskip("tablecompanion.sim", reason="the table simulator (tablecompanion.sim) is not importable")
    hands = (sim.Hand("bottom", x=520.0, y=380.0), sim.Hand("top", x=600.0, y=150.0))
    try:
        image, truth = sim.render_frame(sim.Scene(style="classic", markers=False, hands=hands), sim.Camera.preset("tilted"), seed=1)
    except Exception as exc:  # another area's work in progress
        pytest.skip(f"the simulator could not render: {exc}")
    k = np.array(truth["camera"]["K"])
    d = np.array(truth["camera"]["dist"])
    und = apply_homography(np.linalg.inv(np.array(truth["homography_image_to_board"])), point_centres())
    norm = np.hstack([und, np.ones((24, 1))]) @ np.linalg.inv(k).T
    px, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, d)
    cal = find_board(image)
    assert cal is not None
    assert ev.point_error_mm(cal, ev.Case("hands", image, px.reshape(-1, 2))) < 6.0


@pytest.mark.slow
def test_checkers_on_the_points_do_not_pull_the_board_a_point_off():
    """A steep view of a crowded classic board (photo case 13 of ``board eval --photos 24 --seed 1
    --photo-tilt 35,60``): by plain colour variance the placement one point to the right, taking in the tray
    and leaving out the point under five dark checkers, explains the picture better than the true one, and
    the board was read one point off. Counting a pixel far from its class's colour as bounded (checkers,
    dice, an arm) ranks the true placement first, and the board is found where it is."""
    pytest.importorskip("tablecompanion.sim", reason="the table simulator (tablecompanion.sim) is not importable")
    from dataclasses import replace

    from tablecompanion.calibration.config import DEFAULT_FIND_BOARD
    from tablecompanion.calibration.find_board import _bottom_down, _work_image, fit_board, surface_score
    from tablecompanion.calibration.model import rect_corners
    from tablecompanion.vision.board_eval import DEFAULT_MATCHES, photo_cases

    if not DEFAULT_MATCHES.is_dir():
        pytest.skip(f"shared matches not found: {DEFAULT_MATCHES} (the photo cases draw their positions from them)")
    (img, _, truth, _), = photo_cases(14, seed=1, tilt=(35.0, 60.0), skip=13)
    geo = BoardGeometry(BoardSpec())
    to_image = np.linalg.inv(np.array(truth["homography_image_to_board"]))
    true_quad = apply_homography(to_image, rect_corners(geo.surface))
    x0, y0, x1, y1 = geo.surface
    shifted = apply_homography(to_image, rect_corners((x0 + 50.0, y0, x1 + 50.0, y1)))  # a point to the right
    _, lab, scale = _work_image(img, DEFAULT_FIND_BOARD)
    props = Proportions.of(BoardSpec())

    def score(quad, outlier):
        return surface_score(lab, quad * scale, props, DEFAULT_FIND_BOARD.score_px_per_mm, outlier).quality(1.0)

    assert score(shifted, 0.0) > score(true_quad, 0.0)  # the failure: plain variance prefers a point off
    robust = DEFAULT_FIND_BOARD.coarse_outlier_lab
    assert robust > 0 and score(true_quad, robust) > score(shifted, robust)
    for config, within in ((DEFAULT_FIND_BOARD, True), (replace(DEFAULT_FIND_BOARD, coarse_outlier_lab=0.0), False)):
        fit, work_scale = fit_board(img, config=config)
        error = float(np.abs(_bottom_down(fit.corners / work_scale) - true_quad).max())
        assert (error < 0.02 * img.shape[1]) == within, error
