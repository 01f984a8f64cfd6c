"""Finding a backgammon board in a photo from its own look: no markers, no clicks.

Board reading of arbitrary photos (overhead broadcast frames, phone pictures, boards of any colours)
depends on this. As chesscog finds a chessboard from its lines, we find the board from what every
backgammon board has: a playing surface whose two long edges each carry 12 triangles of alternating
colours, split by a bar in the middle. The stages, each a small function:

1. ``candidate_quads``: large quadrilaterals in the frame (the outer frame, the inner frame, the
   playing surface) from several binarisations and the edges; plus the frame itself for close-ups.
2. ``hypotheses``: each quadrilateral may be the outline, the inside of the frame or the surface, and
   the board may lie either way round in the image.
3. ``surface_score``: warp the supposed surface top-down and ask how much of its colour variance a
   model of the board explains: every pixel belongs to a class (triangles of the top row, even and odd
   columns; the same for the bottom row; the surface between them; the bar; a ring outside), each class
   takes its mean colour, and the score is 1 - residual / total variance. A wrong placement mixes
   classes and scores low; any colour scheme scores high when placed right.
4. ``refine``: move the four surface corners (and, for an unknown board, the bar width and the gap
   between the rows) by coordinate descent, coarse to fine, to maximise that score.

The result is a ``Calibration`` numbered for the bottom player with home boards on the right unless
told otherwise; which long edge is "bottom" is the one nearer the image's bottom (a board looks the
same turned round, so nothing else can tell).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from functools import lru_cache

import cv2
import numpy as np

from tablecompanion.calibration.config import DEFAULT_FIND_BOARD, FindBoardConfig
from tablecompanion.calibration.errors import CalibrationError
from tablecompanion.calibration.model import Calibration, apply_homography, rect_corners
from tablecompanion.geometry import BoardGeometry, BoardSpec, HomeSide

FREE_PROPORTIONS = (("bar_width", 0.4, 2.2), ("middle_gap", 0.0, 3.0))  # name, bounds in point widths
RING_MM = 18.0  # width of the "outside the surface" class around the surface
N_CLASSES = 8  # ring, surface, bar, top even, top odd, bottom even, bottom odd, (unused: padding)


@dataclass(frozen=True)
class Proportions:
    """What the search may change about the board: bar width and the gap between rows (mm)."""

    point_width: float
    point_length: float
    bar_width: float
    middle_gap: float

    @property
    def surface_width(self) -> float:
        return 12 * self.point_width + self.bar_width

    @property
    def surface_height(self) -> float:
        return 2 * self.point_length + self.middle_gap

    @classmethod
    def of(cls, spec: BoardSpec) -> "Proportions":
        return cls(spec.point_width, spec.point_length, spec.bar_width, spec.middle_gap)

    def spec(self, base: BoardSpec) -> BoardSpec:
        return replace(base, bar_width=self.bar_width, middle_gap=self.middle_gap, point_length=self.point_length)


@dataclass(frozen=True)
class BoardFit:
    """A placed board: the surface's corners in the (work) image, TL TR BR BL, and how well it fits."""

    corners: np.ndarray
    proportions: Proportions
    score: float  # Score.quality
    explained: float = 0.0  # Score.total
    alternation: float = 0.0


