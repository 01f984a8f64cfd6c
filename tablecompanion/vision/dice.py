"""Find dice in a camera frame and read their values.

Two readers behind one call, ``read_dice(frame, config) -> list[DiceReading]``:

- **The dice network** (the default when ``models/dice_net.onnx`` is shipped): a tiny fully
  convolutional detector run by ``cv2.dnn`` proposes die centres and sizes on a stride-4 grid, at
  full and half scale (dice of about 14-64 px, and larger ones at half scale); each proposal is cut
  out at a few sizes and a crop classifier (``models/dice_cls.onnx``) says no die / 1..6 / cocked;
  overlapping finds keep the most die-like; dice it is sure of but cannot read get a second look
  (``models/dice_val.onnx``, ``read_unclear``). See ``dice_model`` and ``docs/dice.md``.
- **Pip counting** (the fallback when no network is shipped, or ``DiceConfig(model="pips")``):
  ``to_colour_space`` → ``local_face`` → ``find_pips`` → ``group_pips`` → ``prune_groups`` →
  ``group_evidence`` → reading.

``read_dice_region(frame, (x, y, w, h), config)`` reads only the dice whose centres lie inside a box
of the frame (with a margin of context around it), in frame pixels: for readers that already know
where the roller's right-hand board is. A die is "flat" when its top face can be read; "cocked" when
it is tilted or lying on something; "unclear" when the value cannot be trusted. A value is never
given for a die that is not flat. Bad input raises ``DiceVisionError``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from tablecompanion.vision.dice_reading import (
    DEFAULT_CONFIG, DiceConfig, DiceReading, DiceVisionError, Status, check_frame, rescale_reading,
)
from tablecompanion.vision.pip_count import candidates, classify_evidence, reading_from_evidence
from tablecompanion.vision.printed_dice import is_line_drawing

# the dice reader's vocabulary and its parts' entry points stay importable from here, where they lived first
__all__ = [
    "DEFAULT_CONFIG", "DiceConfig", "DiceReading", "DiceVisionError", "Status", "check_frame", "candidates",
    "is_line_drawing", "read_dice", "read_dice_region", "read_dice_file", "load_image", "annotate", "annotation_dir",
    "net_candidates", "select_readings", "NetCandidate", "die_scale", "big_dice_shrink", "second_opinion",
    "read_unclear", "fill_unclear", "combine_readings", "network_for", "read_dice_net",
]


def read_dice(frame: np.ndarray, config: DiceConfig | None = None) -> list[DiceReading]:
    """Every die in a BGR frame, with coordinates in that frame's pixels. With the network, a frame whose
    dice are far larger or smaller than it reads well is read resized (:func:`die_scale`). Printed dice
    (:func:`is_line_drawing`) are left out."""
    config = config or DEFAULT_CONFIG
    frame = check_frame(frame)
    readings = _read_dice(frame, config)
    if config.drawing_max_step > 0:
        readings = [r for r in readings if not is_line_drawing(frame, r, config)]
    return readings


def _read_dice(frame: np.ndarray, config: DiceConfig) -> list[DiceReading]:
    net = network_for(config)
    if net is not None:
        from tablecompanion.vision.dice_model import load_classifier

        classifier = None if config.classifier == "none" else load_classifier(config.classifier)
        resize, passes = die_scale(frame, net, classifier, config)
        if resize != 1.0:
            h, w = frame.shape[:2]
            size = (max(8, round(w * resize)), max(8, round(h * resize)))
            sized = cv2.resize(frame, size, interpolation=cv2.INTER_AREA if resize < 1 else cv2.INTER_CUBIC)
            sx, sy = w / sized.shape[1], h / sized.shape[0]
            once = replace(config, big_die=0.0, small_die=0.0, work_size=max(config.work_size, *size))
            return [rescale_reading(r, sx, sy) for r in _read_dice(check_frame(sized), once)]
        if config.combine not in ("fill", "union", "none"):
            raise DiceVisionError(f"combine is 'fill', 'union' or 'none', not {config.combine!r}")
        found = second_opinion(frame, read_dice_net(frame, net, config, classifier, passes), config)
        if config.combine == "fill" and config.value_reader_first:
            found = read_unclear(frame, found, config)
        if config.combine == "none" or (config.combine == "fill" and all(r.status != "unclear" for r in found)):
            return _without_weak_finds(found, config, frame)
        pips = _read_dice(frame, replace(config, model="pips"))
        if config.combine == "fill":
            filled = fill_unclear(found, pips)
            if not config.value_reader_first:  # else the value reader has looked already
                filled = read_unclear(frame, filled, config)
            return _without_weak_finds(filled, config, frame)
        return combine_readings(pips, found, config)
    model = None
    if config.model not in ("none", "pips"):
        from tablecompanion.vision.dice_model import load_model

        model = load_model(config.model) if config.model.endswith(".npz") else None
    # blob candidates only help the learned check; pip counting ignores them
    ycc, scale, evidence = candidates(frame, config, blobs=config.blob_candidates and model is not None)
    if model is None:
        readings = [
            reading_from_evidence(ev, config)
            for ev in evidence
            if ev.source == "pips"
            and ev.clutter <= (config.face_reject if ev.n > 1 else config.face_reject_single)
            # a cluttered face with no die pattern (printed digits, a checker's rim) is no die
            and not (ev.clutter > config.face_unclear and ev.fit < config.min_confidence)
        ]
    else:
        readings = classify_evidence(ycc, evidence, model, config)
    if scale < 1:
        readings = [rescale_reading(r, 1.0 / scale) for r in readings]
    readings.sort(key=lambda r: (r.centre[0], r.centre[1]))
    return readings


def _without_weak_finds(readings: list[DiceReading], config: DiceConfig,
                        frame: np.ndarray | None = None) -> list[DiceReading]:
    """The readings less those on a find the detector was under ``net_weak_heat`` sure of that nothing
    read a value on (stacks of checkers called cocked on a photo of a board), or that read as a 1: one
    round spot on a face is the least a die can show, and a checker's moulded centre shows as much, or that
    is much smaller than the dice it is sure of (``net_weak_min_rel``); and a die called cocked on a find
    under ``net_weak_cocked_heat``. With ``frame`` (and
    ``net_weak_value_check``), a value read on a weak find must be the value reader's too: two stacked
    checkers are a "2" to the classifier, one round spot to the value reader."""
    sure = [r.size for r in readings if r.heat >= config.net_weak_heat and r.size > 0]
    least = config.net_weak_min_rel * float(np.median(sure)) if sure else 0.0
    kept = [r for r in readings
            if (r.heat >= config.net_weak_heat or (r.status == "flat" and r.value != 1 and r.size >= least))
            and (r.status != "cocked" or r.heat >= config.net_weak_cocked_heat)]
    if frame is None or not config.net_weak_value_check or all(r.heat >= config.net_weak_heat for r in kept):
        return kept
    reader = _value_reader(config)
    if reader is None:
        return kept
    return [r for r in kept if r.heat >= config.net_weak_heat or _value_read(reader, frame, r)[0] == r.value]


def _value_read(reader, frame: np.ndarray, r: DiceReading) -> tuple[int, float]:
    """The value the value reader gives the die ``r`` outlines, and how sure of it it is."""
    p = reader.read(frame, r.centre[0], r.centre[1], r.size)
    value = int(np.argmax(p)) + 1
    return value, float(p[value - 1])


def _value_reader(config: DiceConfig):
    """The value reader ``config`` names (``dice_model.DiceValueReader``), or None: "none", or none shipped."""
    if config.value_reader == "none":
        return None
    from tablecompanion.vision.dice_model import load_value_reader

    return load_value_reader(config.value_reader)


def fill_unclear(net: list[DiceReading], pips: list[DiceReading]) -> list[DiceReading]:
    """The network's dice, each one it left unclear read by pip counting when pip counting found a flat die
    there (pip counting rarely gives a wrong value, and reads large single pips the classifier doubts)."""
    out = []
    for n in net:
        if n.status == "unclear":
            near = [p for p in pips if p.value is not None and p.status == "flat"
                    and math.dist(n.centre, p.centre) < 0.5 * max(n.size, 1.0)]
            if near:
                p = min(near, key=lambda p: math.dist(n.centre, p.centre))
                n = replace(n, value=p.value, status="flat", confidence=p.confidence, pips=p.pips)
        out.append(n)
    return out


def second_opinion(frame: np.ndarray, readings: list[DiceReading], config: DiceConfig = DEFAULT_CONFIG) -> list[DiceReading]:
    """The values the classifier gave with less than ``value_check`` confidence, looked at by the value
    reader: where it is ``value_min`` sure of another value, that value stands (at the value reader's
    confidence). Two networks trained apart rarely make the same mistake, and the classifier's mistakes
    are hedged ones; a value it is sure of is left alone, so the value reader runs on few dice."""
    hedged = [r.status == "flat" and r.value is not None and r.confidence < config.value_check and r.size > 0
              for r in readings]
    if not any(hedged):
        return readings
    reader = _value_reader(config)
    if reader is None:
        return readings
    out = []
    for r, look in zip(readings, hedged):
        if look:
            value, sure = _value_read(reader, frame, r)
            if value != r.value and sure >= config.value_min:
                r = replace(r, value=value, confidence=sure)
        out.append(r)
    return out


def read_unclear(frame: np.ndarray, readings: list[DiceReading], config: DiceConfig = DEFAULT_CONFIG) -> list[DiceReading]:
    """The dice still unclear read again by the value reader (``dice_model.DiceValueReader``), where one is
    shipped or named: a value when it is ``value_min`` sure and the classifier saw no tilt. The classifier
    is trained on dice shrunk to 14 px and hedges on small dark dice with coloured pips; the value reader
    looks closer at dice already known to be dice."""
    if all(r.status != "unclear" or r.tilt >= config.value_max_tilt for r in readings):
        return readings
    reader = _value_reader(config)
    if reader is None:
        return readings
    out = []
    for r in readings:
        if r.status == "unclear" and r.tilt < config.value_max_tilt and r.size > 0:
            value, sure = _value_read(reader, frame, r)
            if sure >= config.value_min:
                r = replace(r, value=value, status="flat", confidence=sure)
        out.append(r)
    return out


def combine_readings(pips: list[DiceReading], net: list[DiceReading], config: DiceConfig = DEFAULT_CONFIG) -> list[DiceReading]:
    """Pip counting's dice (rarely a wrong value), plus the network's sure dice where pip counting saw
    none or gave no value (small, marbled, translucent, clustered dice)."""
    out = []
    for p in pips:
        near = [n for n in net if math.dist(n.centre, p.centre) < 0.5 * max(n.size, p.size, 1.0)]
        if p.value is None and near and near[0].value is not None and near[0].confidence >= config.net_add_min:
            out.append(replace(near[0], centre=p.centre))  # the network reads what pip counting could not
        else:
            out.append(p)
    for n in net:
        if n.value is None or n.confidence < config.net_add_min:
            continue
        if any(math.dist(n.centre, p.centre) < config.net_nms_frac * max(n.size, p.size, 1.0) for p in pips):
            continue
        out.append(n)
    out.sort(key=lambda r: (r.centre[0], r.centre[1]))
    return out


def network_for(config: DiceConfig):
    """The dice network the config asks for, or None for pip counting (public: the tuning tool caches the
    network's candidates with it)."""
    if config.model in ("none", "pips") or config.model.endswith(".npz"):
        return None
    from tablecompanion.vision.dice_model import load_net

    return load_net(config.model)


@dataclass(frozen=True)
class NetCandidate:
    """A die the network proposes, before any threshold: where (frame px), how sure the detector is
    (``heat``) and, when a classifier read it, its probabilities (no die, 1..6, cocked)."""

    x: float
    y: float
    side: float
    heat: float
    probs: tuple[float, ...] | None = None  # 8 values summing to 1, or None without a classifier
    net_values: tuple[float, ...] = ()  # the detector's own value head (used without a classifier)
    net_cocked: float = 0.0


def read_dice_net(frame: np.ndarray, net, config: DiceConfig = DEFAULT_CONFIG, classifier=None,
                  passes: dict | None = None) -> list[DiceReading]:
    """Dice found by the network (``dice_model.DiceNet``) at one or more scales, each then read by the
    crop classifier (``dice_model.DiceClassifier``: no die / 1..6 / cocked) when one is given."""
    return select_readings(net_candidates(frame, net, config, classifier, passes), config)


def _predict_turned(classifier, crops: list[np.ndarray], turns: int) -> np.ndarray:
    """The classifier's probabilities for each crop, averaged over its first ``turns`` quarter turns."""
    turned = [np.ascontiguousarray(np.rot90(c, r)) for c in crops for r in range(turns)]
    return classifier.predict(turned).reshape(len(crops), turns, -1).mean(axis=1)


def _scaled_work(work: np.ndarray, k: float) -> np.ndarray:
    """The working frame at scale ``k`` of it, as each of the network's passes sees it."""
    if k == 1.0:
        return work
    return cv2.resize(work, (max(1, round(work.shape[1] * k)), max(1, round(work.shape[0] * k))), interpolation=cv2.INTER_AREA)


def _work_frame(img: np.ndarray, config: DiceConfig) -> tuple[np.ndarray, float]:
    """The frame at the working resolution, and the scale it was brought there by."""
    h, w = img.shape[:2]
    s0 = min(1.0, config.work_size / max(h, w))
    work = img if s0 == 1.0 else cv2.resize(img, (max(1, round(w * s0)), max(1, round(h * s0))), interpolation=cv2.INTER_AREA)
    return work, s0


def net_candidates(frame: np.ndarray, net, config: DiceConfig = DEFAULT_CONFIG, classifier=None,
                   passes: dict | None = None) -> list[NetCandidate]:
    """Every find of the network above ``net_min_heat``, duplicates across scales merged, each read by the
    classifier. Thresholds that only choose among them live in :func:`select_readings`, so they can be
    tuned on cached candidates (tools/dice_tune.py). ``passes``: the network's finds at ``net_min_heat``
    on the working frame scaled by each key, where :func:`die_scale` has made them already."""
    from tablecompanion.vision.dice_model import crop_for_classifier

    img = check_frame(frame)
    work, s0 = _work_frame(img, config)
    found = []  # (heat, x, y, side, NetDie) in working pixels
    for k in config.net_scales:
        if passes and k in passes:
            finds = passes[k]
        else:
            im = _scaled_work(work, k)
            if min(im.shape[:2]) < 16:
                continue
            finds = net.detect(im, config.net_min_heat)
        for d in finds:
            if k < 1.0 and d.side < config.net_small_side:
                continue  # small at this scale: the full-scale pass reads it better
            found.append((d.heat, d.x / k, d.y / k, d.side / k, d, k))
    found.sort(key=lambda t: -t[0])
    # two cells of one peak, or one spot found at two scales, count once, with the strongest find's heat
    # and the finest scale's place (a half-scale cell is 8 px of the frame: on a 44-px die its centre can
    # be 7 px out, and a crop that far off shows the die's edge as if it were tilted); each scale's size
    # guess is kept (a coarse pass can guess a small die's size badly) and the classifier chooses
    kept = []  # [heat, x, y, [sides], NetDie, scale]
    for t in found:
        dup = next((u for u in kept if math.dist(t[1:3], u[1:3]) < config.net_dup_frac * min(t[3], u[3][0])), None)
        if dup is None:
            kept.append([t[0], t[1], t[2], [t[3]], t[4], t[5]])
        elif t[5] != dup[5] and len(dup[3]) == 1:
            dup[3].append(t[3])
            if t[5] > dup[5]:
                dup[1], dup[2] = t[1], t[2]
    probs = [None] * len(kept)
    if classifier and kept:
        # each find at a few sizes around each size guess; the most die-like size wins
        # (and, when cls_rotations, turned by quarter turns; the probabilities are averaged)
        tries = [(i, side * k, k) for i, t in enumerate(kept) for side in t[3] for k in config.cls_sizes]
        crops = [crop_for_classifier(work, kept[i][1], kept[i][2], side) for i, side, _ in tries]
        allp = _predict_turned(classifier, crops, 4 if config.cls_rotations else 1)
        per_find: dict[int, list[int]] = {}
        for j, (i, _, _) in enumerate(tries):
            per_find.setdefault(i, []).append(j)
        best: dict[int, int] = {}
        for i, js in per_find.items():
            best[i] = min(js, key=lambda j: allp[j, 0])  # the first of equals, as tried
            if config.cls_size_tie > 0:
                near = [j for j in js if allp[j, 0] <= allp[best[i], 0] + config.cls_size_tie]
                best[i] = min(near, key=lambda j: (abs(math.log(tries[j][2])), allp[j, 0]))
        probs = [tuple(float(v) for v in allp[best[i]]) for i in range(len(kept))]
        for i, t in enumerate(kept):
            t[3] = [tries[best[i]][1]]
    kept = [(t[0], t[1], t[2], t[3][0], t[4]) for t in kept]
    return [NetCandidate(float(x / s0), float(y / s0), float(side / s0), float(heat), p,
                         tuple(float(v) for v in d.values), float(d.cocked))
            for (heat, x, y, side, d), p in zip(kept, probs)]


def _pips_of(find, chosen, config: DiceConfig) -> bool:
    """Whether every find in ``chosen`` is small beside ``find`` (a flat die the classifier is sure of) and
    lies within its top face: one of its pips, which the classifier, shown a pip alone, takes for a 1."""
    _, x, y, side, _, cocked, sure, *_ = find

    def pip_like(u) -> bool:  # a pip alone shows no more than one pip, and no tilt
        one_or_unsure = int(np.argmax(u[4])) == 0 or float(np.max(u[4])) < config.net_min_value
        return not u[5] and one_or_unsure and u[3] <= config.net_pip_frac * side and math.dist((x, y), u[1:3]) < 0.5 * side

    return not cocked and sure >= config.net_pip_die and all(pip_like(u) for u in chosen)


def select_readings(candidates: list[NetCandidate], config: DiceConfig = DEFAULT_CONFIG) -> list[DiceReading]:
    """Readings from the network's candidates: finds the classifier calls no die are dropped; of finds on
    one die (its top face, a side face, a few pips) the most die-like stays; a value needs
    ``net_min_value``; a cocked call gives no value."""
    scored = []
    for c in candidates:
        if config.net_min_heat > c.heat:
            continue
        if c.probs is not None:
            p = np.asarray(c.probs)
            p_die = 1.0 - float(p[0])
            if p_die < config.cls_min_die:
                continue
            values = p[1:7] / p_die
            # the classifier alone judges the tilt: the detector's cocked head learned it from simulator
            # dice only (the photos have no cocked die) and calls clean drawn dice 0.6 tilted
            tilt = float(p[7]) / p_die
            sure = p_die
        else:
            values, tilt, sure = np.asarray(c.net_values), c.net_cocked, min(1.0, c.heat / 0.6)
        scored.append((sure * min(1.0, c.heat / 0.3), c.x, c.y, c.side, values, tilt >= config.net_cocked, sure, tilt,
                       c.heat))
    scored.sort(key=lambda t: -t[0])
    chosen = []
    for t in scored:
        near = [i for i, u in enumerate(chosen) if math.dist(t[1:3], u[1:3]) < config.net_nms_frac * max(t[3], u[3])]
        if not near:
            chosen.append(list(t))
        elif config.net_pip_frac > 0 and _pips_of(t, [chosen[i] for i in near], config):
            # the finds chosen so far here are pips of this larger die (a pip alone reads as a small 1)
            chosen = [u for i, u in enumerate(chosen) if i not in near] + [list(t)]
        elif (t[7] >= config.net_neighbour_cocked and t[3] >= chosen[near[0]][3]
              and math.dist(t[1:3], chosen[near[0]][1:3]) >= 0.6 * chosen[near[0]][3]):
            # a find beside this one, at least as large and over half a side off, sure it sees a tilted
            # die: the chosen find is one face of a cocked die, the other find its body (finds on parts
            # of a flat die sit close to its centre, and parts of a face look odd to the classifier)
            chosen[near[0]][5] = True
    readings: list[DiceReading] = []
    for _, x, y, side, values, cocked, sure, tilt, heat in chosen:
        value = int(np.argmax(values)) + 1
        p_value = float(values[value - 1])
        confidence = p_value * sure
        if cocked:
            status, value, confidence = "cocked", None, sure
        elif p_value < config.net_min_value:
            status, value = "unclear", None
        else:
            status = "flat"
        hs = side / 2
        outline = ((x - hs, y - hs), (x + hs, y - hs), (x + hs, y + hs), (x - hs, y + hs))
        readings.append(DiceReading(value, (float(x), float(y)), outline, float(confidence), status, float(side),
                                    tilt=float(tilt), heat=float(heat)))
    readings.sort(key=lambda r: (r.centre[0], r.centre[1]))
    return readings


def read_dice_region(frame: np.ndarray, box: tuple[float, float, float, float], config: DiceConfig | None = None) -> list[DiceReading]:
    """The dice whose centres lie inside ``box`` = (x, y, width, height) of a frame, in frame pixels.

    The box is clipped to the frame; an empty box gives no dice. The reader sees a margin of
    ``REGION_MARGIN`` around the box so that a die on its edge is still seen whole.
    """
    img = check_frame(frame)
    h, w = img.shape[:2]
    try:
        bx, by, bw, bh = (float(v) for v in box)
    except (TypeError, ValueError) as exc:
        raise DiceVisionError(f"a region is (x, y, width, height), got {box!r}") from exc
    if not all(math.isfinite(v) for v in (bx, by, bw, bh)) or bw <= 0 or bh <= 0:
        return []
    x0, y0 = int(max(0, math.floor(bx - REGION_MARGIN))), int(max(0, math.floor(by - REGION_MARGIN)))
    x1, y1 = int(min(w, math.ceil(bx + bw + REGION_MARGIN))), int(min(h, math.ceil(by + bh + REGION_MARGIN)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    readings = read_dice(img[y0:y1, x0:x1], config)
    out = []
    for r in readings:
        r = replace(r, centre=(r.centre[0] + x0, r.centre[1] + y0), outline=tuple((px + x0, py + y0) for px, py in r.outline),
                    pips=tuple((px + x0, py + y0) for px, py in r.pips))
        if bx <= r.centre[0] <= bx + bw and by <= r.centre[1] <= by + bh:
            out.append(r)
    return out


REGION_MARGIN = 24  # pixels of context around a region read by read_dice_region


def die_scale(frame: np.ndarray, net, classifier, config: DiceConfig = DEFAULT_CONFIG) -> tuple[float, dict | None]:
    """How much to resize ``frame`` before reading it, so that its dice are a size the networks read well
    (1.0: as it is), and, when it stays as it is, the network's full- and half-scale finds on the working
    frame (``net_candidates``' ``passes``). Large dice: :func:`big_dice_shrink`. Small ones: the full-scale
    pass's confident finds (heat >= ``big_die_heat``) give their size, which that pass measures well down to
    14 px; at half their size byler's photos, dice of 15-25 px, read 6 more dice wrong on test and 15 more on
    train than at their own, and enlarged most of them read as at their own (docs/dice.md)."""
    if config.big_die > 0:
        shrink = big_dice_shrink(frame, net, classifier, config)
        if shrink < 1.0:
            return shrink, None
    work, s0 = _work_frame(frame, config)
    if min(work.shape[:2]) < 16:
        return 1.0, None
    half = _scaled_work(work, 0.5)
    passes = {1.0: net.detect(work, config.net_min_heat)}
    if min(half.shape[:2]) >= 16:
        passes[0.5] = net.detect(half, config.net_min_heat)
    sides = [d.side for d in passes[1.0] if d.heat >= config.big_die_heat]
    # the pips of dice of 60 px and more are found at full scale as small dice: not when the half-scale
    # pass finds something twice as large as small_die with heat 0.7 (matteo's 90-170-px dice: 0.76-0.93;
    # at 0.5, byler's photos at a third of their size, dice of 10-15 px, found such things over clusters
    # and read 1329 dice of byler train right where 1391 at 0.8)
    large = [d for d in passes.get(0.5, []) if d.heat >= 0.7 and d.side / 0.5 >= 2 * config.small_die]
    if config.small_die > 0 and sides and float(np.median(sides)) < config.small_die and not large:
        h, w = frame.shape[:2]
        grow = min(config.small_die_enlarge, config.small_die_target / float(np.median(sides)))
        resize = min(s0 * grow, max(1.0, config.small_die_max_size / max(h, w)))
        if resize > 1.05 * s0:
            return resize, None
    return 1.0, passes


def big_dice_shrink(frame: np.ndarray, net, classifier, config: DiceConfig = DEFAULT_CONFIG) -> float:
    """How much to shrink ``frame`` so that its dice are about ``big_die_target`` px across (1.0: they are
    not ``big_die`` px or more, or there is no classifier to confirm it). Sizes come from the network's
    confident finds on a quarter-size frame, where a die of 84 px or more is 21 px or more: well inside what
    it learned. A large find must also be one die to the classifier, and what the full-scale pass finds
    inside it must be its pips, not dice: on byler's photos of 30-50-px dice shown at 0.5-0.75 of their
    size the network found 126-198-px "dice" over a few small ones, which the classifier gives 0.09-0.44 or,
    seen as one blurred face, 0.8 and more; inside those it reads 2s to 6s 0.93-1.0 sure, where inside a
    big die it reads the pips as 1s (up to 0.91) or other values at most 0.63 sure. The size of a die too
    large even at a quarter comes out short, so the estimate is made again on the shrunk frame, up to three
    times."""
    from tablecompanion.vision.dice_model import crop_for_classifier

    if classifier is None:
        return 1.0
    h, w = frame.shape[:2]
    full = min(1.0, config.work_size / max(h, w))
    scale = full
    for _ in range(3):
        # (an eighth-size pass for dice too large even at a quarter, over 256 px, was tried: on byler's
        # photos it found 160-250-px "dice" as confidently as it finds drawn dice of 240 px)
        ww, wh = max(1, round(w * scale)), max(1, round(h * scale))
        quarter = cv2.resize(frame, (max(1, round(ww / 4)), max(1, round(wh / 4))), interpolation=cv2.INTER_AREA)
        if min(quarter.shape[:2]) < 16:
            break
        kx, ky = ww / quarter.shape[1], wh / quarter.shape[0]
        finds = [(d.x * kx, d.y * ky, d.side * math.sqrt(kx * ky)) for d in net.detect(quarter, config.big_die_heat)]
        large = [f for f in finds if f[2] >= config.big_die]
        if 2 * len(large) < len(finds) or not large:
            break
        work = frame if (ww, wh) == (w, h) else cv2.resize(frame, (ww, wh), interpolation=cv2.INTER_AREA)
        # what the full-scale pass finds inside each large find: a big die's pips (which the classifier
        # reads as a 1, or doubts), or small dice that a quarter-size frame blurred into one die's face
        small = net.detect(work, 0.5)
        inner = [[(d.x, d.y, d.side) for d in small
                  if math.dist((d.x, d.y), (x, y)) < 0.5 * side and d.side <= config.net_pip_frac * side]
                 for x, y, side in large]
        looks = large + [f for fs in inner for f in fs]
        probs = _predict_turned(classifier, [crop_for_classifier(work, x, y, side) for x, y, side in looks], 4)
        p_die = 1.0 - probs[:, 0]

        def a_die(i: int) -> bool:  # a small die with a value other than 1, as sure as a flat die's value
            values = probs[i, 1:7] / max(p_die[i], 1e-6)
            return p_die[i] >= config.cls_min_die and int(np.argmax(values)) > 0 and float(values.max()) >= 0.8

        one_die, k = [], len(large)
        for j, fs in enumerate(inner):
            one_die.append(p_die[j] >= config.cls_min_die and not any(a_die(k + i) for i in range(len(fs))))
            k += len(fs)
        sides = [f[2] for f, one in zip(large, one_die) if one] + [f[2] for f in finds if f[2] < config.big_die]
        if not sides or float(np.median(sides)) < config.big_die:
            break
        scale *= config.big_die_target / float(np.median(sides))
    return scale if scale < full else 1.0


def annotation_dir(path: str | Path | None) -> Path | None:
    """The folder annotated images go to, made when missing; None for none. A path that is a file, or
    cannot be made, is a DiceVisionError before any image is read, not a traceback after."""
    if not path:
        return None
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DiceVisionError(f"cannot write annotated images to {out}: {exc.strerror or exc}") from None
    return out


def load_image(path: str | Path) -> np.ndarray:
    """An image file as BGR; a clear DiceVisionError when it cannot be read."""
    p = Path(path)
    if not p.is_file():
        raise DiceVisionError(f"no such image file: {p}")
    data = np.fromfile(str(p), dtype=np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise DiceVisionError(f"not a readable image: {p}")
    return img


def read_dice_file(path: str | Path, config: DiceConfig | None = None) -> list[DiceReading]:
    """Read an image file; a clear DiceVisionError when it cannot be read."""
    return read_dice(load_image(path), config)


def annotate(frame: np.ndarray, readings: list[DiceReading]) -> np.ndarray:
    """A copy of the frame with each die's outline, pips and value drawn on it."""
    out = check_frame(frame).copy()
    colours = {"flat": (0, 200, 0), "cocked": (0, 0, 255), "unclear": (0, 200, 255)}
    for r in readings:
        c = colours[r.status]
        pts = np.array(r.outline, np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, c, 2)
        for x, y in r.pips:
            cv2.circle(out, (int(round(x)), int(round(y))), 2, (255, 0, 255), -1)
        label = f"{r.value if r.value else '?'} {r.confidence:.2f}" + ("" if r.status == "flat" else f" {r.status}")
        x, y = int(min(p[0] for p in r.outline)), int(min(p[1] for p in r.outline))
        cv2.putText(out, label, (x, max(10, y - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, c, 1, cv2.LINE_AA)
    return out
