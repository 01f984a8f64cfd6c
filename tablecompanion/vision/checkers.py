"""Checkers on a top-down board image: how many of which colour on each point, on the bar, borne off.

Works on the calibrated, warped view (``Calibration.warp``), where a checker is a disc of known size:

1. ``find_discs``: the Hough transform at that radius on each Lab channel (a red checker on a dark point
   or a white one on a cream point is invisible in grey but not in every channel), each find kept only
   when a full ring of radial edges surrounds it (``ring_score``): triangle tips, dice (much smaller),
   the doubling cube (square) and a hand's knuckles do not make a ring of checker size.
2. ``label_sides``: two colour clusters in Lab (k-means), the lighter one "light".
3. ``complete_rows``: players fill a point from its edge without gaps, so each point is walked slot by
   slot from the edge and a slot the circle finder missed is taken when it shows a checker's ring and a
   checker's colour; the walk stops at the first empty slot, so an empty point is never "filled".
4. ``count_regions``: discs to points and the bar by the shared board model. A point whose discs
   disagree in colour or overlap is marked uncertain rather than guessed. A full row is listed in
   ``piles``: a pile seen from above reads as the row beneath it, so its count is a lower bound, which
   play identification uses as such (the rules engine then says how many the pile must hold).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from tablecompanion.geometry import BoardGeometry

SIDES = ("light", "dark")
CHECKERS_PER_SIDE = 15
RING_SAMPLES = 36


@dataclass(frozen=True)
class CheckerConfig:
    """Tuned values for the disc finder; radii are fractions of the board model's checker radius."""

    px_per_mm: float = 1.0
    min_radius: float = 0.8
    max_radius: float = 1.12
    min_centre_distance: float = 0.55  # Hough finds closer than this (radii) are one checker
    canny_high: float = 80.0
    accumulator: float = 18.0  # Hough accumulator votes a circle needs
    sample_radius: float = 0.55  # colour is sampled from this inner disc
    min_colour_gap: float = 28.0  # Lab distance below which two clusters are one colour
    edge_strength: float = 60.0  # summed |radial Lab gradient| (Sobel) that counts as an edge
    ring_found: float = 0.4  # share of the ring with edges a Hough find needs to be kept
    ring_fill: float = 0.62  # share of the ring with edges a missed slot of a distinct colour needs
    ring_sure: float = 0.86  # share a missed slot needs when its colour is like the empty point's
    ring_search_mm: float = 3.0  # centre search around a slot or find, mm
    max_gap: float = 0.25  # longest arc without an edge a checker's ring may have (share of the circle)
    max_fill_colour: float = 45.0  # Lab distance from the side's colour beyond which a slot is not filled
    pile_overlap: float = 0.75  # discs closer than this many diameters sit on one another


DEFAULT_CONFIG = CheckerConfig()


@dataclass(frozen=True)
class Disc:
    """One checker seen: centre in mm on the board, radius in mm, colour (Lab) and side.

    ``found`` is False for checkers filled in along a row rather than found by the circle finder."""

    x: float
    y: float
    r: float
    lab: tuple[float, float, float]
    side: str = ""
    found: bool = True
    ring: float = 0.0


@dataclass
class CheckerReading:
    """Counts by region. ``points`` maps the bottom player's point number to (side or None, count)."""

    points: dict[int, tuple[str | None, int]]
    bar: dict[str, int]
    off: dict[str, int]
    uncertain: list[int] = field(default_factory=list)
    discs: list[Disc] = field(default_factory=list)
    off_seen: bool = False
    piles: list[int] = field(default_factory=list)  # points whose row is full: the count is a lower bound

    def on_board(self, side: str) -> int:
        return sum(n for s, n in self.points.values() if s == side) + self.bar.get(side, 0)

    def to_json(self) -> dict:
        return {
            "points": {str(p): {"side": s, "count": n} for p, (s, n) in sorted(self.points.items())},
            "bar": dict(self.bar),
            "off": dict(self.off),
            "uncertain": sorted(self.uncertain),
            "piles": sorted(self.piles),
            "off_seen": self.off_seen,
        }


