"""Checkers on a top-down board image: how many of which colour on each point, on the bar, borne off.

Works on the calibrated, warped view (``Calibration.warp``), where a checker is a disc of known size:
discs are found with the Hough transform at that radius, sorted into the two sides by colour (two
clusters, lighter one "light"), and assigned to points, the bar and the trays by the shared board model.
A point whose discs disagree in colour, or whose pile cannot be told apart, is marked uncertain rather
than guessed: play identification leaves such points out and asks a person when that matters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from tablecompanion.geometry import BoardGeometry

SIDES = ("light", "dark")
CHECKERS_PER_SIDE = 15


@dataclass(frozen=True)
class CheckerConfig:
    """Tuned values for the disc finder; radii are fractions of the board model's checker radius."""

    px_per_mm: float = 1.0
    min_radius: float = 0.78
    max_radius: float = 1.12
    min_centre_distance: float = 0.55  # piled checkers sit offset by about half a radius or more
    canny_high: float = 80.0
    accumulator: float = 20.0  # Hough accumulator votes a circle needs
    sample_radius: float = 0.55  # colour is sampled from this inner disc
    min_colour_gap: float = 28.0  # Lab distance below which two clusters are one colour
    pile_overlap: float = 0.8  # discs closer than this many diameters are a pile


DEFAULT_CONFIG = CheckerConfig()


@dataclass(frozen=True)
class Disc:
    """One checker seen: centre in mm on the board, radius in mm, colour (Lab) and side."""

    x: float
    y: float
    r: float
    lab: tuple[float, float, float]
    side: str = ""


@dataclass
class CheckerReading:
    """Counts by region. ``points`` maps the bottom player's point number to (side or None, count)."""

    points: dict[int, tuple[str | None, int]]
    bar: dict[str, int]
    off: dict[str, int]
    uncertain: list[int] = field(default_factory=list)
    discs: list[Disc] = field(default_factory=list)
    off_seen: bool = False

    def on_board(self, side: str) -> int:
        return sum(n for s, n in self.points.values() if s == side) + self.bar.get(side, 0)

    def to_json(self) -> dict:
        return {
            "points": {str(p): {"side": s, "count": n} for p, (s, n) in sorted(self.points.items())},
            "bar": dict(self.bar),
            "off": dict(self.off),
            "uncertain": sorted(self.uncertain),
        }


def find_discs(warped: np.ndarray, geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG) -> list[Disc]:
    """Checker-sized discs in a top-down image, with their colour (unlabelled).

    The circle finder runs on each Lab channel and the finds are merged: a red checker on a dark
    point or a white one on a cream point can be invisible in grey but not in every channel.
    """
    if warped is None or warped.size == 0:
        return []
    if warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    scale = config.px_per_mm
    r_px = geometry.spec.checker_diameter / 2 * scale
    lab = cv2.cvtColor(warped, cv2.COLOR_BGR2LAB)
    merge_px = config.min_centre_distance * r_px
    found: list[tuple[float, float, float]] = []
    for channel in range(3):
        plane = cv2.normalize(lab[..., channel], None, 0, 255, cv2.NORM_MINMAX)
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
            if all((cx - x) ** 2 + (cy - y) ** 2 > merge_px**2 for x, y, _ in found):
                found.append((float(cx), float(cy), float(r)))
    h, w = lab.shape[:2]
    discs = []
    for cx, cy, r in found:
        s = max(2, int(config.sample_radius * r))
        x0, x1 = max(0, int(cx) - s), min(w, int(cx) + s + 1)
        y0, y1 = max(0, int(cy) - s), min(h, int(cy) + s + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        patch = lab[y0:y1, x0:x1].reshape(-1, 3).astype(np.float32)
        colour = tuple(float(v) for v in np.median(patch, axis=0))
        discs.append(Disc(cx / scale, cy / scale, r / scale, colour))  # type: ignore[arg-type]
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
        return [Disc(d.x, d.y, d.r, d.lab, names[int(k)]) for d, k in zip(discs, labels)]
    # one colour only: decide by lightness against the middle of the Lab scale
    side = "light" if float(np.mean(data[:, 0])) >= 128 else "dark"
    return [Disc(d.x, d.y, d.r, d.lab, side) for d in discs]


def count_regions(discs: list[Disc], geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG) -> CheckerReading:
    """Assign labelled discs to points and the bar; mark points with mixed colours uncertain."""
    by_point: dict[int, list[Disc]] = {p: [] for p in range(1, 25)}
    bar = {s: 0 for s in SIDES}
    for d in discs:
        region = geometry.locate(d.x, d.y)
        if region.kind == "point" and region.point is not None:
            by_point[region.point].append(d)
        elif region.kind == "bar":
            bar[d.side] += 1
    points: dict[int, tuple[str | None, int]] = {}
    uncertain = []
    for point, found in by_point.items():
        if not found:
            points[point] = (None, 0)
            continue
        sides = [d.side for d in found]
        side = max(SIDES, key=sides.count)
        if sides.count(side) != len(sides):
            uncertain.append(point)
        if len(found) > geometry.row_capacity() and not _pile_is_resolved(found, geometry, config):
            uncertain.append(point)
        points[point] = (side, len(found))
    off = {s: max(0, CHECKERS_PER_SIDE - sum(n for ps, n in points.values() if ps == s) - bar[s]) for s in SIDES}
    return CheckerReading(points, bar, off, sorted(set(uncertain)), discs)


def _pile_is_resolved(found: list[Disc], geometry: BoardGeometry, config: CheckerConfig) -> bool:
    """A pile is countable when every disc beyond the row sits visibly apart from its neighbours."""
    d = geometry.spec.checker_diameter
    pts = np.array([[c.x, c.y] for c in found])
    dist = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2) + np.eye(len(found)) * 1e9
    return bool(np.min(dist) > 0.2 * d * config.pile_overlap)


