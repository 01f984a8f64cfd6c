"""Where the board's picture changed between two readings: which points a play touched.

The camera cannot count a pile (checkers stacked on a full row read as the row), so a play onto a pile
and the same play with a checker put a point off, onto the neighbouring pile, leave the same counts. The
picture tells them apart: a checker put down or taken away changes the look of its point, while a point
nobody touched looks as it did up to sensor noise. Play identification (``identify``) uses this as
evidence about *where* checkers moved, beside the counts that say *how many* are where.

Both pictures are the rectified board (``BoardReading.picture``) read through one calibration, each taken
when the board was clear and still, so a difference is the board's, not a hand's. A change of the light
over the whole board (exposure drifting) is taken out first.
"""

from __future__ import annotations

import cv2
import numpy as np

from tablecompanion.geometry import BoardGeometry

LIGHT_CELL_MM = 4.0  # the light's change is estimated on cells this size ...
LIGHT_WINDOW_CELLS = 17  # ... as the median over this many cells across (68 mm: two checkers and more)
LOG_STEPS = 60.0  # uint8 steps per unit of log ratio (the median filter wants 8 bits): 1.7 % a step
CHANGE_LAB = 12.0  # colour distance (Lab) a pixel must move by to count as changed; noise and JPEG stay under 8
STILL_SHARE = 0.02  # a point with at most this share of its strip changed looks as it did (a pile beside: 0.01)
CHANGED_SHARE = 0.04  # ... with at least this share, a checker was put down or taken away (one on a pile: 0.09)


def point_changes(before: np.ndarray, after: np.ndarray, geometry: BoardGeometry, px_per_mm: float) -> dict[int, float]:
    """The share of each point's strip (1..24, the bottom player's numbering) whose colour changed between
    two rectified pictures of the board; empty when the pictures do not match in size."""
    if before is None or after is None or before.shape != after.shape or before.ndim != 3:
        return {}
    h, w = before.shape[:2]
    x0, y0, x1, y1 = (int(round(v * px_per_mm)) for v in geometry.surface)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return {}
    before, after = before[y0:y1, x0:x1], after[y0:y1, x0:x1]  # the points only: frame and trays left out
    sigma = max(0.8, 1.0 * px_per_mm)  # about a millimetre: noise and JPEG blocks average out, a checker's rim stays
    # light that changed softly over part of the board (someone leaning over the lamp, a cloud) is divided out:
    # the ratio of the two pictures, median-filtered over a window wider than two checkers, is the light's
    # change; a checker put down is a small part of any window and leaves it alone
    relit = np.clip(after.astype(np.float32) * _light_change(before, after, px_per_mm), 0, 255).astype(np.uint8)
    a = cv2.GaussianBlur(cv2.cvtColor(before, cv2.COLOR_BGR2LAB).astype(np.float32), (0, 0), sigma)
    b = cv2.GaussianBlur(cv2.cvtColor(relit, cv2.COLOR_BGR2LAB).astype(np.float32), (0, 0), sigma)
    diff = b - a
    # the whole board brighter or bluer: the light, not a checker (the median of every third pixel each way:
    # the same to a hundredth of a Lab unit, and a tenth of the time)
    diff -= np.median(diff[::3, ::3].reshape(-1, 3), axis=0)
    moved = np.einsum("ijk,ijk->ij", diff, diff) > CHANGE_LAB ** 2
    shares = {}
    for point in range(1, 25):
        px0, py0, px1, py1 = (int(round(v * px_per_mm)) for v in geometry.point_rect(point))
        strip = moved[max(0, py0 - y0):max(0, py1 - y0), max(0, px0 - x0):max(0, px1 - x0)]
        if strip.size:
            shares[point] = float(strip.mean())
    return shares


def _light_change(before: np.ndarray, after: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Per pixel and channel, the factor that brings ``after``'s light back to ``before``'s."""
    h, w = before.shape[:2]
    step = max(1, int(round(LIGHT_CELL_MM * px_per_mm)))
    small = (max(1, w // step), max(1, h // step))
    b = cv2.resize(before, small, interpolation=cv2.INTER_AREA).astype(np.float32) + 4.0
    a = cv2.resize(after, small, interpolation=cv2.INTER_AREA).astype(np.float32) + 4.0
    code = np.clip(np.log(b / a) * LOG_STEPS + 128.0, 0, 255).astype(np.uint8)
    k = 2 * (LIGHT_WINDOW_CELLS // 2) + 1
    smooth = cv2.medianBlur(code, k) if min(small) >= k else code
    factor = np.exp((smooth.astype(np.float32) - 128.0) / LOG_STEPS)
    return cv2.resize(factor, (w, h), interpolation=cv2.INTER_LINEAR)


def still_and_changed(shares: dict[int, float]) -> tuple[frozenset[int], frozenset[int]]:
    """(points that look as they did, points that were touched); a point in between is neither."""
    still = frozenset(p for p, s in shares.items() if s <= STILL_SHARE)
    changed = frozenset(p for p, s in shares.items() if s >= CHANGED_SHARE)
    return still, changed
