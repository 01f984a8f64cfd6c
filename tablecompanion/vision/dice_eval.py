"""Score the dice reader on a labelled folder (``labels.csv``: file, die_values, boxes, notes).

Dice are matched to labels by centres, not boxes: one of the shared sets boxes the pips rather than
the die. A label and a reading match when the reading's centre lies within the label's match radius
(half the box's longer side, at least ``min_radius`` pixels) or the label's centre within half the
reading's side (a die seen at an angle: the reading covers its side faces too, and a 1's pip box is a
few pixels wide); matching is greedy, nearest first, one reading per label.
"""

from __future__ import annotations

import csv
import math
import re
import time
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from tablecompanion.vision.dice import (DiceConfig, DiceReading, DiceVisionError, annotate, annotation_dir, load_image,
                                        read_dice, read_dice_file)


@dataclass(frozen=True)
class LabelledImage:
    file: str
    values: tuple[int, ...]
    centres: tuple[tuple[float, float], ...]
    radii: tuple[float, ...]
    split: str


def split_of(notes: str) -> str:
    m = re.search(r"split=([A-Za-z]+)", notes or "")
    return m.group(1).lower() if m else ""


# A train split's slice held back for choosing between networks trained on the rest: once a network reads
# nearly all of the photos it learned from, they no longer tell a better one from it (docs/dice.md, "What fails").
CHOOSE_SHARE = 0.15
SLICES = ("fit", "choose")


def in_choose_slice(file: str) -> bool:
    """Whether a photo is in the held-back slice: by a hash of its name, so every tool and every run agree
    without a list to keep, and a photo added later falls where it falls."""
    return zlib.crc32(Path(file).name.encode("utf-8")) % 1000 < CHOOSE_SHARE * 1000


def split_wanted(row_split: str, file: str, wanted: str | None) -> bool:
    """Whether a labelled photo belongs to ``wanted``: a split named in the labels (train, test, valid, any case),
    or a slice of one, ``SPLIT-fit`` / ``SPLIT-choose`` (``train-fit``: the photos to train on, ``train-choose``:
    the ``CHOOSE_SHARE`` held back to choose on)."""
    if not wanted:
        return True
    split, _, part = wanted.lower().partition("-")
    if part and part not in SLICES:
        raise DiceVisionError(f"unknown slice {part!r} of split {split!r}: say {split}-fit or {split}-choose")
    if row_split != split:
        return False
    return not part or (part == "choose") == in_choose_slice(file)


def load_labels(dataset: str | Path, split: str | None = None, min_radius: float = 18.0) -> list[LabelledImage]:
    """The rows of ``labels.csv``, optionally only one split (train / test / valid, any case) or a slice of one
    (:func:`split_wanted`)."""
    root = Path(dataset)
    path = root / "labels.csv"
    if not path.is_file():
        raise DiceVisionError(f"no labels.csv in {root}")
    split_wanted("", "", split)  # a slice that does not exist is an error before any photo is read
    out = []
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            row_split = split_of(row.get("notes", ""))
            if not split_wanted(row_split, row["file"], split):
                continue
            values = tuple(int(v) for v in row["die_values"].split())
            boxes = [tuple(float(c) for c in b.split(",")) for b in row["boxes"].split(";") if b.strip()]
            if len(boxes) != len(values):
                raise DiceVisionError(f"{row['file']}: {len(values)} values but {len(boxes)} boxes")
            centres = tuple(((x1 + x2) / 2, (y1 + y2) / 2) for x1, y1, x2, y2 in boxes)
            radii = tuple(max(min_radius, 0.5 * max(x2 - x1, y2 - y1)) for x1, y1, x2, y2 in boxes)
            out.append(LabelledImage(row["file"], values, centres, radii, row_split))
    return out