def read_checkers(warped: np.ndarray, geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG) -> CheckerReading:
    """The whole board read from a warped top-down image at ``config.px_per_mm``."""
    discs = label_sides(find_discs(warped, geometry, config), config)
    discs = complete_rows(warped, discs, geometry, config)
    return count_regions(discs, geometry, config)


def _slot_colour(lab: np.ndarray, x_mm: float, y_mm: float, r_mm: float, config: CheckerConfig) -> np.ndarray | None:
    s = config.px_per_mm
    cx, cy, rad = x_mm * s, y_mm * s, max(2, int(config.sample_radius * r_mm * s))
    h, w = lab.shape[:2]
    x0, x1 = max(0, int(cx) - rad), min(w, int(cx) + rad + 1)
    y0, y1 = max(0, int(cy) - rad), min(h, int(cy) + rad + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return np.median(lab[y0:y1, x0:x1].reshape(-1, 3).astype(np.float32), axis=0)


def complete_rows(warped: np.ndarray, discs: list[Disc], geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG) -> list[Disc]:
    """Add the checkers the circle finder missed in a row: players fill a point from its edge without
    gaps, so a row slot is taken when a disc sits there or its colour is nearer the side's checkers
    than the empty slot's colour seen on empty points of the same colour."""
    if warped is None or warped.size == 0 or not discs:
        return discs
    if warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    lab = cv2.cvtColor(warped, cv2.COLOR_BGR2LAB)
    side_colour = {
        side: np.median(np.array([d.lab for d in discs if d.side == side], np.float32), axis=0)
        for side in SIDES
        if any(d.side == side for d in discs)
    }
    r = geometry.spec.checker_diameter / 2
    capacity = geometry.row_capacity()
    slots = {p: geometry.checker_slots(p, capacity) for p in range(1, 25)}
    occupied = {p: [False] * capacity for p in range(1, 25)}
    for d in discs:
        region = geometry.locate(d.x, d.y)
        if region.kind != "point" or region.point is None:
            continue
        k = min(range(capacity), key=lambda i: (slots[region.point][i].x - d.x) ** 2 + (slots[region.point][i].y - d.y) ** 2)
        occupied[region.point][k] = True
    # what an empty slot looks like, by triangle colour (odd/even point) and place along the point
    empty: dict[tuple[int, int], list[np.ndarray]] = {}
    for p in range(1, 25):
        if any(occupied[p]):
            continue
        for k, slot in enumerate(slots[p]):
            colour = _slot_colour(lab, slot.x, slot.y, r, config)
            if colour is not None:
                empty.setdefault((p % 2, k), []).append(colour)
    background = {key: np.median(np.array(v), axis=0) for key, v in empty.items()}
    added = list(discs)
    for p in range(1, 25):
        found = [d for d in discs if geometry.locate(d.x, d.y).point == p]
        sides = [d.side for d in found]
        side = max(SIDES, key=sides.count) if found else None
        last = max((k for k in range(capacity) if occupied[p][k]), default=-1)
        for k in range(capacity):
            slot = slots[p][k]
            if occupied[p][k]:
                continue
            colour = _slot_colour(lab, slot.x, slot.y, r, config)
            bg = background.get((p % 2, k))
            if colour is None:
                break
            if k < last and side is not None:
                fill = side  # a gap inside a row: the checker is there, the circle was not found
            else:
                fill = _closer_side(colour, bg, side_colour, side, config)
            if fill is None:
                break
            added.append(Disc(slot.x, slot.y, r, tuple(float(v) for v in colour), fill))  # type: ignore[arg-type]
            occupied[p][k] = True
            side = side or fill
    return added


def _closer_side(colour, bg, side_colour, side, config: CheckerConfig) -> str | None:
    """The side whose checker colour this slot shows, or None when it looks like the empty board."""
    if bg is None:
        return None
    candidates = [side] if side is not None else list(side_colour)
    best, best_d = None, float("inf")
    for s in candidates:
        if s not in side_colour:
            continue
        d = float(np.linalg.norm(colour - side_colour[s]))
        if d < best_d:
            best, best_d = s, d
    if best is None:
        return None
    if best_d + config.min_colour_gap / 2 < float(np.linalg.norm(colour - bg)):
        return best
    return None
