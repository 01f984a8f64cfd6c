"""The lens: intrinsics and distortion from photos of the printed ChArUco sheet (cv2.calibrateCamera).

Wide-angle webcams bend the board's straight edges; a homography alone cannot undo that, so the lens
model is applied first. The sheet uses DICT_5X5_100 so that its markers are never taken for the
board's corner markers (DICT_4X4_50).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import cv2
import numpy as np

from tablecompanion.calibration.config import DEFAULT_LENS, LensConfig
from tablecompanion.calibration.errors import CalibrationError


@dataclass(frozen=True)
class LensSheet:
    """The printed ChArUco sheet: ``squares`` (columns, rows), square and marker sides in mm."""

    squares: tuple[int, int] = (7, 5)
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_5X5_100"

    def board(self) -> cv2.aruco.CharucoBoard:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm, d)

    def image(self, px_per_mm: float = 300 / 25.4, margin_mm: float = 10.0) -> np.ndarray:
        """The sheet drawn at true size (default 300 dpi), with a white margin."""
        w = int(round((self.squares[0] * self.square_mm + 2 * margin_mm) * px_per_mm))
        h = int(round((self.squares[1] * self.square_mm + 2 * margin_mm) * px_per_mm))
        return self.board().generateImage((w, h), marginSize=int(round(margin_mm * px_per_mm)), borderBits=1)


DEFAULT_SHEET = LensSheet()


@dataclass(frozen=True)
class LensCalibration:
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    rms_px: float  # reprojection error of the sheet's corners, pixels
    image_size: tuple[int, int]
    views: int


def detect_sheet(image: np.ndarray, sheet: LensSheet = DEFAULT_SHEET) -> tuple[np.ndarray, np.ndarray]:
    """The sheet's chessboard corners seen in one image: (object points mm Nx3, image points px Nx2)."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    board = sheet.board()
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _, _ = detector.detectBoard(gray)
    if corners is None or ids is None or len(ids) == 0:
        return np.zeros((0, 3)), np.zeros((0, 2))
    obj, img = board.matchImagePoints(corners, ids)
    return np.asarray(obj, np.float64).reshape(-1, 3), np.asarray(img, np.float64).reshape(-1, 2)


def calibrate_lens(
    images: Iterable[np.ndarray], sheet: LensSheet = DEFAULT_SHEET, config: LensConfig = DEFAULT_LENS
) -> LensCalibration:
    """Intrinsics and distortion from several photos of the sheet, held at different angles."""
    objs, imgs = [], []
    size: tuple[int, int] | None = None
    for image in images:
        if image is None or image.size == 0:
            continue
        h, w = image.shape[:2]
        if size is None:
            size = (w, h)
        elif size != (w, h):
            raise CalibrationError(f"lens photos must all be the same size; got {size} and {(w, h)}")
        obj, img = detect_sheet(image, sheet)
        if len(obj) >= config.min_corners_per_view:
            objs.append(obj.astype(np.float32))
            imgs.append(img.astype(np.float32))
    if size is None or len(objs) < config.min_views:
        raise CalibrationError(
            f"the lens sheet was seen in {len(objs)} photos, at least {config.min_views} are needed: print "
            "calibration/targets/lens-sheet.pdf at 100% scale, keep it flat, and photograph it filling a good "
            "part of the frame at several angles and positions"
        )
    rms, k, d, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None)
    if rms > config.max_rms_px:
        raise CalibrationError(
            f"the lens fit is poor ({rms:.2f} px): use sharper photos of a flat sheet, printed at 100% scale"
        )
    return LensCalibration(np.asarray(k), np.asarray(d).reshape(-1), float(rms), size, len(objs))
