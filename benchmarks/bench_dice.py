"""Dice vision speed: per-frame watcher cost at 1280x720, a full dice read, roll-event latency.

Run: ``python -m pytest benchmarks/bench_dice.py --benchmark-enable --benchmark-only`` (one core:
prefix with ``taskset -c 0``). Latency is measured in frames on drawn sequences (not a timing).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from dataclasses import replace

from tablecompanion.vision.dice import DEFAULT_CONFIG, read_dice
from tablecompanion.vision.dice_synth import DieSpec, draw_die, table
from tablecompanion.vision.settle import RollSettled, RollWatcher

cv2.setNumThreads(1)
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "dice"
FPS = 30.0


def _frames():
    bg = table(seed=5)
    frames = []
    for k in range(12):
        img = bg.copy()
        draw_die(img, DieSpec(6, 200 + 45 * k, 150 + 25 * k, 44, 30 * k))
        draw_die(img, DieSpec(3, 260 + 50 * k, 200 + 20 * k, 44, 45 * k))
        frames.append(img)
    rest = frames[-1]
    return bg, frames, rest


def test_watcher_per_frame_1280x720(benchmark):
    """The cost paid on every camera frame while dice move (motion measure only)."""
    bg, moving, _ = _frames()
    w = RollWatcher()
    w.feed(bg, 0.0, 0)
    state = {"i": 0}

    def step():
        i = state["i"] = state["i"] + 1
        w.feed(moving[i % len(moving)], i / FPS, i)

    benchmark(step)


def test_read_dice_1280x720(benchmark):
    """The read done once per settled roll (the shipped network, both scales)."""
    _, _, rest = _frames()
    readings = benchmark(read_dice, rest)
    assert sorted(r.value for r in readings) == [3, 6]


def test_read_dice_1280x720_pips(benchmark):
    """The pip-counting fallback (no network)."""
    _, _, rest = _frames()
    readings = benchmark(read_dice, rest, replace(DEFAULT_CONFIG, model="pips"))
    assert sorted(r.value for r in readings) == [3, 6]


def test_read_dice_photo_640(benchmark):
    path = DATA / "matteo" / "images" / "valid_73.jpg"
    if not path.is_file():
        pytest.skip(f"shared dice photos not found: {path}")
    img = cv2.imread(str(path))
    benchmark(read_dice, img)


def test_roll_latency_frames():
    """Frames from the last moving frame to the roll event, at 30 fps (report, and keep <= 250 ms)."""
    bg, moving, rest = _frames()
    w = RollWatcher()
    frames = [bg] * 5 + moving + [rest] * 15
    last_moving = 5 + len(moving) - 1
    for i, f in enumerate(frames):
        events = [e for e in w.feed(f, i / FPS, i) if isinstance(e, RollSettled)]
        if events:
            latency_ms = (events[0].frame_index - last_moving) / FPS * 1000
            print(f"roll event {events[0].frame_index - last_moving} frames = {latency_ms:.0f} ms after the last moving frame")
            assert latency_ms <= 250
            return
    pytest.fail("no roll event")


def test_read_dice_photo_640_without_sizing(benchmark):
    """What the big-dice sizing step costs a photo whose dice are not big (the quarter-size pass only)."""
    path = DATA / "matteo" / "images" / "valid_73.jpg"
    if not path.is_file():
        pytest.skip(f"shared dice photos not found: {path}")
    img = cv2.imread(str(path))
    benchmark(read_dice, img, replace(DEFAULT_CONFIG, big_die=0.0))


def test_read_dice_photo_twice_its_size(benchmark):
    """A photo whose dice are about 130 px (matteo's at 2x): sized, then read on the shrunk frame."""
    path = DATA / "matteo" / "images" / "valid_73.jpg"
    if not path.is_file():
        pytest.skip(f"shared dice photos not found: {path}")
    img = cv2.imread(str(path))
    big = cv2.resize(img, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    benchmark(read_dice, big)


def _far_camera_frame():
    """A 1280x720 frame of small dice: a byler photo at half its size (dice of 15-25 px) on a plain frame."""
    path = DATA / "byler" / "images" / "IMG_20191209_095915.jpg"
    if not path.is_file():
        pytest.skip(f"shared dice photos not found: {path}")
    small = cv2.resize(cv2.imread(str(path)), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    frame = cv2.copyMakeBorder(small, 100, 720 - 100 - small.shape[0], 500, 1280 - 500 - small.shape[1],
                               cv2.BORDER_CONSTANT, value=(200, 200, 200))
    return frame


def test_read_dice_far_camera_1280x720(benchmark):
    """Small dice in a camera frame: enlarged twice (to 2560x1440) before the read."""
    benchmark(read_dice, _far_camera_frame())


def test_read_dice_far_camera_1280x720_not_enlarged(benchmark):
    """The same frame read at its own size (``small_die_max_size`` 1280): what the enlarging costs."""
    benchmark(read_dice, _far_camera_frame(), replace(DEFAULT_CONFIG, small_die_max_size=1280))