# --- the board model -------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def label_map(props: Proportions, px_per_mm: float) -> np.ndarray:
    """Class of each pixel of the surface (plus a ring of RING_MM around it), top-down at px_per_mm.

    0 ring, 1 surface, 2 bar, 3/4 top row even/odd columns, 5/6 bottom row even/odd columns.
    """
    w_mm = props.surface_width + 2 * RING_MM
    h_mm = props.surface_height + 2 * RING_MM
    w, h = int(round(w_mm * px_per_mm)), int(round(h_mm * px_per_mm))
    labels = np.zeros((h, w), np.uint8)
    s = px_per_mm
    x0, y0 = RING_MM, RING_MM
    x1, y1 = x0 + props.surface_width, y0 + props.surface_height
    cv2.rectangle(labels, (int(round(x0 * s)), int(round(y0 * s))), (int(round(x1 * s)) - 1, int(round(y1 * s)) - 1), 1, -1)
    bx0 = x0 + 6 * props.point_width
    cv2.rectangle(labels, (int(round(bx0 * s)), int(round(y0 * s))), (int(round((bx0 + props.bar_width) * s)) - 1, int(round(y1 * s)) - 1), 2, -1)
    shift = 4
    for column in range(12):
        cx0 = x0 + column * props.point_width + (props.bar_width if column >= 6 else 0)
        cx1 = cx0 + props.point_width
        xm = (cx0 + cx1) / 2
        top = np.array([[cx0, y0], [cx1, y0], [xm, y0 + props.point_length]])
        bottom = np.array([[cx0, y1], [cx1, y1], [xm, y1 - props.point_length]])
        for tri, base in ((top, 3), (bottom, 5)):
            pts = np.round(tri * s * (1 << shift)).astype(np.int32)
            cv2.fillPoly(labels, [pts], base + column % 2, lineType=cv2.LINE_8, shift=shift)
    labels.setflags(write=False)
    return labels


def _model_quad(props: Proportions) -> np.ndarray:
    """The surface's corners in the label map's mm frame (ring included)."""
    return rect_corners((RING_MM, RING_MM, RING_MM + props.surface_width, RING_MM + props.surface_height))


def _to_model(image_quad: np.ndarray, props: Proportions, px_per_mm: float) -> np.ndarray:
    """Homography from image px to label-map px, given where the surface's corners are in the image."""
    dst = (_model_quad(props) * px_per_mm).astype(np.float32)
    return cv2.getPerspectiveTransform(image_quad.astype(np.float32), dst)


@dataclass(frozen=True)
class Score:
    total: float  # variance explained over the surface and the ring
    surface: float  # variance explained inside the surface only (the triangles and the bar)
    alternation: float  # colour contrast of even vs odd triangles relative to their spread

    def quality(self, alternation_ref: float) -> float:
        """What the search maximises: explained variance, discounted where the triangles do not
        alternate (a plain rectangle on a contrasting table explains variance too, but is no board)."""
        return self.total * min(1.0, max(self.alternation, 0.0) / alternation_ref)


@lru_cache(maxsize=64)
def class_masks(props: Proportions, px_per_mm: float) -> tuple[np.ndarray, ...]:
    labels = label_map(props, px_per_mm)
    return tuple((labels == k).astype(np.uint8) for k in range(7))


CHANNEL_WEIGHTS = np.array([0.6, 1.0, 1.0])  # Lab: brightness varies with the lighting more than hue


def surface_score(image: np.ndarray, quad: np.ndarray, props: Proportions, px_per_mm: float,
                  outlier_lab: float = 0.0) -> Score:
    """How well the board model placed at ``quad`` (surface corners in ``image``, a uint8 Lab image)
    explains its colours. With ``outlier_lab`` a pixel further than that (weighted Lab) from its class's
    colour counts as that far and no further, and the class's colour is taken from the pixels within it:
    checkers, dice and an arm over a class are bounded outliers, not a shift of its colour. Without it,
    five dark checkers on a light point can make the placement one point off score better than the true
    one (a steep view, where checkers cover much of the far points)."""
    labels = label_map(props, px_per_mm)
    h, w = labels.shape
    m = _to_model(quad, props, px_per_mm)
    warped = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR)
    corners = apply_homography(np.linalg.inv(m), [[0, 0], [w, 0], [w, h], [0, h]])
    ih, iw = image.shape[:2]
    if np.all(corners >= 0) and np.all(corners[:, 0] <= iw) and np.all(corners[:, 1] <= ih):
        valid = None
    else:
        valid = np.zeros((h, w), np.uint8)
        frame_in_model = apply_homography(m, [[0, 0], [iw, 0], [iw, ih], [0, ih]])
        if not np.all(np.isfinite(frame_in_model)):
            return Score(-1.0, -1.0, 0.0)
        cv2.fillConvexPoly(valid, np.round(frame_in_model).astype(np.int32), 1)
        if cv2.countNonZero(valid) < 0.5 * valid.size:
            return Score(-1.0, -1.0, 0.0)  # most of the supposed board is outside the frame
    if outlier_lab > 0:
        counts, means, within = _robust_classes(warped, labels, valid, outlier_lab)
    else:
        counts, means, within = _classes(warped, class_masks(props, px_per_mm), valid)
    return _score(counts, means, within)


