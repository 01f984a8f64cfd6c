"""A calibration: where the board is in one camera's image, and the mapping between pixels and mm.

Everything downstream (dice placement, board reading, the referee) asks a ``Calibration`` where a point,
the bar or a tray is in the image, or which region an image pixel falls on; none of them handles a
homography or a lens model itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Sequence

import cv2
import numpy as np

from tablecompanion.calibration.errors import CalibrationError
from tablecompanion.geometry import BoardGeometry, BoardSpec, Player, Rect, Region

Source = Literal["markers", "corners", "board", "truth"]
PROFILE_VERSION = 1


def as_points(pts: Any) -> np.ndarray:
    """Any (x, y) or list of (x, y) as an (N, 2) float64 array."""
    arr = np.asarray(pts, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr.reshape(1, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"points must be (x, y) pairs, got an array of shape {arr.shape}")
    return arr


def apply_homography(h: np.ndarray, pts: Any) -> np.ndarray:
    pts = as_points(pts)
    if len(pts) == 0:
        return pts.copy()
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(h, dtype=np.float64).T
    with np.errstate(divide="ignore", invalid="ignore"):
        return homog[:, :2] / homog[:, 2:3]


def rect_corners(rect: Rect) -> np.ndarray:
    """A rectangle's corners in the order TL, TR, BR, BL."""
    x0, y0, x1, y1 = rect
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)


