"""Calibrating from the four ArUco markers on the frame's corners, or from four given corners.

The markers (DICT_4X4_50, ids 0..3: top-left, top-right, bottom-right, bottom-left as the bottom player
sees the board) sit where ``BoardGeometry.marker_corners`` says, so their 16 corners give the homography
and also fix which edge is the bottom one. Without markers a person gives the outer frame's corners.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Sequence

import cv2
import numpy as np

from tablecompanion.calibration.config import DEFAULT_CORNERS, DEFAULT_MARKERS, CornersConfig, MarkerConfig
from tablecompanion.calibration.errors import BoardNotFoundError, CalibrationError
from tablecompanion.calibration.model import (
    Calibration,
    apply_homography,
    as_points,
    fit_homography,
    homography_error_mm,
    rect_corners,
)
from tablecompanion.geometry import MARKER_DICTIONARY, MARKER_FILL, MARKER_IDS, BoardGeometry, BoardSpec, HomeSide


@dataclass(frozen=True)
class MarkerDetection:
    """Markers found in a frame: id -> its 4 corners in image px (ArUco order)."""

    corners: dict[int, np.ndarray]
    rejected: int = 0

    @property
    def ids(self) -> list[int]:
        return sorted(self.corners)


def marker_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))


def _gray(frame: np.ndarray) -> np.ndarray:
    if frame is None or not hasattr(frame, "shape") or frame.size == 0:
        raise CalibrationError("the frame is empty: check the camera or the image file")
    if frame.ndim == 2:
        return frame
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def detect_markers(frame: np.ndarray, config: MarkerConfig = DEFAULT_MARKERS) -> MarkerDetection:
    """The board's corner markers visible in a frame (other ids of the dictionary are ignored)."""
    gray = _gray(frame)
    params = cv2.aruco.DetectorParameters()
    if config.corner_refinement:
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.minMarkerPerimeterRate = config.min_perimeter_rate
    detector = cv2.aruco.ArucoDetector(marker_dictionary(), params)
    corners, ids, rejected = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is not None:
        wanted = set(MARKER_IDS.values())
        for c, i in zip(corners, ids.reshape(-1)):
            i = int(i)
            if i in wanted and i not in found:  # a duplicate id is a stray print: keep the first
                found[i] = np.asarray(c, dtype=np.float64).reshape(4, 2)
    return MarkerDetection(found, rejected=len(rejected) if rejected is not None else 0)


def _stamp() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def calibrate_from_markers(
    frame: np.ndarray,
    spec: BoardSpec | None = None,
    home: HomeSide = "right",
    bottom_player: str | None = None,
    camera_matrix: np.ndarray | None = None,
    dist_coeffs: np.ndarray | None = None,
    config: MarkerConfig = DEFAULT_MARKERS,
) -> Calibration:
    """A calibration from the corner markers in one frame (after removing lens distortion if given)."""
    spec = spec or BoardSpec()
    geometry = BoardGeometry(spec, home)
    h, w = _gray(frame).shape[:2]
    detection = detect_markers(frame, config)  # on the frame as captured: resampling blurs small markers
    if len(detection.corners) < config.min_markers:
        missing = sorted(set(MARKER_IDS.values()) - set(detection.corners))
        names = {v: k.replace("_", "-") for k, v in MARKER_IDS.items()}
        raise BoardNotFoundError(
            f"found {len(detection.corners)} of the 4 corner markers (missing: "
            f"{', '.join(f'id {i} {names[i]}' for i in missing)}); at least {config.min_markers} are needed. "
            "Check that the printed markers are on the frame's corners, lit and in view, or give the corners "
            "with --corners x,y x,y x,y x,y (TL TR BR BL)"
        )
    seen = {i: _undistort(c, camera_matrix, dist_coeffs) for i, c in detection.corners.items()}
    homography, error, used = _fit_markers(seen, geometry, config)
    scale = _marker_scale(homography, {i: seen[i] for i in used}) / (MARKER_FILL * spec.frame_width)
    if abs(scale - 1) > config.max_marker_scale_error:
        raise CalibrationError(
            f"the markers look {scale:.0%} of the size the board's dimensions expect ({MARKER_FILL * spec.frame_width:g} mm): "
            "print them at 100% scale (no 'fit to page'), or give the board's real frame width "
            "(--spec with frame_width, and regenerate the targets with --frame-width)"
        )
    if error > config.max_reprojection_error_mm:
        raise CalibrationError(
            f"the markers do not fit the board's dimensions (error {error:.1f} mm): check that each marker is on "
            "its own corner (id 0 top-left ... id 3 bottom-left, seen from the bottom seat), that the frame width "
            "in the profile matches the board, and that the markers are printed at 100% scale"
        )
    markers = {i: detection.corners[i] for i in used}
    cal = Calibration(
        geometry=geometry,
        image_size=(w, h),
        homography=homography,
        camera_matrix=camera_matrix,
        dist_coeffs=dist_coeffs,
        reprojection_error_mm=error,
        bottom_player=bottom_player,
        source="markers",
        marker_image_corners=markers,
        created=_stamp(),
    )
    if len(used) < 4 and config.polish_with_board:
        cal = _polish(frame, cal, config)
    return cal


def _polish(frame: np.ndarray, cal: Calibration, config: MarkerConfig) -> Calibration:
    """With a marker missing, the far corner's perspective is a guess (2-6 mm off): let the board's own
    look correct it, when that look confirms the markers to within ``polish_max_shift_mm``."""
    from tablecompanion.calibration.find_board import refine_calibration

    polished = refine_calibration(frame, cal)
    if polished is None:
        return cal
    surface = rect_corners(cal.geometry.surface)
    moved = polished.image_to_board(cal.board_to_image(surface)) - surface
    if np.max(np.linalg.norm(moved, axis=1)) > config.polish_max_shift_mm:
        return cal
    return polished