def _classes(warped: np.ndarray, masks: tuple[np.ndarray, ...], valid: np.ndarray | None):
    """Each class's pixel count, weighted mean colour and summed squared spread."""
    counts = np.zeros(7)
    means = np.zeros((7, warped.shape[2]))
    within = np.zeros(7)
    for k, mask in enumerate(masks):
        if valid is not None:
            mask = cv2.bitwise_and(mask, valid)
        n = cv2.countNonZero(mask)
        if n == 0:
            continue
        mean, std = cv2.meanStdDev(warped, mask=mask)
        counts[k] = n
        means[k] = mean.reshape(-1) * CHANNEL_WEIGHTS
        within[k] = n * float(np.sum((std.reshape(-1) * CHANNEL_WEIGHTS) ** 2))
    return counts, means, within


def _robust_classes(warped: np.ndarray, labels: np.ndarray, valid: np.ndarray | None, outlier: float):
    """:func:`_classes` with each class's colour taken from its pixels within ``outlier`` of its plain mean,
    and each pixel's squared spread capped at ``outlier`` squared."""
    classes = labels.astype(np.intp) if valid is None else np.where(valid > 0, labels, 7).astype(np.intp)
    flat = classes.ravel()
    px = warped.reshape(-1, warped.shape[2]).astype(np.float32) * CHANNEL_WEIGHTS.astype(np.float32)

    def class_means(weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        n = np.bincount(flat, weights=weights, minlength=8)[:7].astype(np.float64)
        sums = np.stack([np.bincount(flat, weights=px[:, c] if weights is None else px[:, c] * weights,
                                     minlength=8)[:7] for c in range(px.shape[1])], axis=1)
        return sums / np.maximum(n, 1e-9)[:, None], n

    def distance2(means: np.ndarray) -> np.ndarray:
        return ((px - np.vstack([means, np.zeros((1, px.shape[1]))])[flat]) ** 2).sum(axis=1)

    means, counts = class_means(None)
    inliers = (distance2(means) <= outlier * outlier).astype(np.float32)
    robust, n_in = class_means(inliers)
    means = np.where(n_in[:, None] > 0, robust, means)
    within = np.bincount(flat, weights=np.minimum(distance2(means), outlier * outlier), minlength=8)[:7]
    return counts, means, within


def _score(counts: np.ndarray, means: np.ndarray, within: np.ndarray) -> Score:
    """Variance explained by the classes (all, and the surface's alone) and the triangles' alternation."""

    def explained(classes: list[int]) -> float:
        n = counts[classes].sum()
        if n < 10:
            return -1.0
        grand = (means[classes] * counts[classes, None]).sum(axis=0) / n
        between = float((counts[classes, None] * (means[classes] - grand) ** 2).sum())
        total = between + within[classes].sum()
        return float(between / total) if total > 1e-9 else 0.0

    spread = []
    contrast = []
    for even, odd in ((3, 4), (5, 6)):
        if counts[even] < 5 or counts[odd] < 5:
            continue
        spread.append(np.sqrt(max((within[even] + within[odd]) / (counts[even] + counts[odd]), 1e-6)))
        contrast.append(np.linalg.norm(means[even] - means[odd]))
    alternation = float(np.mean(contrast) / np.mean(spread)) if spread else 0.0
    return Score(explained(list(range(7))), explained(list(range(1, 7))), alternation)


# --- candidates ------------------------------------------------------------------------------------
def _order_quad(pts: np.ndarray) -> np.ndarray:
    """Four points as TL TR BR BL in the image (clockwise from the one nearest the top-left)."""
    pts = np.asarray(pts, dtype=np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise in image coordinates (y down), starting from the left
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def _quad_from_contour(contour: np.ndarray) -> np.ndarray | None:
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            return _order_quad(approx.reshape(4, 2))
        if len(approx) < 4:
            break
    box = cv2.boxPoints(cv2.minAreaRect(hull))
    return _order_quad(box)


def _binarisations(bgr: np.ndarray) -> list[np.ndarray]:
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    out = []
    for channel in (gray, lab[..., 1], lab[..., 2], hsv[..., 1]):
        blurred = cv2.GaussianBlur(channel, (5, 5), 0)
        _, binary = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        out.append(binary)
        out.append(255 - binary)
    edges = cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 40, 120)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    out.append(255 - edges)
    return out


def _triangle(contour: np.ndarray, min_area: float, max_area: float) -> np.ndarray | None:
    """The contour's 3 corners if it is a long thin triangle of a point's size, else None."""
    area = cv2.contourArea(contour)
    if not min_area <= area <= max_area:
        return None
    found, tri = cv2.minEnclosingTriangle(contour)
    if found <= 0 or area / found < 0.7:
        return None
    tri = tri.reshape(3, 2)
    sides = sorted(np.linalg.norm(tri[i] - tri[(i + 1) % 3]) for i in range(3))
    if not 0.06 <= sides[0] / sides[2] <= 0.7 or sides[1] / sides[2] < 0.8:
        return None
    return tri.astype(np.float64)


def level_binarisations(bgr: np.ndarray, config: FindBoardConfig = DEFAULT_FIND_BOARD) -> list[np.ndarray]:
    """Thresholds of brightness and of each colour axis at several levels: a board has three or more
    colours (two kinds of triangle, the surface, the frame), so one Otsu split may join a triangle to
    its neighbours while another level isolates it."""
    lab = cv2.cvtColor(cv2.GaussianBlur(bgr, (3, 3), 0), cv2.COLOR_BGR2LAB)
    out = []
    for c in range(3):
        channel = lab[..., c]
        for q in config.triangle_levels:
            level = float(np.percentile(channel, q))
            binary = (channel > level).astype(np.uint8) * 255
            out.append(binary)
            out.append(255 - binary)
    return out


def triangle_quads(binaries: list[np.ndarray], shape: tuple[int, ...], config: FindBoardConfig = DEFAULT_FIND_BOARD) -> list[np.ndarray]:
    """Quadrilaterals around the points' triangles: the playing surface, whatever the frame looks like.

    Triangles are found in every binarisation; those sharing the dominant axis direction (both rows
    point along the same line) are kept and their hull gives the surface's outline.
    """
    h, w = shape[:2]
    min_area = config.min_area_fraction * w * h * 0.017 * 0.3
    max_area = w * h * 0.03
    triangles: list[np.ndarray] = []
    for binary in binaries:
        contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            tri = _triangle(contour, min_area, max_area)
            if tri is not None:
                triangles.append(tri)
    if len(triangles) < 4:
        return []
    axes = []
    for tri in triangles:
        sides = [np.linalg.norm(tri[i] - tri[(i + 1) % 3]) for i in range(3)]
        base = int(np.argmin(sides))  # the short side is the base; the opposite vertex is the tip
        tip = tri[(base + 2) % 3]
        mid = (tri[base] + tri[(base + 1) % 3]) / 2
        axes.append(np.arctan2(tip[1] - mid[1], tip[0] - mid[0]) % np.pi)
    axes = np.array(axes)
    quads = []
    for centre in np.linspace(0, np.pi, 24, endpoint=False):
        diff = np.abs((axes - centre + np.pi / 2) % np.pi - np.pi / 2)
        members = [t for t, d in zip(triangles, diff) if d < np.deg2rad(12)]
        if len(members) < 4:
            continue
        pts = np.vstack(members).astype(np.float32)
        hull = cv2.convexHull(pts)
        quad = _quad_from_contour(hull)
        if quad is not None:
            quads.append(quad)
    return quads


def candidate_quads(bgr: np.ndarray, config: FindBoardConfig = DEFAULT_FIND_BOARD) -> list[np.ndarray]:
    """Large, roughly convex quadrilaterals that may be the board's outline, inner frame or surface."""
    h, w = bgr.shape[:2]
    min_area = config.min_area_fraction * w * h
    quads: list[tuple[float, np.ndarray]] = []
    binaries = _binarisations(bgr)
    for quad in triangle_quads(binaries + level_binarisations(bgr, config), bgr.shape, config):
        quads.append((2.0 * w * h, quad))  # triangles are the board's own mark: try them first
    for size in (7, max(9, int(0.06 * w) | 1)):
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (size, size))
        for binary in binaries:
            closed = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, kernel)
            opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, kernel)
            contours, _ = cv2.findContours(opened, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
            for contour in contours:
                area = cv2.contourArea(contour)
                if area < min_area or area > 0.995 * w * h:
                    continue
                hull_area = cv2.contourArea(cv2.convexHull(contour))
                if hull_area <= 0 or area / hull_area < 0.6:
                    continue
                quad = _quad_from_contour(contour)
                if quad is None or cv2.contourArea(quad.astype(np.float32)) < min_area:
                    continue
                quads.append((area, quad))
    for inset in config.frame_insets:  # close-ups: the surface (or the board) is the picture itself
        quads.append((w * h * (1 - inset), np.array([[inset * w, inset * h], [(1 - inset) * w, inset * h],
                                                     [(1 - inset) * w, (1 - inset) * h], [inset * w, (1 - inset) * h]])))
    quads.sort(key=lambda t: -t[0])
    unique: list[np.ndarray] = []
    tol = 0.015 * max(w, h)
    for _, quad in quads:
        if all(np.max(np.linalg.norm(quad - other, axis=1)) > tol for other in unique):
            unique.append(quad)
        if len(unique) >= config.max_candidates:
            break
    return unique


# --- hypotheses ------------------------------------------------------------------------------------
def _roles(spec: BoardSpec) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Rectangles of the board a found quadrilateral may be, in the board's mm frame."""
    geo = BoardGeometry(spec)
    sx0, sy0, sx1, sy1 = geo.surface
    f = spec.frame_width
    return [
        ("surface", geo.surface),
        ("inner frame", (f, f, spec.width - f, spec.height - f)),
        ("outline", geo.outline),
        ("surface and one tray", (sx0 - spec.tray_width, sy0, sx1, sy1)),
        ("surface and the other tray", (sx0, sy0, sx1 + spec.tray_width, sy1)),
    ]


def hypotheses(quad: np.ndarray, spec: BoardSpec) -> list[np.ndarray]:
    """Surface corners (image px, TL TR BR BL of the board) implied by a quadrilateral in each role."""
    geo = BoardGeometry(spec)
    surface = rect_corners(geo.surface)
    out = []
    for turn in (0, 1):
        q = np.roll(quad, -turn, axis=0)  # turn = 1: the board lies across the image
        for _, rect in _roles(spec):
            h = cv2.getPerspectiveTransform(rect_corners(rect).astype(np.float32), q.astype(np.float32))
            out.append(apply_homography(h, surface))
    return out


# --- refinement ------------------------------------------------------------------------------------
def _objective(image: np.ndarray, quad: np.ndarray, props: Proportions, px_per_mm: float, config: FindBoardConfig,
               outlier_lab: float = 0.0) -> float:
    return surface_score(image, quad, props, px_per_mm, outlier_lab).quality(config.alternation_ref)


def refine(
    image: np.ndarray,
    fit: BoardFit,
    px_per_mm: float,
    initial_step_mm: float,
    config: FindBoardConfig,
    free_proportions: bool,
    outlier_lab: float = 0.0,
) -> BoardFit:
    """Coordinate descent on the 8 corner coordinates (and the proportions) maximising the score
    (``outlier_lab``: see :func:`surface_score`)."""
    quad = fit.corners.copy()
    props = fit.proportions
    best = _objective(image, quad, props, px_per_mm, config, outlier_lab)
    # image px per board mm along each side, to turn a step in mm into a step in px per corner
    sides = np.array([np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)])
    px_per_mm_img = float(np.mean([sides[0] / props.surface_width, sides[2] / props.surface_width, sides[1] / props.surface_height, sides[3] / props.surface_height]))
    step = initial_step_mm
    iterations = 0
    while step >= config.refine_min_step_mm and iterations < config.refine_iterations:
        iterations += 1
        improved = False
        for k in range(8):
            for sign in (1, -1):
                trial = quad.copy()
                trial.reshape(-1)[k] += sign * step * px_per_mm_img
                value = _objective(image, trial, props, px_per_mm, config, outlier_lab)
                if value > best + 1e-5:
                    best, quad, improved = value, trial, True
                    break
        if not improved and config.refine_whole_moves:
            # a turn or a stretch of the whole quad: two corners off in opposite directions (the rows
            # tilted along their length) is an optimum for one-corner moves but not for these
            for trial in _whole_moves(quad, step / (props.surface_width / 2)):
                value = _objective(image, trial, props, px_per_mm, config, outlier_lab)
                if value > best + 1e-5:
                    best, quad, improved = value, trial, True
                    break
        if free_proportions:
            for name, lo, hi in FREE_PROPORTIONS[: 2 if config.fit_middle_gap else 1]:
                for sign in (1, -1):
                    value_mm = getattr(props, name) + sign * step
                    if not lo * props.point_width <= value_mm <= hi * props.point_width:
                        continue
                    changes = {name: value_mm}
                    if name == "middle_gap":
                        changes["point_length"] = (props.surface_height - value_mm) / 2
                    trial_props = replace(props, **changes)
                    trial_quad = _rescale_quad(quad, props, trial_props)
                    value = _objective(image, trial_quad, trial_props, px_per_mm, config, outlier_lab)
                    if value > best + 1e-5:
                        best, props, quad, improved = value, trial_props, trial_quad, True
                        break
        if not improved:
            step /= 2
    final = surface_score(image, quad, props, px_per_mm, outlier_lab)
    return BoardFit(quad, props, final.quality(config.alternation_ref), final.total, final.alternation)


