"""A hand and forearm reaching over the board, built like one: jointed fingers and thumb, the back of
the hand over its metacarpals, wrist, forearm and sleeve, each a tapered capsule in world mm.

The renderer shades the capsules' union as a height field seen from the camera (blended where palm
and fingers meet, normals from each capsule's round section), throws the pieces' shadows, and the
union's outline is the hand mask in the truth: ``mask_from_truth`` rebuilds it from a few numbers with
the same code (``hand_field``), so the two agree exactly. A right hand (or, with ``left``, its mirror
image), palm down, reaching from its player's edge; the tips of the index and middle finger (the pinch)
at the hand's (x, y), ``height`` mm above the surface.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from tablecompanion.geometry import BoardSpec

_RING = np.linspace(0, 2 * math.pi, 12, endpoint=False)

# Fingers from the thumb's side: across at the knuckle (mm, + towards the little finger), metacarpal,
# phalanx lengths (proximal, middle, distal), radius of the proximal phalanx, splay (degrees, open hand),
# and how much more than the index it curls in a pinch.
FINGERS = (
    (-25.0, 86.0, (43.0, 25.0, 20.0), 9.6, -9.0, 0.0),
    (-7.0, 84.0, (47.0, 28.0, 21.0), 9.9, -2.0, 0.1),
    (11.0, 79.0, (44.0, 27.0, 20.0), 9.3, 5.0, 0.35),
    (27.0, 72.0, (34.0, 20.0, 18.0), 8.2, 12.0, 0.6),
)

# Holding a checker: how far (mm) the thumb's tip stays from the fingertips, about a checker's width
# (44 mm) less the rim each grips.
HELD_SPAN = 38.0

# Piece kinds (the renderer's materials): skin pieces first, the sleeve last.
SKIN, SLEEVE = "skin", "sleeve"


@dataclass(frozen=True)
class Capsules:
    """Tapered capsules in world mm (z down): piece i runs from ``a[i]`` (radius ``ra[i]``) to ``b[i]``
    (radius ``rb[i]``). ``digit`` 0-3 the fingers from the index, 4 the thumb, -1 the rest; ``joint`` the
    bone along the digit (0 metacarpal, 1 proximal, 2 middle, 3 distal; the thumb has no middle);
    ``dorsal`` the unit vector towards the back of the hand across each piece (nails, knuckle creases);
    ``blend`` how far (mm) it melts into what it meets; ``open_a`` a piece cut square at its end a
    instead of rounded (a sleeve's cuff, the forearm coming out of it)."""

    a: np.ndarray
    b: np.ndarray
    ra: np.ndarray
    rb: np.ndarray
    kind: tuple[str, ...]
    digit: np.ndarray
    joint: np.ndarray
    dorsal: np.ndarray
    blend: np.ndarray
    open_a: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.kind)


def _rot(v, axis, ang):
    """Rodrigues: v rotated by ang (radians) about a unit axis."""
    v = np.asarray(v, float)
    k = np.asarray(axis, float)
    return v * math.cos(ang) + np.cross(k, v) * math.sin(ang) + k * float(k @ v) * (1 - math.cos(ang))


def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / max(float(np.linalg.norm(v)), 1e-9)


