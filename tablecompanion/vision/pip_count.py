"""Pip counting: dice read from their pips alone, the dice reader's fallback and the roll reader's own.

``to_colour_space`` -> ``local_face`` (the colour a pip is seen against) -> ``find_pips`` (round blobs much
darker or lighter than it) -> ``group_pips`` (close, alike, with only face between them) -> ``prune_groups`` ->
``group_evidence`` (the face's outline, how well the pips fit a die's pattern, clutter on the face) ->
``reading_from_evidence``. :func:`candidates` runs the chain on a frame; with a learned check
(``DiceConfig(model="*.npz")``) :func:`classify_evidence` gives the value and die / no-die instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from tablecompanion.vision.dice_reading import DEFAULT_CONFIG, DiceConfig, DiceReading, DiceVisionError, Status, check_frame


def _odd(n: float) -> int:
    n = max(1, int(round(n)))
    return n if n % 2 else n + 1


_COLOUR_CODES = {"lab": cv2.COLOR_BGR2LAB, "ycrcb": cv2.COLOR_BGR2YCrCb}


def to_colour_space(bgr: np.ndarray, config: DiceConfig = DEFAULT_CONFIG) -> np.ndarray:
    """Lightness first, then two chroma channels: YCrCb (fast) or Lab (perceptual, 15x slower)."""
    code = _COLOUR_CODES.get(config.colour_space)
    if code is None:
        raise DiceVisionError(f"colour_space must be one of {sorted(_COLOUR_CODES)}, got {config.colour_space!r}")
    return cv2.cvtColor(bgr, code)


def local_face(lab: np.ndarray, config: DiceConfig = DEFAULT_CONFIG) -> np.ndarray:
    """The colour a pip is seen against: a median over a window a little larger than a pip."""
    h, w = lab.shape[:2]
    f = max(1, config.face_downscale)
    small = cv2.resize(lab, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA) if f > 1 else lab
    k = _odd(config.face_kernel)
    if k >= 3 and min(small.shape[:2]) > k:
        small = cv2.medianBlur(small, k)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR) if f > 1 else small


@dataclass(frozen=True)
class Pip:
    """A round spot contrasting with the face around it (working-image pixels)."""

    x: float
    y: float
    diameter: float
    polarity: int  # -1 = darker than the face, +1 = lighter
    face: tuple[float, float, float]  # Lab colour around it
    elongation: float


def find_pips(lab: np.ndarray, face: np.ndarray, config: DiceConfig = DEFAULT_CONFIG) -> list[Pip]:
    """Every round blob much darker or lighter than its surroundings, of pip size and shape.

    Pips that blur together (small dice, close pips) form one blob at the base contrast; such a blob
    is thresholded again at higher contrasts until it falls apart into round pips.
    """
    dl = lab[..., 0].astype(np.int16) - face[..., 0].astype(np.int16)
    dab = cv2.max(cv2.absdiff(lab[..., 1], face[..., 1]), cv2.absdiff(lab[..., 2], face[..., 2])).astype(np.float32)
    chroma = config.pip_chroma_weight * dab
    pips: list[Pip] = []
    for polarity in (-1, 1):
        pdl = (polarity * dl).astype(np.float32)
        strength = np.where(pdl > config.pip_chroma_min_dl, np.maximum(pdl, chroma), pdl)
        _blobs_at(strength, config.pip_contrast, 0, 0, polarity, face, config, pips, depth=0)
    return pips


def _blobs_at(
    strength: np.ndarray, level: float, ox: int, oy: int, polarity: int, face: np.ndarray,
    config: DiceConfig, out: list[Pip], depth: int,
) -> None:
    mask = (strength > level).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=4)
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < config.pip_min_area or area > config.pip_max_area * config.pip_merge_max:
            continue
        fill = area / (w * h)
        elong = 1.0
        ok = area <= config.pip_max_area and fill >= config.pip_min_fill and max(w, h) <= 2.5 * min(w, h) + 1
        if ok:
            blob = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
            m = cv2.moments(blob, binaryImage=True)
            cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / max(m["m00"], 1)
            ev = np.linalg.eigvalsh(cov)
            elong = math.sqrt(max(ev[1], 1e-6) / max(ev[0], 1e-6))
            ok = not (elong > config.pip_max_elongation and area >= 9)
        if not ok:
            if depth < len(config.pip_split_levels):
                sub = np.where(labels[y : y + h, x : x + w] == i, strength[y : y + h, x : x + w], 0)
                _blobs_at(sub, config.pip_contrast * config.pip_split_levels[depth], ox + x, oy + y, polarity, face, config, out, depth + 1)
            continue
        cx, cy = float(cents[i][0]) + ox, float(cents[i][1]) + oy
        fc = face[min(int(cy), face.shape[0] - 1), min(int(cx), face.shape[1] - 1)]
        out.append(Pip(cx, cy, 2 * math.sqrt(area / math.pi), polarity, tuple(float(v) for v in fc), elong))


def _line_ok(lab: np.ndarray, a: Pip, b: Pip, pip_mask: np.ndarray, config: DiceConfig) -> bool:
    """True when the straight line between two pips runs over face colour only (or other pips)."""
    dist = math.hypot(b.x - a.x, b.y - a.y)
    n = max(4, int(dist))
    t = np.linspace(0.0, 1.0, n)
    xs = a.x + (b.x - a.x) * t
    ys = a.y + (b.y - a.y) * t
    r0, r1 = 0.6 * a.diameter / dist, 1.0 - 0.6 * b.diameter / dist
    keep = (t > r0) & (t < r1)
    if not keep.any():
        return True
    xi = np.clip(np.round(xs[keep]).astype(int), 0, lab.shape[1] - 1)
    yi = np.clip(np.round(ys[keep]).astype(int), 0, lab.shape[0] - 1)
    on_pip = pip_mask[yi, xi] > 0
    if on_pip.all():
        return True
    px = lab[yi, xi].astype(np.float32)
    face = np.median(px[~on_pip], axis=0)  # the colour the line mostly runs over
    ref = (np.array(a.face) + np.array(b.face)) / 2
    if abs(face[0] - ref[0]) > 2 * config.line_tol and not _between(face[0], a, b):
        return False
    dev = np.abs(px - face)
    bad = (np.maximum(dev[:, 0], 1.5 * np.maximum(dev[:, 1], dev[:, 2])) > config.line_tol) & ~on_pip
    return bad.mean() <= config.line_max_bad_frac


def _between(level: float, a: Pip, b: Pip) -> bool:
    """The face must lie on the other side of the local median from the pips (lighter than dark pips)."""
    return (level - a.face[0]) * a.polarity <= 0


def group_pips(lab: np.ndarray, pips: list[Pip], config: DiceConfig = DEFAULT_CONFIG) -> list[list[Pip]]:
    """Pips linked into dice: close, alike in size and face colour, with only face between them."""
    n = len(pips)
    if n == 0:
        return []
    pip_mask = np.zeros(lab.shape[:2], np.uint8)
    for p in pips:
        cv2.circle(pip_mask, (int(round(p.x)), int(round(p.y))), max(1, int(round(0.75 * p.diameter))), 1, -1)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    pts = np.array([(p.x, p.y) for p in pips])
    diam = np.array([p.diameter for p in pips])
    for i in range(n):
        d = np.hypot(pts[:, 0] - pts[i, 0], pts[:, 1] - pts[i, 1])
        lim = config.link_max_dist * np.maximum(diam, diam[i])
        for j in np.nonzero((d <= lim) & (np.arange(n) > i))[0]:
            a, b = pips[i], pips[int(j)]
            if a.polarity != b.polarity:
                continue
            if max(a.diameter, b.diameter) > config.link_max_size_ratio * min(a.diameter, b.diameter):
                continue
            if float(np.abs(np.array(a.face) - np.array(b.face)).max()) > config.link_face_tol:
                continue
            if not _line_ok(lab, a, b, pip_mask, config):
                continue
            parent[find(i)] = find(int(j))
    groups: dict[int, list[Pip]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(pips[i])
    return list(groups.values())


# Pip positions on a unit die face (centre 0, corners at +-1), for the pattern check.
_FACES = {
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _signature(pts: np.ndarray) -> np.ndarray:
    d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
    iu = np.triu_indices(len(pts), 1)
    s = np.sort(d[iu])
    return s / s[-1]


_SIGNATURES = {n: _signature(np.array(p, float)) for n, p in _FACES.items()}


def pattern_fit(pts: np.ndarray, diameter: float, config: DiceConfig = DEFAULT_CONFIG) -> float:
    """How well pips lie like a die face's (1 = perfectly, 0 = not at all)."""
    n = len(pts)
    if n == 1:
        return 0.85
    if n > 6 or n == 0:
        return 0.0
    err = float(np.abs(_signature(pts) - _SIGNATURES[n]).max())
    spread = float(np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1)).max())
    # corner-to-corner pips span about 2.2 to 5.5 pip diameters on the dice we know
    span = spread / max(diameter, 1e-6)
    span_pen = 0.0 if 2.0 <= span <= 6.0 else min(1.0, abs(span - (2.0 if span < 2.0 else 6.0)) / 2.0)
    return float(np.clip(1.0 - err / (2 * config.pattern_tol) - span_pen, 0.0, 1.0))