class _Edges:
    """Radial-edge sampling on a Lab image: gradients once, rings sampled at any centre."""

    def __init__(self, lab: np.ndarray, config: CheckerConfig) -> None:
        self.h, self.w = lab.shape[:2]
        # x and y gradients of the three Lab channels side by side: one gather per ring sample
        self.g = np.concatenate([cv2.Sobel(lab, cv2.CV_16S, 1, 0, ksize=3), cv2.Sobel(lab, cv2.CV_16S, 0, 1, ksize=3)], axis=2)
        self.config = config
        a = np.linspace(0, 2 * np.pi, RING_SAMPLES, endpoint=False)
        self.cos, self.sin = np.cos(a).astype(np.float32), np.sin(a).astype(np.float32)

    def score(self, x_px: float, y_px: float, r_px: float, search_px: float, gap: bool = True) -> tuple[float, float, float]:
        """The best share of a ring of radius ``r_px`` with radial edges, over centres within ``search_px``;
        returns (share, x, y) of the best centre. A ring with a long run of angles without an edge (more
        than ``max_gap`` of the circle) scores 0: a checker shows its rim nearly all round, while a die,
        a triangle's edges or a hand's outline cover only part of a circle."""
        steps = np.array([-search_px, 0.0, search_px] if search_px >= 1 else [0.0], np.float32)
        dx, dy = np.meshgrid(steps, steps)
        centres = np.stack([x_px + dx.ravel(), y_px + dy.ravel()], axis=1)  # (C, 2)
        radii = np.array([r_px - 1.0, r_px, r_px + 1.0], np.float32)
        xs = centres[:, 0, None, None] + radii[None, :, None] * self.cos[None, None, :]  # (C, R, A)
        ys = centres[:, 1, None, None] + radii[None, :, None] * self.sin[None, None, :]
        xi = np.clip(np.rint(xs).astype(np.int32), 0, self.w - 1)
        yi = np.clip(np.rint(ys).astype(np.int32), 0, self.h - 1)
        g = self.g[yi, xi].astype(np.float32)  # (C, R, A, 6)
        radial = np.abs(g[..., :3] * self.cos[None, None, :, None] + g[..., 3:] * self.sin[None, None, :, None]).sum(axis=3)
        edge = (radial > self.config.edge_strength).any(axis=1)  # (C, A): an edge at any of the radii
        share = edge.mean(axis=1)
        best = int(np.argmax(share))
        if gap and _longest_run(~edge[best]) > self.config.max_gap * RING_SAMPLES:
            return 0.0, float(centres[best, 0]), float(centres[best, 1])
        return float(share[best]), float(centres[best, 0]), float(centres[best, 1])


def _longest_run(miss: np.ndarray) -> int:
    """The longest circular run of True in a row of ring samples."""
    hits = np.flatnonzero(~miss)
    if len(hits) == 0:
        return len(miss)
    return int(np.max(np.diff(np.append(hits, hits[0] + len(miss))))) - 1


def _lab(warped: np.ndarray) -> np.ndarray:
    if warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(warped, cv2.COLOR_BGR2LAB)


def _patch_colour(lab: np.ndarray, cx: float, cy: float, rad: int) -> np.ndarray | None:
    h, w = lab.shape[:2]
    x0, x1 = max(0, int(cx) - rad), min(w, int(cx) + rad + 1)
    y0, y1 = max(0, int(cy) - rad), min(h, int(cy) + rad + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return np.median(lab[y0:y1, x0:x1].reshape(-1, 3), axis=0).astype(np.float32)


def find_discs(warped: np.ndarray, geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG,
               lab: np.ndarray | None = None, edges: _Edges | None = None) -> list[Disc]:
    """Checker-sized discs in a top-down image with their colour (unlabelled), each one ringed by edges."""
    if warped is None or warped.size == 0:
        return []
    lab = _lab(warped) if lab is None else lab
    edges = edges or _Edges(lab, config)
    scale = config.px_per_mm
    r_px = geometry.spec.checker_diameter / 2 * scale
    merge_px = config.min_centre_distance * r_px
    sx0, sy0, sx1, sy1 = (int(round(v * scale)) for v in geometry.surface)
    found: list[tuple[float, float, float]] = []
    for channel in range(3):
        plane = cv2.normalize(lab[sy0:sy1, sx0:sx1, channel], None, 0, 255, cv2.NORM_MINMAX)
        plane = cv2.GaussianBlur(plane, (5, 5), 1.2)
        circles = cv2.HoughCircles(
            plane,
            cv2.HOUGH_GRADIENT,
            dp=1,
            minDist=max(2.0, merge_px),
            param1=config.canny_high,
            param2=config.accumulator,
            minRadius=max(3, int(config.min_radius * r_px)),
            maxRadius=int(np.ceil(config.max_radius * r_px)),
        )
        if circles is None:
            continue
        for cx, cy, r in circles[0]:
            cx, cy = float(cx) + sx0, float(cy) + sy0
            if all((cx - x) ** 2 + (cy - y) ** 2 > merge_px**2 for x, y, _ in found):
                found.append((cx, cy, float(r)))
    discs = []
    rad = max(2, int(config.sample_radius * r_px))
    for cx, cy, r in found:
        share, _, _ = edges.score(cx, cy, r_px, 0.0, gap=False)
        if share < config.ring_found:
            continue
        colour = _patch_colour(lab, cx, cy, rad)
        if colour is None:
            continue
        discs.append(Disc(cx / scale, cy / scale, r / scale, tuple(float(v) for v in colour), ring=share))  # type: ignore[arg-type]
    return discs


def label_sides(discs: list[Disc], config: CheckerConfig = DEFAULT_CONFIG) -> list[Disc]:
    """Split discs into the two sides by colour: two clusters in Lab, the lighter one "light"."""
    if not discs:
        return []
    data = np.array([d.lab for d in discs], dtype=np.float32)
    if len(discs) == 1:
        labels = np.zeros(1, dtype=int)
        centres = data
    else:
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 0.5)
        _, labels, centres = cv2.kmeans(data, 2, None, criteria, 4, cv2.KMEANS_PP_CENTERS)
        labels = labels.ravel()
    if len(centres) == 2 and np.linalg.norm(centres[0] - centres[1]) >= config.min_colour_gap:
        light = int(np.argmax(centres[:, 0]))
        names = {light: "light", 1 - light: "dark"}
        return [_with_side(d, names[int(k)]) for d, k in zip(discs, labels)]
    # one colour only: decide by lightness against the middle of the Lab scale
    side = "light" if float(np.mean(data[:, 0])) >= 128 else "dark"
    return [_with_side(d, side) for d in discs]


