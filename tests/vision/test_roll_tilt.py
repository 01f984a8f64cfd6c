"""Tilt evidence of the roll reader: a die resting tilted in open space (nothing to lean on) is never
accepted as a flat die with a value."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tablecompanion.vision.roll_reader import _FLAT_PIPS, _affine_fit, camera_from_homography


@pytest.mark.parametrize("value", [4, 5, 6])
def test_the_pip_squareness_fit_measures_a_tilt(value):
    """A flat face's pips fit with equal scales; tipped by 25 degrees, one scale is cos(25) of the other."""
    turn = math.radians(17)
    rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    flat = _FLAT_PIPS[value] @ rot.T + (3.0, 4.0)
    assert _affine_fit(flat, value)["aff_ratio"] == pytest.approx(1.0, abs=1e-6)
    squeeze = np.diag([1.0, math.cos(math.radians(25))])
    tilted = _FLAT_PIPS[value] @ rot.T @ squeeze + (3.0, 4.0)
    assert _affine_fit(tilted, value)["aff_ratio"] == pytest.approx(1 / math.cos(math.radians(25)), rel=1e-3)


def test_a_near_frontal_view_takes_the_focal_prior_not_a_noisy_estimate():
    """Straight above the board the homography says nothing about the focal length: noise in it must not
    give a camera four times too far (the side faces a flat die shows are predicted from it)."""
    f, w, h = 1100.0, 1280, 720
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    a = math.radians(5)  # nearly straight above
    R = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    t = np.array([-400.0, -200.0, 1000.0])
    G = K @ np.column_stack([R[:, 0], R[:, 1], t])  # board (x, y, 1) -> image
    rng = np.random.default_rng(0)
    for _ in range(20):  # a homography from marker corners found to a fraction of a pixel: 0.1 % noise
        noisy = G * (1 + rng.normal(0, 1e-3, (3, 3)))
        cam = camera_from_homography(np.linalg.inv(noisy), (w, h))
        assert not cam.estimated_focal and cam.focal_px == w
        assert 0.8 < -cam.centre_mm[2] / 1000.0 < 1.3