def _whole_moves(quad: np.ndarray, angle: float) -> list[np.ndarray]:
    """The quad turned by +-angle (radians) and stretched along each image axis by +-angle, about its centre."""
    centre = quad.mean(axis=0)
    rel = quad - centre
    out = []
    for a in (angle, -angle):
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        out.append(rel @ rot.T + centre)
    for axis in (0, 1):
        for f in (1 + angle, 1 - angle):
            stretch = np.ones(2)
            stretch[axis] = f
            out.append(rel * stretch + centre)
    return out


def jump_points(image: np.ndarray, fit: BoardFit, px_per_mm: float, config: FindBoardConfig,
                outlier_lab: float = 0.0) -> BoardFit:
    """Try moving each end of the surface by a whole point width: alternating triangles make a fit one
    point off a local optimum (even and odd just swap) that small steps cannot leave."""
    props = fit.proportions
    model_to_image = cv2.getPerspectiveTransform(
        rect_corners((0, 0, props.surface_width, props.surface_height)).astype(np.float32), fit.corners.astype(np.float32)
    )
    best = fit
    pw = props.point_width
    for left in (-1, 0, 1):
        for right in (-1, 0, 1):
            if left == right == 0:
                continue
            rect = (left * pw, 0, props.surface_width + right * pw, props.surface_height)
            quad = apply_homography(model_to_image, rect_corners(rect))
            s = surface_score(image, quad, props, px_per_mm, outlier_lab)
            q = s.quality(config.alternation_ref)
            if q > best.score + 1e-4:
                best = BoardFit(quad, props, q, s.total, s.alternation)
    return best