def load_label_fixes(path: str | Path) -> dict[tuple[str, str], list[dict]]:
    """{(set folder name, file): [fix]} from a CSV (set, file, x, y, labelled, seen, side, note): a label the
    photo contradicts (``labelled`` -> ``seen``), or a die the labels leave out (``labelled`` empty, ``side``
    its size). ``tools/dice_label_fixes.csv`` is the list for the train splits, each fix looked at in the
    photo: the training tools learn from it, and the train splits are scored with it when a network trained
    on it is chosen (``dice eval --label-fixes``). The held-out figures are always the labels as given."""
    need = {"set", "file", "x", "y", "labelled", "seen", "side"}
    fixes: dict[tuple[str, str], list[dict]] = {}
    try:
        with Path(path).open(newline="") as fh:
            reader = csv.DictReader(fh)
            if not need <= set(reader.fieldnames or ()):
                raise DiceVisionError(f"{path}: a label-fix list needs the columns {', '.join(sorted(need))}")
            for n, row in enumerate(reader, start=2):
                try:
                    float(row["x"]), float(row["y"]), int(row["seen"])
                    int(row["labelled"]) if row["labelled"] else float(row["side"])
                except (TypeError, ValueError):
                    raise DiceVisionError(f"{path}, line {n}: x, y, seen and labelled (or side) must be numbers")
                fixes.setdefault((row["set"], row["file"]), []).append(row)
    except OSError as exc:
        raise DiceVisionError(f"cannot read label fixes {path}: {exc.strerror or exc}") from None
    return fixes


def label_fix_index(centres, radii, values, fix: dict, where: str) -> int:
    """The label a fix corrects: the one nearest where it says, which must lie within its radius and carry
    the value the fix says it was given; otherwise the list is out of date (an error). The training tools'
    label loader asks the same."""
    x, y = float(fix["x"]), float(fix["y"])
    if len(centres):
        i = min(range(len(centres)), key=lambda k: math.dist(centres[k], (x, y)))
        if math.dist(centres[i], (x, y)) <= radii[i] and int(values[i]) == int(fix["labelled"]):
            return i
    raise DiceVisionError(f"label fix for {where} at ({x:g}, {y:g}): no die labelled {fix['labelled']} there")


def fix_labels(labels: list[LabelledImage], fixes: dict[tuple[str, str], list[dict]], set_name: str,
               min_radius: float = 18.0) -> tuple[list[LabelledImage], int]:
    """``labels`` with the fixes for ``set_name`` applied, and how many applied. A fix on a photo that is
    loaded but finds no label of its value where it says is an error: the list is out of date."""
    out, applied = [], 0
    for lab in labels:
        todo = fixes.get((set_name, lab.file), [])
        values, centres, radii = list(lab.values), list(lab.centres), list(lab.radii)
        for f in todo:
            x, y, seen = float(f["x"]), float(f["y"]), int(f["seen"])
            if not f["labelled"]:
                values.append(seen)
                centres.append((x, y))
                radii.append(max(min_radius, 0.5 * float(f["side"])))
            else:
                values[label_fix_index(centres, radii, values, f, f"{set_name}/{lab.file}")] = seen
            applied += 1
        out.append(replace(lab, values=tuple(values), centres=tuple(centres), radii=tuple(radii)) if todo else lab)
    return out, applied