def _with_side(d: Disc, side: str) -> Disc:
    return Disc(d.x, d.y, d.r, d.lab, side, d.found, d.ring)


_REGION_CACHE: dict[BoardGeometry, tuple[np.ndarray, tuple[float, float, float, float]]] = {}


def _region_of(d: Disc, geometry: BoardGeometry) -> tuple[str, int | None]:
    """Which point (bottom player's number) or the bar a disc's centre lies on: ("point", p), ("bar", None)
    or ("other", None). The same answer as ``geometry.locate`` for points and bar, without its loops."""
    cached = _REGION_CACHE.get(geometry)
    if cached is None:
        rects = np.array([geometry.point_rect(p) for p in range(1, 25)])
        cached = (rects, geometry.bar)
        _REGION_CACHE[geometry] = cached
    rects, bar = cached
    inside = (rects[:, 0] <= d.x) & (d.x <= rects[:, 2]) & (rects[:, 1] <= d.y) & (d.y <= rects[:, 3])
    hit = np.flatnonzero(inside)
    if len(hit):
        return "point", int(hit[0]) + 1
    if bar[0] <= d.x <= bar[2] and bar[1] <= d.y <= bar[3]:
        return "bar", None
    return "other", None


def count_regions(discs: list[Disc], geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG) -> CheckerReading:
    """Assign labelled discs to points and the bar; mark mixed colours and full rows uncertain."""
    by_point: dict[int, list[Disc]] = {p: [] for p in range(1, 25)}
    bar = {s: 0 for s in SIDES}
    for d in discs:
        kind, point = _region_of(d, geometry)
        if kind == "point" and point is not None:
            by_point[point].append(d)
        elif kind == "bar":
            bar[d.side] += 1
    points: dict[int, tuple[str | None, int]] = {}
    uncertain = []
    piles = []
    capacity = geometry.row_capacity()
    for point, found in by_point.items():
        if not found:
            points[point] = (None, 0)
            continue
        sides = [d.side for d in found]
        side = max(SIDES, key=sides.count)
        if sides.count(side) != len(sides):
            uncertain.append(point)
        if _overlapping(found, geometry, config):
            piles.append(point)
            uncertain.append(point)
        elif len(found) >= capacity:
            piles.append(point)  # a pile on a full row reads as the row: the count is a lower bound
        points[point] = (side, len(found))
    for side in SIDES:
        if bar[side] >= capacity:
            piles.append(25)
    off = {s: max(0, CHECKERS_PER_SIDE - sum(n for ps, n in points.values() if ps == s) - bar[s]) for s in SIDES}
    return CheckerReading(points, bar, off, sorted(set(uncertain)), discs, piles=sorted(set(piles)))


def _overlapping(found: list[Disc], geometry: BoardGeometry, config: CheckerConfig) -> bool:
    """Two discs of one point overlapping by more than a nudge: one lies on the other."""
    if len(found) < 2:
        return False
    pts = np.array([[c.x, c.y] for c in found])
    dist = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2) + np.eye(len(found)) * 1e9
    return bool(np.min(dist) < geometry.spec.checker_diameter * config.pile_overlap)


def read_checkers(warped: np.ndarray, geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG) -> CheckerReading:
    """The whole board read from a warped top-down image at ``config.px_per_mm``."""
    if warped is None or warped.size == 0:
        return count_regions([], geometry, config)
    lab = _lab(warped)
    edges = _Edges(lab, config)
    discs = label_sides(find_discs(warped, geometry, config, lab, edges), config)
    discs = complete_rows(warped, discs, geometry, config, lab, edges)
    return count_regions(discs, geometry, config)


