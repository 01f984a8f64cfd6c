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

import math
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
    ring_fill: float = 0.86  # share of the ring with edges a missed slot of a distinct colour needs
    ring_sure: float = 0.86  # share a missed slot needs when its colour is like the empty point's
    ring_search_mm: float = 3.0  # centre search around a slot or find, mm
    max_gap: float = 0.25  # longest arc without an edge a checker's ring may have (share of the circle)
    max_fill_colour: float = 45.0  # Lab distance from the side's colour beyond which a slot is not filled
    pile_overlap: float = 0.75  # discs closer than this many diameters sit on one another
    twin_distance: float = 0.35  # discs closer than this many diameters are one checker's top and base
    faint_twin_distance: float = 0.5  # ... and a faint one (ring below faint_twin_ring) this close to a better one
    faint_twin_ring: float = 0.5
    annulus: float = 0.65  # a filled slot must show the side's colour on this circle (radii) too, not only at its middle
    fill_unseen_points: bool = False  # let the row walk start a point where no circle was found
    inner_radius: float = 0.45  # radii: where a checker's face is smooth and a die's edges lie
    inner_clutter: float = 0.35  # share of that small circle with edges beyond which a slot holds no checker
    check_arms: bool = True  # look for an arm over the frame in this one picture (the BoardWatcher does it over time)
    occlusion_colour: float = 56.0  # Lab distance (summed) from the frame's colour that is something else on it
    occlusion_mm2: float = 800.0  # a patch on the frame this big, from its outer edge, is an arm
    occlusion_reach_mm: float = 75.0  # a hand spreads this far either side of the wrist it enters with
    found_clutter: float = 0.5  # the same for a circle the finder found (checkers' own rings may show there)
    dark_canny: float = 60.0  # the shadows view's edges are faint: Canny and accumulator thresholds of its own
    dark_accumulator: float = 14.0
    dark_level: float = 110.0  # L (0..255) stretched to full range in the shadows view (dark on dark)
    flat_face: float = 5.5  # Lab distance middle-to-rim below which a face is flat (the board itself, no checker's relief)
    ring_flat_fill: float = 0.95  # a row slot as flat as the board and its colour needs this much of a ring
    # a circle the flat-board rule drops is kept as the next checker of a row (``_next_in_row``) with at least
    # this relief (the board's circles: mostly under 2.5; the back checker of a dark pair under a steep camera
    # 2.7-5.7 between two renders' sensor noise) and within row_slot_mm of its slot (the board's: between slots)
    row_relief: float = 2.0
    row_slot_mm: float = 11.0  # a quarter of a checker: its circle found shifted by the camera's view (up to 8 mm)
    ring_board: float = 0.6  # a circle ringed less than this with edges inside is a die; flat ones a little more (0.7)
                             # with a face flatter still (0.8 flat_face) are the board; below ring_found + 0.1 any flat one
    die_chroma: float = 20.0  # a*b* distance middle-to-rim beyond which a weakly ringed circle is a die on something else
    die_lightness: float = 90.0  # the same in L (a white die on a black point)
    die_clutter: float = 0.2  # share of edges on both small inner circles (0.3 and inner_radius) of a die's circle


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
        planes = [lab] if lab.ndim == 2 else [lab[:, :, c] for c in range(lab.shape[2])]
        self.n = len(planes)
        # x and y gradients (3x3 Sobel) of every channel side by side: one gather per ring sample
        grads = [cv2.spatialGradient(np.ascontiguousarray(c)) for c in planes]
        self.g = cv2.merge([g[0] for g in grads] + [g[1] for g in grads]).reshape(-1, 2 * self.n)
        self.config = config
        a = np.linspace(0, 2 * np.pi, RING_SAMPLES, endpoint=False)
        self.cos, self.sin = np.cos(a).astype(np.float32), np.sin(a).astype(np.float32)

    def score(self, x_px: float, y_px: float, r_px: float, search_px: float, gap: bool = True) -> tuple[float, float, float]:
        """The best share of a ring of radius ``r_px`` with radial edges, over centres within ``search_px``;
        returns (share, x, y) of the best centre. A ring with a long run of angles without an edge (more
        than ``max_gap`` of the circle) scores 0: a checker shows its rim nearly all round, while a die,
        a triangle's edges or a hand's outline cover only part of a circle."""
        share, bx, by, gap_ok = self.score_many(np.array([x_px]), np.array([y_px]), r_px, search_px)
        if gap and not gap_ok[0]:
            return 0.0, float(bx[0]), float(by[0])
        return float(share[0]), float(bx[0]), float(by[0])

    def score_many(self, x_px: np.ndarray, y_px: np.ndarray, r_px: float, search_px: float):
        """:meth:`score` for many centres at once: (share, best x, best y, no long gap) arrays."""
        steps = np.array([-search_px, 0.0, search_px] if search_px >= 1 else [0.0], np.float32)
        dx, dy = (a.ravel() for a in np.meshgrid(steps, steps))
        cx = np.asarray(x_px, np.float32)[:, None] + dx[None, :]  # (N, C)
        cy = np.asarray(y_px, np.float32)[:, None] + dy[None, :]
        radii = np.array([r_px - 1.0, r_px, r_px + 1.0], np.float32)
        ox = radii[:, None] * self.cos[None, :]  # (R, A)
        oy = radii[:, None] * self.sin[None, :]
        xi = np.clip(np.rint(cx[:, :, None, None] + ox).astype(np.int32), 0, self.w - 1)  # (N, C, R, A)
        yi = np.clip(np.rint(cy[:, :, None, None] + oy).astype(np.int32), 0, self.h - 1)
        g = self.g[yi * self.w + xi].astype(np.float32)  # (N, C, R, A, 2 x channels)
        n = self.n
        radial = np.abs(g[..., :n] * self.cos[:, None] + g[..., n:] * self.sin[:, None]).sum(axis=-1)
        edge = (radial > self.config.edge_strength).any(axis=2)  # (N, C, A): an edge at any of the radii
        share = edge.mean(axis=2)
        best = np.argmax(share, axis=1)
        rows = np.arange(len(best))
        best_edge = edge[rows, best]  # (N, A)
        gap_ok = _longest_runs(~best_edge) <= self.config.max_gap * RING_SAMPLES
        return share[rows, best], cx[rows, best], cy[rows, best], gap_ok


