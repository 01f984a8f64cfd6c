"""The label fixes the training tools apply (tools/dice_label_fixes.csv): each must still find its label, and
none may touch a held-out photo, or a network would learn from the photos it is scored on."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablecompanion.vision.dice_eval import split_of

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "dice"
sys.path.insert(0, str(ROOT / "tools"))

from train_dice_net import LABEL_FIXES, load_label_fixes, load_split  # noqa: E402


def _write_set(folder: Path, rows: list[tuple[str, str, str]]) -> Path:
    """A labelled set of blank photos: (file, values, boxes) rows, all split=train."""
    (folder / "images").mkdir(parents=True)
    with (folder / "labels.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "die_values", "boxes", "notes"])
        for file, values, boxes in rows:
            cv2.imwrite(str(folder / file), np.full((120, 160, 3), 200, np.uint8))
            w.writerow([file, values, boxes, "split=train; boxes=die top face"])
    return folder


def _write_fixes(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["set", "file", "x", "y", "labelled", "seen", "side", "note"])
        w.writerows(rows)
    return path


def test_a_fix_changes_its_value_and_adds_an_unlabelled_die(tmp_path):
    root = _write_set(tmp_path / "toy", [("images/a.jpg", "2 5", "10,10,40,40;100,50,130,80"),
                                         ("images/b.jpg", "6", "20,20,50,50")])
    fixes = _write_fixes(tmp_path / "fixes.csv", [["toy", "images/a.jpg", "26", "24", "2", "3", "", "a 3"],
                                                  ["toy", "images/a.jpg", "70", "90", "", "4", "28", "left out"]])
    (_, a), (_, b) = load_split(f"{root}:train", fixes)
    assert sorted(a[:, 3].tolist()) == [3, 4, 5]  # the 2 is now a 3, and the 4 is added
    added = a[a[:, 3] == 4][0]
    assert added[:3].tolist() == [70, 90, 28]
    assert b[:, 3].tolist() == [6]  # a photo no fix names is as labelled
    (_, a0), _ = load_split(f"{root}:train", "none")
    assert sorted(a0[:, 3].tolist()) == [2, 5]


@pytest.mark.parametrize("where, labelled", [("26,24", "4"), ("80,100", "2")])
def test_a_stale_fix_stops_the_run(tmp_path, where, labelled):
    """A fix whose label has another value, or that finds no label where it says, is a list out of date."""
    root = _write_set(tmp_path / "toy", [("images/a.jpg", "2", "10,10,40,40")])
    x, y = where.split(",")
    fixes = _write_fixes(tmp_path / "fixes.csv", [["toy", "images/a.jpg", x, y, labelled, "3", "", ""]])
    with pytest.raises(SystemExit, match="no die labelled"):
        load_split(f"{root}:train", fixes)


def test_the_shipped_fixes_touch_train_photos_only_and_still_apply():
    fixes = load_label_fixes(LABEL_FIXES)
    assert fixes, "the list is empty"
    for name in {s for s, _ in fixes}:
        if not (DATA / name / "labels.csv").exists():
            pytest.skip(f"shared dice photos not found: {DATA / name}")
        with (DATA / name / "labels.csv").open(newline="") as fh:
            notes = {row["file"]: row["notes"] for row in csv.DictReader(fh)}
        for (s, file), rows in fixes.items():
            if s != name:
                continue
            assert file in notes, f"{name}/{file} is not in its labels"
            assert split_of(notes[file]) == "train", f"{name}/{file}: a fix on a held-out photo"
        fixed = load_split(f"{DATA / name}:train")  # SystemExit if a fix no longer finds its label
        plain = load_split(f"{DATA / name}:train", "none")
        added = sum(1 for rows in fixes.values() for r in rows if not r["labelled"] and r["set"] == name)
        changed = sum(1 for rows in fixes.values() for r in rows if r["labelled"] and r["set"] == name)
        assert sum(len(d) for _, d in fixed) == sum(len(d) for _, d in plain) + added
        differ = sum(int((d[: len(p)][:, 3] != p[:, 3]).sum()) for (_, d), (_, p) in zip(fixed, plain))
        assert differ == changed