def _rescale_quad(quad: np.ndarray, old: Proportions, new: Proportions) -> np.ndarray:
    """Keep the board's centre where it is when its surface width changes (the bar widened)."""
    if abs(old.surface_width - new.surface_width) < 1e-9:
        return quad
    h = cv2.getPerspectiveTransform(rect_corners((0, 0, old.surface_width, old.surface_height)).astype(np.float32), quad.astype(np.float32))
    dx = (new.surface_width - old.surface_width) / 2
    return apply_homography(h, rect_corners((-dx, 0, old.surface_width + dx, old.surface_height)))


# --- the whole search ------------------------------------------------------------------------------
def _work_image(frame: np.ndarray, config: FindBoardConfig) -> tuple[np.ndarray, np.ndarray, float]:
    """The frame scaled to the working width: BGR for candidates, Lab float for scoring."""
    if frame is None or not hasattr(frame, "shape") or frame.size == 0:
        raise CalibrationError("the frame is empty: check the camera or the image file")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    h, w = frame.shape[:2]
    scale = min(1.0, config.work_width / w)
    small = cv2.resize(frame, (int(round(w * scale)), int(round(h * scale))), interpolation=cv2.INTER_AREA) if scale < 1 else frame
    return small, cv2.cvtColor(small, cv2.COLOR_BGR2LAB), scale