def _longest_runs(miss: np.ndarray) -> np.ndarray:
    """The longest circular run of True in each row of ring samples, (N, A) -> (N,)."""
    n, a = miss.shape
    if n == 0:
        return np.zeros(0, int)
    twice = np.concatenate([miss, miss], axis=1).astype(np.int32)
    # run length ending at each sample: cumulative count since the last False
    idx = np.arange(2 * a)[None, :].repeat(n, axis=0)
    last_false = np.where(twice == 0, idx, -1)
    last_false = np.maximum.accumulate(last_false, axis=1)
    runs = idx - last_false
    return np.minimum(runs.max(axis=1), a)


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


def _patch_colours(lab: np.ndarray, xs, ys, rad: int) -> np.ndarray:
    """Median Lab colour of square patches (half-size ``rad``, sampled every other pixel) at many centres;
    a centre too near the image's edge gets its nearest full patch."""
    h, w = lab.shape[:2]
    offs = np.arange(-rad, rad + 1, 2)
    xs = np.clip(np.asarray(xs, np.float64).astype(int), rad, w - 1 - rad)
    ys = np.clip(np.asarray(ys, np.float64).astype(int), rad, h - 1 - rad)
    px = lab[ys[:, None, None] + offs[None, :, None], xs[:, None, None] + offs[None, None, :]]  # (N, k, k, 3)
    return np.median(px.reshape(len(xs), -1, 3), axis=1).astype(np.float32)


def _annulus_colours(lab: np.ndarray, xs, ys, radius: float, samples: int = 16) -> np.ndarray:
    """Median Lab colour on a circle of ``radius`` px around many centres: inside a checker it is the
    checker's colour; around a die (much smaller) it is what the die lies on."""
    h, w = lab.shape[:2]
    a = np.linspace(0, 2 * np.pi, samples, endpoint=False)
    px = np.clip(np.rint(np.asarray(xs, np.float32)[:, None] + radius * np.cos(a)).astype(int), 0, w - 1)
    py = np.clip(np.rint(np.asarray(ys, np.float32)[:, None] + radius * np.sin(a)).astype(int), 0, h - 1)
    return np.median(lab[py, px].astype(np.float32), axis=1)


def _shadows(lab: np.ndarray, config: CheckerConfig) -> np.ndarray:
    """Lightness with the dark end stretched to the full range: a dark checker on a dark point differs from
    it by a few levels of L (its rim, its shading), which this view makes an edge like any other."""
    return cv2.convertScaleAbs(lab[:, :, 0], alpha=255.0 / config.dark_level)


