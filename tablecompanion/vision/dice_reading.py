"""What the dice reader is told, what it says and what it refuses: its thresholds (:class:`DiceConfig`), one
die seen (:class:`DiceReading`), and the check every frame passes first (:func:`check_frame`).

Both of its readers (the networks in :mod:`tablecompanion.vision.dice`, pip counting in
:mod:`tablecompanion.vision.pip_count`) and the roll reader speak in these terms.
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


def rescale_reading(r: DiceReading, s: float, sy: float | None = None) -> DiceReading:
    """A reading of a resized frame in the original frame's pixels (``sy``: when rows scaled otherwise)."""
    sy = s if sy is None else sy
    return replace(
        r,
        centre=(r.centre[0] * s, r.centre[1] * sy),
        outline=tuple((x * s, y * sy) for x, y in r.outline),
        size=r.size * math.sqrt(s * sy),
        pips=tuple((x * s, y * sy) for x, y in r.pips),
    )
