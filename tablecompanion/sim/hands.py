"""A hand and forearm reaching over the board, as convex pieces (point clouds in world mm).

The renderer fills each piece's projected hull (skin or sleeve) and throws each piece's shadow; the
union is the hand mask in the truth. A right hand, palm down, fingertips at the hand's (x, y).
"""

from __future__ import annotations

import math

import numpy as np

from tablecompanion.geometry import BoardSpec

_RING = np.linspace(0, 2 * math.pi, 12, endpoint=False)


def _ball(c: np.ndarray, r: float) -> np.ndarray:
    ring = np.stack([c[0] + r * np.cos(_RING), c[1] + r * np.sin(_RING), np.full(12, c[2])], axis=1)
    return np.vstack([ring, [c + (0, 0, -r)], [c + (0, 0, r * 0.6)]])


def _capsule(a: np.ndarray, b: np.ndarray, r: float) -> np.ndarray:
    return np.vstack([_ball(a, r), _ball(b, r)])


def hand_parts(hand, spec: BoardSpec) -> list[tuple[str, np.ndarray]]:
    """(kind, points) for each convex piece: kind is skin or sleeve."""
    tip = np.array([hand.x, hand.y], float)
    if hand.player == "bottom":
        anchor = np.array([hand.x + 160.0, spec.height + 380.0])
    else:
        anchor = np.array([hand.x - 160.0, -380.0])
    d = tip - anchor
    d /= np.linalg.norm(d)
    e = np.array([-d[1], d[0]])  # the hand's right, for a right hand seen from above

    def at(s: float, across: float, lift: float = 0.0) -> np.ndarray:
        xy = tip - d * s + e * across
        z = -(hand.height + min(s, 500.0) * 0.22 + lift)
        return np.array([xy[0], xy[1], z])

    spread = float(np.clip(hand.spread, 0, 1))
    parts: list[tuple[str, np.ndarray]] = []
    # Fingers: base across the knuckles, tips converge for a pinch, fan out for an open hand.
    fingers = [(-24, 0, 8.0), (-8, -4, 8.5), (8, 0, 8.2), (24, 14, 7.4)]  # across, tip setback, radius
    for across, setback, r in fingers:
        base = at(82, across * 1.05, 4)
        tip_across = across * (0.3 + 0.8 * spread)
        ftip = at(setback + 8 * (1 - spread) * abs(across) / 24, tip_across)
        parts.append(("skin", _capsule(base, ftip, r)))
    # Thumb from the side of the palm towards the fingertips.
    thumb_base = at(150, -34, 6)
    thumb_tip = at(26 + 30 * spread, -12 - 40 * spread, 2)
    parts.append(("skin", _capsule(thumb_base, thumb_tip, 9.5)))
    # Palm: a flattened ellipsoid between the knuckles and the wrist.
    pts = []
    for k in range(16):
        a = 2 * math.pi * k / 16
        s = 125 + 52 * math.cos(a)
        across = 42 * math.sin(a)
        for lift in (-10.0, 12.0):
            pts.append(at(s, across, lift + 6))
    parts.append(("skin", np.array(pts)))
    # Wrist and forearm, then the sleeve running off the picture.
    parts.append(("skin", _capsule(at(175, 0, 8), at(250, 0, 12), 29.0)))
    parts.append(("sleeve", _capsule(at(250, 0, 14), at(700, 0, 30), 44.0)))
    return parts
