"""The grid reader: a flat die's face read from where its pips can be on its top-face plane.

On the top-face plane (a crop the roll reader has rectified) a flat die's face is a square of known size, its
pips on a 3x3 lattice. Every placement (centre, turn) of that lattice is scored for every face pattern at once:
a face scores its weakest pip's contrast less its strongest blank place's, so the reading is of the whole
lattice, not a count of blobs. The roll reader (:mod:`tablecompanion.vision.roll_reader`) asks it of every die
it crops; nothing here knows about boards, cameras or rolls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import cv2
import numpy as np

__all__ = ["FACE_PATTERNS", "GridLook", "GridReading", "grid_read", "grid_reads", "inner_box", "pip_response"]

_LATTICE = np.array([(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)], np.float64)  # index = (j+1)*3 + (i+1)


def _idx(i: int, j: int) -> int:
    return (j + 1) * 3 + (i + 1)


FACE_PATTERNS: dict[int, tuple[tuple[int, ...], ...]] = {
    1: ((_idx(0, 0),),),
    2: ((_idx(-1, -1), _idx(1, 1)), (_idx(1, -1), _idx(-1, 1))),
    3: ((_idx(-1, -1), _idx(0, 0), _idx(1, 1)), (_idx(1, -1), _idx(0, 0), _idx(-1, 1))),
    4: ((_idx(-1, -1), _idx(1, -1), _idx(-1, 1), _idx(1, 1)),),
    5: ((_idx(-1, -1), _idx(1, -1), _idx(-1, 1), _idx(1, 1), _idx(0, 0)),),
    6: ((_idx(-1, -1), _idx(-1, 0), _idx(-1, 1), _idx(1, -1), _idx(1, 0), _idx(1, 1)),
        (_idx(-1, -1), _idx(0, -1), _idx(1, -1), _idx(-1, 1), _idx(0, 1), _idx(1, 1))),
}


# every face pattern, variants apart, in one order (the rows :func:`_pattern_sums` makes)
_PATTERNS = [(value, pattern) for value, variants in FACE_PATTERNS.items() for pattern in variants]
# each pattern's pip places (in the pattern's order: the reading's pips follow it) and blank places
_PATTERN_PLACES = [(np.array(p), np.array([i for i in range(9) if i not in p])) for _, p in _PATTERNS]




@dataclass(frozen=True)
class GridReading:
    """The best die face found on a top-plane crop: value, lattice centre and turn, how sure."""

    value: int
    centre: tuple[float, float]  # crop px
    turn_deg: float
    score: float  # weakest pip's contrast minus the strongest non-pip's
    margin: float  # score minus the best other value's score
    pip_contrast: float  # weakest pip's contrast (Lab units)
    pips: tuple[tuple[float, float], ...]  # refined pip centres, crop px
    off_contrast: float = 0.0  # strongest spot where the face should be blank
    face_spread: float = 0.0  # largest colour difference (Lab) between blank places of the face
    # the margin over every rival, also those ``clear_face_tol`` leaves out (None: none was left out)
    margin_all: float | None = None
    # the other faces that passed, centred within ``alternatives_within`` sides of this one (best first)
    alternatives: tuple["GridReading", ...] = ()
    strongest_pip: float = 0.0  # strongest pip's contrast (Lab units)


@dataclass(frozen=True)
class GridLook:
    """One box :func:`grid_reads` looks for a face in, and how it takes one there (:func:`grid_read`'s
    arguments of the same names)."""

    centre_box: tuple[float, float, float, float] | None = None  # crop px; None: :func:`inner_box`
    exclude: Sequence[tuple[float, float, float]] = ()  # (u, v, radius) crop px: no lattice centre there
    face_tol: float = 32.0
    mid_ratio: float = 0.6
    alternatives_within: float = 0.0
    clear_face_tol: float | None = None
    min_pip_contrast: float = 0.0
    # the camera's view across the crop: the unit direction (crop px) in which it sees down a die's sides,
    # and how deep (sides seen per side: the tangent of its angle from straight down); (0, 0, 0): from above
    view: tuple[float, float, float] = (0.0, 0.0, 0.0)


# the most of the weakest pip's response a gap between two pips may keep however the view blurs them: a line
# lit all along (a triangle's tip, which a steep camera sees along its view) keeps all of it
_MID_IN_VIEW = 0.9


def _lattice_offsets(turn_deg: float, pitch_px: float) -> np.ndarray:
    """The 9 places of a die face's pip lattice turned by ``turn_deg``, relative to its centre (px)."""
    t = math.radians(turn_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return (_LATTICE @ rot.T) * pitch_px


def pip_response(crop: np.ndarray, pip_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Signed lightness contrast of a pip-sized spot against its surround, and its colour contrast."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    r = max(1.0, pip_px / 2.0)
    inner = cv2.GaussianBlur(lab, (0, 0), 0.55 * r)
    outer = cv2.GaussianBlur(lab, (0, 0), 1.7 * r)
    d = inner - outer
    return d[..., 0], np.sqrt(d[..., 1] ** 2 + d[..., 2] ** 2)


def _pixel_box(box: tuple[float, float, float, float], w: int, h: int) -> tuple[int, int, int, int]:
    """``box`` (x0, y0, x1, y1) rounded to whole pixels within a w x h image, at least one pixel wide."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    x0, y0 = max(0, x0), max(0, y0)
    return x0, y0, min(w, max(x0 + 1, x1)), min(h, max(y0 + 1, y1))


def inner_box(side_px: float, w: int, h: int) -> tuple[float, float, float, float]:
    """A w x h crop but 0.3 of a die's side at its edges: where :func:`grid_read` looks for a face's centre
    unless told otherwise (and where it takes its pip threshold)."""
    m = 0.3 * side_px
    return (m, m, w - m, h - m)


def _pattern_sums(on: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Each face pattern's sum of ``on`` (9 lattice places x n centres) over its pip places, into ``out``
    (a row per pattern of ``_PATTERNS``): the patterns share their corner pairs, so 13 additions make all
    9 rows (a matrix product without BLAS took twice as long; BLAS threads would compete with the camera's)."""
    a = np.add(on[0], on[8], out=out[1])  # 2: one diagonal
    b = np.add(on[2], on[6], out=out[2])  # 2: the other
    out[0] = on[4]  # 1
    np.add(a, on[4], out=out[3])  # 3
    np.add(b, on[4], out=out[4])
    np.add(a, b, out=out[5])  # 4
    np.add(out[5], on[4], out=out[6])  # 5
    np.add(out[5], on[3], out=out[7])  # 6: the two columns
    out[7] += on[5]
    np.add(out[5], on[1], out=out[8])  # 6: the two rows
    out[8] += on[7]
    return out


def grid_read(crop: np.ndarray, side_px: float, *, pitch: float = 0.25, pip: float = 0.17,
              turn_step: float = 5.0, face_tol: float = GridLook.face_tol,
              centre_box: tuple[float, float, float, float] | None = None,
              exclude: Sequence[tuple[float, float, float]] = (), mid_ratio: float = GridLook.mid_ratio,
              alternatives_within: float = GridLook.alternatives_within, clear_face_tol: float | None = None,
              tau_box: tuple[float, float, float, float] | None = None,
              min_pip_contrast: float = GridLook.min_pip_contrast,
              view: tuple[float, float, float] = GridLook.view) -> GridReading | None:
    """The face whose 3x3 pip lattice (``pitch`` x side apart, pips ``pip`` x side across) fits best, its
    centre in ``centre_box`` (default: the crop but 0.3 of a side at its edges) and not in ``exclude``.

    Between two neighbouring pips a face is blank: a response there above ``mid_ratio`` of the weakest
    pip's is a line lit all along (a triangle's tip), no row of pips. 0.6, not 0.5: a small die far from
    a steep camera, stretched onto the top plane, blurs its 6's columns to about 0.5 between the pips.

    A pip is a response over half the strongest in ``tau_box`` (default: ``centre_box``): two reads with one
    ``tau_box`` score their faces alike.

    ``view``: the camera's view there (:class:`GridLook`), which blurs pips in its line together.

    ``min_pip_contrast``: the caller takes no face whose weakest pip is weaker. Where no response within the
    lattice's reach of the box is that strong, no face can be, and the search is not made (None)."""
    look = GridLook(centre_box, exclude, face_tol, mid_ratio, alternatives_within, clear_face_tol, min_pip_contrast,
                    view)
    return grid_reads(crop, side_px, [look], pitch=pitch, pip=pip, turn_step=turn_step, tau_box=tau_box)[0]


def grid_reads(crop: np.ndarray, side_px: float, looks: Sequence[GridLook], *, pitch: float = 0.25, pip: float = 0.17,
               turn_step: float = 5.0, tau_box: tuple[float, float, float, float] | None = None) -> list[GridReading | None]:
    """:func:`grid_read` in several boxes of one crop (``looks``). The boxes are scanned as one, so where they
    overlap the response is shifted and scored once. The pip threshold is ``tau_box``'s for all (default: the
    first look's box)."""
    if crop is None or crop.size == 0 or min(crop.shape[:2]) < side_px * 0.8:
        return [None] * len(looks)
    L, C = pip_response(crop, pip * side_px)
    h, w = L.shape
    boxes = []
    for look in looks:
        boxes.append(_pixel_box(inner_box(side_px, w, h) if look.centre_box is None else look.centre_box, w, h))
    tx0, ty0, tx1, ty1 = boxes[0] if tau_box is None else _pixel_box(tau_box, w, h)
    resps, taus = [], []
    for polarity in (-1.0, 1.0):  # dark pips on a light face, light pips on a dark face
        resp = np.maximum(polarity * L, 0.0) + 0.5 * C * (polarity * L > 2.0)
        area = resp[ty0:ty1, tx0:tx1]
        tau = 0.5 * float(np.percentile(area, 99.5)) if area.size else 0.0
        if tau > 1.0:
            resps.append(np.ascontiguousarray(resp, np.float32))
            taus.append(tau)
    out: list[GridReading | None] = [None] * len(looks)
    if not resps:
        return out
    wanted = []
    for j, ((bx0, by0, bx1, by1), look) in enumerate(zip(boxes, looks)):
        if look.min_pip_contrast > 0:
            # a pip's contrast is the response interpolated between 4 pixels, never over the strongest of them
            reach = int(math.ceil(pitch * side_px * math.sqrt(2.0))) + 1
            zone = (slice(max(0, by0 - reach), by1 + reach), slice(max(0, bx0 - reach), bx1 + reach))
            if max(float(resp[zone].max()) for resp in resps) < look.min_pip_contrast:
                continue
        wanted.append(j)
    turns = np.arange(0.0, 90.0, turn_step)
    scans = _best_lattices(resps, taus, turns, pitch * side_px, [boxes[j] for j in wanted],
                           [looks[j].exclude for j in wanted])
    for j, scan in zip(wanted, scans):
        out[j] = _face_of(crop, side_px, pitch, resps, turns, boxes[j], scan, looks[j])
    return out


def _best_lattices(resps: list[np.ndarray], taus: list[float], turns: np.ndarray, pitch_px: float,
                   boxes: list[tuple[int, int, int, int]], excludes: list[Sequence[tuple[float, float, float]]]) -> list[tuple]:
    """Per box, per polarity and face pattern, the best lattice placement over all turns: score, turn, centre
    (index in the box, row by row) and the response at its 9 places; the first best in the order polarity,
    turn, pattern, as scanned. The boxes' bounding box is shifted and scored once."""
    if not boxes:
        return []
    ux0, uy0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    ux1, uy1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    uw, uh = ux1 - ux0, uy1 - uy0
    n_pat, n = len(_PATTERNS), uw * uh
    P = len(resps)
    one = len(boxes) == 1  # the box is the whole scan: its scores are used in place
    parts = []
    for (bx0, by0, bx1, by1), exclude in zip(boxes, excludes):
        bw, bh = bx1 - bx0, by1 - by0
        banned = None
        if exclude:
            banned = np.zeros((bh, bw), bool)  # lattice centres not to use (dice already read)
            gy, gx = np.ogrid[by0:by1, bx0:bx1]
            for eu, ev, er in exclude:
                banned |= (gx - eu) ** 2 + (gy - ev) ** 2 <= er * er
            banned = banned.ravel()
        # each centre of the box as an index into the scan's grid
        where = ((np.arange(by0, by1) - uy0)[:, None] * uw + (np.arange(bx0, bx1) - ux0)[None, :]).ravel()
        parts.append(dict(slices=(slice(by0 - uy0, by1 - uy0), slice(bx0 - ux0, bx1 - ux0)), banned=banned, where=where,
                          best_sc=np.full((P, n_pat), -np.inf), best_turn=np.zeros((P, n_pat), int),
                          best_k=np.zeros((P, n_pat), int), best_at=np.zeros((P, n_pat, 9), np.float32)))
    # work arrays made once: the shifted responses per polarity, and the scores' terms
    stacks = [np.empty((9, uh, uw), np.float32) for _ in resps]
    gain, extra, on = (np.empty((9, n), np.float32) for _ in range(3))
    scores, blank = np.empty((n_pat, n), np.float32), np.empty(n, np.float32)
    rows = np.arange(n_pat)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    for stack, resp in zip(stacks, resps):  # the lattice's centre place is the same at every turn
        cv2.warpAffine(resp, np.array([[1.0, 0.0, ux0 + 0.0], [0.0, 1.0, uy0 + 0.0]]), (uw, uh), dst=stack[4],
                       flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
    for ti, turn in enumerate(turns):
        offs = _lattice_offsets(turn, pitch_px)
        for pi, (resp, tau, stack) in enumerate(zip(resps, taus, stacks)):
            for i, (ox, oy) in enumerate(offs):
                if i == 4:
                    continue
                # the response shifted by one lattice offset (bilinear), over the box of lattice centres
                M = np.array([[1.0, 0.0, ux0 + ox], [0.0, 1.0, uy0 + oy]])
                cv2.warpAffine(resp, M, (uw, uh), dst=stack[i], flags=flags, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=0.0)
            flat = stack.reshape(9, n)
            np.subtract(flat, np.float32(tau), out=gain)  # > 0: a pip there
            np.maximum(gain, 0.0, out=extra)
            extra *= 2.0  # a pip where the face should be blank costs twice
            np.add(gain, extra, out=on)
            # score = gain at the pattern's pips - extra at its blanks = pattern . (gain + extra) - sum(extra)
            _pattern_sums(on, scores)
            scores -= extra.sum(axis=0, out=blank)
            for part in parts:
                sub = scores if one else scores.reshape(n_pat, uh, uw)[(slice(None), *part["slices"])].reshape(n_pat, -1)
                if part["banned"] is not None:
                    sub[:, part["banned"]] = -1e9
                ks = np.argmax(sub, axis=1)
                sc = sub[rows, ks]
                better = sc > part["best_sc"][pi]
                if better.any():
                    part["best_sc"][pi, better] = sc[better]
                    part["best_turn"][pi, better] = ti
                    part["best_k"][pi, better] = ks[better]
                    part["best_at"][pi, better] = flat[:, part["where"][ks[better]]].T
    return [(part["best_sc"], part["best_turn"], part["best_k"], part["best_at"]) for part in parts]


def _face_of(crop: np.ndarray, side_px: float, pitch: float, resps: list[np.ndarray], turns: np.ndarray,
             box: tuple[int, int, int, int], scan: tuple, look: GridLook) -> GridReading | None:
    """:func:`grid_read`'s face from the best lattices of one box (:func:`_best_lattices`)."""
    face_tol, mid_ratio = look.face_tol, look.mid_ratio
    alternatives_within, clear_face_tol = look.alternatives_within, look.clear_face_tol
    vx, vy, depth = look.view

    def mid_limit(e: np.ndarray) -> float:
        """The limit on the response between two neighbouring pips ``e`` apart (turned lattice units), as a
        share of the weakest pip's. Seen at an angle, the face on the top plane is the picture stretched
        along the view by sqrt(1 + depth^2), and so is the camera's blur: two pips in that line blur together
        as a Gaussian blur that much wider would, so the ratio a blank gap between them keeps, m from above,
        rises to 2 (m / 2) ^ (1 / stretch^2) along the view (0.6 -> 1.13 seen 46 degrees from straight down),
        less as the pair turns away from it; never over ``_MID_IN_VIEW`` (under a line's 1) unless
        ``mid_ratio`` is."""
        if depth <= 0.0:
            return mid_ratio
        c2 = float(e @ (vx, vy)) ** 2 / float(e @ e)
        blurred = 2.0 * (mid_ratio / 2.0) ** (1.0 / (1.0 + depth * depth * c2))
        return max(mid_ratio, min(_MID_IN_VIEW, blurred))

    best_sc, best_turn, best_k, best_at = scan
    bx0, by0, bx1, _ = box
    bw = bx1 - bx0
    h, w = resps[0].shape
    best: dict[int, tuple] = {}
    for pi in range(len(resps)):
        for j, (value, pattern) in enumerate(_PATTERNS):
            sc = float(best_sc[pi, j])
            if value in best:
                prev = best[value]
                # a later polarity, or a later variant found at an earlier turn, wins only when strictly better
                if not (sc > prev[0] or (sc == prev[0] and prev[-1] == pi and best_turn[pi, j] < prev[-2])):
                    continue
            v, u = divmod(int(best_k[pi, j]), bw)
            on, off = _PATTERN_PLACES[j]
            turn = float(turns[best_turn[pi, j]])
            offs = _lattice_offsets(turn, pitch * side_px)
            best[value] = (sc, (u + bx0, v + by0), turn, float(best_at[pi, j, on].min()), offs[on], resps[pi],
                           float(best_at[pi, j, off].max()), pattern, float(best_at[pi, j, on].max()),
                           int(best_turn[pi, j]), pi)
    if not best:
        return None
    lab = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32), (0, 0), 0.1 * side_px)
    ranked = sorted(best.items(), key=lambda kv: -kv[1][0])
    passing = []
    for value, cand in ranked:
        sc, (u, v), turn, weakest, on_offs, resp, worst_off, pattern = cand[:8]
        t = math.radians(turn)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        face_pts = [(_LATTICE[i] @ rot.T) * pitch * side_px for i in range(9) if i not in pattern]
        # between two neighbouring pips the face is blank: a line (a triangle's tip, a board's inlay) lit
        # all along is no row of pips
        gaps = [(((_LATTICE[a] + _LATTICE[b]) / 2) @ rot.T * pitch * side_px,
                 mid_limit((_LATTICE[b] - _LATTICE[a]) @ rot.T))
                for a in pattern for b in pattern if a < b and np.linalg.norm(_LATTICE[a] - _LATTICE[b]) < 1.5]
        if any(float(resp[min(max(int(round(v + my)), 0), h - 1), min(max(int(round(u + mx)), 0), w - 1)])
               > limit * weakest for (mx, my), limit in gaps):
            continue
        cols = []
        for fx, fy in face_pts:
            x, y = int(round(u + fx)), int(round(v + fy))
            if not (0 <= x < w and 0 <= y < h):
                cols = None
                break
            cols.append(lab[y, x])
        if cols is None:
            continue
        cols = np.array(cols)
        spread = float(np.max(np.linalg.norm(cols - np.median(cols, axis=0), axis=1)))
        if spread <= face_tol:  # the blank places of the face look alike: a face, not dice and board
            passing.append((value, cand, spread))
    if not passing:
        return None

    def reading(i: int) -> GridReading:
        value, (sc, (u, v), turn, weakest, on_offs, resp, worst_off, _, strongest, *_), face_spread = passing[i]
        if value == 1:
            # a 1's face is blank all round its pip whatever its turn (the lattice's turn says nothing for a
            # 1): the strongest spot between 0.2 and 0.42 of a side from the pip (a 6 turned 45 degrees hides
            # its other pips from the 1's eight blank places at the lattice's turn)
            r0, r1 = 0.2 * side_px, 0.42 * side_px
            ys, xs = np.ogrid[:h, :w]
            ring = (xs - u) ** 2 + (ys - v) ** 2
            ring = (ring >= r0 * r0) & (ring <= r1 * r1)
            if ring.any():
                worst_off = max(worst_off, float(resp[ring].max()))
        # the margin over the other faces that read this same place (a pip of a side face elsewhere in the
        # crop can make a worse "2" there; that is no rival reading of this face)
        # a face whose blank places differ more than a clear face's (``clear_face_tol``: a side face's pip
        # and the top's, a translucent body) is no rival of a clear face
        clear = clear_face_tol is not None and face_spread <= clear_face_tol
        near = [(c[0], sp) for j, (_, c, sp) in enumerate(passing) if j != i and math.dist(c[1], (u, v)) <= 0.45 * side_px]
        rivals = [r for r, sp in near if not (clear and sp > clear_face_tol)]
        margin = sc - (max(rivals) if rivals else max(0.0, sc / 2))
        margin_all = sc - max(r for r, _ in near) if len(rivals) < len(near) else None
        pips = []
        rr = max(1, int(round(0.1 * side_px)))
        for ox, oy in on_offs:  # each pip's centre: the response's centroid around its lattice place
            px, py = u + ox, v + oy
            x0, y0 = int(max(0, round(px) - rr)), int(max(0, round(py) - rr))
            x1, y1 = int(min(w, round(px) + rr + 1)), int(min(h, round(py) + rr + 1))
            patch = resp[y0:max(y0, y1), x0:max(x0, x1)]  # a place beyond the crop's edge: no patch (a
            # negative end would slice from the far side)
            if patch.size and patch.sum() > 0:
                gy, gx = np.mgrid[y0:y1, x0:x1]
                px, py = float((gx * patch).sum() / patch.sum()), float((gy * patch).sum() / patch.sum())
            pips.append((float(px), float(py)))
        return GridReading(int(value), (float(u), float(v)), float(turn), sc, float(margin), weakest, tuple(pips),
                           worst_off, face_spread, None if margin_all is None else float(margin_all),
                           strongest_pip=strongest)

    # the faces read as well that lie on the same die (a side face's pip and a top pip make a "2" that can
    # outscore the top's 1: which face the die shows is then the die's outline's to say)
    top = reading(0)
    near = tuple(reading(i) for i in range(1, len(passing))
                 if math.dist(passing[i][1][1], top.centre) <= alternatives_within * side_px) if alternatives_within > 0 else ()
    return replace(top, alternatives=near) if near else top
