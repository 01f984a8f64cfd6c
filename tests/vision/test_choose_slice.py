"""A train split's slice held back for choosing (``train-choose``) and the rest (``train-fit``): together the
split, never a photo in both, and the same photos for every tool that asks."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablecompanion.vision.dice import DiceVisionError
from tablecompanion.vision.dice_eval import CHOOSE_SHARE, in_choose_slice, load_labels

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from train_dice_net import load_split  # noqa: E402


def _labels(folder: Path, n: int, split: str = "train", photos: bool = False) -> Path:
    """A labelled set of n photos (one 3 each); with ``photos``, blank images written for them too."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    with (folder / "labels.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "die_values", "boxes", "notes"])
        for i in range(n):
            w.writerow([f"images/IMG_{i:04d}.jpg", "3", "10,10,40,40", f"split={split}"])
            if photos:
                cv2.imwrite(str(folder / f"images/IMG_{i:04d}.jpg"), np.full((60, 80, 3), 200, np.uint8))
    return folder


def test_fit_and_choose_split_the_train_photos_between_them(tmp_path):
    root = _labels(tmp_path / "toy", 400)
    everything = {lab.file for lab in load_labels(root, "train")}
    fit = {lab.file for lab in load_labels(root, "train-fit")}
    choose = {lab.file for lab in load_labels(root, "Train-Choose")}
    assert fit | choose == everything and not fit & choose
    assert abs(len(choose) / len(everything) - CHOOSE_SHARE) < 0.06
    assert load_labels(root, "test-choose") == []  # a slice of a split the set lacks is empty, not the train's


def test_a_photo_falls_in_the_slice_by_its_name_alone():
    """The trainer and the scorer agree with no list kept: the slice is a hash of the file name, wherever
    the photo lies."""
    names = [f"IMG_{i:04d}.jpg" for i in range(50)]
    assert [in_choose_slice(n) for n in names] == [in_choose_slice(f"images/sub/{n}") for n in names]
    assert 0 < sum(in_choose_slice(n) for n in names) < len(names)


def test_the_training_tools_leave_the_choose_slice_out(tmp_path):
    root = _labels(tmp_path / "toy", 40, photos=True)
    fit = load_split(f"{root}:train-fit", "none")
    choose = [lab.file for lab in load_labels(root, "train-choose")]
    assert choose and len(fit) + len(choose) == 40
    assert len(load_split(f"{root}:train", "none")) == 40


def test_an_unknown_slice_is_a_clear_error(tmp_path):
    root = _labels(tmp_path / "toy", 5)
    with pytest.raises(DiceVisionError, match="train-fit or train-choose"):
        load_labels(root, "train-half")
    exe = shutil.which("tablecompanion") or ""
    if not exe:
        pytest.skip("the tablecompanion command is not installed in this environment")
    done = subprocess.run([exe, "dice", "eval", str(root), "--split", "train-half"], capture_output=True, text=True)
    assert done.returncode == 2 and "train-fit or train-choose" in done.stderr and "Traceback" not in done.stderr
