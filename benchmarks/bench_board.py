"""Board reading speed: one read of a 1280x720 frame with a known calibration (target <= 30 ms, one core).

Run: ``taskset -c 0 python -m pytest benchmarks/bench_board.py --benchmark-enable --benchmark-only
--benchmark-timer=time.process_time`` (CPU time of one core; wall figures depend on the machine's load).
The frames are simulator renders of mid-game positions (checkers on most points, dice down, the cube);
the calibration is the camera's true one, as a saved profile would give; the pixel maps of the warp are
computed on the first read of a calibration, as a live camera pays them once.
"""

from __future__ import annotations

import cv2
import pytest

from tablecompanion.rules import Position
from tablecompanion.sim import Camera, Renderer, Scene
from tablecompanion.vision.board_eval import truth_calibration
from tablecompanion.vision.board_reader import read_board
from tablecompanion.vision.identify import identify_play

cv2.setNumThreads(1)
MIDGAME = "4HPwATDgc/ABMA"


def _frame(style: str, camera: str):
    renderer = Renderer(Camera.preset(camera, width=1280, height=720), style, "right", True)
    scene = Scene.from_position(MIDGAME, dice=(6, 3), style=style)
    img, _ = renderer.render(scene, seed=5)
    return img, truth_calibration(renderer), scene


@pytest.mark.parametrize("style,camera", [("tournament", "default"), ("classic", "tilted"), ("leather", "top")])
def test_read_board_1280x720(benchmark, report_median, style, camera):
    img, cal, scene = _frame(style, camera)
    read_board(img, cal)  # pixel maps for this calibration, once
    reading = benchmark(read_board, img, cal)
    got = {p: reading.checkers.points[p] for p in range(1, 25)}
    want = {p: (c if n else None, n) for p, (c, n) in enumerate(scene.points, start=1)}
    assert got == want
    report_median("board", f"read {style}/{camera} median")


def test_read_board_live_path_1280x720(benchmark, report_median):
    """What the BoardWatcher pays per clear frame: the read without the single-picture arm check (the watcher
    tells arms from the bare board over time)."""
    from dataclasses import replace

    from tablecompanion.vision.checkers import DEFAULT_CONFIG

    img, cal, scene = _frame("tournament", "default")
    config = replace(DEFAULT_CONFIG, check_arms=False)
    read_board(img, cal, config)
    reading = benchmark(read_board, img, cal, config)
    assert reading.checkers.points[6] == ("light", 5) or scene.points[5] != ("light", 5)
    report_median("board", "read, watcher path (no arm check) median")


def test_identify_play_after_a_read(benchmark):
    """What the referee adds once a stable reading is in: matching it against every legal play."""
    img, cal, _ = _frame("tournament", "default")
    position = Position.from_position_id(MIDGAME)
    reading = read_board(img, cal)
    seen = reading.observation("light", "bottom")
    # the board shows the position itself: with a roll of 6-3 every legal result is compared with it
    found = benchmark(identify_play, position, (6, 3), seen)
    assert found.verdict == "unchanged"