def _bottom_down(quad: np.ndarray) -> np.ndarray:
    """Of the two ways round, the one whose bottom edge is lower in the image (ties: further right)."""
    turned = np.roll(quad, 2, axis=0)
    def downness(q: np.ndarray) -> float:
        d = (q[2] + q[3]) / 2 - (q[0] + q[1]) / 2
        return float(d[1] + 0.01 * d[0])
    return quad if downness(quad) >= downness(turned) else turned


def fit_board(frame: np.ndarray, spec: BoardSpec | None = None, config: FindBoardConfig = DEFAULT_FIND_BOARD) -> tuple[BoardFit | None, float]:
    """The best board placement in the frame (surface corners in work-image px) and the work scale."""
    small, lab, scale = _work_image(frame, config)
    base = spec or BoardSpec()
    props0 = Proportions.of(base)
    scored: list[BoardFit] = []
    for quad in candidate_quads(small, config):
        for surface in hypotheses(quad, base):
            if not _plausible(surface, small.shape, config):
                continue
            s = surface_score(lab, surface, props0, config.score_px_per_mm, config.coarse_outlier_lab)
            scored.append(BoardFit(surface, props0, s.quality(config.alternation_ref), s.total, s.alternation))
    if not scored:
        return None, scale
    scored.sort(key=lambda f: -f.score)
    kept: list[BoardFit] = []
    for fit in scored:
        if all(np.max(np.linalg.norm(fit.corners - k.corners, axis=1)) > 8 for k in kept):
            kept.append(fit)
        if len(kept) >= config.refine_top_k:
            break
    free = spec is None and config.search_proportions
    best: BoardFit | None = None
    robust = config.coarse_outlier_lab
    for fit in kept:
        if best is not None and fit.score < config.second_chance * kept[0].score:
            break
        coarse = refine(lab, fit, config.score_px_per_mm, config.refine_initial_step_mm, config, free, robust)
        for _ in range(3):
            jumped = jump_points(lab, coarse, config.score_px_per_mm, config, robust)
            if jumped is coarse:
                break
            coarse = refine(lab, jumped, config.score_px_per_mm, config.refine_initial_step_mm / 2, config, free, robust)
        if best is None or coarse.score > best.score:
            best = coarse
    if best is not None:
        # the last steps on a sharper copy: the working image has well under a pixel per mm
        fine_cfg = replace(config, work_width=config.fine_work_width)
        _, fine_lab, fine_scale = _work_image(frame, fine_cfg)
        ratio = fine_scale / scale
        best = replace(best, corners=best.corners * ratio)
        best = refine(fine_lab, best, config.refine_px_per_mm, config.refine_fine_step_mm, config, free)
        return best, fine_scale
    return best, scale


