"""Drift: the same view is fine, a moved camera or board asks for recalibration, no board is 'unknown'."""

from __future__ import annotations

import cv2
import numpy as np

from tablecompanion.calibration import calibrate_from_markers
from tablecompanion.calibration.drift import check_drift
from tablecompanion.calibration.find_board import find_board
from tablecompanion.calibration.synthetic import photograph


def shifted(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def test_markers_unmoved_then_moved(marker_photo):
    cal = calibrate_from_markers(marker_photo.image)
    report = check_drift(cal, marker_photo.image)
    assert report.status == "ok" and report.method == "markers" and report.shift_mm < 1.5
    assert not report.needs_recalibration
    small = check_drift(cal, shifted(marker_photo.image, 4, 0))  # ~4 px ~ 4 mm at this scale
    assert small.status in ("warn", "moved") and 2 < small.shift_mm < 8
    big = check_drift(cal, shifted(marker_photo.image, 15, 8))
    assert big.status == "moved" and big.needs_recalibration and "calibrate" in big.message


def test_board_look_unmoved_then_moved():
    photo = photograph(style="tournament", seed=21, markers=False)
    cal = find_board(photo.image)
    assert cal is not None
    assert check_drift(cal, photo.image).status in ("ok", "warn")
    moved = check_drift(cal, shifted(photo.image, 20, 0))
    assert moved.method == "board" and moved.status == "moved"


def test_nothing_to_see_is_unknown(marker_photo):
    cal = calibrate_from_markers(marker_photo.image)
    blank = np.full_like(marker_photo.image, 128)
    report = check_drift(cal, blank)
    assert report.status == "unknown" and report.needs_recalibration
    assert check_drift(cal, np.zeros((0, 0, 3), np.uint8)).status == "unknown"


def test_other_resolution_is_a_move(marker_photo):
    cal = calibrate_from_markers(marker_photo.image)
    report = check_drift(cal, cv2.resize(marker_photo.image, (640, 360)))
    assert report.status == "moved" and "640x360" in report.message
