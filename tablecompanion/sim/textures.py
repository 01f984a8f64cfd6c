"""Procedural materials: wood grain, felt, checker faces and die faces, as float BGR images in [0, 255]."""

from __future__ import annotations

import math

import cv2
import numpy as np

# Pip layout of a die face on a 3x3 grid, (column, row) in -1..1.
PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def value_noise(shape: tuple[int, int], cell: float, rng: np.random.Generator) -> np.ndarray:
    """Smooth noise in [-1, 1] with features about ``cell`` pixels across."""
    h, w = shape
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def wood(shape: tuple[int, int], colour, rng: np.random.Generator, along_x: bool = True, scale: float = 1.0) -> np.ndarray:
    """Wood as boards are made of it: strips of veneer or solid wood glued side by side, each its own
    tone, with growth rings of irregular widths bent by slow noise, pores along the grain and a faint
    glue line between strips (the old regular sine grain read as procedural at a glance)."""
    h, w = shape
    if not along_x:
        return np.ascontiguousarray(wood((w, h), colour, rng, True, scale).transpose(1, 0, 2))
    base = np.array(colour, np.float32)
    out = np.empty((h, w, 3), np.float32)
    y = 0
    while y < h:
        strip = min(h - y, max(4, int(rng.uniform(45, 110) * scale)))
        if h - y - strip < 10 * scale:  # no sliver at the end
            strip = h - y
        out[y:y + strip] = _plank((strip, w), base, rng, scale)
        if y > 0:
            out[y:y + max(1, int(0.4 * scale))] *= 0.9
        y += strip
    return np.clip(out, 0, 255)


def felt(shape: tuple[int, int], colour, rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    """Baize: fine fibre noise over a faint mottle."""
    h, w = shape
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), 0.6 * scale)
    mottle = value_noise(shape, 50 * scale, rng) * 0.06 + value_noise(shape, 200 * scale, rng) * 0.05
    # The nap: brushed one way in patches, so the cloth catches the light in long soft streaks.
    nap = cv2.resize(rng.uniform(-1, 1, (max(2, int(h / (6 * scale))), max(2, int(w / (60 * scale))))).astype(np.float32),
                     (w, h), interpolation=cv2.INTER_CUBIC) * value_noise(shape, 120 * scale, rng)
    # Lint and dust: a few pale specks and fibres.
    specks = np.zeros((h, w), np.float32)
    n = int(h * w / (scale * scale) / 900)
    ys, xs = rng.integers(0, max(1, h), n), rng.integers(0, max(1, w), n)
    for x, y, a in zip(xs, ys, rng.uniform(0, np.pi, n)):
        ln = rng.uniform(0.5, 2.5) * scale
        cv2.line(specks, (int(x), int(y)), (int(x + ln * np.cos(a)), int(y + ln * np.sin(a))), 1.0, 1, cv2.LINE_AA)
    specks = cv2.GaussianBlur(specks, (0, 0), 0.4 * scale) * 0.35
    shade = 1.0 + 0.06 * fine + mottle + 0.035 * nap + specks
    return np.clip(shade[..., None] * np.array(colour, np.float32), 0, 255)


