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

import json
import math
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

Status = Literal["flat", "cocked", "unclear"]


class DiceVisionError(Exception):
    """Dice vision cannot work on this input (not an image, empty frame, unreadable file, bad config)."""


@dataclass(frozen=True)
class DiceConfig:
    """Every threshold of the dice reader, with a name. Load tuned values with ``DiceConfig.load``."""

    # working resolution: frames are scaled so that their longer side is at most this many pixels
    work_size: int = 1280
    # lightness + chroma representation: "ycrcb" or "lab"
    colour_space: str = "ycrcb"
    # the face colour around a pip: median of a downscaled frame over this kernel (downscaled px)
    face_downscale: int = 2
    face_kernel: int = 11
    # a pip differs from the local face by at least this much in L (0-255 Lab)
    pip_contrast: float = 40.0
    # or by colour (red pips on a black die): chroma difference x weight, with L at least this way
    pip_chroma_weight: float = 1.5
    pip_chroma_min_dl: float = 4.0
    # pip size in working pixels (area of the blob) and shape
    pip_min_area: float = 6.0
    pip_max_area: float = 260.0
    pip_max_elongation: float = 1.7  # ratio of the blob's principal axes; side-face pips are flatter
    pip_min_fill: float = 0.5  # blob area / bounding-box area
    # blobs up to pip_merge_max pips large are re-thresholded at these multiples of pip_contrast
    pip_merge_max: float = 8.0
    pip_split_levels: tuple[float, ...] = (1.5, 2.2, 3.0)
    # linking pips into one die: distance (in pip diameters), size and face-colour agreement
    link_max_dist: float = 5.2
    link_max_size_ratio: float = 1.9
    link_face_tol: float = 30.0
    # a line between two pips of one die crosses only face; a gap between dice breaks it
    line_tol: float = 28.0
    line_max_bad_frac: float = 0.12
    # a lone pip (a 1) must be this large (working px, and relative to other dice's pips), round,
    # and alone within this many of its diameters
    single_min_diameter: float = 3.5
    single_min_rel: float = 0.7
    single_max_elongation: float = 1.5
    single_clear_radius: float = 2.2
    # pip diameter as a fraction of the die side, for drawing the outline
    pip_side_frac: float = 0.19
    # pattern fit: how far the sorted pip distances may be from a die face (relative)
    pattern_tol: float = 0.25
    # the face between the pips (this fraction of the outline) must be mostly face colour:
    # above face_unclear the die is called cocked (a side face shows), above face_reject it is no die
    face_check_extent: float = 0.85
    face_unclear: float = 0.25
    face_reject: float = 0.4
    face_reject_single: float = 0.2  # a one has a large clean face around its pip
    # pips flattened this much (mean axis ratio) mean the top face is tilted: cocked
    cocked_elongation: float = 1.3
    cocked_elongation_px: float = 0.0  # small pips look elongated from pixel steps: limit + this / diameter
    # which reader: "" = the shipped dice network (models/dice_net.onnx; pip counting when it is not
    # there), "none" or "pips" = pip counting only, a path to an .onnx = that network, a path to an
    # .npz = pip groups checked by the older MLP (dice_model.DiceModel); with the MLP, groups with
    # P(die) below model_min_die are dropped, and of two readings closer than nms_frac x die size only
    # the more certain stays
    model: str = ""
    # the network: heat peaks below net_min_heat are no die; a flat die's value needs
    # P(value) >= net_min_value (else "unclear", no value); P(cocked) >= net_cocked gives "cocked".
    # It runs at each of net_scales (x the working size) and keeps, at scales below 1, only dice
    # larger than net_small_side px there (the others are read at full scale); finds closer than
    # net_dup_frac x the smaller side are one find; after the classifier, of finds closer than
    # net_nms_frac x the larger side only the most die-like stays.
    net_min_heat: float = 0.2
    net_min_value: float = 0.6
    net_cocked: float = 0.5
    net_scales: tuple[float, ...] = (1.0, 0.5)
    net_small_side: float = 30.0
    # 0.5 since the GPU-trained detector, whose sizes are close (0.7 while they could be twice too large):
    # byler train's dice missed in clusters 24 -> 2, chosen on the train splits (docs/dice.md)
    net_nms_frac: float = 0.5
    net_dup_frac: float = 0.3
    # a die is cocked when another find on it is this sure it is tilted, P(cocked | die) (1.01: never)
    net_neighbour_cocked: float = 0.9
    # a find the detector is less sure of than this is a die only when something reads a value on it
    # (the classifier, pip counting or the value reader): on 60 of the simulator's boards without dice
    # (`dice boards`) 48 of the 57 dice invented were stacks of checkers called cocked, found at heat
    # 0.20-0.34 (the simulator's dice: 0.39-0.97); in the photo sets no die is called cocked or unclear
    # on a find under 0.35, and 5 false dice are (docs/dice.md). Nor is a 1 read on such a find (7 of the
    # 9 left on those boards: a red checker's moulded centre; in the photo sets one false die). 0: off.
    net_weak_heat: float = 0.35
    # ... and a die called cocked wants a find at least this sure (0: off). Of the cocked calls on the
    # simulator's roll frames (seed 0, 80 throws), the 5 on tilted dice were on finds of 0.47-0.72, the 29
    # on no die (stacks of checkers) of 0.20-0.44; on seeds 0 and 1's boards without dice the 8 cocked left
    # by net_weak_heat were 0.35-0.43; in the photo sets every cocked call is on a find of 0.53 or more. A
    # cocked die so dropped leaves a roll one die short: void all the same
    net_weak_cocked_heat: float = 0.45
    # ... and a value read on a find under net_weak_heat stands only when the value reader reads the same
    # (False: off). On the simulator's boards without dice the flat 2s left (two stacked checkers, 0.6-0.73
    # sure) the value reader reads as 1s; of the photo sets' 10 flat readings on such finds it reads the 4
    # right ones and the 4 false dice alike, and the 2 wrong ones otherwise (docs/dice.md)
    net_weak_value_check: bool = True
    # ... and a find under net_weak_heat less than this times the median side of the frame's sure finds is
    # not a die of theirs (0: off). Dice of one roll are one size, seen from one height: what the detector
    # half believes in at half their size is a pip, a side face or a thing beside the board. On the train
    # splits at 0.5x, 1x and 2x the weak finds that were dice measured 0.66-1.06 of the sure ones; the
    # false dice on weak finds measured 0.93-0.96 (left: this rule cannot see them) and 0.23-0.49 (a USB
    # stick at the edge of a photo, a pip: dropped) (forty-fifth session, docs/dice.md)
    net_weak_min_rel: float = 0.6
    # a find at most net_pip_frac of a neighbour's side, lying within that neighbour's top face, is one of
    # its pips: the neighbour takes its place when the classifier is net_pip_die sure it is a die (0: off)
    net_pip_frac: float = 0.55
    net_pip_die: float = 0.9
    # the crop classifier that reads each die the network finds: "" = the shipped one
    # (models/dice_cls.onnx; the network's own value head when it is not there), "none", or a path;
    # a find with P(no die) above 1 - cls_min_die is dropped (0.7 since the classifier learned empty boards,
    # forty-first session: chosen on the train splits from 0.7, 0.75 and 0.8)
    classifier: str = ""
    cls_min_die: float = 0.7
    # how pip counting helps the network: "fill" = the network says where the dice are, and pip
    # counting reads those the classifier left unclear (never a cocked one, never a new die); "union" =
    # pip counting's dice plus the network's with confidence >= net_add_min where pip counting saw none
    # or gave no value (more dice read, more false dice: side faces); "none" = the network alone
    combine: str = "fill"
    net_add_min: float = 0.8
    # crop sizes tried, x the network's die side (0.5 too while the detector guessed sizes up to twice
    # too large; with the GPU-trained one a half-size crop of a 5 showed four of its pips and read 4)
    cls_sizes: tuple[float, ...] = (0.8, 1.0, 1.25)
    # sizes whose P(no die) is within cls_size_tie of the most die-like one count as equally die-like, and
    # of those the one nearest the network's own guess wins (0: the most die-like alone). A classifier sure
    # at every size picks one by a hair, and a size a quarter too large reaches the next die
    cls_size_tie: float = 0.005
    cls_rotations: bool = True  # also classify each crop turned by 90, 180, 270 degrees, and average
    # a second look at dice still unclear after pip counting: "" = the shipped value reader
    # (models/dice_val.onnx), "none", or a path. It gives a value when it is value_min sure of it and the
    # classifier was less than value_max_tilt sure the die is tilted (a cocked die never gets a value);
    # value_min chosen on the train splits for the shipped reader (0.7: byler train 17 wrong, 0.6: 19)
    value_reader: str = ""
    value_min: float = 0.7
    value_max_tilt: float = 0.15
    # the value reader looks before pip counting (forty-third session): where both read a die the
    # classifier left unclear and disagree, the value reader was right on the train splits (byler train at
    # 0.5, 1 and 2 times its size: 3 of 3; pip counting read a dark 4 with red pips as a 2), and pip
    # counting then runs only where the value reader is unsure. False: pip counting first, as before
    value_reader_first: bool = True
    # a second opinion on values the classifier hedges on (forty-third session): a value it gave with less
    # than value_check confidence is looked at by the value reader, whose value stands when it is value_min
    # sure of another one (0 turns it off). Chosen on the train splits: byler train 1481 -> 1482 read right
    # at 0.95 and 0.99 (0.9: no change), and at 0.5 and 2 times its size 4 more each, matteo train at 2x one
    # more; no die read wrong that was right
    value_check: float = 0.95
    # dice much larger than the network learned (14-64 px: a close camera, a full-size phone photo) have
    # pips that the full-scale pass takes for dice. The network's confident finds (heat >= big_die_heat)
    # on a quarter-size frame give the dice's size; when their median is big_die px or more (of the
    # working frame), the frame is shrunk so that it is big_die_target px, up to three times (a very large
    # die is itself too large at quarter size). 0 turns it off. Matteo's photos twice their size: false
    # dice 74 -> 13 (valid), 236 -> 45 (train); at their own size no set's reading changes (docs/dice.md)
    big_die: float = 84.0
    big_die_target: float = 56.0
    big_die_heat: float = 0.8
    # and dice much smaller than the networks read well (a far camera, a photo shrunk for the web): when the
    # median confident find of the full-scale pass is under small_die px, the frame is enlarged to bring it
    # to small_die_target px, at most small_die_enlarge times and to no more than small_die_max_size px
    # along its longer side. 0 turns it off. Byler's photos at half their size (dice 15-25 px): wrong
    # values 11 -> 7 (test), 36 -> 23 (train); the same photos tiled eight to a 1280x720 frame, a far
    # camera's view: right 1402 -> 1422 and wrong 42 -> 33 on train with a 2560-px limit (docs/dice.md)
    small_die: float = 28.0
    small_die_target: float = 40.0
    small_die_enlarge: float = 2.0
    small_die_max_size: int = 2560
    # a printed die (an icon: an ink outline closing off paper of the colour around it, with dots) is no
    # die. A real die's face differs from what it lies on, or its edge is no closed line: of the photo
    # sets' 2996 dice whose face a dark ring closes off, the least step in colour between inside and
    # outside is 21.7 (Lab); drawn icons photographed on paper, 0-15 (99 % under 10.6). 0 turns it off.
    drawing_max_step: float = 12.0
    drawing_min_side: float = 0.35  # the closed-off face's side, in the reading's side (not the gaps of a 6)
    drawing_min_ink: float = 40.0  # how much darker (Lab L) the outline is than the face inside it
    drawing_light_ink: bool = True  # ... and light lines on dark paper, the same with lightness turned over
    # die-sized blobs of foreground as extra candidates for the learned check (see die_blobs)
    blob_candidates: bool = True
    blob_downscale: int = 4
    blob_kernel: int = 21
    blob_y_weight: float = 0.7
    blob_chroma_weight: float = 2.5
    blob_threshold: float = 30.0
    blob_min_side: float = 10.0
    blob_max_side: float = 90.0
    blob_max_dice: int = 30
    model_min_die: float = 0.5
    model_sure_die: float = 0.8
    nms_frac: float = 0.6
    # confidence below this makes the reading "unclear"
    min_confidence: float = 0.5

    @classmethod
    def load(cls, path: str | Path) -> "DiceConfig":
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            raise DiceVisionError(f"cannot read dice config {path}: {exc}") from exc
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise DiceVisionError(f"unknown dice config keys in {path}: {', '.join(sorted(unknown))}")
        data = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        default = cls()
        for k, v in data.items():  # a threshold of the wrong kind fails here, not inside a read
            if not _same_kind(getattr(default, k), v):
                raise DiceVisionError(f"dice config {path}: {k} should be like {getattr(default, k)!r}, not {v!r}")
        return replace(default, **data)

    def to_dict(self) -> dict:
        return asdict(self)


