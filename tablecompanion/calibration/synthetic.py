"""Boards drawn with OpenCV in several styles and photographed with known homographies.

Calibration's tests, evaluation and benchmark need images whose true geometry is known. The table
simulator (tablecompanion.sim) renders whole scenes; this module is the small, dependency-free drawing
calibration uses on its own: a top-down board in a style, then a "photo" of it from a random view over a
background (optionally a real photograph), with lighting, noise, blur and a hand in the way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from tablecompanion.calibration.markers import marker_dictionary
from tablecompanion.calibration.model import apply_homography, rect_corners
from tablecompanion.geometry import MARKER_IDS, BoardGeometry, BoardSpec

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class BoardStyle:
    """Colours (BGR) of a board's parts; ``grain`` adds wood-like streaks of that strength."""

    name: str
    frame: BGR
    surface: BGR
    point_a: BGR
    point_b: BGR
    bar: BGR
    tray: BGR
    checker_a: BGR = (245, 245, 240)
    checker_b: BGR = (30, 30, 30)
    grain: float = 0.0


STYLES: dict[str, BoardStyle] = {
    s.name: s
    for s in (
        BoardStyle("classic", (30, 60, 110), (60, 120, 40), (40, 40, 170), (200, 225, 235), (30, 60, 110), (40, 80, 120), grain=12),
        BoardStyle("tournament", (40, 40, 40), (120, 90, 30), (235, 235, 235), (30, 30, 150), (40, 40, 40), (60, 60, 60), grain=0),
        BoardStyle("cream", (60, 100, 150), (150, 200, 225), (70, 90, 160), (110, 150, 190), (60, 100, 150), (80, 120, 160), grain=18),
        BoardStyle("black_white", (20, 20, 20), (128, 128, 128), (245, 245, 245), (15, 15, 15), (20, 20, 20), (35, 35, 35), (40, 40, 200), (200, 120, 40)),
        BoardStyle("leather", (20, 25, 60), (30, 50, 30), (40, 160, 200), (160, 160, 150), (25, 35, 70), (20, 25, 60), grain=6),
    )
}


def render_topdown(
    spec: BoardSpec | None = None,
    style: BoardStyle | str = "classic",
    px_per_mm: float = 2.0,
    markers: bool = True,
    checkers: bool = True,
    seed: int = 0,
) -> np.ndarray:
    """The whole board seen from straight above: pixel (u, v) shows board point (u, v) / px_per_mm mm."""
    spec = spec or BoardSpec()
    style = STYLES[style] if isinstance(style, str) else style
    geo = BoardGeometry(spec)
    rng = np.random.default_rng(seed)
    w, h = int(round(spec.width * px_per_mm)), int(round(spec.height * px_per_mm))
    img = np.zeros((h, w, 3), np.uint8)

    def rect(r, colour):
        x0, y0, x1, y1 = (int(round(v * px_per_mm)) for v in r)
        cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), colour, -1)

    rect(geo.outline, style.frame)
    rect(geo.surface, style.surface)
    rect(geo.bar, style.bar)
    for player in ("bottom", "top"):
        rect(geo.tray(player), style.tray)
    shift = 4
    for point in range(1, 25):
        colour = style.point_a if point % 2 else style.point_b
        tri = np.array(geo.point_triangle(point)) * px_per_mm * (1 << shift)
        cv2.fillPoly(img, [np.round(tri).astype(np.int32)], colour, lineType=cv2.LINE_AA, shift=shift)
    if style.grain:
        streaks = rng.normal(0, 1, (h, 1)).repeat(w, 1) + rng.normal(0, 1, (1, w)).repeat(h, 0) * 0.3
        streaks = cv2.GaussianBlur(streaks.astype(np.float32), (0, 0), 2)
        img = np.clip(img.astype(np.float32) + style.grain * streaks[..., None], 0, 255).astype(np.uint8)
    if checkers:
        _draw_checkers(img, geo, style, px_per_mm)
    if markers:
        draw_markers(img, geo, px_per_mm)
    return img