def match(label: LabelledImage, readings: list[DiceReading]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Greedy nearest-centre matching: (pairs label→reading, unmatched labels, unmatched readings)."""
    cands = []
    for i, (c, r) in enumerate(zip(label.centres, label.radii)):
        for j, rd in enumerate(readings):
            d = math.dist(c, rd.centre)
            if d <= max(r, 0.5 * rd.size):
                cands.append((d, i, j))
    cands.sort()
    used_l, used_r, pairs = set(), set(), []
    for _, i, j in cands:
        if i in used_l or j in used_r:
            continue
        used_l.add(i)
        used_r.add(j)
        pairs.append((i, j))
    misses = [i for i in range(len(label.values)) if i not in used_l]
    false = [j for j in range(len(readings)) if j not in used_r]
    return pairs, misses, false


@dataclass(frozen=True)
class DieFailure:
    """One die not read right: ``kind`` is "wrong value", "no value" (cocked or unclear), "missed" or
    "false die" (read where no die is labelled); (x, y) is the reading's centre, or the label's for a miss."""

    file: str
    kind: str
    x: float
    y: float
    labelled: int | None = None
    read: int | None = None
    status: str = ""
    confidence: float = 0.0

    def to_dict(self) -> dict:
        return {"file": self.file, "kind": self.kind, "x": round(self.x, 1), "y": round(self.y, 1),
                "labelled": self.labelled, "read": self.read, "status": self.status,
                "confidence": round(self.confidence, 3)}

    def format(self) -> str:
        where = f"{self.file} ({self.x:.0f}, {self.y:.0f})"
        if self.kind == "missed":
            return f"{where}: missed, labelled {self.labelled}"
        seen = f"read {self.read}" if self.read is not None else self.status
        if self.kind == "false die":
            return f"{where}: false die, {seen} ({self.confidence:.2f})"
        return f"{where}: labelled {self.labelled}, {seen} ({self.confidence:.2f})"


@dataclass
class EvalResult:
    images: int = 0
    dice: int = 0
    correct: int = 0  # matched, flat and right value
    wrong: int = 0  # matched, flat, wrong value
    not_flat: int = 0  # matched but called cocked/unclear (no value)
    misses: int = 0
    false_dice: int = 0
    exact_images: int = 0
    seconds: float = 0.0
    # confusion[true-1][pred]: pred 0 = no reading (miss or no value), 1..6 = value read
    confusion: list[list[int]] = field(default_factory=lambda: [[0] * 7 for _ in range(6)])
    failures: list[str] = field(default_factory=list)  # images that could not be read, and why
    # every die not read right: where, what the label says and what was read; the list a person tuning a
    # table goes through (and where a label the photo contradicts shows up)
    die_failures: list[DieFailure] = field(default_factory=list)
    labels_fixed: int = 0  # labels corrected or added by a label-fix list (``evaluate(label_fixes=...)``)

    def add(self, label: LabelledImage, readings: list[DiceReading]) -> list[DieFailure]:
        """One image's readings scored against its label (the time it took is added by the caller); the
        image's dice not read right."""
        pairs, misses, false = match(label, readings)
        self.images += 1
        self.dice += len(label.values)
        self.misses += len(misses)
        self.false_dice += len(false)
        found: list[DieFailure] = []
        for i in misses:
            self.confusion[label.values[i] - 1][0] += 1
            found.append(DieFailure(label.file, "missed", *label.centres[i], label.values[i]))
        for i, j in pairs:
            r = readings[j]
            true, got = label.values[i], r.value
            self.confusion[true - 1][got or 0] += 1
            if got == true:
                self.correct += 1
                continue
            if got is None:
                self.not_flat += 1
            else:
                self.wrong += 1
            found.append(DieFailure(label.file, "no value" if got is None else "wrong value", *r.centre, true,
                                    got, r.status, r.confidence))
        for j in false:
            r = readings[j]
            found.append(DieFailure(label.file, "false die", *r.centre, None, r.value, r.status, r.confidence))
        self.exact_images += not found
        self.die_failures += found
        return found

    @property
    def accuracy(self) -> float:
        return self.correct / self.dice if self.dice else 0.0

    @property
    def exact_rate(self) -> float:
        return self.exact_images / self.images if self.images else 0.0

    @property
    def fps(self) -> float:
        return self.images / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict:
        return {
            "images": self.images,
            "dice": self.dice,
            "per_die_accuracy": round(self.accuracy, 4),
            "correct": self.correct,
            "wrong_value": self.wrong,
            "no_value": self.not_flat,
            "misses": self.misses,
            "false_dice": self.false_dice,
            "exact_match_rate": round(self.exact_rate, 4),
            "frames_per_second": round(self.fps, 1),
            "confusion": self.confusion,
            "failures": self.failures,
            "die_failures": [f.to_dict() for f in self.die_failures],
            "labels_fixed": self.labels_fixed,
        }

    def format(self) -> str:
        lines = [
            f"images {self.images}, dice {self.dice}" + (f" ({self.labels_fixed} labels fixed)" if self.labels_fixed else ""),
            f"per-die value accuracy {100 * self.accuracy:.2f}% ({self.correct}/{self.dice})",
            f"wrong value {self.wrong}, no value (cocked/unclear) {self.not_flat}, misses {self.misses}, "
            f"false dice {self.false_dice}",
            f"per-image exact match {100 * self.exact_rate:.2f}% ({self.exact_images}/{self.images})",
            f"frames/s {self.fps:.1f} (whole read incl. file decode)",
            "confusion (rows = true value, columns = read: - 1 2 3 4 5 6)",
        ]
        for v, row in enumerate(self.confusion, start=1):
            lines.append(f"  {v}: " + " ".join(f"{n:4d}" for n in row))
        return "\n".join(lines)

    def format_failures(self) -> str:
        """One line per die not read right, and per image that could not be read."""
        return "\n".join([*(f.format() for f in self.die_failures), *self.failures])


MAX_SCALE = 8.0


def evaluate(
    dataset: str | Path,
    split: str | None = None,
    config: DiceConfig | None = None,
    limit: int | None = None,
    scale: float = 1.0,
    annotate_dir: str | Path | None = None,
    label_fixes: str | Path | None = None,
) -> EvalResult:
    """Read every labelled image of a folder and score the readings against the labels. ``scale`` resizes
    each photo (and its labels) first: the same dice seen by a closer or farther camera, or a phone photo
    at full size, which no labelled set here has. With ``annotate_dir``, each image with a die not read
    right is written there with the readings and the labels drawn on it (:func:`annotate_failures`). With
    ``label_fixes`` (a CSV, :func:`load_label_fixes`), the labels the list corrects are scored as corrected."""
    if not 0 < scale <= MAX_SCALE:  # (a 640-px photo at 8x is 5120 px; at 60x it took 4.4 GB)
        raise DiceVisionError(f"scale must be a positive number up to {MAX_SCALE:g}, not {scale}")
    root = Path(dataset)
    labels = load_labels(root, split)
    res = EvalResult()
    if label_fixes:
        labels, res.labels_fixed = fix_labels(labels, load_label_fixes(label_fixes), root.resolve().name)
    if limit:
        labels = labels[:limit]
    out_dir = annotation_dir(annotate_dir)
    for lab in labels:
        t0 = time.perf_counter()
        img = None
        try:
            img = load_image(root / lab.file)
            if scale != 1.0:
                img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
            readings = read_dice(img, config)
        except DiceVisionError as exc:
            res.failures.append(f"{lab.file}: {exc}")
            readings = []
        res.seconds += time.perf_counter() - t0
        label = scaled(lab, scale)
        failed = res.add(label, readings)
        if out_dir is not None and failed and img is not None:
            name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(Path(lab.file).with_suffix(""))) + "_failures.png"
            cv2.imwrite(str(out_dir / name), annotate_failures(img, label, readings, failed))
    return res