def _template(spread: float, holding: bool, fingers: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)):
    """The hand in its own coordinates (forward, across, up; mm) with the pinch point at the origin.

    ``spread`` 0: fingers curled to a pinch; 1: an open hand reaching flat. Holding closes the pinch a
    little more. ``fingers`` curls each finger (index to little) a little more or less than the rest."""
    u = float(np.clip(spread, 0.0, 1.0))
    close = 1.0 - u if not holding else min(1.0, 1.15 - u)
    pieces = []  # (kind, a, b, ra, rb, digit, joint, dorsal, blend)

    def add(kind, a, b, ra, rb, digit=-1, joint=-1, dorsal=(0.0, 0.0, 1.0), blend=4.0):
        pieces.append((kind, np.asarray(a, float), np.asarray(b, float), ra, rb, digit, joint, np.asarray(dorsal, float), blend))

    pitch = math.radians(12 + 16 * close)  # the back of the hand slopes down to the knuckles
    tips = []
    for i, (across, meta, lengths, r, splay, extra) in enumerate(FINGERS):
        ang = math.radians(splay * (0.3 + 0.9 * u))
        fwd = np.array([math.cos(ang), math.sin(ang), 0.0])
        base = np.array([4.0, across * 0.42, 2.0])
        mdir = fwd * math.cos(pitch) + np.array([0, 0, -math.sin(pitch)])
        mdir[1] += (across - across * 0.42) / meta
        mdir /= np.linalg.norm(mdir)
        mcp = base + mdir * meta
        side = np.cross(np.array([0, 0, 1.0]), fwd)  # the finger's bending axis, horizontal, across it
        side /= np.linalg.norm(side)
        # knuckle bumps: the metacarpal's head is the widest part of the back of the hand
        add(SKIN, base, mcp, r * 1.05, r * 1.18, i, 0, _rot(np.array([0, 0, 1.0]), side, pitch), blend=6.0)
        c = float(np.clip(close + 0.4 * fingers[i], -0.15, 1.15))  # this finger's own curl
        flex = [math.radians(v) for v in (8 + (34 + 14 * extra) * c, 10 + (46 + 20 * extra) * c,
                                          6 + (20 + 10 * extra) * c)]
        p = mcp
        d = mdir
        rr = r
        for j, (length, f) in enumerate(zip(lengths, flex)):
            d = _rot(d, side, f)  # bend down about the knuckle's axis
            q = p + d * length
            dorsal = _rot(np.array([0, 0, 1.0]), side, math.asin(max(-1.0, min(1.0, -d[2]))))
            r_end = rr * (0.9 if j < 2 else 0.8)
            add(SKIN, p, q, rr, r_end, i, j + 1, dorsal, blend=1.5 if j == 0 else 0.6)
            p, rr = q, r_end
        tips.append(p)
    # The thumb: from the wrist's thumb side, forward, out and down, bones of fixed length bending
    # towards the index's tip (which it reaches in a pinch, falls short of in an open hand).
    # Holding, the fingertips grip the checker's far rim and the thumb its near one, a checker's width
    # (HELD_SPAN) back along the hand: the checker shows between them, not hidden under the fingers.
    grip = (tips[0] + tips[1]) / 2
    if holding:
        aim = grip + np.array([-HELD_SPAN, -6.0, -1.0])
    else:
        aim = tips[0] + np.array([-4.0, -10.0 - 26 * u, 2.0 + 6 * u])
    cmc = np.array([18.0, -22.0, -8.0])
    mcp_t = cmc + 46.0 * _unit(aim - cmc + np.array([0.0, -34.0 - 10 * u, 0.0]))
    ip = mcp_t + 31.0 * _unit(aim - mcp_t + np.array([0.0, -10.0, 4.0]))
    tip_t = ip + 25.0 * _unit(aim - ip)
    thumb_dorsal = np.array([0.0, -0.5, 0.85])
    thumb_dorsal /= np.linalg.norm(thumb_dorsal)
    add(SKIN, cmc, mcp_t, 15.0, 11.0, 4, 0, thumb_dorsal, blend=7.0)  # with the ball of the thumb
    add(SKIN, mcp_t, ip, 10.5, 9.6, 4, 1, thumb_dorsal, blend=1.5)
    add(SKIN, ip, tip_t, 9.6, 7.6, 4, 3, _unit(np.cross(_unit(tip_t - ip), np.cross(thumb_dorsal, _unit(tip_t - ip)))), blend=0.6)
    # The palm's mass under the back of the hand, and its little-finger edge.
    add(SKIN, (28.0, -14.0, -10.0), (52.0, 14.0, -16.0), 17.0, 15.0, blend=8.0)
    add(SKIN, (10.0, 20.0, -4.0), (60.0, 26.0, -14.0), 11.0, 10.0, blend=8.0)
    # The forearm and sleeve are not here: they run from the wrist (this template's origin) to an elbow
    # that depends on where the hand is (``hand_capsules``).
    # The pinch point goes to the origin: between the index and middle fingertips, whose centres lie
    # 6 mm below ``height`` (their undersides at about the top of a held checker).
    pinch = grip.copy()
    pinch[2] += 6.0
    if holding:
        # the hand's (x, y) is the held checker's centre: halfway from the fingertips to the thumb
        pinch[:2] = (grip[:2] + tip_t[:2]) / 2
    return pieces, pinch