def _outline(pts: np.ndarray, diameter: float, config: DiceConfig) -> tuple[tuple[float, float], np.ndarray, float]:
    """A square die outline around the pips: (centre, 4 corners, side)."""
    centre = pts.mean(axis=0)
    n = len(pts)
    if n == 1:
        side = diameter / (1.2 * config.pip_side_frac)
        angle = 0.0
    else:
        d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
        i, j = np.unravel_index(int(np.argmax(d)), d.shape)
        diag = pts[j] - pts[i]
        side = float(d[i, j]) / 0.75
        angle = math.atan2(diag[1], diag[0]) - math.pi / 4
        if n in (4, 5, 6):
            rect = cv2.minAreaRect(pts.astype(np.float32))
            angle = math.radians(rect[2])
            if n == 6:
                side = max(rect[1]) / 0.55
    c, s = math.cos(angle), math.sin(angle)
    half = side / 2
    corners = np.array([(-half, -half), (half, -half), (half, half), (-half, half)]) @ np.array([[c, s], [-s, c]])
    return (float(centre[0]), float(centre[1])), corners + centre, float(side)


def face_clutter(lab: np.ndarray, group: list[Pip], centre, corners: np.ndarray) -> float:
    """Fraction of the face (between the pips) that is not the face's colour: printed digits on a
    doubling cube, a checker's rim, a side face of a tilted die."""
    face = np.mean([p.face for p in group], axis=0)
    c = np.asarray(centre)
    u = (corners[1] - corners[0]) / 2
    v = (corners[3] - corners[0]) / 2
    g = np.linspace(-0.8, 0.8, 9)
    gu, gv = np.meshgrid(g, g)
    pts = c + gu.reshape(-1, 1) * u + gv.reshape(-1, 1) * v
    pip_xy = np.array([(p.x, p.y) for p in group])
    pip_r = np.array([0.9 * p.diameter for p in group])
    dpip = np.sqrt(((pts[:, None, :] - pip_xy[None, :, :]) ** 2).sum(-1))
    keep = ~(dpip < pip_r[None, :]).any(axis=1)
    xi = np.round(pts[keep, 0]).astype(int)
    yi = np.round(pts[keep, 1]).astype(int)
    inside = (xi >= 0) & (yi >= 0) & (xi < lab.shape[1]) & (yi < lab.shape[0])
    if not inside.any():
        return 1.0
    px = lab[yi[inside], xi[inside]].astype(np.float32)
    face = np.median(px, axis=0)
    dev = np.abs(px - face)
    bad = np.maximum(dev[:, 0], 1.5 * np.maximum(dev[:, 1], dev[:, 2])) > 30.0
    return float(bad.mean() * inside.mean() + (1 - inside.mean()))