DEFAULT_CONFIG = DiceConfig()


def _same_kind(default, value) -> bool:
    """Whether a config file's ``value`` can stand for ``default``: a number for a number (an int where an
    int is asked), a flag for a flag, a string for a string, a list of numbers for a tuple of them."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, tuple):
        return isinstance(value, tuple) and all(_same_kind(0.0, x) for x in value)
    if isinstance(default, int):
        return isinstance(value, int)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


@dataclass(frozen=True)
class DiceReading:
    """One die seen in a frame: value (None unless flat), centre and outline in image pixels."""

    value: int | None
    centre: tuple[float, float]
    outline: tuple[tuple[float, float], ...]
    confidence: float
    status: Status
    size: float = 0.0  # side length in image pixels
    pips: tuple[tuple[float, float], ...] = field(default=(), repr=False)
    tilt: float = field(default=0.0, repr=False)  # the classifier's P(tilted | die); 0 where none looked
    heat: float = field(default=1.0, repr=False)  # the detector's heat on the find; 1 where no detector looked

    def to_json(self) -> dict:
        return {
            "value": self.value,
            "x": round(float(self.centre[0]), 1),
            "y": round(float(self.centre[1]), 1),
            "confidence": round(float(self.confidence), 3),
            "status": self.status,
        }


# ---------------------------------------------------------------------------------------------------
def check_frame(frame: object) -> np.ndarray:
    """The frame as a BGR uint8 array, or a DiceVisionError saying what is wrong with it."""
    if frame is None:
        raise DiceVisionError("no frame (None): the camera or file gave nothing")
    if not isinstance(frame, np.ndarray):
        raise DiceVisionError(f"a frame must be a numpy image, got {type(frame).__name__}")
    if frame.size == 0 or frame.ndim not in (2, 3) or min(frame.shape[:2]) < 8:
        raise DiceVisionError(f"empty or too small frame: shape {frame.shape}")
    if frame.ndim == 3 and frame.shape[2] not in (1, 3, 4):
        raise DiceVisionError(f"a frame needs 1, 3 or 4 channels, got shape {frame.shape}")
    if frame.dtype != np.uint8:
        if np.issubdtype(frame.dtype, np.floating) and np.nanmax(frame) <= 1.0:
            frame = frame * 255.0
        frame = np.clip(np.nan_to_num(frame), 0, 255).astype(np.uint8)
    if frame.ndim == 2 or frame.shape[2] == 1:
        frame = cv2.cvtColor(np.ascontiguousarray(frame.reshape(frame.shape[:2])), cv2.COLOR_GRAY2BGR)
    elif frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(frame)


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
            return [_rescale(r, sx, sy) for r in _read_dice(check_frame(sized), once)]
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
        readings = _classify(ycc, evidence, model, config)
    if scale < 1:
        readings = [_rescale(r, 1.0 / scale) for r in readings]
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


def is_line_drawing(frame: np.ndarray, reading: DiceReading, config: DiceConfig = DEFAULT_CONFIG) -> bool:
    """Is this "die" a printed one: a line drawing whose outline closes off paper of the colour around it?

    A die is a solid: its top face differs in colour from what it lies on, or, where it does not (a white
    die on a white table), its edge is shading and shadow, not a closed line. An icon of a die (printed on
    a score sheet, a box, a screen) is the one thing the networks cannot tell from a die seen from above,
    and they read most of them (2216 of 2430 drawn icons of 18-70 px). Dark lines and dots are found by a
    black-hat of half the die's side; the light region around the centre must be closed off by them
    within 1.1 sides, at least ``drawing_min_side`` of a side across (not the gap between a 6's pips), and
    of the colour outside it (``drawing_max_step``). Light lines on dark paper (``drawing_light_ink``) are
    the same drawing with lightness turned over."""
    side = float(reading.size) if reading.size > 0 else float(np.ptp(np.asarray(reading.outline)[:, 0]))
    if side < 4:
        return False
    r = int(math.ceil(1.1 * side)) + 2
    # whole-pixel centre: a copy of the frame's pixels, edges replicated (as crop_for_classifier cuts)
    crop = cv2.getRectSubPix(frame, (2 * r + 1, 2 * r + 1), tuple(float(int(c)) for c in reading.centre))
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    if _drawn_in_dark_ink(lab, r, side, config):
        return True
    if not config.drawing_light_ink:
        return False
    lab[..., 0] = 255.0 - lab[..., 0]
    return _drawn_in_dark_ink(lab, r, side, config)


def _drawn_in_dark_ink(lab: np.ndarray, r: int, side: float, config: DiceConfig) -> bool:
    """:func:`is_line_drawing` for dark lines on light paper, on the Lab crop ``lab`` (float) centred at
    (``r``, ``r``)."""
    k = max(3, int(round(0.5 * side)) | 1)
    ink = cv2.morphologyEx(lab[..., 0], cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    paper = (ink <= max(15.0, 0.2 * float(ink.max()))).astype(np.uint8)
    _, regions = cv2.connectedComponents(paper, connectivity=4)
    yy, xx = np.mgrid[:lab.shape[0], :lab.shape[1]]
    dist = np.hypot(xx - r, yy - r)
    labels, counts = np.unique(regions[(dist < 0.3 * side) & (paper > 0)], return_counts=True)
    if not len(labels):
        return False
    face = (regions == labels[np.argmax(counts)]).astype(np.uint8)
    ys, xs = np.nonzero(face)
    if xs.min() == 0 or ys.min() == 0 or xs.max() == lab.shape[1] - 1 or ys.max() == lab.shape[0] - 1:
        return False  # not closed off within 1.1 sides
    contours, _ = cv2.findContours(face, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    if math.sqrt(cv2.contourArea(outline)) < config.drawing_min_side * side:
        return False
    inside = np.zeros_like(face)
    cv2.drawContours(inside, [outline], -1, 1, -1)
    around = (dist > 0.9 * side) & (paper > 0) & (inside == 0)
    if around.sum() < 10:
        return False
    # ink: the dark line around the face, well darker than the paper (a black die on a black point is
    # closed off by its own dim edges, 10-20 darker than its face)
    reach = max(3, int(round(0.15 * side)) | 1)
    band = (cv2.dilate(inside, np.ones((reach, reach), np.uint8)) > 0) & (inside == 0) & (paper == 0)
    if band.sum() < 4:
        return False
    face_lab = np.median(lab[face > 0], axis=0)
    if face_lab[0] - float(np.median(lab[..., 0][band])) < config.drawing_min_ink:
        return False
    step = np.linalg.norm(face_lab - np.median(lab[around], axis=0))
    return bool(step < config.drawing_max_step)


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


def _classify(ycc: np.ndarray, evidence: list[GroupEvidence], model, config: DiceConfig) -> list[DiceReading]:
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


def _rescale(r: DiceReading, s: float, sy: float | None = None) -> DiceReading:
    """A reading of a resized frame in the original frame's pixels (``sy``: when rows scaled otherwise)."""
    sy = s if sy is None else sy
    return replace(
        r,
        centre=(r.centre[0] * s, r.centre[1] * sy),
        outline=tuple((x * s, y * sy) for x, y in r.outline),
        size=r.size * math.sqrt(s * sy),
        pips=tuple((x * s, y * sy) for x, y in r.pips),
    )


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
