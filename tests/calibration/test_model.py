"""The Calibration object: mapping both ways, warping, regions, orientation, lens and persistence."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecompanion.calibration import Calibration, CalibrationError
from tablecompanion.calibration.markers import calibrate_from_corners
from tablecompanion.calibration.model import rect_corners
from tablecompanion.calibration.synthetic import render_topdown
from tablecompanion.geometry import BoardGeometry, BoardSpec

CORNERS = [(200.0, 80.0), (1100.0, 120.0), (1150.0, 690.0), (160.0, 650.0)]


def make(home="right", bottom_player=None, lens=False) -> Calibration:
    k = np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]]) if lens else None
    d = np.array([-0.2, 0.05, 0, 0, 0]) if lens else None
    return calibrate_from_corners((1280, 720), CORNERS, BoardSpec(), home=home, bottom_player=bottom_player,
                                  camera_matrix=k, dist_coeffs=d)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 830), st.floats(0, 550), st.booleans())
def test_board_to_image_and_back_is_identity(x, y, lens):
    cal = make(lens=lens)
    back = cal.image_to_board(cal.board_to_image([(x, y)]))
    assert np.allclose(back, [(x, y)], atol=0.05)


def test_corners_land_on_the_outline():
    cal = make()
    assert np.allclose(cal.image_to_board(CORNERS), rect_corners(cal.geometry.outline), atol=1e-6)
    assert np.allclose(cal.board_corners_image(), CORNERS, atol=1e-6)


@pytest.mark.parametrize("home", ["right", "left"])
def test_every_point_number_maps_to_its_own_region_and_back(home):
    cal = make(home=home)
    for point in range(1, 25):
        for player in ("bottom", "top"):
            poly = cal.point_polygon_image(point, player)
            centre = poly.mean(axis=0)
            assert cal.point_at_image(*centre, player=player) == point
            other = "top" if player == "bottom" else "bottom"
            assert cal.point_at_image(*centre, player=other) == 25 - point


def test_home_side_decides_where_point_one_is():
    right, left = make("right"), make("left")
    # point 1 of the bottom player: bottom-right corner area with home right, bottom-left with home left
    p_right = right.point_polygon_image(1).mean(axis=0)
    p_left = left.point_polygon_image(1).mean(axis=0)
    assert p_right[0] > 900 and p_right[1] > 400
    assert p_left[0] < 500 and p_left[1] > 400
    # the top player's 1-point is opposite, top row
    assert right.point_polygon_image(1, "top").mean(axis=0)[1] < 300


def test_players_by_name_need_the_seating():
    cal = make(bottom_player="X")
    assert np.allclose(cal.point_polygon_image(6, "X"), cal.point_polygon_image(6, "bottom"))
    assert np.allclose(cal.point_polygon_image(6, "O"), cal.point_polygon_image(6, "top"))
    with pytest.raises(CalibrationError, match="who sits at the bottom"):
        make().point_polygon_image(6, "X")


def test_regions_under_pixels():
    cal = make()
    geo = cal.geometry
    bar = cal.board_to_image([((geo.bar[0] + geo.bar[2]) / 2, 100)])[0]
    assert cal.region_at_image(*bar).kind == "bar"
    tray = geo.tray("bottom")
    t = cal.board_to_image([((tray[0] + tray[2]) / 2, (tray[1] + tray[3]) / 2)])[0]
    region = cal.region_at_image(*t)
    assert region.kind == "tray" and region.player == "bottom"
    assert cal.region_at_image(5, 5).kind == "outside"


def test_warp_gives_the_canonical_top_down_board():
    """Warping a photo of a drawn board gives back the drawing (within a few grey levels)."""
    spec = BoardSpec()
    ppm = 1.0
    top = render_topdown(spec, "tournament", ppm, markers=False, checkers=False)
    cal = make()
    m = np.linalg.inv(cal.homography) @ np.diag([1 / ppm, 1 / ppm, 1])
    photo = cv2.warpPerspective(top, m, (1280, 720), flags=cv2.INTER_LINEAR)
    warped = cal.warp(photo, px_per_mm=ppm)
    assert warped.shape[:2] == (int(np.ceil(spec.height * ppm)), int(np.ceil(spec.width * ppm)))
    inner = (slice(40, 500), slice(120, 700))
    diff = np.abs(warped[inner].astype(int) - top[: warped.shape[0], : warped.shape[1]][inner].astype(int))
    assert np.median(diff) < 3


def test_frames_of_another_size_are_refused():
    cal = make()
    with pytest.raises(CalibrationError, match="1280x720"):
        cal.warp(np.zeros((480, 640, 3), np.uint8))
    with pytest.raises(CalibrationError, match="empty"):
        cal.undistort(np.zeros((0, 0, 3), np.uint8))


def test_changing_orientation_keeps_the_pixels():
    cal = make("right")
    flipped = cal.with_orientation(home="left", bottom_player="O")
    assert np.allclose(flipped.homography, cal.homography)
    assert flipped.geometry.home == "left" and flipped.bottom_player == "O"
    assert np.allclose(flipped.point_polygon_image(1), cal.point_polygon_image(12))


def test_dict_round_trip_keeps_everything():
    cal = make(home="left", bottom_player="X", lens=True)
    back = Calibration.from_dict(cal.to_dict())
    assert np.allclose(back.homography, cal.homography)
    assert np.allclose(back.camera_matrix, cal.camera_matrix)
    assert back.geometry == cal.geometry and back.bottom_player == "X" and back.image_size == (1280, 720)


def test_bad_homography_is_refused():
    with pytest.raises(CalibrationError, match="homography"):
        Calibration(BoardGeometry(), (640, 480), np.zeros((3, 3)))
