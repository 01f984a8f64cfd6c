"""Legal-play generation: our pure-Python engine side by side with the gnubg binding (native code).

Run: ``python -m pytest benchmarks/bench_legal_plays.py --benchmark-enable``.

Both sides get the 500 positions of ``../shared/data/rules/gnubg_legal_moves_dev.jsonl``; round 0
uses each case's own dice, round ``r`` turns every case's roll ``r`` places further through the 21
rolls, so each round is a fresh set of (position, roll) cases for both (the binding caches
evaluations of the positions it has seen and gets several times faster on repeats). Both sides
are timed on CPU time (``time.process_time``) because the machine is shared. The end-of-run
summary prints positions per second for each and the ratio ours / gnubg.

A second pair (group ``legal_plays_selfplay``) gives both sides, each round, 500 positions neither
has seen: positions of random self-play games from a seed used for that round only. These are
fuller boards than the dev file (which has many forced and no-move cases), so both rates are lower.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path

import pytest

from tablecompanion.rules import Position

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "rules" / "gnubg_legal_moves_dev.jsonl"
ROLLS = [(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)]
ROUNDS = 20  # at most 20 fresh rounds: 21 rolls
_RESULTS: dict[str, float] = {}


@pytest.fixture(scope="module")
def cases():
    if not DEV.exists():
        message = f"gnubg dev cases not found: {DEV}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    with DEV.open(encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    return [(Position.from_position_id(r["position_id"]), tuple(r["dice"])) for r in records]


def rounds_of(cases):
    """Round r: every case with its roll moved r places through the 21 rolls."""
    for r in itertools.count():
        yield [(pos, ROLLS[(ROLLS.index(dice) + r) % len(ROLLS)]) for pos, dice in cases]


def _per_second(benchmark, n_cases: int) -> float | None:
    stats = getattr(benchmark, "stats", None)
    if not stats:
        return None  # --benchmark-disable: the function ran once, untimed
    return n_cases / stats.stats.mean


@pytest.mark.benchmark(group="legal_plays", timer=time.process_time)
def test_ours(benchmark, cases, report):
    source = rounds_of(cases)

    def setup():
        return (next(source),), {}

    def run(batch):
        total = 0
        for pos, dice in batch:
            total += len(pos.legal_plays(dice))
        return total

    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)
    rate = _per_second(benchmark, len(cases))
    if rate:
        _RESULTS["ours"] = rate
        benchmark.extra_info["positions_per_s"] = round(rate)
        report("legal_plays", "tablecompanion.rules (positions/s)", rate)
    _ratio(report)


@pytest.mark.benchmark(group="legal_plays", timer=time.process_time)
def test_gnubg_binding(benchmark, cases, report):
    try:
        import gnubg
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("the gnubg binding (pip extra 'oracle') is required under CI")
        pytest.skip("gnubg binding not installed")
    cube, context = gnubg.cube_info(), gnubg.eval_context()
    source = rounds_of(cases)

    def setup():
        return ([((p.opponent, p.on_roll), dice) for p, dice in next(source)],), {}

    def run(batch):
        total = 0
        for board, dice in batch:
            total += len(gnubg.find_best_moves(board, cube, context, dice))
        return total

    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)
    rate = _per_second(benchmark, len(cases))
    if rate:
        _RESULTS["gnubg"] = rate
        benchmark.extra_info["positions_per_s"] = round(rate)
        report("legal_plays", "gnubg binding (positions/s)", rate)
    _ratio(report)


def _ratio(report, group: str = "legal_plays", prefix: str = "") -> None:
    ours, gnubg, ratio = prefix + "ours", prefix + "gnubg", prefix + "ratio"
    if ours in _RESULTS and gnubg in _RESULTS and ratio not in _RESULTS:
        _RESULTS[ratio] = _RESULTS[ours] / _RESULTS[gnubg]
        report(group, "ratio ours / gnubg", _RESULTS[ratio], "x")


SELFPLAY_CASES = 500


def selfplay_rounds(first_seed: int):
    """Round r: SELFPLAY_CASES (position, roll) pairs of random games seeded for round r only."""
    import random

    for r in itertools.count():
        rng = random.Random(first_seed + r)
        batch: list[tuple[Position, tuple[int, int]]] = []
        while len(batch) < SELFPLAY_CASES:
            pos = Position.initial()
            while not pos.winner() and len(batch) < SELFPLAY_CASES:
                dice = (rng.randint(1, 6), rng.randint(1, 6))
                batch.append((pos, dice))
                plays = pos.legal_plays(dice)
                pos = pos.apply(rng.choice(plays)) if plays else pos.swapped()
        yield batch


@pytest.mark.benchmark(group="legal_plays_selfplay", timer=time.process_time)
def test_ours_selfplay(benchmark, report):
    source = selfplay_rounds(10_000)

    def setup():
        return (next(source),), {}

    def run(batch):
        return sum(len(pos.legal_plays(dice)) for pos, dice in batch)

    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)
    rate = _per_second(benchmark, SELFPLAY_CASES)
    if rate:
        _RESULTS["selfplay_ours"] = rate
        benchmark.extra_info["positions_per_s"] = round(rate)
        report("legal_plays_selfplay", "tablecompanion.rules (positions/s)", rate)
    _ratio(report, "legal_plays_selfplay", "selfplay_")


@pytest.mark.benchmark(group="legal_plays_selfplay", timer=time.process_time)
def test_gnubg_binding_selfplay(benchmark, report):
    try:
        import gnubg
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("the gnubg binding (pip extra 'oracle') is required under CI")
        pytest.skip("gnubg binding not installed")
    cube, context = gnubg.cube_info(), gnubg.eval_context()
    source = selfplay_rounds(10_000)

    def setup():
        return ([((p.opponent, p.on_roll), dice) for p, dice in next(source)],), {}

    def run(batch):
        return sum(len(gnubg.find_best_moves(board, cube, context, dice)) for board, dice in batch)

    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, iterations=1)
    rate = _per_second(benchmark, SELFPLAY_CASES)
    if rate:
        _RESULTS["selfplay_gnubg"] = rate
        benchmark.extra_info["positions_per_s"] = round(rate)
        report("legal_plays_selfplay", "gnubg binding (positions/s)", rate)
    _ratio(report, "legal_plays_selfplay", "selfplay_")


def test_both_sides_count_the_same_plays(cases):
    """Not timed: the two generators agree on every case of the first two rounds."""
    try:
        import gnubg
    except ImportError:
        pytest.skip("gnubg binding not installed")
    cube, context = gnubg.cube_info(), gnubg.eval_context()
    for batch in itertools.islice(rounds_of(cases), 2):
        for pos, dice in batch:
            theirs = gnubg.find_best_moves((pos.opponent, pos.on_roll), cube, context, dice)
            assert len(pos.legal_plays(dice)) == len(theirs), (pos.position_id(), dice)