@dataclass(frozen=True, eq=False)
class Calibration:
    """One camera's view of one board: ``homography`` maps undistorted image px to board mm.

    ``geometry`` carries the board's dimensions and its orientation (home boards right or left);
    ``bottom_player`` says which of the table's players sits at the board's bottom edge ("X", "O" or a
    name), when the table set it. ``camera_matrix``/``dist_coeffs`` are the optional lens model applied
    before the homography. ``marker_image_corners`` remembers where each marker was seen (id -> 4x2 px)
    so that drift can be measured later.
    """

    geometry: BoardGeometry
    image_size: tuple[int, int]  # (width, height) in px of the frames this was made from
    homography: np.ndarray
    camera_matrix: np.ndarray | None = None
    dist_coeffs: np.ndarray | None = None
    reprojection_error_mm: float = 0.0
    bottom_player: str | None = None
    source: Source = "markers"
    marker_image_corners: dict[int, np.ndarray] = field(default_factory=dict)
    name: str | None = None
    created: str | None = None

    def __post_init__(self) -> None:
        h = np.asarray(self.homography, dtype=np.float64)
        if h.shape != (3, 3) or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-18:
            raise CalibrationError("the homography is not an invertible 3x3 matrix: calibrate again")
        object.__setattr__(self, "homography", h / h[2, 2] if abs(h[2, 2]) > 1e-12 else h)
        w, hgt = (int(v) for v in self.image_size)
        if w <= 0 or hgt <= 0:
            raise CalibrationError(f"image size must be positive, got {self.image_size!r}")
        object.__setattr__(self, "image_size", (w, hgt))
        if (self.camera_matrix is None) != (self.dist_coeffs is None):
            raise CalibrationError("a lens model needs both camera_matrix and dist_coeffs")
        if self.camera_matrix is not None:
            object.__setattr__(self, "camera_matrix", np.asarray(self.camera_matrix, dtype=np.float64).reshape(3, 3))
            object.__setattr__(self, "dist_coeffs", np.asarray(self.dist_coeffs, dtype=np.float64).reshape(-1))

    # --- basics -------------------------------------------------------------------------------
    @property
    def spec(self) -> BoardSpec:
        return self.geometry.spec

    @property
    def has_lens(self) -> bool:
        return self.camera_matrix is not None

    @property
    def inverse_homography(self) -> np.ndarray:
        return np.linalg.inv(self.homography)

    def with_orientation(self, home: str | None = None, bottom_player: str | None = None) -> "Calibration":
        """The same view with another orientation convention or bottom player: the pixels do not move."""
        geometry = self.geometry if home is None else BoardGeometry(self.geometry.spec, home)  # type: ignore[arg-type]
        return replace(self, geometry=geometry, bottom_player=bottom_player if bottom_player is not None else self.bottom_player)

    def side_of(self, player: str) -> Player:
        """Whether a table player ("X", "O" or a name) sits at the board's bottom or top edge."""
        if player in ("bottom", "top"):
            return player  # type: ignore[return-value]
        if self.bottom_player is None:
            raise CalibrationError(
                f"this calibration does not say who sits at the bottom, so it cannot place {player!r}: "
                "calibrate with --bottom X (or O) or set the table's seating"
            )
        return "bottom" if player == self.bottom_player else "top"

    # --- lens -----------------------------------------------------------------------------------
    def _check_frame(self, frame: np.ndarray) -> None:
        if frame is None or not hasattr(frame, "shape") or frame.size == 0:
            raise CalibrationError("the frame is empty: check the camera or the image file")
        h, w = frame.shape[:2]
        if (w, h) != self.image_size:
            raise CalibrationError(
                f"the frame is {w}x{h} px but this calibration was made at {self.image_size[0]}x{self.image_size[1]}: "
                "set the camera back to that resolution or calibrate again"
            )

    def undistort(self, frame: np.ndarray) -> np.ndarray:
        """The frame with the lens distortion removed (the frame itself when no lens model is set)."""
        self._check_frame(frame)
        if not self.has_lens:
            return frame
        return cv2.undistort(frame, self.camera_matrix, self.dist_coeffs)

    def _undistort_points(self, pts: np.ndarray) -> np.ndarray:
        if not self.has_lens or len(pts) == 0:
            return pts
        out = cv2.undistortPoints(pts.reshape(-1, 1, 2), self.camera_matrix, self.dist_coeffs, P=self.camera_matrix)
        return out.reshape(-1, 2)

    def _distort_points(self, pts: np.ndarray) -> np.ndarray:
        if not self.has_lens or len(pts) == 0:
            return pts
        k = self.camera_matrix
        norm = np.hstack([pts, np.ones((len(pts), 1))]) @ np.linalg.inv(k).T
        out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, self.dist_coeffs)
        return out.reshape(-1, 2)

    # --- mapping ------------------------------------------------------------------------------
    def image_to_board(self, pts: Any) -> np.ndarray:
        """Image px (as captured, distorted) -> board mm in the canonical top-down frame."""
        return apply_homography(self.homography, self._undistort_points(as_points(pts)))

    def board_to_image(self, pts: Any) -> np.ndarray:
        """Board mm -> image px as captured (the lens distortion put back)."""
        return self._distort_points(apply_homography(self.inverse_homography, as_points(pts)))

    def warp(self, frame: np.ndarray, px_per_mm: float = 2.0) -> np.ndarray:
        """A top-down image of the whole board in the canonical frame, ``px_per_mm`` pixels per mm.

        Pixel (u, v) of the result shows board point (u / px_per_mm, v / px_per_mm) mm.
        """
        if not px_per_mm > 0:
            raise ValueError("px_per_mm must be positive")
        undistorted = self.undistort(frame)
        scale = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (int(math.ceil(self.spec.width * px_per_mm)), int(math.ceil(self.spec.height * px_per_mm)))
        return cv2.warpPerspective(undistorted, scale @ self.homography, size, flags=cv2.INTER_LINEAR)

    def rect_polygon_image(self, rect: Rect, samples_per_side: int = 1) -> np.ndarray:
        """A board rectangle (mm) as an image polygon; extra samples follow the lens' curved edges."""
        corners = rect_corners(rect)
        if samples_per_side > 1:
            pts = []
            for i in range(4):
                a, b = corners[i], corners[(i + 1) % 4]
                for t in np.linspace(0, 1, samples_per_side, endpoint=False):
                    pts.append(a + (b - a) * t)
            corners = np.array(pts)
        return self.board_to_image(corners)

    def point_polygon_image(self, point: int, player: Player | str = "bottom", shape: str = "rect") -> np.ndarray:
        """Where a point's checkers lie in the image: its strip (``rect``) or its printed ``triangle``.

        ``point`` is numbered for ``player`` ("bottom"/"top", or "X"/"O"/a name when the calibration
        knows who sits at the bottom).
        """
        side = self.side_of(player)
        if shape == "triangle":
            return self.board_to_image(np.array(self.geometry.point_triangle(point, side)))
        if shape != "rect":
            raise ValueError(f"shape must be 'rect' or 'triangle', got {shape!r}")
        return self.rect_polygon_image(self.geometry.point_rect(point, side))

    def region_at_image(self, x: float, y: float) -> Region:
        """What lies under an image pixel: a point (bottom player's number), the bar, a tray, ..."""
        bx, by = self.image_to_board((x, y))[0]
        if not (np.isfinite(bx) and np.isfinite(by)):
            return Region("outside")
        return self.geometry.locate(float(bx), float(by))

    def point_at_image(self, x: float, y: float, player: Player | str = "bottom") -> int | None:
        """The point under an image pixel, numbered for ``player``; None off the points."""
        region = self.region_at_image(x, y)
        if region.kind != "point" or region.point is None:
            return None
        return region.point if self.side_of(player) == "bottom" else 25 - region.point

    def board_corners_image(self) -> np.ndarray:
        """The outer frame's corners in the image, TL TR BR BL (as the bottom player sees the board)."""
        return self.board_to_image(rect_corners(self.geometry.outline))

    def px_per_mm_at(self, board_xy: tuple[float, float]) -> float:
        """Local image scale at a board location (mean of the two axes), for tolerances in pixels."""
        x, y = board_xy
        pts = self.board_to_image([[x, y], [x + 1, y], [x, y + 1]])
        return float((np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[2] - pts[0])) / 2)

    # --- persistence ------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "version": PROFILE_VERSION,
            "kind": "tablecompanion-calibration",
            "name": self.name,
            "created": self.created,
            "source": self.source,
            "board": self.spec.to_dict(),
            "home": self.geometry.home,
            "bottom_player": self.bottom_player,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "camera_matrix": None if self.camera_matrix is None else self.camera_matrix.tolist(),
            "dist_coeffs": None if self.dist_coeffs is None else self.dist_coeffs.tolist(),
            "reprojection_error_mm": float(self.reprojection_error_mm),
            "markers": {str(k): np.asarray(v).tolist() for k, v in sorted(self.marker_image_corners.items())},
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        """A calibration from ``to_dict`` output; anything missing or wrong raises CalibrationError."""
        if not isinstance(data, dict):
            raise CalibrationError("a calibration profile must be a JSON object: calibrate again to rewrite it")
        try:
            spec = BoardSpec.from_dict(data["board"])
            geometry = BoardGeometry(spec, data.get("home", "right"))
            lens_k = data.get("camera_matrix")
            lens_d = data.get("dist_coeffs")
            markers = {int(k): np.asarray(v, dtype=np.float64).reshape(4, 2) for k, v in (data.get("markers") or {}).items()}
            return cls(
                geometry=geometry,
                image_size=tuple(int(v) for v in data["image_size"]),  # type: ignore[arg-type]
                homography=np.asarray(data["homography"], dtype=np.float64),
                camera_matrix=None if lens_k is None else np.asarray(lens_k, dtype=np.float64),
                dist_coeffs=None if lens_d is None else np.asarray(lens_d, dtype=np.float64),
                reprojection_error_mm=float(data.get("reprojection_error_mm", 0.0)),
                bottom_player=data.get("bottom_player"),
                source=data.get("source", "markers"),
                marker_image_corners=markers,
                name=data.get("name"),
                created=data.get("created"),
            )
        except CalibrationError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"the calibration profile is incomplete or corrupt ({exc}): calibrate again") from exc


def homography_error_mm(homography: np.ndarray, image_pts: np.ndarray, board_pts: np.ndarray) -> float:
    """RMS distance in mm between where the homography sends image points and where they really are."""
    mapped = apply_homography(homography, image_pts)
    return float(np.sqrt(np.mean(np.sum((mapped - board_pts) ** 2, axis=1))))


def fit_homography(image_pts: Sequence, board_pts: Sequence) -> np.ndarray:
    """Least-squares homography image px -> board mm from 4 or more correspondences."""
    src = as_points(image_pts).astype(np.float64)
    dst = as_points(board_pts).astype(np.float64)
    if len(src) < 4 or len(src) != len(dst):
        raise CalibrationError(f"a homography needs at least 4 matching points, got {len(src)}")
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise CalibrationError("the points are degenerate (three in a line?): check the corners or markers")
    return h