def _plausible(quad: np.ndarray, shape: tuple[int, ...], config: FindBoardConfig) -> bool:
    h, w = shape[:2]
    if not np.all(np.isfinite(quad)):
        return False
    area = cv2.contourArea(quad.astype(np.float32))
    if area < config.min_area_fraction * w * h * 0.5:
        return False
    width = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    height = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    return width / max(height, 1e-6) >= config.min_aspect * 0.8


def find_board(
    frame: np.ndarray,
    spec: BoardSpec | None = None,
    home: HomeSide = "right",
    bottom_player: str | None = None,
    config: FindBoardConfig = DEFAULT_FIND_BOARD,
) -> Calibration | None:
    """A calibration found from the board's own look, or None when no board fills enough of the frame.

    With ``spec`` None the board's bar width and row gap are fitted and the rest assumed standard
    (the scale of a photo cannot be known, so mm are those of a standard board).
    """
    fit, scale = fit_board(frame, spec, config)
    if fit is None or fit.explained < config.min_score or fit.alternation < config.min_alternation:
        return None
    base = spec or BoardSpec()
    found_spec = fit.proportions.spec(base)
    geo = BoardGeometry(found_spec, home)
    quad_full = _bottom_down(fit.corners / scale)
    model = rect_corners(geo.surface)
    homography = cv2.getPerspectiveTransform(quad_full.astype(np.float32), model.astype(np.float32)).astype(np.float64)
    h, w = frame.shape[:2]
    # no correspondences to measure: report the size of one work-image pixel on the board as the error
    px_mm = 1.0 / max(1e-6, scale) / _scale_px_per_mm(quad_full, found_spec)
    return Calibration(
        geometry=geo,
        image_size=(w, h),
        homography=homography,
        reprojection_error_mm=float(px_mm),
        bottom_player=bottom_player,
        source="board",
        created=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
    )