@dataclass(frozen=True)
class GroupEvidence:
    """What a group of pips says about itself: the inputs to the flat / cocked / no-die decision."""

    n: int
    centre: tuple[float, float]
    corners: np.ndarray
    side: float
    diameter: float
    fit: float
    clutter: float
    elongation: float
    polarity: int
    pts: np.ndarray
    crop_side: float = 0.0  # the die side the learned check crops around (pip size or blob size)
    source: str = "pips"  # "pips": a group of linked pips; "blob": a die-sized blob of foreground


def group_evidence(group: list[Pip], config: DiceConfig = DEFAULT_CONFIG, lab: np.ndarray | None = None) -> GroupEvidence:
    pts = np.array([(p.x, p.y) for p in group])
    diameter = float(np.median([p.diameter for p in group]))
    centre, corners, side = _outline(pts, diameter, config)
    clutter = face_clutter(lab, group, centre, _inner(corners, centre, config)) if lab is not None else 0.0
    return GroupEvidence(
        n=len(group),
        centre=centre,
        corners=corners,
        side=side,
        diameter=diameter,
        fit=pattern_fit(pts, diameter, config),
        clutter=clutter,
        elongation=float(np.mean([p.elongation for p in group])),
        polarity=group[0].polarity,
        pts=pts,
        crop_side=diameter / config.pip_side_frac,
    )


