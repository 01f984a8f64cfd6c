"""The value reader's training augmentations keep a label true: a faded pip is fainter, never gone."""

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from train_dice_val import add_fade  # noqa: E402


def _dark_three(n: int = 72, side: float = 40.0) -> np.ndarray:
    """A black 3 with white pips on a grey table, the die centred."""
    cam = np.full((n, n, 3), 128, np.uint8)
    h = int(side / 2)
    cam[n // 2 - h:n // 2 + h, n // 2 - h:n // 2 + h] = 30
    for k in (-1, 0, 1):
        cv2.circle(cam, (int(n / 2 + k * side * 0.28), int(n / 2 + k * side * 0.28)), 4, (230, 230, 230), -1)
    return cam


@pytest.mark.parametrize("seed", range(20))
def test_a_fade_moves_pixels_part_way_toward_the_face_and_no_further(seed):
    cam = _dark_three()
    out = add_fade(cam, 40.0, np.random.default_rng(seed))
    before, after = cam.astype(np.float32), out.astype(np.float32)
    face = 30.0
    # never past the face colour, and at most 0.7 of the way there (+1 for rounding)
    assert np.all(np.abs(after - face) <= np.abs(before - face) + 1)
    assert np.all(np.abs(before - after) <= 0.7 * np.abs(before - face) + 1)


def test_a_fade_changes_the_face_somewhere():
    cam = _dark_three()
    changed = [not np.array_equal(add_fade(cam, 40.0, np.random.default_rng(s)), cam) for s in range(20)]
    assert sum(changed) >= 15
