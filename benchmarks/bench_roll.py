"""Roll-settled latency and per-frame cost of the board-aware roll pipeline on simulator footage.

Run: ``taskset -c 0 python -m pytest benchmarks/bench_roll.py --benchmark-enable --benchmark-only -s``
(one core). Footage: the first turns of the demo match (``../shared/data/matches/Magic_-_Lasse_5pt*``),
1280x720 at 30 fps, played through the product itself: ``referee.runner.demo_runner`` (a ``Referee``,
the ``TableRunner`` with its ``CameraPipeline``, calibration from the first frame's markers, and the
demo's operator entering the plays the camera does not read), so nothing of the runner's per-frame
logic is copied here.

Latency of a throw = from the moment the last frame in which the dice move (the truth's
``roll_settled`` frame - 1) is captured to the moment the runner has turned the frame that produced
the roll observation into a referee decision. Frames arrive every 1/30 s; each is processed when it
has arrived and the one before it is done, taking the CPU time its ``CameraPipeline.feed`` and the
referee's ``observe`` of what it produced really took (a slow read delays the frames queued behind
it). ``test_roll_latency_live_camera`` plays the same turns as a live webcam with one frame
of buffer delivers them: after a slow frame the runner gets the newest one. Targets: <= 250 ms; >= 60 frames/s.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
import pytest

cv2.setNumThreads(1)
MATCHES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "matches"
FPS = 30.0
TURNS = 6


def _mat() -> Path:
    found = sorted(MATCHES.glob("Magic_-_Lasse_5pt*.mat"))
    if not found:
        pytest.skip(f"demo match not found: {MATCHES}/Magic_-_Lasse_5pt*.mat")
    return found[0]


def _footage(turns: int = TURNS):
    from tablecompanion.sim.footage import iter_match_frames

    return list(iter_match_frames(_mat(), seed=0, fps=FPS, max_turns=turns))


def _referee():
    from tablecompanion.referee.matplay import settings_for
    from tablecompanion.referee.referee import Referee
    from tablecompanion.rules.matfile import parse_mat

    return Referee("bench", settings_for(parse_mat(_mat().read_text(encoding="utf-8", errors="replace"))))


def run_latency(turns: int = TURNS, fps: float = FPS, *, seed: int = 0, inject: str | None = None,
                buffer: str = "queue") -> dict:
    """Play the demo match's first ``turns`` turns through the table runner; latency per throw (ms).
    ``inject``: void throws and illegal plays in the footage (``sim.footage.parse_inject``).

    ``buffer``: "queue" processes every frame, each once it has arrived and the one before is done (a slow
    read delays every frame queued behind it); "newest" is a live camera opened with one
    frame of buffer (``CameraConfig.buffer_frames``, what the runner asks a V4L2 webcam for): when the runner
    is free again it gets the newest frame, and the frames that came while it was busy are never seen."""
    from tablecompanion.referee.runner import demo_runner

    if buffer not in ("queue", "newest"):
        raise ValueError(f"buffer must be 'queue' or 'newest', got {buffer!r}")
    runner = demo_runner(_referee(), _mat(), realtime=False, max_turns=turns, seed=seed, inject=inject, fps=fps)
    truths: list[dict] = []
    cpu: list[float] = []  # per frame processed: CPU of the pipeline and of the referee's decisions on its output
    done: list[float] = []  # ... and when it was done (s from the first frame's arrival)
    index: list[int] = []  # ... and which frame of the footage it was
    calls: list[tuple[int, str, object]] = []  # (frame processed, observation type, dice or reason)
    source = runner.frames

    def settle() -> None:  # the last frame handed out is done (its observations decided): when
        if len(done) < len(cpu):
            done.append(max(done[-1] if done else 0.0, index[-1] / fps) + cpu[-1])

    def frames():
        for k, (image, truth) in enumerate(source):  # rendering happens here, outside the measured work
            truths.append(truth)
            settle()
            if buffer == "newest" and done and (k + 1) / fps <= done[-1]:
                # the next frame has arrived before the runner is free: this one is overwritten. The demo's
                # operator watches the table, not the camera's frames: what it enters it enters all the same
                if runner.on_frame is not None:
                    runner.on_frame(image, truth)
                continue
            index.append(k)
            yield image, truth
        settle()

    runner.frames = frames()
    feed, observe = runner.pipeline.feed, runner._observe

    def timed_feed(image, t=None):
        t0 = time.process_time()
        try:
            return feed(image, t)
        finally:
            cpu.append(time.process_time() - t0)

    def timed_observe(obs):
        t0 = time.process_time()
        try:
            return observe(obs)
        finally:
            cpu[-1] += time.process_time() - t0
            if isinstance(obs, dict) and obs.get("type") in ("roll", "roll_void"):
                calls.append((len(cpu) - 1, obs["type"], obs.get("dice") or obs.get("reason")))

    runner.pipeline.feed, runner._observe = timed_feed, timed_observe
    runner.run()
    settle()
    throws = [(i, e) for i, t in enumerate(truths) for e in (t.get("events") or ())
              if e.get("type") == "roll_settled"]
    lat, right, called = [], 0, []
    for s, e in throws:
        after = [(i, typ, what) for i, typ, what in calls if index[i] >= s - 1]
        if after and index[after[0][0]] - s < fps:  # the call that belongs to this throw (within a second)
            i, typ, what = after[0]
            lat.append((done[i] - (s - 1) / fps) * 1000.0)
            called.append((s, index[i], typ, lat[-1]))
            ok = typ == ("roll" if e.get("valid") else "roll_void")
            right += ok and (typ == "roll_void" or sorted(what) == sorted(e.get("dice") or ()))
    return {"throws": len(throws), "calls": len(calls), "right": right, "latencies_ms": lat,
            "frames": len(truths), "frames_processed": len(cpu), "frames_per_s": len(cpu) / max(sum(cpu), 1e-9),
            "calls_seen": [(index[i], typ, what) for i, typ, what in calls],
            "frame_index": index, "frame_cpu_ms": [c * 1000.0 for c in cpu], "frame_done_s": done,
            "throws_seen": [(s, {k: v for k, v in e.items() if k != "type"}) for s, e in throws],
            "throws_called": called,  # (throw's rest frame, frame of its call, call type, latency ms) per throw called
            "tally": runner.operator.tally.summary()}


def _report_latency(benchmark, report, label: str, res: dict, throws: int) -> None:
    """Check that most of at least ``throws`` throws got a call, and report the calls and their latency."""
    lat = res["latencies_ms"]
    assert res["throws"] >= throws and len(lat) >= 0.8 * res["throws"], res
    report(label, "throws / roll calls matched", len(lat), f"of {res['throws']}")
    report(label, "throws read right (value or void)", res["right"], f"of {res['throws']}")
    report(label, "latency median (last moving frame -> decision)", float(np.median(lat)), "ms")
    report(label, "latency max", float(np.max(lat)), "ms")
    benchmark.extra_info.update(latency_ms=[round(v, 1) for v in lat], calls=res["calls_seen"])


def test_roll_settled_latency_on_footage(benchmark, report):
    res = benchmark.pedantic(run_latency, rounds=1, iterations=1)
    _report_latency(benchmark, report, "roll", res, TURNS)
    report("roll", "whole runner per frame (all frames)", res["frames_per_s"], "frames/s")


def test_roll_latency_with_void_throws(benchmark, report):
    """The same with void throws in the footage (a die cocked or misplaced in half the throws): a void call is
    a roll event too, and a void throw's dice often still lie in the next throw's reference."""
    res = benchmark.pedantic(run_latency, kwargs={"turns": 10, "seed": 1, "inject": "cocked:0.25,misplaced:0.25"},
                             rounds=1, iterations=1)
    _report_latency(benchmark, report, "roll+voids", res, 10)


def test_roll_latency_live_camera(benchmark, report):
    """The 6 turns again as a live webcam delivers them: one frame of buffer, so after a slow frame the runner
    gets the newest frame and the ones in between are dropped instead of queued (``buffer="newest"``)."""
    res = benchmark.pedantic(run_latency, kwargs={"buffer": "newest"}, rounds=1, iterations=1)
    _report_latency(benchmark, report, "roll live", res, TURNS)
    report("roll live", "frames processed", res["frames_processed"], f"of {res['frames']}")


def test_per_frame_cost_1280x720(benchmark, report_median):
    """What every frame costs while the dice move: the runner's ``CameraPipeline.feed`` (the roll watcher's
    motion measure at 640 px, and the board watcher the runner feeds every frame), calibrated from the
    first frame as the demo is."""
    from tablecompanion.referee.runner import CameraPipeline

    frames = _footage(1)
    pipe = CameraPipeline(_referee(), calibrate_first_frame=True)
    moving = [img for img, t in frames if t.get("phase") == "rolling"] or [img for img, _ in frames[:30]]
    pipe.feed(frames[0][0], 0.0)
    assert pipe.locator is not None, "no calibration from the first frame"
    state = {"i": 0}

    def step():
        i = state["i"] = state["i"] + 1
        pipe.feed(moving[i % len(moving)], i / FPS)

    benchmark(step)
    report_median("roll", "per-frame pipeline while dice move", rate_unit="frames/s")


def test_read_of_a_settled_roll(benchmark, report_median):
    """The read done once per settled roll: change mask, top-plane crops, both readers, judgement."""
    from tablecompanion.calibration import calibrate_from_markers
    from tablecompanion.rules.position import Position
    from tablecompanion.sim import Camera, Die, Scene, render_frame
    from tablecompanion.vision.roll_reader import RollReader

    base = Scene.from_position(Position.initial(), dice=())
    scene = Scene.from_position(Position.initial(), dice=(Die(6, pose_seed=1), Die(3, pose_seed=2)))
    ref, _ = render_frame(base, Camera(), seed=1)
    img, truth = render_frame(scene, Camera(), seed=2)
    reader = RollReader(calibrate_from_markers(ref))
    reader.set_reference(ref)
    rr = benchmark(reader.read, img)
    assert rr.verdict == "valid" and sorted(rr.values) == [3, 6]
    report_median("roll", "one settled-roll read")
