"""Light matched by picture rows before frames are compared for motion: mains flicker's rolling bands are
no motion, a thing that moved still is."""

from __future__ import annotations

import numpy as np
import pytest

from tablecompanion.vision.row_light import RowLight


def _bands(h: int, w: int, depth: float, phase: float) -> np.ndarray:
    """A rolling shutter's rows under 100 Hz flicker: 2.5 bands down the picture."""
    rows = (np.arange(h) + 0.5) / h
    return np.repeat((1.0 + depth * np.cos(2 * np.pi * (phase + 2.5 * rows)))[:, None], w, axis=1)


def _scene(h: int = 90, w: int = 160) -> np.ndarray:
    rng = np.random.default_rng(3)
    base = np.full((h, w), 120.0)
    base[:, ::20] = 220.0  # light stripes (points, checkers)
    base[10:30, 40:70] = 40.0  # a dark pile
    return base + rng.normal(0.0, 2.0, (h, w))


def _rows(h: int = 90, w: int = 160) -> np.ndarray:
    return np.repeat(((np.arange(h, dtype=np.float32) + 0.5) / h)[:, None], w, axis=1)


def test_rolled_flicker_bands_are_matched_away():
    scene = _scene()
    a = np.clip(scene * _bands(90, 160, 0.06, 0.0), 0, 255).astype(np.uint8)
    b = np.clip(scene * _bands(90, 160, 0.06, 1 / 3), 0, 255).astype(np.uint8)
    raw = np.abs(b.astype(int) - a.astype(int))
    assert raw.mean() > 5.0  # unmatched, a still picture looks like motion
    matched = RowLight(_rows()).match(a, b)
    left = np.abs(b.astype(int) - matched.astype(int))
    assert left.mean() < 2.0 and (left > 18).mean() < 0.001


def test_a_moving_die_still_shows_through_the_matching():
    scene = _scene()
    a = np.clip(scene * _bands(90, 160, 0.06, 0.0), 0, 255).astype(np.uint8)
    moved = scene.copy()
    moved[50:58, 100:108] = 250.0  # a die come into view
    b = np.clip(moved * _bands(90, 160, 0.06, 2 / 3), 0, 255).astype(np.uint8)
    matched = RowLight(_rows()).match(a, b)
    changed = np.abs(b.astype(int) - matched.astype(int)) > 18
    assert changed[50:58, 100:108].mean() > 0.9
    assert changed.sum() < 64 + 20


def test_steady_light_leaves_the_earlier_frame_as_it_was():
    scene = np.clip(_scene(), 0, 255).astype(np.uint8)
    light = RowLight(_rows())
    assert light.match(scene, scene) is scene


def test_lab_lightness_is_matched_with_its_offset():
    """A light change scales Lab lightness plus 41 (8-bit): the offset matches dark and light alike."""
    rng = np.random.default_rng(0)
    L = rng.uniform(20, 240, (60, 80))
    brighter = (L + 41.0) * 1.05 - 41.0
    m = RowLight(np.repeat(((np.arange(60) + 0.5) / 60)[:, None], 80, axis=1), offset=41.0).match(
        np.clip(L, 0, 255).astype(np.uint8), np.clip(brighter, 0, 255).astype(np.uint8))
    assert np.abs(m.astype(float) - np.clip(brighter, 0, 255)).max() <= 2.0


def test_pictures_of_another_size_are_a_clear_error():
    with pytest.raises(ValueError, match="built for"):
        RowLight(_rows()).match(np.zeros((10, 10), np.uint8), np.zeros((10, 10), np.uint8))


@pytest.mark.parametrize("per_row", [True, False])
def test_the_scaled_picture_is_the_per_pixel_formula_and_each_call_its_own(per_row):
    """The scale worked out once per row (a picture scaled from the camera's) or per pixel (any rows map)
    gives ``(earlier + offset) * scale(row) - offset`` rounded, pixel for pixel, in colour too; and the work
    picture kept between calls never leaks into an earlier call's answer."""
    rng = np.random.default_rng(5)
    h, w = 48, 64
    rows = _rows(h, w) if per_row else rng.random((h, w)).astype(np.float32)
    light = RowLight(rows, bands=8, offset=0.0 if per_row else 41.0)
    scene = rng.integers(0, 256, (h, w, 3), np.uint8)
    later = np.clip(scene.astype(float) * (1.0 + 0.08 * rows)[..., None], 0, 255).astype(np.uint8)
    first = light.match(scene, later)
    gains = light.gains(scene, later)
    scale = np.interp(rows.ravel(), light._centres, gains).reshape(h, w)[..., None]
    expected = np.clip((scene.astype(np.float64) + light.offset) * scale - light.offset + 0.5, 0, 255).astype(np.uint8)
    assert first is not scene and np.array_equal(first, expected)
    kept = first.copy()
    light.match(later, scene)  # another call reuses the work picture
    assert np.array_equal(first, kept)
