"""Corners clicked on a scaled picture (the dashboard's fallback): any order, scaled back, saved, annotated."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import CalibrationError, ProfileError, load_profile
from tablecompanion.calibration import evaluate as ev
from tablecompanion.calibration.clicks import calibrate_from_clicks, order_corners
from tablecompanion.calibration.model import apply_homography, rect_corners
from tablecompanion.calibration.synthetic import photograph
from tablecompanion.geometry import BoardGeometry

from .conftest import point_centres


def _true_corners(photo) -> np.ndarray:
    return apply_homography(np.linalg.inv(photo.homography), rect_corners(BoardGeometry().outline))


def test_clicks_on_a_half_size_picture_in_any_order_give_the_board(data_dir):
    photo = photograph(style="tournament", seed=31, markers=False)
    corners = _true_corners(photo)  # TL TR BR BL, frame px
    rng = np.random.default_rng(0)
    shown = corners / 2 + rng.normal(0, 0.7, corners.shape)  # the page shows the frame at half size
    shuffled = shown[[2, 0, 3, 1]]
    w, h = photo.image.shape[1], photo.image.shape[0]
    cal, jpeg = calibrate_from_clicks(photo.image, shuffled.tolist(), [w / 2, h / 2], name="t-click", home="left",
                                      bottom_player="O")
    truth = ev.Case("clicks", photo.image, apply_homography(np.linalg.inv(photo.homography), point_centres()))
    assert ev.point_error_mm(cal, truth) < 5.0
    saved = load_profile("t-click")
    assert saved.source == "corners" and saved.geometry.home == "left" and saved.bottom_player == "O"
    picture = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == photo.image.shape
    assert np.abs(picture.astype(int) - photo.image.astype(int)).mean() > 1  # regions drawn on it


def test_order_corners_takes_the_lowest_edge_as_the_bottom():
    tl, tr, br, bl = (100, 80), (1000, 120), (1050, 650), (60, 600)
    for perm in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2]):
        pts = np.array([(tl, tr, br, bl)[i] for i in perm], float)
        assert np.allclose(order_corners(pts), [tl, tr, br, bl])


@pytest.mark.parametrize("clicks, size, error", [
    ([[1, 2], [3, 4], [5, 6]], None, CalibrationError),
    ([[1, 2], [3, 4], [5, 6], ["x", 1]], None, CalibrationError),
    ([[10, 10], [10, 10], [10, 10], [10, 10]], None, CalibrationError),
    ([[100, 80], [1000, 120], [1050, 650], [60, 600]], [0, 10], CalibrationError),
])
def test_bad_clicks_are_calibration_errors(clicks, size, error, data_dir):
    frame = np.zeros((720, 1280, 3), np.uint8)
    with pytest.raises(error):
        calibrate_from_clicks(frame, clicks, size, name="t")


def test_bad_name_is_a_profile_error(data_dir):
    with pytest.raises(ProfileError):
        calibrate_from_clicks(np.zeros((720, 1280, 3), np.uint8), [[100, 80], [1000, 120], [1050, 650], [60, 600]],
                              name="../etc")