def read_group(group: list[Pip], config: DiceConfig = DEFAULT_CONFIG, lab: np.ndarray | None = None) -> DiceReading | None:
    """A group of pips → one die reading (value only when the pattern is a clean face).

    None when the group is not a die at all (its "face" is mostly something else).
    """
    ev = group_evidence(group, config, lab)
    if ev.clutter > (config.face_reject if ev.n > 1 else config.face_reject_single):
        return None
    return reading_from_evidence(ev, config)


def reading_from_evidence(
    ev: GroupEvidence, config: DiceConfig, value: int | None = None, confidence: float | None = None, clutter_check: bool = True
) -> DiceReading:
    """Flat / cocked / unclear from the evidence; ``value`` and ``confidence`` from a classifier if given."""
    if confidence is None:
        confidence = ev.fit * (1.0 - min(1.0, ev.clutter / max(config.face_reject, 1e-6)) * 0.5)
    if value is None:
        value = ev.n
    elong_limit = config.cocked_elongation + config.cocked_elongation_px / max(ev.diameter, 1.0)
    status: Status = "flat"
    out_value: int | None = value
    if not 1 <= value <= 6 or confidence < config.min_confidence:
        status, out_value = "unclear", None
    elif (ev.n and ev.elongation > elong_limit) or (clutter_check and ev.clutter > config.face_unclear):
        status, out_value = "cocked", None
    return DiceReading(
        value=out_value,
        centre=ev.centre,
        outline=tuple((float(x), float(y)) for x, y in ev.corners),
        confidence=float(confidence),
        status=status,
        size=ev.side,
        pips=tuple((float(x), float(y)) for x, y in ev.pts),
    )


def _inner(corners: np.ndarray, centre, config: DiceConfig) -> np.ndarray:
    c = np.asarray(centre)
    return c + (corners - c) * config.face_check_extent


def prune_groups(groups: list[list[Pip]], pips: list[Pip], config: DiceConfig = DEFAULT_CONFIG) -> list[list[Pip]]:
    """Drop lone spots that are not a die's single pip: specks, glints, stray side-face pips.

    A one-pip face needs a pip as large as the pips of the other dice in view, and nothing
    pip-like right next to it (a real 1 sits alone in the middle of a face).
    """
    multi = [p.diameter for g in groups if 2 <= len(g) <= 6 for p in g]
    ref = float(np.median(multi)) if multi else 0.0
    pts = np.array([(p.x, p.y) for p in pips]) if pips else np.zeros((0, 2))
    out = []
    for g in groups:
        if len(g) > 1:
            out.append(g)
            continue
        p = g[0]
        if p.diameter < max(config.single_min_diameter, config.single_min_rel * ref):
            continue
        if p.elongation > config.single_max_elongation:
            continue
        d = np.hypot(pts[:, 0] - p.x, pts[:, 1] - p.y)
        if np.count_nonzero(d < config.single_clear_radius * p.diameter) > 1:
            continue
        out.append(g)
    return out


