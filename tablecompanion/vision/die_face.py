"""A face the pip grid found, as a die's features on the board: where its pips lie and how square they are.

The roll reader and its outline checks (:mod:`tablecompanion.vision.outline_faces`) both describe faces so; the
fit of a 4, 5 or 6 to a flat die's pattern (its two scales) is the tilt test that needs no reference frame."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tablecompanion.vision.pip_grid import GridReading

# A flat die's pips on its top face, in die sides from the face centre (the usual drilling: outer pips at
# ~0.27 of the side from the centre).
PIP_OFFSET = 0.25

_o = PIP_OFFSET
# a flat die's pips of a 4, 5 and 6 (die sides from the face centre), for the affine fit of their squareness
# (named apart from pip_grid's _PATTERNS: one name for both once left this fit unused)
FLAT_PIPS = {
    4: np.array([[-_o, -_o], [_o, -_o], [_o, _o], [-_o, _o]]),
    5: np.array([[-_o, -_o], [_o, -_o], [_o, _o], [-_o, _o], [0, 0]]),
    6: np.array([[-_o, -_o], [0, -_o], [_o, -_o], [-_o, _o], [0, _o], [_o, _o]]),
}


def affine_fit(pts: np.ndarray, value: int) -> dict:
    """The best affine map of a flat die's pattern onto the pips (top-plane die sides): its two scales.

    A flat die gives two equal scales near 1; a tilted top face squeezes one of them (cos of the tilt)."""
    pts = pts - pts.mean(axis=0)
    best = None
    for turn in range(0, 180, 6):  # the pattern's turn: the correspondence by nearest pips
        t = math.radians(turn)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        pat = FLAT_PIPS[value] @ rot.T
        scale = math.sqrt(np.mean(np.sum(pts ** 2, 1)) / max(np.mean(np.sum(pat ** 2, 1)), 1e-9))
        d = np.linalg.norm(pts[:, None, :] - scale * pat[None, :, :], axis=2)
        order = np.argmin(d, axis=1)
        if len(set(order.tolist())) != len(pts):
            continue
        err = float(d[np.arange(len(pts)), order].sum())
        if best is None or err < best[0]:
            best = (err, pat[order], turn)
    if best is None:
        return {}
    src, dst = best[1], pts
    A, *_ = np.linalg.lstsq(src, dst, rcond=None)
    sv = np.linalg.svd(A, compute_uv=False)
    return {"aff_ratio": float(sv[0] / max(sv[1], 1e-9)), "aff_scale": float(math.sqrt(sv[0] * sv[1])),
            "yaw": float(best[2] % 90)}


def expected_rms(value: int | None, n: int) -> float:
    """RMS distance of a flat die's pips from the face centre, in die sides."""
    o = PIP_OFFSET
    table = {2: o * math.sqrt(2), 3: o * math.sqrt(2) * math.sqrt(2 / 3), 4: o * math.sqrt(2),
             5: o * math.sqrt(2) * math.sqrt(4 / 5), 6: o * math.sqrt((4 * 2 + 2 * 1) / 6)}
    return table.get(n, o)


def face_features(g: "GridReading", origin, k: float, die: float) -> dict:
    """A grid reader's face as a die's features, on the board (mm): value, how sure, centre, turn, and the
    pips' fit (``aff_*``: squareness, for 4-6) and spread."""
    centre_mm = (g.centre[0] / k + origin[0], g.centre[1] / k + origin[1])
    f = {"g_value": g.value, "g_margin": g.margin, "g_contrast": g.pip_contrast, "g_score": g.score,
         "g_face": g.face_spread, "g_off": g.off_contrast, "g_turn": g.turn_deg, "g_centre_mm": centre_mm,
         "g_strong": g.strongest_pip}
    pips_mm = np.asarray(g.pips, np.float64).reshape(-1, 2) / k + np.asarray(origin)
    if g.value in FLAT_PIPS:
        f.update(affine_fit(pips_mm / die, g.value))
    if len(pips_mm) >= 2:
        p = pips_mm - pips_mm.mean(axis=0)
        f["spread"] = float(np.sqrt(np.mean(np.sum(p * p, axis=1)))) / (expected_rms(g.value, len(p)) * die)
    return f


def own_face(f: dict) -> dict:
    """A die's own grid face out of its features (:func:`face_features`' keys), without the other faces
    found on it."""
    return {key: f[key] for key in f if (key.startswith(("g_", "aff_")) or key == "spread") and
            key not in ("g_rivals", "g_alt", "g_far")}