def checker_sprite(colour, size: int, rng: np.random.Generator, light_dir=(-0.4, -0.5)) -> np.ndarray:
    """Top face of a checker seen from above as BGRA float32: bevelled rim, groove ring, sheen, grain."""
    c = (size - 1) / 2
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    dx, dy = (xx - c) / c, (yy - c) / c
    r = np.sqrt(dx * dx + dy * dy) + 1e-6
    base = np.array(colour, np.float32)
    lum = float(base.mean())
    # Normal tilt: the rim rounds off over the outer 14 %, a groove dips at 64 %.
    tilt = np.clip((r - 0.86) / 0.14, 0, 1) ** 1.5 * 1.2
    groove = np.exp(-(((r - 0.64) / 0.035) ** 2))
    tilt = tilt - 0.5 * groove * np.sign(r - 0.64)
    lx, ly = light_dir
    slope = (dx / r * lx + dy / r * ly) * np.sin(tilt)
    shade = 0.92 + 0.55 * slope - 0.12 * groove + 0.05 * (1 - r)
    # A soft highlight up-light of the centre, stronger on dark (shiny) checkers.
    hx, hy = 0.35 * lx / math.hypot(lx, ly), 0.35 * ly / math.hypot(lx, ly)
    spec = np.exp(-(((dx - hx) ** 2 + (dy - hy) ** 2) / 0.12)) * (0.10 if lum > 120 else 0.22)
    grain = value_noise((size, size), size / 6, rng) * 0.035 + rng.normal(0, 0.015, (size, size)).astype(np.float32)
    rgb = base * (shade + grain)[..., None] + 255 * spec[..., None]
    alpha = np.clip((1.0 - r) * c + 0.5, 0, 1)
    out = np.dstack([np.clip(rgb, 0, 255), alpha * 255]).astype(np.float32)
    return out


_PIP_RADIUS = 0.17  # of half a face
_PIP_SPREAD = 0.5


def _pip_distance(value: int, size: int) -> np.ndarray:
    """Each texel's distance to the nearest pip centre of ``value``'s face, in half a face's side."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    u, v = (xx + 0.5) / size * 2 - 1, (yy + 0.5) / size * 2 - 1
    return np.min([np.sqrt((u - cx * _PIP_SPREAD) ** 2 + (v - cy * _PIP_SPREAD) ** 2) for cx, cy in PIPS[value]],
                  axis=0)


def _pip_cover(distance: np.ndarray, size: int) -> np.ndarray:
    """How much of each texel the pips cover (0..1, a one-texel soft edge), from ``_pip_distance``."""
    return np.clip((_PIP_RADIUS - distance) * size / 2 + 0.5, 0, 1)


def die_pips(value: int, size: int = 64) -> np.ndarray:
    """How much of each texel of a die face the pips cover (float32 0..1, the geometry of ``die_face``):
    a translucent die's pips are paint, opaque where its body lets the board through."""
    return _pip_cover(_pip_distance(value, size), size)