def annotate_failures(img: np.ndarray, label: LabelledImage, readings: list[DiceReading],
                      failed: list[DieFailure]) -> np.ndarray:
    """The image with every reading drawn (``dice.annotate``), each label's value in white beside its centre,
    and a red ring round each die not read right."""
    out = annotate(img, readings)
    for (x, y), r, v in zip(label.centres, label.radii, label.values):
        cv2.putText(out, str(v), (int(x + 0.5 * r), int(y + r)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, str(v), (int(x + 0.5 * r), int(y + r)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    size = max(label.radii, default=20.0)
    for f in failed:
        cv2.circle(out, (int(round(f.x)), int(round(f.y))), int(1.3 * size), (0, 0, 255), 2, cv2.LINE_AA)
    return out


def scaled(label: LabelledImage, scale: float) -> LabelledImage:
    """A label of a photo resized by ``scale``."""
    if scale == 1.0:
        return label
    return replace(label, centres=tuple((x * scale, y * scale) for x, y in label.centres),
                   radii=tuple(r * scale for r in label.radii))


def per_image(dataset: str | Path, split: str | None = None, config: DiceConfig | None = None):
    """Yield (label, readings, pairs, misses, false) per image, for looking at failures."""
    root = Path(dataset)
    for lab in load_labels(root, split):
        readings = read_dice_file(root / lab.file, config)
        yield (lab, readings, *match(lab, readings))


__all__ = ["DieFailure", "EvalResult", "LabelledImage", "annotate_failures", "evaluate", "fix_labels", "label_fix_index", "load_label_fixes", "load_labels", "match", "per_image", "scaled", "np"]