def _draw_checkers(img: np.ndarray, geo: BoardGeometry, style: BoardStyle, px_per_mm: float) -> None:
    """The starting position: bottom player's checkers in colour a, top player's in colour b."""
    start = {24: 2, 13: 5, 8: 3, 6: 5}
    r = int(geo.spec.checker_diameter / 2 * px_per_mm)
    for player, colour in (("bottom", style.checker_a), ("top", style.checker_b)):
        for point, n in start.items():
            for slot in geo.checker_slots(point, n, player):
                c = (int(slot.x * px_per_mm), int(slot.y * px_per_mm))
                cv2.circle(img, c, r, colour, -1, cv2.LINE_AA)
                cv2.circle(img, c, max(1, r - 4), tuple(int(v * 0.85) for v in colour), 1, cv2.LINE_AA)


def draw_markers(img: np.ndarray, geo: BoardGeometry, px_per_mm: float) -> None:
    """The four ArUco markers where ``BoardGeometry.marker_corners`` puts them, each on the white paper
    square cut from the printed sheet (the frame's corner square)."""
    dictionary = marker_dictionary()
    f = geo.spec.frame_width
    for marker_id in MARKER_IDS.values():
        corners = np.array(geo.marker_corners(marker_id)) * px_per_mm
        side = int(round(corners[1, 0] - corners[0, 0]))
        x0, y0 = (int(round(v)) for v in corners[0])
        centre = corners.mean(axis=0)
        half = f * px_per_mm / 2
        cv2.rectangle(img, (int(round(centre[0] - half)), int(round(centre[1] - half))),
                      (int(round(centre[0] + half)) - 1, int(round(centre[1] + half)) - 1), (255, 255, 255), -1)
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        img[y0 : y0 + side, x0 : x0 + side] = marker[..., None]


def view_homography(
    spec: BoardSpec,
    image_size: tuple[int, int],
    rng: np.random.Generator,
    fill: tuple[float, float] = (0.6, 0.9),
    max_rotation_deg: float = 8.0,
    max_tilt: float = 0.12,
    jitter: float = 0.02,
) -> np.ndarray:
    """A random camera's board mm -> image px homography: board filling ``fill`` of the frame's width,
    rotated a little, with perspective (far edge shorter by up to ``max_tilt``) and corner jitter."""
    w, h = image_size
    f = rng.uniform(*fill)
    bw = f * w
    bh = bw * spec.height / spec.width
    if bh > 0.95 * h:
        bh = 0.95 * h * rng.uniform(0.85, 1.0)
        bw = bh * spec.width / spec.height
    tilt = rng.uniform(0, max_tilt)
    quad = np.array(
        [[-bw / 2 * (1 - tilt), -bh / 2], [bw / 2 * (1 - tilt), -bh / 2], [bw / 2, bh / 2], [-bw / 2, bh / 2]]
    )
    a = np.deg2rad(rng.uniform(-max_rotation_deg, max_rotation_deg))
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    quad = quad @ rot.T
    quad += rng.normal(0, jitter * bw / 2, quad.shape)
    # keep it inside the frame
    extent = np.abs(quad).max(axis=0) * 2 / (np.array([w, h]) * 0.97)
    if extent.max() > 1:
        quad /= extent.max()
    centre_room = np.array([w, h]) / 2 - np.abs(quad).max(axis=0)
    centre = np.array([w, h]) / 2 + rng.uniform(-1, 1, 2) * np.maximum(centre_room - 5, 0)
    quad += centre
    src = rect_corners((0, 0, spec.width, spec.height)).astype(np.float32)
    return cv2.getPerspectiveTransform(src, quad.astype(np.float32)).astype(np.float64)


