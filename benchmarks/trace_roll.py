"""Where each throw's latency goes: the per-frame CPU round every throw of the demo footage.

    taskset -c 0 python benchmarks/trace_roll.py --turns 30 [--void] [--flicker 0.06] [--back 2]

One line per throw: the frame the truth says the dice came to rest (s), the frame and kind of the call that
belongs to it, its latency (as ``bench_roll.py`` measures it), the backlog when the last moving frame s - 1
arrived (how long after its arrival the frame before it was done; negative: the runner was idle), and the
CPU of each frame from s - back to the call (the read-ahead is the slow one after s). Two trees compare
throw by throw when run side by side, one per core: ``ROOT=/other/tree PYTHONPATH=/other/tree python
/other/tree/benchmarks/trace_roll.py ...`` (runs on this VM differ by 20-80 ms a throw).
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_roll  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=30, help="turns of the demo match (default 30)")
    ap.add_argument("--void", action="store_true", help="void throws in the footage (seed 1, a die cocked or "
                    "misplaced in half the throws, as test_roll_latency_with_void_throws)")
    ap.add_argument("--flicker", type=float, default=0.0, help="lamp flicker bands' depth (0-0.3)")
    ap.add_argument("--back", type=int, default=2, help="frames before s to show (default 2)")
    ap.add_argument("--live", action="store_true", help="as a live webcam with one frame of buffer delivers the "
                    "footage (bench_roll's buffer='newest': after a slow frame the newest one, the rest dropped)")
    args = ap.parse_args(argv)
    if args.flicker:
        from tablecompanion.sim import footage  # demo_runner imports it at call time: the footage gets bands

        footage.iter_match_frames = functools.partial(footage.iter_match_frames, flicker=args.flicker)
    kw = {"seed": 1, "inject": "cocked:0.25,misplaced:0.25"} if args.void else {}
    res = bench_roll.run_latency(args.turns, buffer="newest" if args.live else "queue", **kw)
    lat = res["latencies_ms"]
    print(f"throws {res['throws']}, read right {res['right']}, median {np.median(lat):.0f} ms, "
          f"max {max(lat):.0f} ms, whole runner {res['frames_per_s']:.1f} frames/s")
    index, cpu, done = res["frame_index"], res["frame_cpu_ms"], res["frame_done_s"]
    at = {k: i for i, k in enumerate(index)}
    called = {s: (call, kind, ms) for s, call, kind, ms in res["throws_called"]}
    for s, _truth in res["throws_seen"]:
        if s not in called:
            print(f"throw {s}: no call")
            continue
        call, kind, ms = called[s]
        i = at.get(s - 1)  # live: frame s - 1 may have been dropped, and then no backlog is shown
        backlog = (done[i - 1] - (s - 1) / bench_roll.FPS) * 1000.0 if i else 0.0
        frames = " ".join(f"{k}:{cpu[at[k]]:.0f}" for k in range(s - args.back, call + 1) if k in at)
        print(f"throw {s} -> {kind} at {call}: {ms:.0f} ms, backlog {backlog:.0f} ms; frame:ms {frames}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
