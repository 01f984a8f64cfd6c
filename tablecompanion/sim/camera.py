"""A webcam above the board: pose, intrinsics, lens distortion and the photographic effects.

World coordinates are the board's millimetres from ``tablecompanion.geometry`` (x right, y towards the
bottom player) with z pointing *into* the table, so that the frame is right-handed and a height h above
the playing surface is z = -h. The playing surface and the frame's top lie in the plane z = 0; the table
the board stands on lies lower (``board.TABLE_DEPTH_MM``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from tablecompanion.geometry import BoardSpec
from tablecompanion.sim.errors import SimError

PRESETS = {
    # Straight down over the board's centre: the calibration ideal.
    "top": dict(tilt_deg=0.0),
    # What a webcam on a lamp arm gives: nearly straight down, slightly from the bottom player's side.
    "default": dict(tilt_deg=8.0, yaw_deg=1.0),
    # A camera on a shelf or tripod behind the bottom player.
    "tilted": dict(tilt_deg=25.0, yaw_deg=3.0),
    # Far off-axis: side faces of everything show.
    "steep": dict(tilt_deg=40.0, yaw_deg=-6.0),
}


@dataclass(frozen=True)
class Camera:
    """A camera: where it is, its lens, and what its sensor and encoder do to the picture.

    ``tilt_deg`` moves the camera towards the bottom player's edge while it keeps looking at the board's
    centre (0 = straight down); ``yaw_deg`` turns it around the vertical through the centre; ``roll_deg``
    turns the picture. ``focal_px=None`` picks the focal length that fits the board with ``margin``.
    """

    width: int = 1280
    height: int = 720
    tilt_deg: float = 8.0
    yaw_deg: float = 1.0
    roll_deg: float = 0.0
    distance_mm: float = 1000.0
    shift_mm: tuple[float, float] = (0.0, 0.0)
    focal_px: float | None = None
    margin: float = 0.06
    distortion: tuple[float, float, float, float, float] = (-0.06, 0.015, 0.0, 0.0, 0.0)
    focus_blur: float = 0.7  # Gaussian sigma in pixels for the whole picture
    motion_blur: bool = True  # streak moving dice and hands along their motion
    noise: float = 2.2  # sensor noise sigma in 8-bit levels
    jpeg_quality: int | None = 88  # None: no JPEG round trip
    # A lamp above and behind the top player's left: its light falls off across the board and it throws
    # shadows towards the bottom right. x, y in board mm, then its height above the playing surface.
    light_mm: tuple[float, float, float] = (620.0, -150.0, 1500.0)
    ambient: float = 0.55  # share of the room's (shadowless) light
    vignette: float = 0.25
    white_balance: tuple[float, float, float] = (0.96, 1.0, 1.05)  # B, G, R gains (warm indoor light)
    exposure: float = 1.0
    # How bright the window beyond the top player shows in glossy tops, against the lamp's image (0.3: a
    # bright overcast sky; 0: a room with no window, or the curtains drawn). Only a camera looking along the
    # board steeply sees it (the ``steep`` preset's far half). On since 2026-11-26, once the board reader
    # coped with it and the steep footage and roll figures were re-run with it (docs/sim-looks.md).
    window_glint: float = 0.3

    def __post_init__(self) -> None:
        if not (16 <= self.width <= 8192 and 16 <= self.height <= 8192):
            raise SimError(f"image size must be 16..8192 pixels a side, got {self.width}x{self.height}")
        if not 0 <= self.tilt_deg < 80:
            raise SimError(f"tilt_deg must be in [0, 80), got {self.tilt_deg}")
        if self.distance_mm <= 100:
            raise SimError(f"distance_mm must be above 100 mm, got {self.distance_mm}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise SimError(f"jpeg_quality must be 1..100 or None, got {self.jpeg_quality}")
        if self.noise < 0 or self.focus_blur < 0:
            raise SimError("noise and focus_blur must be >= 0")
        if not 0 <= self.window_glint <= 2:
            raise SimError(f"window_glint must be in [0, 2], got {self.window_glint}")
        if len(self.distortion) != 5:
            raise SimError("distortion must be (k1, k2, p1, p2, k3)")

    @classmethod
    def preset(cls, name: str, **overrides) -> "Camera":
        """A named pose (top, default, tilted, steep) with any field overridden."""
        if name not in PRESETS:
            raise SimError(f"unknown camera preset {name!r}; choose from {', '.join(PRESETS)}")
        return cls(**{**PRESETS[name], **overrides})

    def with_size(self, width: int, height: int) -> "Camera":
        return replace(self, width=width, height=height)

    def relit(self, rng: np.random.Generator) -> "Camera":
        """The same camera in another room: the lamp's place and height, the room's share of the light,
        the lens's vignette, the white balance and the exposure drawn from ``rng`` (in that order, so a
        caller drawing its pose first keeps its draws). A preset has one lamp; tables do not."""
        return replace(
            self,
            light_mm=(float(rng.uniform(-200, 1000)), float(rng.uniform(-200, 700)), float(rng.uniform(700, 2000))),
            ambient=float(rng.uniform(0.35, 0.8)), vignette=float(rng.uniform(0.05, 0.45)),
            white_balance=(float(rng.uniform(0.8, 1.15)), 1.0, float(rng.uniform(0.85, 1.2))),
            exposure=float(rng.uniform(0.7, 1.3)),
        )

    def model(self, spec: BoardSpec | None = None) -> "CameraModel":
        return CameraModel.build(self, spec or BoardSpec())


@dataclass(frozen=True)
class CameraModel:
    """A camera resolved against a board: rotation, translation, K, distortion, ready to project."""

    camera: Camera
    R: np.ndarray = field(repr=False)
    t: np.ndarray = field(repr=False)
    K: np.ndarray = field(repr=False)
    dist: np.ndarray = field(repr=False)
    centre: np.ndarray = field(repr=False)  # camera position in world mm

    @classmethod
    def build(cls, cam: Camera, spec: BoardSpec) -> "CameraModel":
        target = np.array([spec.width / 2 + cam.shift_mm[0], spec.height / 2 + cam.shift_mm[1], 0.0])
        tilt = math.radians(cam.tilt_deg)
        yaw = math.radians(cam.yaw_deg)
        # Offset from the target: up (z negative) and towards the bottom player (y positive), yawed.
        offset = np.array([math.sin(yaw) * math.sin(tilt), math.cos(yaw) * math.sin(tilt), -math.cos(tilt)])
        centre = target + cam.distance_mm * offset
        forward = (target - centre) / np.linalg.norm(target - centre)
        down_hint = np.array([math.sin(yaw), math.cos(yaw), 0.0])
        if cam.tilt_deg == 0:
            down_hint = np.array([math.sin(yaw), math.cos(yaw), 0.0])
        y_axis = down_hint - forward * float(down_hint @ forward)
        y_axis /= np.linalg.norm(y_axis)
        x_axis = np.cross(y_axis, forward)
        roll = math.radians(cam.roll_deg)
        x_axis, y_axis = (
            math.cos(roll) * x_axis + math.sin(roll) * y_axis,
            -math.sin(roll) * x_axis + math.cos(roll) * y_axis,
        )
        R = np.stack([x_axis, y_axis, forward])
        t = -R @ centre
        dist = np.array(cam.distortion, dtype=np.float64)
        if cam.focal_px is not None:
            f = float(cam.focal_px)
        else:
            corners = np.array([[0, 0, 0], [spec.width, 0, 0], [spec.width, spec.height, 0], [0, spec.height, 0]], float)
            cam_pts = corners @ R.T + t
            xn = _distort(cam_pts[:, 0] / cam_pts[:, 2], cam_pts[:, 1] / cam_pts[:, 2], dist)
            half_w = cam.width / 2 * (1 - 2 * cam.margin)
            half_h = cam.height / 2 * (1 - 2 * cam.margin)
            f = min(half_w / np.abs(xn[0]).max(), half_h / np.abs(xn[1]).max())
        K = np.array([[f, 0, cam.width / 2 - 0.5], [0, f, cam.height / 2 - 0.5], [0, 0, 1.0]])
        return cls(cam, R, t, K, dist, centre)

    # --- projection ---------------------------------------------------------------------------
    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) in mm to distorted pixel coordinates (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 3) @ self.R.T + self.t
        z = np.maximum(pts[:, 2], 1e-6)
        x, y = _distort(pts[:, 0] / z, pts[:, 1] / z, self.dist)
        K = self.K
        return np.stack([K[0, 0] * x + K[0, 2], K[1, 1] * y + K[1, 2]], axis=1)

    def depth(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 3) @ self.R.T + self.t
        return pts[:, 2]

    def homography_board_to_image(self) -> np.ndarray:
        """Plane z = 0 (mm) to undistorted pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]

    def homography_image_to_board(self) -> np.ndarray:
        """Undistorted pixels to board mm: what a perfect calibration would find."""
        H = np.linalg.inv(self.homography_board_to_image())
        return H / H[2, 2]

    def pixel_rays(self) -> np.ndarray:
        """For every (distorted) pixel, the direction (world mm, not normalised) of the ray it sees: (h, w, 3)."""
        import cv2

        w, h = self.camera.width, self.camera.height
        us, vs = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        pix = np.stack([us.ravel(), vs.ravel()], axis=1).reshape(-1, 1, 2)
        norm = cv2.undistortPoints(
            pix, self.K, self.dist, None, None, None, (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-6)
        ).reshape(-1, 2)
        rays = np.column_stack([norm, np.ones(len(norm))]) @ self.R  # camera -> world directions
        return rays.reshape(h, w, 3)

    def rays_to_plane(self, rays: np.ndarray, z: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Where rays (from :meth:`pixel_rays`) meet the plane at depth ``z`` (mm, positive = below the
        playing surface): (X, Y) maps in mm."""
        s = (z - self.centre[2]) / rays[..., 2]
        X = self.centre[0] + s * rays[..., 0]
        Y = self.centre[1] + s * rays[..., 1]
        return X.astype(np.float32), Y.astype(np.float32)

    def pixel_rays_to_plane(self, z: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """For every (distorted) pixel, the point of the plane at depth z (0 = the playing surface) it sees,
        in mm: (X, Y) maps."""
        return self.rays_to_plane(self.pixel_rays(), z)

    def mm_per_pixel_at_centre(self, spec: BoardSpec) -> float:
        a = self.project(np.array([[spec.width / 2, spec.height / 2, 0], [spec.width / 2 + 10, spec.height / 2, 0]]))
        return 10.0 / float(np.linalg.norm(a[1] - a[0]))

    def to_truth(self) -> dict:
        return {
            "K": self.K.round(6).tolist(),
            "dist": self.dist.tolist(),
            "R": self.R.round(9).tolist(),
            "t": self.t.round(6).tolist(),
            "centre_mm": self.centre.round(3).tolist(),
            "size": [self.camera.width, self.camera.height],
            "lighting": {
                "light_mm": [round(float(v), 1) for v in self.camera.light_mm],
                "ambient": round(self.camera.ambient, 4),
                "vignette": round(self.camera.vignette, 4),
                "white_balance": [round(float(v), 4) for v in self.camera.white_balance],
                "exposure": round(self.camera.exposure, 4),
                "window_glint": round(self.camera.window_glint, 4),
            },
        }


def _distort(x: np.ndarray, y: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k1, k2, p1, p2, k3 = dist
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return xd, yd