def textured_background(size: tuple[int, int], rng: np.random.Generator, photo: np.ndarray | None = None) -> np.ndarray:
    """A table top: a real photograph stretched over the frame, or a noisy coloured cloth."""
    w, h = size
    if photo is not None:
        return cv2.resize(photo, (w, h), interpolation=cv2.INTER_LINEAR)
    base = rng.integers(40, 200, 3)
    noise = cv2.GaussianBlur(rng.normal(0, 25, (h // 4 + 1, w // 4 + 1)).astype(np.float32), (0, 0), 3)
    noise = cv2.resize(noise, (w, h))
    return np.clip(base[None, None, :] + noise[..., None], 0, 255).astype(np.uint8)


def add_hand(img: np.ndarray, rng: np.random.Generator, scale: float = 1.0) -> None:
    """A skin-coloured arm reaching in from an edge of the frame, ending in a hand."""
    h, w = img.shape[:2]
    skin = tuple(int(v) for v in rng.choice([[120, 150, 200], [80, 110, 160], [60, 80, 110], [150, 180, 225]]))
    edge = rng.integers(4)
    t = rng.uniform(0.25, 0.75)
    start = [(t * w, -20), (w + 20, t * h), (t * w, h + 20), (-20, t * h)][edge]
    reach = rng.uniform(0.2, 0.4) * scale
    inward = [(0, 1), (-1, 0), (0, -1), (1, 0)][edge]
    end = (start[0] + inward[0] * reach * w, start[1] + inward[1] * reach * h)
    thickness = int(0.06 * w * scale)
    cv2.line(img, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), skin, thickness, cv2.LINE_AA)
    cv2.ellipse(img, (int(end[0]), int(end[1])), (int(0.05 * w * scale), int(0.04 * w * scale)), float(rng.uniform(0, 180)), 0, 360, skin, -1, cv2.LINE_AA)


@dataclass(frozen=True)
class SyntheticPhoto:
    image: np.ndarray
    homography: np.ndarray  # true image px -> board mm
    spec: BoardSpec
    style: str


def photograph(
    spec: BoardSpec | None = None,
    style: str = "classic",
    image_size: tuple[int, int] = (1280, 720),
    seed: int = 0,
    markers: bool = True,
    checkers: bool = True,
    hand: bool = False,
    background: np.ndarray | None = None,
    fill: tuple[float, float] = (0.6, 0.9),
    max_tilt: float = 0.12,
    max_rotation_deg: float = 8.0,
    lighting: float = 0.3,
    noise: float = 4.0,
    blur: float = 0.7,
    px_per_mm: float = 2.5,
) -> SyntheticPhoto:
    """A photo of a drawn board from a random view, and the true image -> board homography."""
    spec = spec or BoardSpec()
    rng = np.random.default_rng(seed)
    w, h = image_size
    top = render_topdown(spec, style, px_per_mm, markers=markers, checkers=checkers, seed=seed)
    board_to_img = view_homography(spec, image_size, rng, fill=fill, max_tilt=max_tilt, max_rotation_deg=max_rotation_deg)
    m = board_to_img @ np.diag([1 / px_per_mm, 1 / px_per_mm, 1.0])
    img = textured_background(image_size, rng, background).copy()
    warped = cv2.warpPerspective(top, m, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full(top.shape[:2], 255, np.uint8), m, (w, h), flags=cv2.INTER_LINEAR)
    alpha = (mask.astype(np.float32) / 255)[..., None]
    img = (warped * alpha + img * (1 - alpha)).astype(np.float32)
    if lighting:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        d = rng.normal(0, 1, 2)
        grad = (xx / w - 0.5) * d[0] + (yy / h - 0.5) * d[1]
        img *= (1 + lighting * grad)[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    if hand:
        add_hand(img, rng)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if noise:
        img = np.clip(img.astype(np.float32) + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    return SyntheticPhoto(img, np.linalg.inv(board_to_img), spec, style)


def corner_error_mm(true_img_to_board: np.ndarray, calibration_img_to_board: np.ndarray, board_pts: Sequence) -> np.ndarray:
    """How far (mm) each board point lands from where it should, mapping through the image: the point
    is sent into the image by the truth, then back to the board by the calibration."""
    img_pts = apply_homography(np.linalg.inv(true_img_to_board), board_pts)
    back = apply_homography(calibration_img_to_board, img_pts)
    return np.linalg.norm(back - np.asarray(board_pts, dtype=np.float64), axis=1)