def _undistort(pts: np.ndarray, k: np.ndarray | None, d: np.ndarray | None) -> np.ndarray:
    if k is None:
        return pts
    return cv2.undistortPoints(pts.reshape(-1, 1, 2), k, d, P=k).reshape(-1, 2)


def _marker_scale(homography: np.ndarray, seen: dict[int, np.ndarray]) -> float:
    """Mean side of the markers on the board (mm, through the homography) over the side they should have."""
    sides = []
    for corners in seen.values():
        mm = apply_homography(homography, corners)
        sides.extend(np.linalg.norm(mm[(k + 1) % 4] - mm[k]) for k in range(4))
    return float(np.mean(sides))


def _fit_markers(
    seen: dict[int, np.ndarray], geometry: BoardGeometry, config: MarkerConfig
) -> tuple[np.ndarray, float, list[int]]:
    """Homography from the markers' corners; a marker that disagrees with the others (misread, peeled
    off, stuck on the wrong corner) is dropped while enough remain. Returns (H, RMS error mm, ids used)."""
    ids = sorted(seen)
    while True:
        image_pts = np.vstack([seen[i] for i in ids])
        board_pts = np.vstack([np.array(geometry.marker_corners(i)) for i in ids])
        homography = fit_homography(image_pts, board_pts)
        error = homography_error_mm(homography, image_pts, board_pts)
        if error <= config.max_reprojection_error_mm or len(ids) <= config.min_markers:
            return homography, error, ids
        worst = max(ids, key=lambda i: homography_error_mm(homography, seen[i], np.array(geometry.marker_corners(i))))
        ids = [i for i in ids if i != worst]


def parse_corners(texts: Sequence[str]) -> np.ndarray:
    """``["x,y", "x,y", "x,y", "x,y"]`` (TL TR BR BL) as a 4x2 array, with a clear error on a typo."""
    if len(texts) != 4:
        raise CalibrationError(
            f"give exactly 4 corners as x,y in the order top-left top-right bottom-right bottom-left, got {len(texts)}"
        )
    pts = []
    for text in texts:
        try:
            x, y = (float(v) for v in text.replace(";", ",").split(","))
        except ValueError:
            raise CalibrationError(f"corner {text!r} is not x,y in pixels (for example 120,80)") from None
        pts.append((x, y))
    return np.array(pts, dtype=np.float64)


def check_corner_quad(corners: np.ndarray, frame_size: tuple[int, int], config: CornersConfig = DEFAULT_CORNERS) -> None:
    """Reject corner sets that cannot be a board seen from above: crossed, tiny or outside the frame."""
    w, h = frame_size
    margin = 0.5 * max(w, h)
    if np.any(corners < -margin) or np.any(corners[:, 0] > w + margin) or np.any(corners[:, 1] > h + margin):
        raise CalibrationError(f"a corner lies far outside the {w}x{h} frame: check the coordinates")
    sides = [np.linalg.norm(corners[(i + 1) % 4] - corners[i]) for i in range(4)]
    if min(sides) < config.min_side_px:
        raise CalibrationError("two corners are almost the same point: give the 4 distinct outer corners of the frame")
    cross = []
    for i in range(4):
        a, b, c = corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4]
        u, v = b - a, c - b
        cross.append(u[0] * v[1] - u[1] * v[0])
    if not (all(z > 0 for z in cross) or all(z < 0 for z in cross)):
        raise CalibrationError(
            "the corners do not make a convex quadrilateral: give them in the order top-left, top-right, "
            "bottom-right, bottom-left (as the bottom player sees the board)"
        )
    if all(z < 0 for z in cross):
        raise CalibrationError(
            "the corners go anticlockwise: give them clockwise, top-left, top-right, bottom-right, bottom-left"
        )


def calibrate_from_corners(
    frame_size: tuple[int, int],
    corners: Sequence | np.ndarray,
    spec: BoardSpec | None = None,
    home: HomeSide = "right",
    bottom_player: str | None = None,
    camera_matrix: np.ndarray | None = None,
    dist_coeffs: np.ndarray | None = None,
    config: CornersConfig = DEFAULT_CORNERS,
) -> Calibration:
    """A calibration from the outer frame's 4 corners in image px, TL TR BR BL as the bottom player sees it.

    ``frame_size`` is (width, height). With a lens model the corners are as captured (distorted).
    """
    spec = spec or BoardSpec()
    geometry = BoardGeometry(spec, home)
    pts = as_points(corners)
    if pts.shape != (4, 2):
        raise CalibrationError(f"need 4 corners (TL TR BR BL), got {len(pts)}")
    check_corner_quad(pts, frame_size, config)
    if camera_matrix is not None:
        pts_u = cv2.undistortPoints(pts.reshape(-1, 1, 2), camera_matrix, dist_coeffs, P=camera_matrix).reshape(-1, 2)
    else:
        pts_u = pts
    board_pts = rect_corners(geometry.outline)
    homography = fit_homography(pts_u, board_pts)
    return Calibration(
        geometry=geometry,
        image_size=(int(frame_size[0]), int(frame_size[1])),
        homography=homography,
        camera_matrix=camera_matrix,
        dist_coeffs=dist_coeffs,
        # four points fit exactly: the error of clicked corners is unknown, not zero; report the fit
        reprojection_error_mm=homography_error_mm(homography, pts_u, board_pts),
        bottom_player=bottom_player,
        source="corners",
        created=_stamp(),
    )
