"""How long calibration's stages take on a 1280x720 frame: markers, board finding, mapping, warping.

    python -m pytest benchmarks/bench_calibration.py --benchmark-enable
"""

from __future__ import annotations

import numpy as np
import pytest

from tablecompanion.calibration import calibrate_from_markers
from tablecompanion.calibration.drift import check_drift
from tablecompanion.calibration.find_board import find_board
from tablecompanion.calibration.synthetic import photograph


@pytest.fixture(scope="module")
def marker_frame():
    return photograph(style="classic", seed=3).image


@pytest.fixture(scope="module")
def plain_frame():
    return photograph(style="tournament", seed=4, markers=False).image


def test_calibrate_from_markers(benchmark, marker_frame):
    cal = benchmark(calibrate_from_markers, marker_frame)
    assert cal.reprojection_error_mm < 1.5


def test_find_board(benchmark, plain_frame):
    cal = benchmark.pedantic(find_board, args=(plain_frame,), rounds=3, iterations=1)
    assert cal is not None


def test_drift_check_with_markers(benchmark, marker_frame):
    cal = calibrate_from_markers(marker_frame)
    report = benchmark(check_drift, cal, marker_frame)
    assert report.status == "ok"


def test_image_to_board_1000_points(benchmark, marker_frame):
    cal = calibrate_from_markers(marker_frame)
    pts = np.random.default_rng(0).uniform(0, 700, (1000, 2))
    out = benchmark(cal.image_to_board, pts)
    assert out.shape == (1000, 2)


def test_warp_top_down(benchmark, marker_frame):
    cal = calibrate_from_markers(marker_frame)
    top = benchmark(cal.warp, marker_frame, 2.0)
    assert top.shape[:2] == (1100, 1660)
