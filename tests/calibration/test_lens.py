"""Lens calibration on rendered views of the ChArUco sheet through a known, distorting lens."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import CalibrationError
from tablecompanion.calibration.lens import DEFAULT_SHEET, calibrate_lens, detect_sheet

K = np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]])
D = np.array([-0.25, 0.08, 0, 0, 0])
SIZE = (1280, 720)


def views(n: int, seed: int = 0) -> list[np.ndarray]:
    """The sheet photographed n times from random poses through lens (K, D)."""
    ppm, margin = 4.0, 10.0
    sheet = cv2.cvtColor(DEFAULT_SHEET.image(ppm, margin_mm=margin), cv2.COLOR_GRAY2BGR)
    rng = np.random.default_rng(seed)
    w, h = SIZE
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    undist = cv2.undistortPoints(np.stack([xs, ys], -1).reshape(-1, 1, 2), K, D, P=K).reshape(h, w, 2)
    out = []
    for _ in range(n):
        rvec = rng.normal(0, 0.3, 3)
        tvec = np.array([rng.uniform(-200, 200) - 105, rng.uniform(-110, 110) - 75, rng.uniform(450, 600)])
        r, _ = cv2.Rodrigues(rvec)
        to_mm = np.array([[1 / ppm, 0, -margin], [0, 1 / ppm, -margin], [0, 0, 1]])
        hmg = K @ np.column_stack([r[:, 0], r[:, 1], tvec]) @ to_mm
        pinhole = cv2.warpPerspective(sheet, hmg, SIZE, borderValue=(90, 90, 90))
        out.append(cv2.remap(pinhole, undist[..., 0], undist[..., 1], cv2.INTER_LINEAR, borderValue=(90, 90, 90)))
    return out


def test_lens_is_recovered():
    lens = calibrate_lens(views(12))
    assert lens.views >= 10 and lens.rms_px < 0.6
    assert lens.camera_matrix[0, 0] == pytest.approx(900, rel=0.03)
    assert lens.camera_matrix[0, 2] == pytest.approx(640, abs=15)
    # what matters: after undistortion, a homography (the board's) explains the rest to a pixel
    gx, gy = np.meshgrid(np.linspace(250, 1030, 9), np.linspace(150, 570, 7))
    pts = np.stack([gx.ravel(), gy.ravel()], -1).reshape(-1, 1, 2)
    truth = cv2.undistortPoints(pts, K, D, P=K).reshape(-1, 2)
    found = cv2.undistortPoints(pts, lens.camera_matrix, lens.dist_coeffs, P=K).reshape(-1, 2)
    h, _ = cv2.findHomography(found, truth, 0)
    mapped = cv2.perspectiveTransform(found.reshape(-1, 1, 2), h).reshape(-1, 2)
    assert np.linalg.norm(mapped - truth, axis=1).max() < 1.0
    # without the lens model the same homography check fails: the test can tell
    h0, _ = cv2.findHomography(pts.reshape(-1, 2), truth, 0)
    raw = cv2.perspectiveTransform(pts, h0).reshape(-1, 2)
    assert np.linalg.norm(raw - truth, axis=1).max() > 5.0


def test_sheet_is_seen_whole():
    obj, img = detect_sheet(views(1, seed=3)[0])
    assert len(obj) == (DEFAULT_SHEET.squares[0] - 1) * (DEFAULT_SHEET.squares[1] - 1)


def test_too_few_views_say_what_to_do():
    blank = np.full((720, 1280, 3), 100, np.uint8)
    with pytest.raises(CalibrationError, match="seen in 2 photos.*at least 4.*100% scale"):
        calibrate_lens(views(2) + [blank, blank])
    with pytest.raises(CalibrationError, match="same size"):
        calibrate_lens([blank, np.zeros((10, 10, 3), np.uint8)])