# The arm behind the wrist (mm): forearm and upper arm, a seated player's shoulder above the playing
# surface, how far the sleeve is pushed back from the wrist, and how low an elbow may come over the board.
FOREARM_MM = 255.0
UPPER_ARM_MM = 290.0
SHOULDER_MM = 260.0
CUFF_MM = 125.0
ELBOW_CLEAR_MM = 45.0


def _elbow(wrist: np.ndarray, shoulder: np.ndarray, outward: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(elbow, shoulder) in world mm (z down) for a wrist reached from a shoulder: two bones of fixed
    length, the elbow swung out to the hand's side and down, as a seated player's is. Out of reach the
    player leans in: the shoulder comes towards the wrist until the arm is almost straight.

    One straight rod from the hand to the picture's edge was a give-away: a near reach bends the arm,
    its forearm and upper arm pointing different ways."""
    axis = shoulder - wrist
    dist = float(np.linalg.norm(axis))
    u = axis / max(dist, 1e-6)
    reach = 0.97 * (FOREARM_MM + UPPER_ARM_MM)
    if dist > reach:
        shoulder = wrist + u * reach
        dist = reach
    dist = max(dist, abs(FOREARM_MM - UPPER_ARM_MM) + 1.0)
    along = (FOREARM_MM ** 2 - UPPER_ARM_MM ** 2 + dist ** 2) / (2.0 * dist)
    out = math.sqrt(max(FOREARM_MM ** 2 - along ** 2, 0.0))
    pole = np.array([0.8 * outward[0], 0.8 * outward[1], 0.6])  # out to the side and down (z down)
    pole -= (pole @ u) * u
    elbow = wrist + u * along + _unit(pole) * out
    elbow[2] = min(elbow[2], -ELBOW_CLEAR_MM)  # an elbow over the board comes no lower
    return elbow, shoulder


@functools.lru_cache(maxsize=2048)
def _template_cached(spread: float, holding: bool, fingers: tuple[float, ...]):
    return _template(spread, holding, fingers)


def hand_capsules(hand, spec: BoardSpec) -> Capsules:
    """The hand's pieces placed over the board (world mm)."""
    spread = round(float(np.clip(hand.spread, 0, 1)), 2)
    fingers = tuple(round(float(f), 2) for f in hand.fingers)
    pieces, pinch = _template_cached(spread, hand.holding is not None, fingers)
    tip = np.array([hand.x, hand.y], float)
    across, back = hand.elbow_mm
    side = -1.0 if hand.left else 1.0  # a left hand is the right one mirrored
    # ``elbow_mm`` places the shoulder the arm comes from (the name is older than the elbow)
    if hand.player == "bottom":
        anchor = np.array([hand.x + side * across, spec.height + back])
    else:
        anchor = np.array([hand.x - side * across, -back])
    outward = np.array([side if hand.player == "bottom" else -side, 0.0])  # the hand's own side
    shoulder = np.array([anchor[0], anchor[1], -SHOULDER_MM])

    def frame(d):
        d = d / np.linalg.norm(d)
        return d, side * np.array([-d[1], d[0]])  # towards the little finger: a right hand's right from above

    def place(p, d, e):
        f, a, up = p[..., 0] - pinch[0], p[..., 1] - pinch[1], p[..., 2] - pinch[2]
        xy = tip + f[..., None] * d + a[..., None] * e
        rise = 0.24 * np.clip(-f - 110.0, 0.0, 600.0)  # the heel of the hand rises towards the wrist
        return np.concatenate([xy, -(hand.height + up + rise)[..., None]], axis=-1)

    # The hand points halfway between the shoulder's way and its forearm's: the wrist bends a little.
    d, e = frame(tip - anchor)
    wrist = place(np.zeros(3), d, e)
    elbow, _ = _elbow(wrist, shoulder, outward)
    d, e = frame(d + _unit(wrist[:2] - elbow[:2]))
    wrist = place(np.zeros(3), d, e)
    elbow, shoulder = _elbow(wrist, shoulder, outward)
    a = place(np.array([p[1] for p in pieces]), d, e)
    b = place(np.array([p[2] for p in pieces]), d, e)
    dors = np.array([p[7] for p in pieces])
    dorsal = np.column_stack([dors[:, 0:1] * d + dors[:, 1:2] * e, -dors[:, 2]])
    # The forearm widens from the wrist (about 55 mm across and 40 mm thick, so a round piece 43 mm
    # across) into a sleeve pushed back a little: snug at its cuff and cut square there (a rounded end
    # read as a sausage, not a sleeve), fuller at the elbow, on up the arm into the shoulder. The bare
    # forearm ends just inside the cuff: longer, its end showed through the sleeve under a steep camera.
    fore = _unit(elbow - wrist)
    upper = _unit(shoulder - elbow)
    low = np.array([0.0, 0.0, 6.0])  # the forearm's axis lies a little below the back of the wrist
    arm = [(SKIN, wrist + low, wrist + low + fore * (CUFF_MM + 25.0), 21.5, 28.0, 6.0, False),
           (SLEEVE, wrist + fore * CUFF_MM, elbow, 34.0, 40.0, 0.0, True),
           (SLEEVE, elbow, shoulder + upper * 160.0, 40.0, 50.0, 0.0, False)]
    return Capsules(a=np.vstack([a, [p[1] for p in arm]]), b=np.vstack([b, [p[2] for p in arm]]),
                    ra=np.array([p[3] for p in pieces] + [p[3] for p in arm]),
                    rb=np.array([p[4] for p in pieces] + [p[4] for p in arm]),
                    kind=tuple(p[0] for p in pieces) + tuple(p[0] for p in arm),
                    digit=np.array([p[5] for p in pieces] + [-1] * len(arm)),
                    joint=np.array([p[6] for p in pieces] + [-1] * len(arm)),
                    dorsal=np.vstack([dorsal, [[0.0, 0.0, -1.0]] * len(arm)]),
                    blend=np.array([p[8] for p in pieces] + [p[5] for p in arm]),
                    open_a=np.array([False] * len(pieces) + [p[6] for p in arm]))


def hand_points(hand, spec: BoardSpec, caps: Capsules | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(kinds, offsets, points): piece i is points[offsets[i]:offsets[i + 1]], world mm; each piece is
    two rings and their poles, whose hull is the capsule (for shadows and extents)."""
    caps = caps if caps is not None else hand_capsules(hand, spec)
    n = len(caps)
    ends = np.stack([caps.a, caps.b], axis=1)  # (n, 2, 3)
    r = np.stack([caps.ra, caps.rb], axis=1)[..., None]  # (n, 2, 1)
    ring = np.zeros((n, 2, 14, 3))
    ring[:, :, :12, 0] = ends[:, :, None, 0] + r * np.cos(_RING)
    ring[:, :, :12, 1] = ends[:, :, None, 1] + r * np.sin(_RING)
    ring[:, :, :12, 2] = ends[:, :, None, 2]
    ring[:, :, 12:, :2] = ends[:, :, None, :2]
    ring[:, :, 12, 2] = ends[:, :, 2] - r[..., 0]
    ring[:, :, 13, 2] = ends[:, :, 2] + 0.6 * r[..., 0]
    return list(caps.kind), np.arange(n + 1) * 28, ring.reshape(-1, 3)


def hand_parts(hand, spec: BoardSpec) -> list[tuple[str, np.ndarray]]:
    """(kind, points) for each convex piece: kind is skin or sleeve."""
    kinds, offsets, pts = hand_points(hand, spec)
    return [(k, pts[offsets[i]:offsets[i + 1]]) for i, k in enumerate(kinds)]


def sleeve_folds(t, s):
    """A sleeve's folds at ``t`` mm along it from its cuff and ``s`` mm across it: (height, depth), the
    surface's rise in mm (ridges broad and rounded, valleys narrow) and the folds' local depth in mm.

    Irregular waves round the arm (incommensurate along it, bent a little across it), bunched and deeper
    near the cuff where a pushed-back sleeve gathers, each dying away towards one side. The renderer
    shades with it and the outline bulges with it, so both come from here."""
    gather = np.exp(-np.maximum(t, 0.0) / 110.0)
    period = 15.0 - 6.0 * gather
    phase = t / period + 0.3 * np.sin(s / 37.0 + 0.8 * np.sin(t / 61.0)) + 0.6 * np.sin(t / 41.0 + 1.3)
    F = np.sin(2 * np.pi * phase)
    F = np.sign(F) * np.abs(F) ** 0.6
    depth = (1.2 + 2.2 * gather) * np.clip(0.55 + 0.6 * np.sin(s / 29.0 + 2.3 * np.sin(t / 47.0)), 0.1, 1.0)
    return F * depth, depth


# --- the pieces in the picture -------------------------------------------------------------------------
@dataclass(frozen=True)
class ProjectedHand:
    """Capsules in pixels: ends ``a``/``b`` (N, 2), radii ``ra``/``rb`` (px), ``za``/``zb`` heights towards
    the camera (px, same scale), and the 3-D axis and dorsal vectors in camera axes (x right, y down,
    z towards the camera)."""

    a: np.ndarray
    b: np.ndarray
    ra: np.ndarray
    rb: np.ndarray
    za: np.ndarray
    zb: np.ndarray
    dorsal: np.ndarray
    blend: np.ndarray
    px_per_mm: float
    caps: Capsules


def project_capsules(caps: Capsules, K, dist, R, t) -> ProjectedHand:
    """Project capsules with a camera given as its truth (K, dist, R, t): the same numbers for the
    renderer and for ``mask_from_truth``."""
    from tablecompanion.sim.camera import _distort

    K = np.asarray(K, float)
    R = np.asarray(R, float)
    t = np.asarray(t, float).reshape(3)
    dist = np.asarray(dist, float)
    n = len(caps)
    cam = np.vstack([caps.a, caps.b]) @ R.T + t
    ra, rb = caps.ra.astype(float), caps.rb.astype(float)
    # A forearm reaching from under a steep camera passes close to it, or behind it: the end of a piece
    # nearer than ``near`` is drawn back along the piece to that depth (it is far out of the picture there;
    # closer, its image and the lens polynomial blow up)
    near = 0.4 * float(np.median(cam[:, 2]))
    for i in np.nonzero((cam[:n, 2] < near) | (cam[n:, 2] < near))[0]:
        a, b = cam[i], cam[n + i]
        if a[2] < near and b[2] < near:
            continue  # wholly beside the camera: left to the clamp below, nothing of it is in the picture
        u = (near - a[2]) / (b[2] - a[2])  # where the piece crosses the depth ``near``
        if a[2] < near:
            cam[i], ra[i] = a + (b - a) * u, ra[i] + (rb[i] - ra[i]) * u
        else:
            cam[n + i], rb[i] = a + (b - a) * u, ra[i] + (rb[i] - ra[i]) * u
    z = np.maximum(cam[:, 2], near)
    x, y = _distort(cam[:, 0] / z, cam[:, 1] / z, dist)
    px = np.stack([K[0, 0] * x + K[0, 2], K[1, 1] * y + K[1, 2]], axis=1)
    f = float(K[0, 0])
    ref = float(z.mean())
    rad = np.concatenate([ra, rb]) * f / z
    height = (ref - z) * f / ref
    dors = caps.dorsal @ R.T
    dors[:, 2] *= -1
    return ProjectedHand(a=px[:n], b=px[n:], ra=rad[:n], rb=rad[n:], za=height[:n], zb=height[n:],
                         dorsal=dors, blend=caps.blend * f / ref, px_per_mm=f / ref, caps=caps)


def hand_bbox(ph: ProjectedHand, width: int, height: int, pad: int = 4) -> tuple[int, int, int, int]:
    """The picture rectangle (x0, y0, x1, y1) the hand can touch, clipped to the picture."""
    r = np.maximum(ph.ra, ph.rb)
    lo = np.minimum(ph.a, ph.b) - r[:, None]
    hi = np.maximum(ph.a, ph.b) + r[:, None]
    x0 = max(0, int(math.floor(lo[:, 0].min())) - pad)
    y0 = max(0, int(math.floor(lo[:, 1].min())) - pad)
    x1 = min(width, int(math.ceil(hi[:, 0].max())) + pad + 1)
    y1 = min(height, int(math.ceil(hi[:, 1].max())) + pad + 1)
    return x0, y0, x1, y1


@dataclass
class HandField:
    """The hand sampled on a grid of k x k pixel blocks from (x0, y0): ``sdf`` the signed distance (px)
    to the union's outline (negative inside); with shading also the visible height ``height`` (px,
    towards the camera), the piece on top ``top`` (-1 outside), how far along it ``along`` (0 at its end
    a, 1 at b), where across it ``across`` (-1..1 of its radius, signed, 0 on its axis), and the unit
    normal ``normal`` of that piece (camera axes)."""

    sdf: np.ndarray
    height: np.ndarray | None = None
    top: np.ndarray | None = None
    along: np.ndarray | None = None
    normal: np.ndarray | None = None
    across: np.ndarray | None = None


def hand_field(ph: ProjectedHand, x0: int, y0: int, w: int, h: int, k: int = 1, shading: bool = False) -> HandField:
    """Sample the hand over the grid: w x h blocks of k pixels, block centres at x0 + j k + (k - 1) / 2."""
    xs = (x0 + np.arange(w, dtype=np.float32) * k + (k - 1) / 2).astype(np.float32)
    ys = (y0 + np.arange(h, dtype=np.float32) * k + (k - 1) / 2).astype(np.float32)
    sdf = np.full((h, w), 1e4, np.float32)
    out = HandField(sdf)
    if shading:
        H = np.full((h, w), -1e4, np.float32)
        top = np.full((h, w), -1, np.int16)
        along = np.zeros((h, w), np.float32)
        across = np.zeros((h, w), np.float32)
        normal = np.zeros((h, w, 3), np.float32)
        vxs, vys, wzs = (np.zeros((h, w), np.float32) for _ in range(3))
        out = HandField(sdf, H, top, along, normal, across)
    open_a = ph.caps.open_a
    for i in range(len(ph.ra)):
        ax, ay = (float(v) for v in ph.a[i])
        bx, by = (float(v) for v in ph.b[i])
        ra, rb = float(ph.ra[i]), float(ph.rb[i])
        rmax = max(ra, rb)
        c0 = max(0, int(math.floor((min(ax, bx) - rmax - x0 - (k - 1) / 2) / k)) - 1)
        c1 = min(w, int(math.ceil((max(ax, bx) + rmax - x0 - (k - 1) / 2) / k)) + 2)
        r0 = max(0, int(math.floor((min(ay, by) - rmax - y0 - (k - 1) / 2) / k)) - 1)
        r1 = min(h, int(math.ceil((max(ay, by) + rmax - y0 - (k - 1) / 2) / k)) + 2)
        if c1 <= c0 or r1 <= r0:
            continue
        X = xs[None, c0:c1] - np.float32(ax)
        Y = ys[r0:r1, None] - np.float32(ay)
        abx, aby = np.float32(bx - ax), np.float32(by - ay)
        L2 = float(abx * abx + aby * aby)
        proj = (X * abx + Y * aby) * np.float32(1.0 / max(L2, 1e-6))
        tt = np.clip(proj, 0.0, 1.0)
        vx = X - tt * abx
        vy = Y - tt * aby
        d2 = vx * vx + vy * vy
        r = np.float32(ra) + tt * np.float32(rb - ra)
        s = np.sqrt(d2) - r
        cut = open_a is not None and bool(open_a[i])
        L = math.sqrt(max(L2, 1e-6))
        if cut or shading:
            side = (vy * abx - vx * aby) * np.float32(1.0 / L)  # px across the axis, signed
        if cut:
            # cut square at a: outside beyond the plane across the piece's end (the cuff's edge); its
            # outline rumpled by the folds where they reach it
            mm = 1.0 / max(ph.px_per_mm, 1e-6)
            wobble = 0.3 * ph.px_per_mm  # px of outline per mm of the folds' rise (at most 3.4 mm)
            rim = np.nonzero(np.abs(s) < wobble * 3.5 + 2.0 * k)  # only the outline moves (and the grid round it)
            if rim[0].size:
                rise, _ = sleeve_folds(proj[rim] * np.float32(L * mm), side[rim] * np.float32(mm))
                s[rim] -= np.float32(wobble) * rise.astype(np.float32)
            s = np.maximum(s, -proj * np.float32(L))
        win = sdf[r0:r1, c0:c1]
        np.minimum(win, s, out=win)
        if not shading:
            continue
        w2 = r * r - d2
        if cut:
            w2 = np.where(proj >= 0, w2, np.float32(-1.0))
        inside = w2 > 0
        if not inside.any():
            continue
        za, zb = float(ph.za[i]), float(ph.zb[i])
        wz = np.sqrt(np.maximum(w2, 0.0))
        hi = np.where(inside, np.float32(za) + tt * np.float32(zb - za) + wz, np.float32(-1e4))
        Hw = H[r0:r1, c0:c1]
        kb = max(float(ph.blend[i]), 1e-3)
        g = np.clip(0.5 + (0.5 / kb) * (hi - Hw), 0.0, 1.0)
        wins = hi > Hw
        Hw += g * (hi - Hw) + np.float32(kb) * g * (1.0 - g)
        np.copyto(vxs[r0:r1, c0:c1], vx, where=wins)
        np.copyto(vys[r0:r1, c0:c1], vy, where=wins)
        np.copyto(wzs[r0:r1, c0:c1], wz, where=wins)
        np.copyto(top[r0:r1, c0:c1], np.int16(i), where=wins)
        np.copyto(along[r0:r1, c0:c1], tt, where=wins)
        np.copyto(across[r0:r1, c0:c1], side / np.maximum(r, np.float32(1e-3)), where=wins)
    if shading:
        # the normal of the top piece's round section, made square to its axis in 3-D
        n = len(ph.ra)
        axes = np.column_stack([ph.b - ph.a, ph.zb - ph.za]).astype(np.float32)
        axes /= np.maximum(np.linalg.norm(axes, axis=1, keepdims=True), 1e-6)
        ax3 = np.vstack([axes, np.zeros((1, 3), np.float32)])[np.where(top >= 0, top, n)]
        dot = vxs * ax3[..., 0] + vys * ax3[..., 1] + wzs * ax3[..., 2]
        normal[..., 0] = vxs - dot * ax3[..., 0]
        normal[..., 1] = vys - dot * ax3[..., 1]
        normal[..., 2] = wzs - dot * ax3[..., 2]
        normal *= (1.0 / np.maximum(np.sqrt(np.einsum("...i,...i->...", normal, normal)), 1e-4))[..., None]
    return out


def hand_alpha(sdf: np.ndarray, k: int, width: int, height: int) -> np.ndarray:
    """Coverage (0..1, float32) of the w x h pixels from a k-block signed distance: scaled up, then
    antialiased over a pixel."""
    import cv2

    if k > 1:
        sdf = cv2.resize(sdf, (sdf.shape[1] * k, sdf.shape[0] * k), interpolation=cv2.INTER_LINEAR)[:height, :width]
    return np.clip(0.5 - sdf, 0.0, 1.0)


def mask_from_truth(hands: list[dict], camera: dict, spec: BoardSpec | None = None) -> np.ndarray:
    """Rebuild a frame's hand mask (bool, image size) from its truth: ``hands`` entries (player,
    ``tip_mm``, ``height_mm``, ``spread``, ``holding``, ``elbow_mm``, ``hand``: left or right, ``fingers``) and the
    ``camera`` truth (K, dist, R, t, size).

    truth.jsonl stores hands this way instead of a mask per frame; the rebuilt mask is the sharp
    outline (without the motion and focus blur of the picture), from the renderer's own geometry.
    """
    from tablecompanion.sim.scene import Hand

    spec = spec or BoardSpec()
    w, h = camera["size"]
    mask = np.zeros((h, w), bool)
    for entry in hands:
        x, y = entry["tip_mm"]
        hand = Hand(entry["player"], x, y, height=entry.get("height_mm", 45.0), spread=entry.get("spread", 0.4),
                    holding=entry.get("holding"), elbow_mm=tuple(entry.get("elbow_mm", (160.0, 380.0))),
                    left=entry.get("hand", "right") == "left",
                    fingers=tuple(entry.get("fingers", (0.0, 0.0, 0.0, 0.0))))
        ph = project_capsules(hand_capsules(hand, spec), camera["K"], camera["dist"], camera["R"], camera["t"])
        x0, y0, x1, y1 = hand_bbox(ph, w, h)
        if x1 <= x0 or y1 <= y0:
            continue
        k = field_block(ph)
        gw, gh = -(-(x1 - x0) // k), -(-(y1 - y0) // k)
        field = hand_field(ph, x0, y0, gw, gh, k)
        mask[y0:y1, x0:x1] |= hand_alpha(field.sdf, k, x1 - x0, y1 - y0) > 0.5
    return mask


def field_block(ph: ProjectedHand) -> int:
    """The block size the hand is shaded at: about a fifth of a finger's radius in the picture (skin is
    smooth; the outline is antialiased at full resolution all the same)."""
    return int(np.clip(round(float(np.median(ph.ra)) / 3.0), 1, 4))
