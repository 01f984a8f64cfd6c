"""A pinhole camera over the board, recovered from the board's homography: where a plane above the board (a
die's top face, a checker tray's rim) lies in the picture, and from which side the camera sees a die's
sides. The roll reader (:mod:`tablecompanion.vision.roll_reader`) and the tray finder
(:mod:`tablecompanion.vision.trays`) work through it. Not the simulator's camera
(:mod:`tablecompanion.sim.camera`), which knows the truth this one recovers."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["CameraModel", "camera_from_homography"]


@dataclass(frozen=True)
class CameraModel:
    """A pinhole camera over the board: ``P`` maps board mm (x, y, z; z into the table, so a height h
    above the surface is z = -h) to image pixels. Recovered from the board homography."""

    P: np.ndarray
    centre_mm: np.ndarray  # the camera's position in board mm (z < 0: above the table)
    focal_px: float
    estimated_focal: bool

    def project(self, pts: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 3)
        h = np.column_stack([pts, np.ones(len(pts))]) @ self.P.T
        return h[:, :2] / h[:, 2:3]

    def plane_homography(self, height_mm: float) -> np.ndarray:
        """Image px -> mm on the plane ``height_mm`` above the board (3x3)."""
        G = self.P[:, [0, 1, 3]].copy()
        G[:, 2] += -height_mm * self.P[:, 2]
        return np.linalg.inv(G)


def _view_tilt_deg(board_to_image: np.ndarray, f: float, cx: float, cy: float) -> float:
    """Angle between the optical axis and the board's normal for a focal ``f`` (degrees)."""
    M = np.linalg.inv(np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])) @ board_to_image
    n = np.cross(M[:, 0], M[:, 1])
    return math.degrees(math.acos(min(1.0, abs(n[2]) / max(float(np.linalg.norm(n)), 1e-12))))


def camera_from_homography(board_from_image: np.ndarray, image_size: tuple[int, int],
                           camera_matrix: np.ndarray | None = None, min_tilt_deg: float = 15.0) -> CameraModel:
    """A camera from the image->board homography: square pixels, principal point at the image centre,
    the focal length from the constraint that the board's axes are orthogonal and equally scaled
    (Zhang's). Seen from less than ``min_tilt_deg`` off the board's normal that constraint says next to
    nothing: a typical webcam's field of view (focal ~ the image width) is taken then."""
    H = np.asarray(board_from_image, np.float64)
    G = np.linalg.inv(H)  # board (x, y, 1) -> image
    w, h = image_size
    if camera_matrix is not None:
        K = np.asarray(camera_matrix, np.float64).reshape(3, 3)
        f, estimated = float(K[0, 0]), False
    else:
        cx, cy = w / 2.0, h / 2.0
        T = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]])
        g = T @ G
        g1, g2 = g[:, 0], g[:, 1]
        cands = []
        den = g1[2] * g2[2]
        if abs(den) > 1e-18:
            f2 = -(g1[0] * g2[0] + g1[1] * g2[1]) / den
            cands.append(f2)
        den = g1[2] ** 2 - g2[2] ** 2
        if abs(den) > 1e-18:
            cands.append((g2[0] ** 2 + g2[1] ** 2 - g1[0] ** 2 - g1[1] ** 2) / den)
        good = [math.sqrt(c) for c in cands if c > 0 and 0.5 * w <= math.sqrt(c) <= 5.0 * w]
        f, estimated = (float(np.median(good)), True) if good else (float(w), False)
        if estimated and _view_tilt_deg(G, float(w), cx, cy) < min_tilt_deg:
            # near-frontal: the constraint is ill-conditioned (on the simulator's 9-degree camera the estimate
            # scattered over 0.88-1.4x the true focal, the prior is 1.16x; straight above it gave 4.4x)
            f, estimated = float(w), False
        K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
    M = np.linalg.inv(K) @ G
    lam = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
    r1, r2, t = M[:, 0] * lam, M[:, 1] * lam, M[:, 2] * lam
    if t[2] < 0:
        r1, r2, t = -r1, -r2, -t
    r3 = np.cross(r1, r2)
    R = np.column_stack([r1, r2, r3])
    u, _, vt = np.linalg.svd(R)
    R = u @ vt
    P = K @ np.column_stack([R, t])
    centre = -R.T @ t
    return CameraModel(P, centre, f, estimated)