def die_face(value: int, body, pip, size: int = 64, rounded: float = 0.18) -> np.ndarray:
    """One face of a die as BGRA float32: rounded corners (transparent), drilled pips, a soft rim."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    u, v = (xx + 0.5) / size * 2 - 1, (yy + 0.5) / size * 2 - 1
    # Rounded square: distance to the inner square of side 1 - rounded.
    q = 1 - rounded
    ax, ay = np.maximum(np.abs(u) - q, 0), np.maximum(np.abs(v) - q, 0)
    d = np.sqrt(ax * ax + ay * ay)
    alpha = np.clip((rounded - d) * size / 2 + 0.5, 0, 1)
    edge = np.clip(np.maximum(np.abs(u), np.abs(v)) - 0.8, 0, 1) / 0.2
    body_a = np.array(body, np.float32)
    img = np.ones((size, size, 3), np.float32) * body_a * (1 - 0.18 * edge[..., None])
    pip_a = np.array(pip, np.float32)
    rr = _pip_distance(value, size)
    cover = _pip_cover(rr, size)[..., None]
    # A drilled pip is darker on the side facing the light.
    inner = np.clip(1 - (rr / _PIP_RADIUS), 0, 1)[..., None]
    img = img * (1 - cover) + cover * pip_a * (0.85 + 0.15 * inner)
    return np.dstack([img, alpha * 255]).astype(np.float32)


def cube_face(value: int, size: int = 96) -> np.ndarray:
    """A face of the doubling cube: ivory with the value printed in black."""
    img = np.full((size, size, 3), (214, 228, 234), np.uint8)
    text = str(value)
    scale = size / 40 if len(text) == 1 else size / 58
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, max(1, size // 24))
    cv2.putText(img, text, ((size - tw) // 2, (size + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale,
                (25, 25, 25), max(1, size // 24), cv2.LINE_AA)
    img = img.astype(np.float32)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    u, v = (xx + 0.5) / size * 2 - 1, (yy + 0.5) / size * 2 - 1
    q = 0.86
    d = np.sqrt(np.maximum(np.abs(u) - q, 0) ** 2 + np.maximum(np.abs(v) - q, 0) ** 2)
    alpha = np.clip((0.14 - d) * size / 2 + 0.5, 0, 1)
    return np.dstack([img, alpha * 255]).astype(np.float32)


def table_top(shape: tuple[int, int], colour, rng: np.random.Generator, px_per_mm: float) -> np.ndarray:
    """A wooden table top of planks along x: each plank its own tone and irregular grain, seams between
    planks and staggered end joints, a faint varnish sheen. Real tables are not one repeating stripe."""
    h, w = shape
    out = np.empty((h, w, 3), np.float32)
    base = np.array(colour, np.float32)
    y = 0
    while y < h:
        plank_h = min(h - y, max(8, int(rng.uniform(95, 150) * px_per_mm)))
        x = -int(rng.uniform(0, 1800) * px_per_mm)  # end joints staggered plank by plank
        while x < w:
            length = max(8, int(rng.uniform(1500, 2600) * px_per_mm))
            x0, x1 = max(0, x), min(w, x + length)
            if x1 > x0:
                out[y:y + plank_h, x0:x1] = _plank((plank_h, x1 - x0), base, rng, px_per_mm)
                if x > 0:  # end joint
                    out[y:y + plank_h, x0:x0 + max(1, int(0.8 * px_per_mm))] *= 0.55
            x += length
        if y > 0:  # seam between planks: a dark line with a lit lip below it
            seam = max(1, int(round(0.9 * px_per_mm)))
            out[y:y + seam] *= 0.5
            out[y + seam:y + 2 * seam] *= 1.06
        y += plank_h
    sheen = value_noise((h, w), 500 * px_per_mm, rng) * 0.05
    return np.clip(out * (1 + sheen)[..., None], 0, 255)


def _plank(shape: tuple[int, int], base: np.ndarray, rng: np.random.Generator, px_per_mm: float) -> np.ndarray:
    """One plank: growth rings of varying spacing (a random 1-D profile across the grain) bent by slow
    noise, fine pores stretched along the grain, the plank's own tone."""
    h, w = shape
    ring_mm = rng.uniform(2.5, 5.0)
    # distance across the grain, bent slowly along the plank (and in a few places sharply: figure)
    bend = value_noise((h, w), 400 * px_per_mm, rng) * 22 * px_per_mm + value_noise((h, w), 70 * px_per_mm, rng) * 2.5 * px_per_mm
    across = np.arange(h, dtype=np.float32)[:, None] + bend
    # ring profile: irregular widths, late wood darker, some rings much stronger than others
    n = int((h + 40 * px_per_mm) / (ring_mm * px_per_mm)) + 8
    widths = rng.gamma(4.0, ring_mm * px_per_mm / 4.0, n).astype(np.float32)
    edges = np.cumsum(widths) - 20 * px_per_mm
    strength = rng.uniform(0.3, 1.0, n).astype(np.float32) ** 2
    idx = np.clip(np.searchsorted(edges, across), 1, n - 1)
    frac = (across - edges[idx - 1]) / widths[idx]
    late = np.clip((frac - 0.55) / 0.45, 0, 1) ** 2 * strength[idx]
    pores = cv2.resize(rng.uniform(-1, 1, (max(2, h), max(2, int(w / (25 * px_per_mm))))).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_LINEAR)
    tone = rng.uniform(0.9, 1.08) * np.array([rng.uniform(0.985, 1.015), 1.0, rng.uniform(0.985, 1.015)], np.float32)
    shade = 1.0 - 0.24 * late + 0.04 * pores + value_noise((h, w), 120 * px_per_mm, rng) * 0.05
    return np.clip(shade[..., None] * base * tone, 0, 255)
