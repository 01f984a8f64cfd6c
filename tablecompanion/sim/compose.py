"""What the simulator's painters share: the colour of the light and pasting a painted patch into the picture."""

from __future__ import annotations

import cv2
import numpy as np

LAMP_COLOUR = (0.93, 1.0, 1.06)  # BGR: a warm bulb
AMBIENT_COLOUR = (1.05, 1.0, 0.95)  # the room's light: cooler (daylight from a window, white walls)


def blend(img: np.ndarray, x0: int, y0: int, rgb: np.ndarray, alpha: np.ndarray | None = None) -> None:
    """Alpha-composite a float patch onto img at (x0, y0): ``rgb`` BGR with ``alpha`` in 0..1, or BGRA
    (alpha 0..255) when ``alpha`` is None."""
    if alpha is None:
        alpha = rgb[..., 3] * (1.0 / 255.0)
        rgb = rgb[..., :3]
    ph, pw = rgb.shape[:2]
    roi = img[y0:y0 + ph, x0:x0 + pw]
    src = np.clip(rgb, 0, 255).astype(np.uint8)
    a = np.ascontiguousarray(alpha, dtype=np.float32)
    roi[:] = cv2.blendLinear(src, roi.copy(), a, 1.0 - a)


def line_kernel(motion) -> np.ndarray:
    """A normalised line kernel along ``motion`` (dx, dy px): the smear of something moving while the shutter is open."""
    dx, dy = motion
    n = int(max(abs(dx), abs(dy))) + 1
    size = 2 * (n // 2) + 1
    k = np.zeros((size, size), np.float32)
    c = size // 2
    cv2.line(k, (int(round(c - dx / 2)), int(round(c - dy / 2))), (int(round(c + dx / 2)), int(round(c + dy / 2))), 1.0, 1)
    return k / max(k.sum(), 1e-6)
