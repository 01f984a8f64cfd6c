"""Small synthetic pictures of dice, doubling cubes and checkers, drawn with OpenCV, with ground truth.

For tests and for the cases no public photo set has: cocked dice (a tilted cube: squashed top face
plus a visible side face), a cube showing "64", checkers next to dice, printed dice icons, and roll
sequences for the settle detector. Deterministic for a given seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# pip positions on a face in units of the half side (centre 0, corners +-0.5)
PIP_LAYOUT = {
    1: [(0, 0)],
    2: [(-0.5, -0.5), (0.5, 0.5)],
    3: [(-0.5, -0.5), (0, 0), (0.5, 0.5)],
    4: [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)],
    5: [(-0.5, -0.5), (0.5, -0.5), (0, 0), (-0.5, 0.5), (0.5, 0.5)],
    6: [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0), (0.5, 0), (-0.5, 0.5), (0.5, 0.5)],
}


@dataclass(frozen=True)
class DieSpec:
    value: int
    x: float
    y: float
    side: float = 40.0
    angle: float = 0.0  # degrees
    tilt: float = 0.0  # degrees; > 0 draws a cocked die (top face squashed, a side face showing)
    face: tuple[int, int, int] = (245, 245, 245)
    pip: tuple[int, int, int] = (20, 20, 20)


def _rot(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _face_points(spec: DieSpec, squash: float, shift: tuple[float, float] = (0.0, 0.0)):
    """Map face-local coordinates (-0.5..0.5) to image pixels for a face squashed along its y axis."""
    r = _rot(spec.angle)

    def to_img(u: float, v: float) -> tuple[float, float]:
        p = r @ np.array([u * spec.side, v * spec.side * squash]) + np.array([spec.x + shift[0], spec.y + shift[1]])
        return float(p[0]), float(p[1])

    return to_img


def draw_die(img: np.ndarray, spec: DieSpec, shadow: bool = True) -> None:
    """Draw one die seen from above (flat) or tipped over by ``spec.tilt`` degrees (cocked)."""
    squash = math.cos(math.radians(spec.tilt))
    top = _face_points(spec, squash)
    corners = np.array([top(-0.5, -0.5), top(0.5, -0.5), top(0.5, 0.5), top(-0.5, 0.5)])
    if shadow:
        sh = (corners + np.array([spec.side * 0.08, spec.side * 0.1])).astype(np.int32)
        cv2.fillConvexPoly(img, sh, (90, 90, 90), cv2.LINE_AA)
    if spec.tilt > 0:
        # the side face towards the camera: a strip below the squashed top face, with its own pips
        depth = math.sin(math.radians(spec.tilt))
        r = _rot(spec.angle)
        off = r @ np.array([0.0, spec.side * (squash / 2 + depth / 2)])
        strip = _face_points(DieSpec(spec.value, spec.x + off[0], spec.y + off[1], spec.side, spec.angle), depth)
        poly = np.array([strip(-0.5, -0.5), strip(0.5, -0.5), strip(0.5, 0.5), strip(-0.5, 0.5)])
        shade = tuple(int(c * 0.7) for c in spec.face)
        cv2.fillConvexPoly(img, poly.astype(np.int32), shade, cv2.LINE_AA)
        for u, v in PIP_LAYOUT[7 - spec.value if spec.value != 1 else 3]:
            cx, cy = strip(u * 0.55, v * 0.55)
            axes = (max(1, int(spec.side * 0.08)), max(1, int(spec.side * 0.08 * depth)))
            cv2.ellipse(img, (int(cx), int(cy)), axes, spec.angle, 0, 360, spec.pip, -1, cv2.LINE_AA)
    cv2.fillConvexPoly(img, corners.astype(np.int32), spec.face, cv2.LINE_AA)
    cv2.polylines(img, [corners.astype(np.int32)], True, tuple(int(c * 0.6) for c in spec.face), 1, cv2.LINE_AA)
    rad = spec.side * (0.1 if spec.value != 1 else 0.12)
    for u, v in PIP_LAYOUT[spec.value]:
        cx, cy = top(u * 0.55, v * 0.55)
        axes = (max(1, int(round(rad))), max(1, int(round(rad * squash))))
        cv2.ellipse(img, (int(round(cx)), int(round(cy))), axes, spec.angle, 0, 360, spec.pip, -1, cv2.LINE_AA)


def draw_cube(img: np.ndarray, x: float, y: float, side: float = 48.0, text: str = "64") -> None:
    """A doubling cube seen from above: a white square with a printed number (not a die)."""
    h = side / 2
    cv2.rectangle(img, (int(x - h), int(y - h)), (int(x + h), int(y + h)), (235, 235, 235), -1, cv2.LINE_AA)
    cv2.rectangle(img, (int(x - h), int(y - h)), (int(x + h), int(y + h)), (120, 120, 120), 1, cv2.LINE_AA)
    scale = side / 40.0
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(scale * 2)))
    cv2.putText(img, text, (int(x - tw / 2), int(y + th / 2)), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20), max(1, int(scale * 2)), cv2.LINE_AA)


def draw_icon(img: np.ndarray, value: int, x: float, y: float, side: float = 40.0, angle: float = 0.0,
              ink: tuple[int, int, int] = (20, 20, 20), width: int = 2, rounded: float = 0.15) -> None:
    """A printed die (an icon on a score sheet, a box, a screen): a rounded square drawn in ink, with
    dots, on whatever paper ``img`` is (not a die)."""
    r, h = rounded * side, side / 2 - rounded * side
    corners = []
    for qx, qy, a0 in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        for a in np.linspace(a0, a0 + 90, 6):
            corners.append((qx * h + r * math.cos(math.radians(a)), qy * h + r * math.sin(math.radians(a))))
    rot, centre = _rot(angle), np.array([x, y])
    outline = np.array([rot @ np.array(p) + centre for p in corners])
    cv2.polylines(img, [np.round(outline * 16).astype(np.int32)], True, ink, width, cv2.LINE_AA, shift=4)
    for u, v in PIP_LAYOUT[value]:
        px, py = rot @ np.array([u * side * 0.54, v * side * 0.54]) + centre
        cv2.circle(img, (round(px * 16), round(py * 16)), round(max(1.5, side * 0.085) * 16), ink, -1, cv2.LINE_AA, shift=4)


def draw_checker(img: np.ndarray, x: float, y: float, radius: float = 55.0, colour=(30, 30, 30), ring=(200, 200, 200)) -> None:
    """A checker from above: a disc with a moulded ring."""
    cv2.circle(img, (int(x), int(y)), int(radius), colour, -1, cv2.LINE_AA)
    cv2.circle(img, (int(x), int(y)), int(radius * 0.7), ring, max(1, int(radius * 0.05)), cv2.LINE_AA)
    cv2.circle(img, (int(x), int(y)), int(radius), (0, 0, 0), 1, cv2.LINE_AA)


def table(width: int = 1280, height: int = 720, colour=(60, 110, 40), seed: int = 0, noise: float = 4.0) -> np.ndarray:
    """A plain felt-like table surface with a little noise."""
    rng = np.random.default_rng(seed)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = colour
    if noise > 0:
        n = rng.normal(0, noise, img.shape)
        img = np.clip(img.astype(np.float32) + n, 0, 255).astype(np.uint8)
    return img


def scene(dice: list[DieSpec], width: int = 1280, height: int = 720, seed: int = 0, background=(60, 110, 40)) -> np.ndarray:
    img = table(width, height, background, seed)
    for d in dice:
        draw_die(img, d)
    return img