def _scale_px_per_mm(quad: np.ndarray, spec: BoardSpec) -> float:
    geo = BoardGeometry(spec)
    x0, y0, x1, y1 = geo.surface
    width = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    height = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    return float((width / (x1 - x0) + height / (y1 - y0)) / 2)


def refine_calibration(
    frame: np.ndarray, calibration: Calibration, config: FindBoardConfig = DEFAULT_FIND_BOARD
) -> Calibration | None:
    """Polish a calibration (for example from only three markers) with the board's own look: start the
    fine refinement at where it puts the surface. None when the board's look does not confirm it."""
    if frame is None or frame.size == 0:
        raise CalibrationError("the frame is empty: check the camera or the image file")
    view = calibration.undistort(frame)
    fine_cfg = replace(config, work_width=config.fine_work_width)
    _, lab, scale = _work_image(view, fine_cfg)
    geo = calibration.geometry
    props = Proportions.of(geo.spec)
    quad = apply_homography(calibration.inverse_homography, rect_corners(geo.surface)) * scale
    fit = BoardFit(quad, props, 0.0)
    fit = refine(lab, fit, config.score_px_per_mm, config.refine_fine_step_mm * 2, config, False)
    fit = refine(lab, fit, config.refine_px_per_mm, config.refine_fine_step_mm, config, False)
    if fit.explained < config.min_score or fit.alternation < config.min_alternation:
        return None
    homography = cv2.getPerspectiveTransform((fit.corners / scale).astype(np.float32), rect_corners(geo.surface).astype(np.float32))
    return replace(calibration, homography=homography.astype(np.float64))