def complete_rows(warped: np.ndarray, discs: list[Disc], geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG,
                  lab: np.ndarray | None = None, edges: _Edges | None = None) -> list[Disc]:
    """Add the checkers the circle finder missed in a row.

    Each point is walked from its edge: a slot with a found disc is taken; a slot without one is taken
    when a checker-sized ring of edges surrounds it and its colour is near a side's checkers (the
    point's own side when it has found discs); the walk stops at the first slot that is neither, since
    players fill a point from the edge without gaps. A gap before a found disc is always filled.
    """
    if warped is None or warped.size == 0 or not discs:
        return discs
    lab = _lab(warped) if lab is None else lab
    edges = edges or _Edges(lab, config)
    scale = config.px_per_mm
    side_colour = {
        side: np.median(np.array([d.lab for d in discs if d.side == side], np.float32), axis=0)
        for side in SIDES
        if any(d.side == side for d in discs)
    }
    r = geometry.spec.checker_diameter / 2
    capacity = geometry.row_capacity()
    rad = max(2, int(config.sample_radius * r * scale))
    by_point: dict[int, list[Disc]] = {p: [] for p in range(1, 25)}
    for d in discs:
        kind, point = _region_of(d, geometry)
        if kind == "point" and point is not None:
            by_point[point].append(d)
    all_slots = _row_slots(geometry)
    background = _empty_slot_colours(lab, all_slots, by_point, rad, scale)
    added = list(discs)
    for p in range(1, 25):
        slots = all_slots[p]
        found = by_point[p]
        occupied = [False] * capacity
        for d in found:
            k = min(range(capacity), key=lambda i: (slots[i].x - d.x) ** 2 + (slots[i].y - d.y) ** 2)
            occupied[k] = True
        sides = [d.side for d in found]
        side = max(SIDES, key=sides.count) if found else None
        last = max((k for k in range(capacity) if occupied[k]), default=-1)
        for k, slot in enumerate(slots):
            if occupied[k]:
                continue
            share, cx, cy = edges.score(slot.x * scale, slot.y * scale, r * scale, config.ring_search_mm * scale)
            colour = _patch_colour(lab, cx, cy, rad)
            if colour is None:
                break
            fill = None
            if k < last and side is not None:
                fill = side  # a gap inside a row: the checker is there, the circle was not found
            elif share >= config.ring_fill:
                fill = _nearest_side(colour, side_colour, side, config)
                bg = background.get((p % 2, k))
                looks_empty = bg is None or float(np.linalg.norm(colour - bg)) < config.min_colour_gap
                if fill is not None and looks_empty and share < config.ring_sure:
                    fill = None  # the colour of an empty slot and only a partial ring: a die, a shadow
            if fill is None:
                break
            added.append(Disc(cx / scale, cy / scale, r, tuple(float(v) for v in colour), fill, False, share))  # type: ignore[arg-type]
            occupied[k] = True
            side = side or fill
    return added


def _empty_slot_colours(lab: np.ndarray, all_slots: dict, by_point: dict, rad: int, scale: float) -> dict:
    """What an empty slot looks like, by triangle colour (odd/even point) and place along the point,
    from the points where no checker was found."""
    samples: dict[tuple[int, int], list[np.ndarray]] = {}
    for p, slots in all_slots.items():
        if by_point[p]:
            continue
        for k, slot in enumerate(slots):
            colour = _patch_colour(lab, slot.x * scale, slot.y * scale, rad)
            if colour is not None:
                samples.setdefault((p % 2, k), []).append(colour)
    return {key: np.median(np.array(v), axis=0) for key, v in samples.items() if len(v) >= 2}


_SLOT_CACHE: dict[BoardGeometry, dict] = {}


def _row_slots(geometry: BoardGeometry) -> dict:
    """Each point's row of slots from its edge (cached: the board model does not change between frames)."""
    slots = _SLOT_CACHE.get(geometry)
    if slots is None:
        slots = {p: geometry.checker_slots(p, geometry.row_capacity()) for p in range(1, 25)}
        _SLOT_CACHE[geometry] = slots
    return slots


def _nearest_side(colour: np.ndarray, side_colour: dict[str, np.ndarray], side: str | None, config: CheckerConfig) -> str | None:
    """The side whose checker colour this slot shows (the point's own side if it has one), or None."""
    candidates = [side] if side is not None else list(side_colour)
    best, best_d = None, float("inf")
    for s in candidates:
        if s not in side_colour:
            continue
        d = float(np.linalg.norm(colour - side_colour[s]))
        if d < best_d:
            best, best_d = s, d
    if best is None or best_d > config.max_fill_colour:
        return None
    if side is None and len(side_colour) == 2:
        other = [s for s in side_colour if s != best][0]
        if float(np.linalg.norm(colour - side_colour[other])) < best_d + config.min_colour_gap / 2:
            return None  # not clearly either side's colour
    return best