def find_discs(warped: np.ndarray, geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG,
               lab: np.ndarray | None = None, edges: _Edges | None = None,
               dark: tuple[np.ndarray, _Edges] | None = None) -> list[Disc]:
    """Checker-sized discs in a top-down image with their colour (unlabelled), each one ringed by edges.

    Circles are looked for in each Lab channel and in the shadows view (``dark``: the stretched lightness
    and its edges), and a find from the shadows view may show its ring there."""
    if warped is None or warped.size == 0:
        return []
    lab = _lab(warped) if lab is None else lab
    edges = edges or _Edges(lab, config)
    if dark is None:
        shadows = _shadows(lab, config)
        dark = (shadows, _Edges(shadows, config))
    scale = config.px_per_mm
    r_px = geometry.spec.checker_diameter / 2 * scale
    merge_px = config.min_centre_distance * r_px
    sx0, sy0, sx1, sy1 = (int(round(v * scale)) for v in geometry.surface)
    found: list[tuple[float, float, float]] = []
    for channel in range(4):
        if channel < 3:
            plane = cv2.normalize(lab[sy0:sy1, sx0:sx1, channel], None, 0, 255, cv2.NORM_MINMAX)
        else:
            plane = dark[0][sy0:sy1, sx0:sx1]
        plane = cv2.GaussianBlur(plane, (5, 5), 1.2)
        circles = cv2.HoughCircles(
            plane,
            cv2.HOUGH_GRADIENT,
            dp=1,
            minDist=max(2.0, merge_px),
            param1=config.canny_high if channel < 3 else config.dark_canny,
            param2=config.accumulator if channel < 3 else config.dark_accumulator,
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
    if not found:
        return discs
    rad = max(2, int(config.sample_radius * r_px))
    arr = np.array(found, np.float32)
    shares, _, _, _ = edges.score_many(arr[:, 0], arr[:, 1], r_px, 0.0)
    shares = np.maximum(shares, dark[1].score_many(arr[:, 0], arr[:, 1], r_px, 0.0)[0])
    colours = _patch_colours(lab, arr[:, 0], arr[:, 1], rad)
    # a die on a point's base rings like a checker with the triangle's edges; its pips and edges lie inside
    inner = np.maximum(edges.score_many(arr[:, 0], arr[:, 1], config.inner_radius * r_px, 0.0)[0],
                       edges.score_many(arr[:, 0], arr[:, 1], 0.3 * r_px, 0.0)[0])
    for (cx, cy, r), share, colour, clutter in zip(found, shares, colours, inner):
        if share < config.ring_found or clutter > config.found_clutter:
            continue
        discs.append(Disc(cx / scale, cy / scale, r / scale, tuple(float(v) for v in colour), ring=float(share)))  # type: ignore[arg-type]
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


def drop_strays(discs: list[Disc], config: CheckerConfig = DEFAULT_CONFIG) -> list[Disc]:
    """Circles with only a partial ring whose colour is off their side's: wood grain, a triangle's tip
    against the frame, a shadow's edge. A checker of either side with a part of its rim hidden keeps its
    colour; what is neither side's colour and not ringed all round is not a checker."""
    if len(discs) < 3:
        return discs
    sure = _sure_colours(discs, config)
    median = {side: np.median(colours, axis=0) for side, colours in sure.items()}
    kept = []
    for d in discs:
        ref = sure.get(d.side)
        if ref is not None and d.ring < config.ring_sure and \
                _colour_gap(d.lab, median[d.side], ref) > config.min_colour_gap:
            continue
        kept.append(d)
    return kept


def _sure_colours(discs: list[Disc], config: CheckerConfig) -> dict[str, np.ndarray]:
    """Each side's colours as its checkers ringed all round show them (at least two), one row each."""
    out = {}
    for side in SIDES:
        colours = [d.lab for d in discs if d.side == side and d.ring >= config.ring_sure]
        if len(colours) >= 2:
            out[side] = np.array(colours, np.float32)
    return out


WHITE_LAB = np.array([255.0, 128.0, 128.0], np.float32)  # OpenCV's 8-bit Lab of white
SHEEN_MAX = 0.5  # the most of the way to white a mirrored window takes a checker's top
SHEEN_CHROMA = 3.0  # the most a sheened top's colour (a*, b* from grey) may exceed the plain one's (noise)


def _colour_gap(colour, side: np.ndarray, sure: np.ndarray | None = None) -> float:
    """How far ``colour`` is from a side's: the Lab distance to the side's colour (``side``, its median),
    or, nearer, a sheen away from one of its sure checkers' colours (``sure``, rows).

    A window mirrored in glossy tops adds white light to some checkers: a sheened colour lies on the way
    from the plain one to white, up to ``SHEEN_MAX`` of it. Under a steep camera most of a side's checkers
    ringed all round may be sheened (the reflection sharpens the rim) and their median with them; the plain
    ones with part of the rim hidden were then "off colour" and whole dark piles read as empty. So a colour
    on the way to white from a sure one, or with a sure one on its own way to white, counts at twice its
    distance off that way (a sheen keeps to it closely; brass or wood beside a lamp-lit dark checker does
    not), never the nearest sure colour itself (lamp-lit checkers reach into the wood's greys)."""
    c = np.asarray(colour, np.float32)
    gap = float(np.linalg.norm(np.asarray(side, np.float32) - c))
    if sure is None or not len(sure):
        return gap
    for base, tops in ((c[None, :], sure), (sure, np.broadcast_to(c, sure.shape))):
        way = WHITE_LAB - base  # from the plain colour to white
        d = tops - base  # to the sheened one
        span = np.maximum(np.einsum("ij,ij->i", way, way), 1.0)
        k = np.einsum("ij,ij->i", d, way) / span
        off = np.linalg.norm(d - k[:, None] * way, axis=1)
        # white light takes colour away: a sheened top is no more coloured than the plain one (brown leather
        # lies near the way from a dark checker to white, but yellower than the checker)
        greyer = np.linalg.norm(tops[:, 1:] - 128.0, axis=1) <= np.linalg.norm(base[:, 1:] - 128.0, axis=1) + SHEEN_CHROMA
        along = (k > 0) & (k <= SHEEN_MAX) & greyer
        if along.any():
            gap = min(gap, 2.0 * float(np.min(off[along])))
    return gap


def drop_lookalikes(lab: np.ndarray, discs: list[Disc], geometry: BoardGeometry,
                    config: CheckerConfig = DEFAULT_CONFIG, edges: "_Edges | None" = None) -> list[Disc]:
    """Circles with only a partial ring that are the board or a die, not a checker.

    * The board: a face as flat as the board (no checker's bevel or dome between its middle and its rim),
      with only part of a ring (the flatter, the more ring is allowed), in the colour the board shows there
      when empty (the same slot on empty points of the same colour,
      or the bar's wood): a triangle's base against the frame, wood grain on the bar.
    * A die: the middle unlike the rim in colour (a white die on a red point, the point's colour around it)
      or far apart in lightness (a white die on a black point); a checker is one colour to its rim. Or,
      ringed less than ``ring_board``, edges both near its middle and at ``inner_radius`` (pips, outline).
    * Anything whose rim (``annulus``) is not its side's colour (a hinge plate beside dark wood).
    A circle ringed all round (``ring_sure``) is kept: dark checkers on dark points are flat and point-coloured;
    so is a flat one that stands as the next checker of a row (:func:`_next_in_row`).
    """
    weak = [i for i, d in enumerate(discs) if d.ring < config.ring_sure]
    if not weak:
        return discs
    scale = config.px_per_mm
    r = geometry.spec.checker_diameter / 2
    xs = np.array([discs[i].x for i in weak], np.float32) * scale
    ys = np.array([discs[i].y for i in weak], np.float32) * scale
    middles = _patch_colours(lab, xs, ys, max(2, int(0.2 * r * scale)))
    rims = _annulus_colours(lab, xs, ys, config.annulus * r * scale)
    faces = _patch_colours(lab, xs, ys, max(2, int(config.sample_radius * r * scale)))
    backgrounds = _board_colours_under(lab, discs, weak, geometry, config)
    side_colour = _side_colours(discs)
    sure = _sure_colours(discs, config)  # a side's colours, sheened and not, for a rim under a sheen
    # a die's outline and pips lie all over the middle of a circle around it; a checker's face is smooth there
    edges = edges or _Edges(lab, config)
    clutter = np.minimum(edges.score_many(xs, ys, 0.3 * r * scale, 0.0)[0],
                         edges.score_many(xs, ys, config.inner_radius * r * scale, 0.0)[0])
    drop = set()
    board_like = []  # dropped only as flat board, with some relief and ring
    for j, i in enumerate(weak):
        diff = middles[j] - rims[j]
        if float(np.hypot(diff[1], diff[2])) > config.die_chroma or abs(float(diff[0])) > config.die_lightness:
            drop.add(i)
            continue
        if discs[i].ring < config.ring_board and clutter[j] >= config.die_clutter:
            drop.add(i)
            continue
        own = side_colour.get(discs[i].side)
        if own is not None and _colour_gap(rims[j], own, sure.get(discs[i].side)) > config.max_fill_colour:
            drop.add(i)  # its side's colour only in the middle: something dark or light ringed by something else
            continue
        bg = backgrounds[j]
        relief = float(np.linalg.norm(diff))
        flat = (relief < config.flat_face and discs[i].ring < config.ring_found + 0.1) or \
            (relief < 0.8 * config.flat_face and discs[i].ring < config.ring_board + 0.1)
        if bg is not None and flat and \
                float(np.linalg.norm(faces[j] - bg)) < config.min_colour_gap:
            drop.add(i)
            if relief >= config.row_relief and discs[i].ring >= config.ring_found + 0.1:
                board_like.append(i)
    # a flat one standing in its slot just beyond a checker of its colour kept in the same row is that row's
    # next checker: under a steep camera the checker in front hides part of its rim (ring 0.64-0.69, its face
    # point-coloured on a point of its colour); the board shows no such circle a slot from a checker
    kept = [d for i, d in enumerate(discs) if i not in drop]
    for i in board_like:
        if _next_in_row(discs[i], kept, geometry, config):
            drop.discard(i)
    return [d for i, d in enumerate(discs) if i not in drop]


def _next_in_row(d: Disc, kept: list[Disc], geometry: BoardGeometry, config: CheckerConfig) -> bool:
    """``d`` is on a point, within ``row_slot_mm`` of a slot other than the edge's that no disc in ``kept``
    holds (none within half a checker of it), and a disc of its side in ``kept`` stands in the slot before it
    (towards the point's edge)."""
    kind, point = _region_of(d, geometry)
    if kind != "point" or point is None:
        return False
    slots = _row_slots(geometry)[point]
    k = _nearest_slot(slots, d)
    if k == 0 or math.hypot(slots[k].x - d.x, slots[k].y - d.y) > config.row_slot_mm:
        return False
    here, before = slots[k], slots[k - 1]
    half = geometry.spec.checker_diameter / 2
    if any(math.hypot(here.x - o.x, here.y - o.y) < half for o in kept):
        return False  # its slot is taken: a second circle on a checker kept already
    return any(o.side == d.side and _region_of(o, geometry) == ("point", point) and
               math.hypot(before.x - o.x, before.y - o.y) <= config.row_slot_mm for o in kept)


def _board_colours_under(lab: np.ndarray, discs: list[Disc], which: list[int], geometry: BoardGeometry,
                         config: CheckerConfig) -> list[np.ndarray | None]:
    """What the empty board looks like under each of the discs ``which``: on a point, the same slot of the
    empty points of the same triangle colour; on the bar, the bar's wood away from every circle found."""
    scale = config.px_per_mm
    r = geometry.spec.checker_diameter / 2
    rad = max(2, int(config.sample_radius * r * scale))
    capacity = geometry.row_capacity()
    slots = _row_slots(geometry)
    places = [_region_of(d, geometry) for d in discs]
    occupied = {p for (kind, p), d in zip(places, discs) if kind == "point" and d.ring >= config.ring_found}
    empty = [p for p in range(1, 25) if p not in occupied]
    by_parity: dict[tuple[int, int], np.ndarray] = {}
    if empty:
        sx = np.array([[sl.x for sl in slots[p]] for p in empty], np.float32).ravel() * scale
        sy = np.array([[sl.y for sl in slots[p]] for p in empty], np.float32).ravel() * scale
        at_slot = _patch_colours(lab, sx, sy, rad).reshape(len(empty), capacity, 3)
        by_parity = _empty_slot_colours(at_slot, empty)
    bar_colour = None
    if any(places[i][0] == "bar" for i in which):
        x0, y0, x1, y1 = geometry.bar
        ys_mm = np.arange(y0 + r, y1 - r, r / 2)
        free = [y for y in ys_mm if all((d.x - (x0 + x1) / 2) ** 2 + (d.y - y) ** 2 > (1.2 * r) ** 2 or d.ring < config.ring_sure
                                        for d in discs)]
        if len(free) >= 3:
            cols = _patch_colours(lab, np.full(len(free), (x0 + x1) / 2 * scale), np.array(free) * scale, rad)
            bar_colour = np.median(cols, axis=0)
    out: list[np.ndarray | None] = []
    for i in which:
        kind, point = places[i]
        if kind == "bar":
            out.append(bar_colour)
        elif kind == "point" and point is not None:
            d = discs[i]
            k = _nearest_slot(slots[point], d)
            out.append(by_parity.get((point % 2, k)))
        else:
            out.append(None)
    return out


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
    on_bar = []
    for d in discs:
        kind, point = _region_of(d, geometry)
        if kind == "point" and point is not None:
            by_point[point].append(d)
        elif kind == "bar":
            x0, _, x1, _ = geometry.bar
            if abs(d.x - (x0 + x1) / 2) <= (x1 - x0) / 2 - 0.35 * geometry.spec.checker_diameter:
                on_bar.append(d)  # a circle astride the bar's edge is a checker beside it seen twice, or wood
    for d in _merge_twins(on_bar, geometry, config):
        bar[d.side] += 1
    points: dict[int, tuple[str | None, int]] = {}
    uncertain = []
    piles = []
    capacity = geometry.row_capacity()
    for point, found in by_point.items():
        if not found:
            points[point] = (None, 0)
            continue
        found = _merge_twins(found, geometry, config)
        sides = [d.side for d in found]
        side = max(SIDES, key=sides.count)
        if sides.count(side) != len(sides):
            uncertain.append(point)
        if _overlapping(found, geometry, config):
            piles.append(point)
            uncertain.append(point)
        elif _row_has_hole(found, point, geometry):
            uncertain.append(point)
        elif len(found) >= capacity:
            piles.append(point)  # a pile on a full row reads as the row: the count is a lower bound
        points[point] = (side, len(found))
    for side in SIDES:
        if bar[side] >= capacity:
            piles.append(25)
    off = {s: max(0, CHECKERS_PER_SIDE - sum(n for ps, n in points.values() if ps == s) - bar[s]) for s in SIDES}
    return CheckerReading(points, bar, off, sorted(set(uncertain)), discs, piles=sorted(set(piles)))


def _row_has_hole(found: list[Disc], point: int, geometry: BoardGeometry) -> bool:
    """A row that starts at the point's edge, breaks off, and goes on further out: players fill a point from
    the edge without gaps, so something the circles missed lies in the hole (fingers over checkers, a
    checker not found) and the count cannot be vouched for. A lone checker put down anywhere is no row."""
    slots = _row_slots(geometry)[point]
    taken = {_nearest_slot(slots, d) for d in found}
    return 0 in taken and max(taken) + 1 > len(taken)


def _merge_twins(found: list[Disc], geometry: BoardGeometry, config: CheckerConfig) -> list[Disc]:
    """One checker seen twice: a camera looking steeply sees a checker's top face and its base as two
    circles a few mm apart. Discs nearer than ``twin_distance`` diameters are kept once (the better ring);
    a checker piled on another sits further off its centre, or is hidden by it anyway."""
    if len(found) < 2:
        return found
    limit = geometry.spec.checker_diameter * config.twin_distance
    # a faint circle half on a well-ringed one is its shadow or its other face seen from aside
    faint_limit = geometry.spec.checker_diameter * config.faint_twin_distance
    kept: list[Disc] = []
    for d in sorted(found, key=lambda d: (not d.found, -d.ring)):
        near = faint_limit if d.found and d.ring < config.faint_twin_ring else limit
        if all((d.x - k.x) ** 2 + (d.y - k.y) ** 2 > near**2 for k in kept):
            kept.append(d)
    return kept


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
    shadows = _shadows(lab, config)
    dark = (shadows, _Edges(shadows, config))
    discs = drop_strays(label_sides(find_discs(warped, geometry, config, lab, edges, dark), config), config)
    discs = drop_lookalikes(lab, discs, geometry, config, edges)
    discs = complete_rows(warped, discs, geometry, config, lab, edges, dark[1])
    reading = count_regions(discs, geometry, config)
    hidden = occluded_points(lab, geometry, config, _side_colours(discs)) if config.check_arms else []
    if hidden:
        reading.uncertain = sorted(set(reading.uncertain) | set(hidden))
    return reading


def _shaded_like(colour: np.ndarray, checker: np.ndarray, config: CheckerConfig) -> bool:
    """A checker's colour in its own shade: the same hue (a*, b*) and a lightness between half and a bit
    more than its lit face (checkers standing on edge in a tray turn their faces from the light)."""
    chroma = float(np.hypot(colour[1] - checker[1], colour[2] - checker[2]))
    return chroma < 0.8 * config.min_colour_gap and 0.5 * float(checker[0]) - 10 <= float(colour[0]) <= 1.1 * float(checker[0]) + 10


def _side_colours(discs: list[Disc]) -> dict[str, np.ndarray]:
    """Each side's checker colour (median Lab of its discs)."""
    return {side: np.median(np.array([d.lab for d in discs if d.side == side], np.float32), axis=0)
            for side in SIDES if any(d.side == side for d in discs)}


def occluded_points(lab: np.ndarray, geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG,
                    checker_colours: dict[str, np.ndarray] | None = None) -> list[int]:
    """Points an arm may hide, from one picture: an arm reaches in over the frame from the board's outer
    edge, so the frame around the playing surface (one colour all round) shows a patch of something else
    that touches the outer edge. The points of the row it enters, across its width and a hand's breadth
    either side, are marked uncertain (an arm over a side of the frame: that side's quarter of the board).
    A die or the cube on the frame does not reach its outer edge. Borne-off checkers standing in a tray
    rise above the frame beside it as a camera off the vertical sees them: a patch no wider than the tray's
    column and in a side's checker colour (``checker_colours``) is not an arm."""
    spec = geometry.spec
    scale = 0.25  # a quarter of a pixel per mm is plenty for an arm
    lab = cv2.resize(lab, (int(round(spec.width * scale)), int(round(spec.height * scale))), interpolation=cv2.INTER_AREA)
    h, w = lab.shape[:2]
    fw = int(round(spec.frame_width * scale))
    if fw < 3:
        return []
    band = np.ones((h, w), bool)
    band[fw:h - fw, fw:w - fw] = False  # the frame only: trays and side columns may be of another material
    c = int(round(1.6 * spec.frame_width * scale))  # the corners may carry calibration markers
    band[:c, :c] = band[:c, -c:] = band[-c:, :c] = band[-c:, -c:] = False
    colours = lab[band].astype(np.float32)
    if len(colours) < 100:
        return []
    frame = np.median(colours, axis=0)
    far = (np.abs(lab.astype(np.float32) - frame).sum(axis=2) > config.occlusion_colour) & band
    far = far.astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(far, connectivity=8)
    edge = np.zeros((h, w), bool)
    e = max(2, fw // 2)  # the frame's outer half: a board found by its look may have a wider frame than the model
    edge[:e, :] = edge[-e:, :] = True
    edge[:, :e] = edge[:, -e:] = True
    touching = set(np.unique(labels[edge & (labels > 0)]).tolist())
    min_px = config.occlusion_mm2 * scale * scale
    # a tray's column and a frame's width either side (standing checkers lean out over it, and their shadow)
    tray_x = [(geometry.tray(pl)[0] - spec.frame_width, geometry.tray(pl)[2] + spec.frame_width) for pl in ("bottom", "top")]
    hidden: set[int] = set()
    reach = config.occlusion_reach_mm
    for i in touching:
        if stats[i, cv2.CC_STAT_AREA] < min_px:
            continue
        x0, y0 = stats[i, cv2.CC_STAT_LEFT] / scale, stats[i, cv2.CC_STAT_TOP] / scale
        x1, y1 = x0 + stats[i, cv2.CC_STAT_WIDTH] / scale, y0 + stats[i, cv2.CC_STAT_HEIGHT] / scale
        if checker_colours and any(tx0 <= x0 and x1 <= tx1 for tx0, tx1 in tray_x):
            patch = np.median(lab[labels == i].astype(np.float32), axis=0)
            if any(_shaded_like(patch, c, config) for c in checker_colours.values()):
                continue  # borne-off checkers in the tray seen rising over the frame
        for p in range(1, 25):
            px0, py0, px1, py1 = geometry.point_rect(p)
            top_row = py0 < geometry.surface[1] + 1
            if y1 <= spec.frame_width + 1 and top_row or y0 >= spec.height - spec.frame_width - 1 and not top_row:
                if px1 > x0 - reach and px0 < x1 + reach:  # an arm in over the top or bottom edge
                    hidden.add(p)
            elif x1 <= geometry.surface[0] + 1 or x0 >= geometry.surface[2] - 1:  # over a side: that quarter
                left_side = x1 <= geometry.surface[0] + 1
                near = px1 <= (geometry.surface[0] + geometry.surface[2]) / 2 if left_side else px0 >= (geometry.surface[0] + geometry.surface[2]) / 2
                mid = (y0 + y1) / 2
                if near and ((mid < spec.height / 2) == top_row):
                    hidden.add(p)
    return sorted(hidden)


def complete_rows(warped: np.ndarray, discs: list[Disc], geometry: BoardGeometry, config: CheckerConfig = DEFAULT_CONFIG,
                  lab: np.ndarray | None = None, edges: _Edges | None = None,
                  dark_edges: _Edges | None = None) -> list[Disc]:
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
    sx = np.array([[sl.x for sl in all_slots[p]] for p in range(1, 25)], np.float32) * scale  # (24, capacity)
    sy = np.array([[sl.y for sl in all_slots[p]] for p in range(1, 25)], np.float32) * scale
    empty_points = [p for p in range(1, 25) if not by_point[p]]
    if empty_points:
        rows = np.array(empty_points) - 1
        at_slot = _patch_colours(lab, sx[rows].ravel(), sy[rows].ravel(), rad).reshape(len(rows), capacity, 3)
        background = _empty_slot_colours(at_slot, empty_points)
    else:
        background = {}
    added = list(discs)
    # each point's walk: (side, occupied slots, last occupied slot, next slot to look at)
    walks: dict[int, list] = {}
    for p in range(1, 25):
        slots = all_slots[p]
        occupied = [False] * capacity
        for d in by_point[p]:
            occupied[_nearest_slot(slots, d)] = True
        sides = [d.side for d in by_point[p]]
        side = max(SIDES, key=sides.count) if sides else None
        last = max((k for k in range(capacity) if occupied[k]), default=-1)
        walks[p] = [side, occupied, last, 0]
    # walk every point's row in rounds: each round scores the next unoccupied slot of every point still walking
    active = list(range(1, 25))
    while active:
        todo = []
        for p in active:
            side, occupied, last, k = walks[p]
            while k < capacity and occupied[k]:
                k += 1
            walks[p][3] = k
            if k >= capacity:
                continue
            colour = None
            if k < last and side is not None:
                colour = _patch_colours(lab, sx[p - 1, k:k + 1], sy[p - 1, k:k + 1], rad)[0]
                if side in side_colour and float(np.linalg.norm(colour - side_colour[side])) > config.max_fill_colour:
                    colour = None  # not the side's colour: the row has a hole, or the disc beyond it is a stray
            if colour is not None:
                # a gap inside a row: the checker is there, the circle was not found
                added.append(Disc(float(sx[p - 1, k]) / scale, float(sy[p - 1, k]) / scale, r,
                                  tuple(float(v) for v in colour), side, False, 0.0))  # type: ignore[arg-type]
                occupied[k] = True
                todo.append(p)  # look further along without a round trip
                continue
            todo.append(-p)
        looks = [-p for p in todo if p < 0]
        active = [p for p in todo if p > 0]
        if not looks:
            continue
        ks = [walks[p][3] for p in looks]
        lx, ly = sx[np.array(looks) - 1, ks], sy[np.array(looks) - 1, ks]
        share, bx, by, gap_ok = edges.score_many(lx, ly, r * scale, config.ring_search_mm * scale)
        share = np.where(gap_ok, share, 0.0)
        if dark_edges is not None:  # a ring seen in the shadows view counts as well (dark on dark)
            d_share, d_bx, d_by, d_ok = dark_edges.score_many(lx, ly, r * scale, config.ring_search_mm * scale)
            d_share = np.where(d_ok, d_share, 0.0)
            better = d_share > share
            share, bx, by = np.where(better, d_share, share), np.where(better, d_bx, bx), np.where(better, d_by, by)
            gap_ok = np.ones_like(gap_ok)
        colours = _patch_colours(lab, bx, by, rad)
        rims = _annulus_colours(lab, bx, by, config.annulus * r * scale)
        middles = _patch_colours(lab, bx, by, max(2, int(0.2 * r * scale)))
        # a checker's face is smooth inside its rim; a die lying there puts its own edges on a small circle
        inner = np.maximum(edges.score_many(bx, by, config.inner_radius * r * scale, 0.0)[0],
                           edges.score_many(bx, by, 0.3 * r * scale, 0.0)[0])
        # the same point one slot further on, where it is free: the point's own empty colour in its own light
        nk = [min(k + 1, capacity - 1) for k in ks]
        beyond = _patch_colours(lab, sx[np.array(looks) - 1, nk], sy[np.array(looks) - 1, nk], rad)
        for i, p in enumerate(looks):
            side, occupied, last, k = walks[p]
            ring = float(share[i]) if gap_ok[i] else 0.0
            colour = colours[i]
            fill = None
            if ring >= config.ring_fill:
                fill = _nearest_side(colour, side_colour, side, config)
                refs = [background.get((p % 2, k))]
                if k + 1 < capacity and not occupied[k + 1]:
                    refs.append(beyond[i])
                # the slot's middle or its rim (a die shows its own colour only in the middle) like an empty slot
                # of this colour on the board, or like this point further on (vignetting, a dim corner)
                looks_empty = refs[0] is None or any(
                    min(float(np.linalg.norm(colour - bg)), float(np.linalg.norm(rims[i] - bg))) < config.min_colour_gap
                    for bg in refs if bg is not None)
                if fill is not None and not by_point[p] and not config.fill_unseen_points:
                    fill = None  # the circle finder saw nothing on this point: a ring alone is wood grain or an edge
                if fill is not None and (looks_empty or not by_point[p]) and ring < config.ring_sure:
                    # the colour of an empty slot, or a point where the circle finder saw nothing, and only a
                    # partial ring: a die, a shadow, a triangle's edges in a dim corner
                    fill = None
                if fill is not None and looks_empty and ring < config.ring_flat_fill and \
                        float(np.linalg.norm(rims[i] - middles[i])) < config.flat_face:
                    fill = None  # as flat as the board and its colour: triangle edges and a die's around an empty slot
                if fill is not None and inner[i] > config.inner_clutter:
                    fill = None  # edges inside the face: a die (or the cube) in the slot, not a checker
                if fill is not None and (float(np.linalg.norm(rims[i] - side_colour[fill])) > config.max_fill_colour
                                         or float(np.linalg.norm(rims[i] - middles[i])) > config.min_colour_gap):
                    fill = None  # not one colour from the middle to the rim: a die with the ring of what is around it
            if fill is None:
                continue  # the walk stops at the first empty slot
            added.append(Disc(float(bx[i]) / scale, float(by[i]) / scale, r,
                              tuple(float(v) for v in colour), fill, False, ring))  # type: ignore[arg-type]
            occupied[k] = True
            walks[p][0] = side or fill
            active.append(p)
    return added


def _empty_slot_colours(at_slot: np.ndarray, points: list[int]) -> dict:
    """What an empty slot looks like, by triangle colour (odd/even point) and place along the point,
    from the points where no checker was found (``at_slot``: (len(points), capacity, 3) colours)."""
    samples: dict[tuple[int, int], list[np.ndarray]] = {}
    for i, p in enumerate(points):
        for k in range(at_slot.shape[1]):
            samples.setdefault((p % 2, k), []).append(at_slot[i, k])
    return {key: np.median(np.array(v), axis=0) for key, v in samples.items() if len(v) >= 2}


_SLOT_CACHE: dict[BoardGeometry, dict] = {}


def _row_slots(geometry: BoardGeometry) -> dict:
    """Each point's row of slots from its edge (cached: the board model does not change between frames)."""
    slots = _SLOT_CACHE.get(geometry)
    if slots is None:
        slots = {p: geometry.checker_slots(p, geometry.row_capacity()) for p in range(1, 25)}
        _SLOT_CACHE[geometry] = slots
    return slots


def _nearest_slot(slots: list, d: Disc) -> int:
    """The index in ``slots`` (a point's row from its edge, ``_row_slots``) of the slot nearest ``d``'s centre."""
    return min(range(len(slots)), key=lambda k: (slots[k].x - d.x) ** 2 + (slots[k].y - d.y) ** 2)


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
