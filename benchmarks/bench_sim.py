"""Simulator speed at 1280x720 on one core: per-frame costs and a match segment against real time.

Run: ``python -m pytest benchmarks/bench_sim.py --benchmark-enable --benchmark-only`` (one core:
prefix with ``taskset -c 0``). The match benchmark puts frames/s and the real-time factor (seconds of
footage rendered per second) in ``extra_info``; ``python benchmarks/bench_sim.py [TURNS]`` prints them.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import pytest

from tablecompanion.rules.position import Position
from tablecompanion.sim import Camera, Die, Hand, Renderer, Scene
from tablecompanion.sim.footage import iter_match_frames, script_match

cv2.setNumThreads(1)
MATCHES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "matches"
FPS = 30.0


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    r = Renderer(Camera())
    return r


def _settled(r: Renderer) -> Scene:
    return Scene.from_position(Position.initial(), dice=(Die(6, pose_seed=1), Die(3, pose_seed=2)))


def test_settled_dice_frame_raw(benchmark, renderer):
    """The most common frame: board, checkers and dice at rest (static layer cached), noise, no JPEG."""
    scene = _settled(renderer)
    renderer.render(scene, 0)
    seeds = iter(range(10**9))
    benchmark(lambda: renderer.render(scene, next(seeds), encode=False))


def test_settled_dice_frame_with_jpeg(benchmark, renderer):
    """As the camera delivers it: with the JPEG round trip (encode + decode)."""
    scene = _settled(renderer)
    renderer.render(scene, 0)
    seeds = iter(range(10**9))
    benchmark(lambda: renderer.render(scene, next(seeds)))


def test_hand_carrying_a_checker_frame(benchmark, renderer):
    """A hand carrying a checker: the costliest frequent frame."""
    scene = _settled(renderer).replace(hands=(Hand("bottom", 560, 380, holding="light"),))
    renderer.render(scene, 0)
    seeds = iter(range(10**9))
    benchmark(lambda: renderer.render(scene, next(seeds), encode=False))


def test_static_layer_rebuild(benchmark, renderer):
    """Paid when checkers move (a few times per turn): board, 30 checkers, shadows, lighting, blur."""
    scene = _settled(renderer)

    def rebuild():
        renderer._layer_key = None
        renderer.static_layer(scene)

    benchmark(rebuild)


def _match_segment(turns: int):
    files = sorted(MATCHES.glob("*.mat")) if MATCHES.is_dir() else []
    if not files:
        pytest.skip(f"match files not found: {MATCHES}")
    script = script_match(files[0])
    start = time.perf_counter()
    cpu = time.process_time()
    n = 0
    for img, _ in iter_match_frames(files[0], seed=0, fps=FPS, max_turns=turns, script=script, encode=False):
        cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 88])  # what render_match writes
        n += 1
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    return n, wall, cpu


def test_match_segment_against_real_time(benchmark):
    """Eight recorded actions of a real match, frames JPEG-encoded as render_match writes them."""
    result = {}

    def run():
        result["n"], result["wall"], result["cpu"] = _match_segment(8)

    benchmark.pedantic(run, rounds=1, iterations=1)
    n, wall, cpu = result["n"], result["wall"], result["cpu"]
    benchmark.extra_info.update(
        frames=n, footage_s=n / FPS, wall_s=round(wall, 2), cpu_s=round(cpu, 2),
        frames_per_s_wall=round(n / wall, 1), frames_per_s_cpu=round(n / cpu, 1),
        realtime_factor_cpu=round(n / FPS / cpu, 2),
    )


if __name__ == "__main__":
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    n, wall, cpu = _match_segment(turns)
    print(f"{n} frames = {n / FPS:.1f} s of footage; wall {wall:.1f} s ({n / wall:.1f} frames/s), "
          f"cpu {cpu:.1f} s ({n / cpu:.1f} frames/s): {n / FPS / cpu:.2f}x real time on one core")
