"""A hand and forearm reaching over the board, as convex pieces (point clouds in world mm).

The renderer fills each piece's projected hull (skin or sleeve) and throws each piece's shadow; the
union is the hand mask in the truth. A right hand, palm down, fingertips at the hand's (x, y).
The pieces are laid out once in hand coordinates (distance back from the fingertips, distance across,
lift) and placed per frame with one vectorised transform.
"""

from __future__ import annotations

import math

import numpy as np

from tablecompanion.geometry import BoardSpec

_RING = np.linspace(0, 2 * math.pi, 12, endpoint=False)


def _ball(s: float, across: float, lift: float, r: float) -> list[tuple[float, float, float, float]]:
    """Points of a sphere of radius r (in hand coordinates: back, across, lift, plus a z offset)."""
    pts = [(s + r * math.cos(a), across + r * math.sin(a), lift, 0.0) for a in _RING]
    pts.append((s, across, lift, r))  # above
    pts.append((s, across, lift, -0.6 * r))  # below
    return pts


def _capsule(a, b, r, tip_ratio: float = 1.0):
    """Two balls' points: their hull is a (tapered, when tip_ratio < 1) rod from a to b."""
    return _ball(*a, r) + _ball(*b, r * tip_ratio)


def _template(spread: float):
    parts: list[tuple[str, list]] = []
    fingers = [(-24, 0, 8.0), (-8, -4, 8.5), (8, 0, 8.2), (24, 14, 7.4)]  # across, tip setback, radius
    for across, setback, r in fingers:
        base = (82, across * 1.05, 4)
        tip = (setback + 8 * (1 - spread) * abs(across) / 24, across * (0.3 + 0.8 * spread), 0)
        parts.append(("skin", _capsule(base, tip, r * 1.08, tip_ratio=0.78)))  # fingers taper to the tip
    parts.append(("skin", _capsule((150, -34, 6), (26 + 30 * spread, -12 - 40 * spread, 2), 10.5, tip_ratio=0.8)))  # thumb
    palm = []
    for k in range(16):
        a = 2 * math.pi * k / 16
        for lift in (-10.0, 12.0):
            palm.append((125 + 52 * math.cos(a), 42 * math.sin(a), lift + 6, 0.0))
    parts.append(("skin", palm))
    parts.append(("skin", _capsule((175, 0, 8), (250, 0, 12), 29.0)))  # wrist and forearm
    parts.append(("sleeve", _capsule((250, 0, 14), (700, 0, 30), 44.0)))
    kinds = [k for k, _ in parts]
    sizes = [len(p) for _, p in parts]
    pts = np.array([q for _, p in parts for q in p], float)
    return kinds, np.cumsum([0] + sizes), pts


_TEMPLATES: dict[float, tuple] = {}


def hand_points(hand, spec: BoardSpec) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(kinds, offsets, points): piece i is points[offsets[i]:offsets[i + 1]], world mm."""
    spread = round(float(np.clip(hand.spread, 0, 1)), 2)
    if spread not in _TEMPLATES:
        _TEMPLATES[spread] = _template(spread)
    kinds, offsets, t = _TEMPLATES[spread]
    tip = np.array([hand.x, hand.y], float)
    if hand.player == "bottom":
        anchor = np.array([hand.x + 160.0, spec.height + 380.0])
    else:
        anchor = np.array([hand.x - 160.0, -380.0])
    d = tip - anchor
    d /= np.linalg.norm(d)
    e = np.array([-d[1], d[0]])  # the hand's right, for a right hand seen from above
    s, across, lift, dz = t[:, 0], t[:, 1], t[:, 2], t[:, 3]
    xy = tip[None, :] - s[:, None] * d[None, :] + across[:, None] * e[None, :]
    z = -(hand.height + np.minimum(s, 500.0) * 0.22 + lift + dz)
    return kinds, offsets, np.column_stack([xy, z])


def hand_parts(hand, spec: BoardSpec) -> list[tuple[str, np.ndarray]]:
    """(kind, points) for each convex piece: kind is skin or sleeve."""
    kinds, offsets, pts = hand_points(hand, spec)
    return [(k, pts[offsets[i]:offsets[i + 1]]) for i, k in enumerate(kinds)]


def mask_from_truth(hands: list[dict], camera: dict, spec: BoardSpec | None = None) -> np.ndarray:
    """Rebuild a frame's hand mask (bool, image size) from its truth: ``hands`` entries (player,
    ``tip_mm``, ``height_mm``, ``spread``) and the ``camera`` truth (K, dist, R, t, size).

    truth.jsonl stores hands this way instead of a mask per frame; the rebuilt mask is the sharp
    outline (without the motion and focus blur of the picture).
    """
    import cv2

    from tablecompanion.sim.scene import Hand

    spec = spec or BoardSpec()
    w, h = camera["size"]
    mask = np.zeros((h, w), np.uint8)
    rvec, _ = cv2.Rodrigues(np.array(camera["R"], float))
    t = np.array(camera["t"], float)
    K = np.array(camera["K"], float)
    dist = np.array(camera["dist"], float)
    for entry in hands:
        x, y = entry["tip_mm"]
        hand = Hand(entry["player"], x, y, height=entry.get("height_mm", 45.0), spread=entry.get("spread", 0.4))
        kinds, offsets, pts = hand_points(hand, spec)
        px = cv2.projectPoints(pts, rvec, t, K, dist)[0].reshape(-1, 2)
        for i in range(len(kinds)):
            hull = cv2.convexHull(px[offsets[i]:offsets[i + 1]].astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    return mask.astype(bool)