def candidates(
    frame: np.ndarray, config: DiceConfig | None = None, blobs: bool | None = None
) -> tuple[np.ndarray, float, list[GroupEvidence]]:
    """The working colour image, its scale from the frame, and the evidence of every pip group."""
    config = config or DEFAULT_CONFIG
    frame = check_frame(frame)
    h, w = frame.shape[:2]
    scale = min(1.0, config.work_size / max(h, w))
    work = cv2.resize(frame, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else frame
    ycc = to_colour_space(work, config)
    face = local_face(ycc, config)
    pips = find_pips(ycc, face, config)
    groups = prune_groups(group_pips(ycc, pips, config), pips, config)
    evidence = [group_evidence(g, config, ycc) for g in groups]
    if config.blob_candidates if blobs is None else blobs:
        evidence += [blob_evidence(ycc, b, pips, config) for b in die_blobs(ycc, config)]
    return ycc, scale, evidence


def die_blobs(ycc: np.ndarray, config: DiceConfig = DEFAULT_CONFIG) -> list[tuple[float, float, float]]:
    """Die-sized blobs that stand out from the table (centre x, y and side), touching dice split.

    Finds dice whose pips were missed (low contrast, blur); a white die on a white table is left to
    the pips.
    """
    h, w = ycc.shape[:2]
    f = max(1, config.blob_downscale)
    small = cv2.resize(ycc, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    k = _odd(config.blob_kernel)
    if min(small.shape[:2]) <= k:
        return []
    bg = cv2.resize(cv2.medianBlur(small, k), (w, h), interpolation=cv2.INTER_LINEAR)
    d = cv2.absdiff(ycc, bg)
    score = cv2.max(
        cv2.convertScaleAbs(d[..., 0], alpha=config.blob_y_weight),
        cv2.convertScaleAbs(cv2.max(d[..., 1], d[..., 2]), alpha=config.blob_chroma_weight),
    )
    mask = (score > config.blob_threshold).astype(np.uint8)
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, ker), cv2.MORPH_OPEN, ker)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    amin, amax = config.blob_min_side**2, config.blob_max_side**2
    comps = [i for i in range(1, n) if amin <= stats[i][4] <= amax * config.blob_max_dice]
    singles = [
        float(stats[i][4])
        for i in comps
        if stats[i][4] <= amax
        and max(stats[i][2], stats[i][3]) < 1.5 * min(stats[i][2], stats[i][3])
        and stats[i][4] / (stats[i][2] * stats[i][3]) > 0.55
    ]
    one = float(np.median(singles)) if singles else None
    out: list[tuple[float, float, float]] = []
    for i in comps:
        x, y, bw, bh, area = (int(v) for v in stats[i])
        count = int(round(area / one)) if one and area > 1.6 * one else 1
        if count <= 1:
            if area <= amax:
                out.append((float(cents[i][0]), float(cents[i][1]), math.sqrt(area)))
            continue
        ys, xs = np.nonzero(labels[y : y + bh, x : x + bw] == i)
        pts = np.column_stack([xs, ys]).astype(np.float32)
        cv2.setRNGSeed(1)
        _, _, centres = cv2.kmeans(pts, count, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5), 2, cv2.KMEANS_PP_CENTERS)
        out += [(float(c[0]) + x, float(c[1]) + y, math.sqrt(one)) for c in centres]
    return out


def blob_evidence(ycc: np.ndarray, blob: tuple[float, float, float], pips: list[Pip], config: DiceConfig) -> GroupEvidence:
    """Evidence for a blob candidate from the pips found inside it (of the commoner polarity)."""
    cx, cy, side = blob
    inside = [p for p in pips if abs(p.x - cx) <= 0.5 * side and abs(p.y - cy) <= 0.5 * side]
    if inside:
        pol = 1 if sum(p.polarity for p in inside) > 0 else -1
        inside = [p for p in inside if p.polarity == pol]
    else:
        r = max(2, int(side * 0.4))
        patch = ycc[max(0, int(cy) - r) : int(cy) + r, max(0, int(cx) - r) : int(cx) + r, 0].astype(np.float32)
        pol = 1 if patch.size and patch.mean() > np.median(patch) else -1
    pts = np.array([(p.x, p.y) for p in inside]) if inside else np.zeros((0, 2))
    diameter = float(np.median([p.diameter for p in inside])) if inside else side * config.pip_side_frac
    half = side / 2
    corners = np.array([(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half), (cx - half, cy + half)])
    return GroupEvidence(
        n=len(inside),
        centre=(cx, cy),
        corners=corners,
        side=side,
        diameter=diameter,
        fit=pattern_fit(pts, diameter, config) if len(inside) else 0.0,
        clutter=face_clutter(ycc, inside, (cx, cy), _inner(corners, (cx, cy), config)) if inside else 0.0,
        elongation=float(np.mean([p.elongation for p in inside])) if inside else 1.0,
        polarity=pol,
        pts=pts,
        crop_side=side,
        source="blob",
    )


def classify_evidence(ycc: np.ndarray, evidence: list[GroupEvidence], model, config: DiceConfig) -> list[DiceReading]:
    """Value and die / no-die from the learned model, then one reading per die (best first)."""
    from tablecompanion.vision.dice_model import crop, features

    if not evidence:
        return []
    x = np.stack([features(crop(ycc, ev, config.pip_side_frac), ev) for ev in evidence])
    probs = model.predict(x)
    scored = []
    for ev, p in zip(evidence, probs):
        p_die = 1.0 - float(p[0])
        if p_die < config.model_min_die:
            continue
        value = int(np.argmax(p[1:])) + 1
        confidence = float(p[value]) / max(p_die, 1e-6) * min(1.0, p_die / max(config.model_sure_die, 1e-6))
        scored.append((p_die, reading_from_evidence(ev, config, value=value, confidence=confidence, clutter_check=False)))
    scored.sort(key=lambda t: -t[0])
    kept: list[DiceReading] = []
    for _, r in scored:
        if any(math.dist(r.centre, k.centre) < config.nms_frac * max(k.size, r.size) for k in kept):
            continue
        kept.append(r)
    return kept
