"""Referee and record speed: an action recorded durably, a snapshot, a whole match resumed from the record.

Run: ``python -m pytest benchmarks/bench_record.py --benchmark-enable``. Uses a real 7-point match from
``../shared/data/matches`` (skipped when absent).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecompanion.referee import Hall, Referee
from tablecompanion.referee.matplay import mat_actions, settings_for

MAT = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "matches"
       / "Llabba_-_Kabrus_7pt_Backgammon_Studio_2023_08_03_08_26_12.mat")


@pytest.fixture(scope="module")
def match():
    if not MAT.exists():
        pytest.skip(f"match file not found: {MAT}")
    text = MAT.read_text(encoding="utf-8", errors="replace")
    return text, mat_actions(text)


def test_act_in_memory(benchmark, match):
    """Every action of a whole match, no record: the referee's own cost per action."""
    text, actions = match

    def run():
        ref = Referee("1", settings_for(text))
        for a in actions:
            ref.act(a)

    benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info["actions"] = len(actions)


def test_act_recorded(benchmark, match, tmp_path_factory):
    """Every action of a whole match written durably (WAL, synchronous=FULL) before it takes effect."""
    text, actions = match
    counter = iter(range(1000))

    def run():
        hall = Hall(tmp_path_factory.mktemp(f"rec{next(counter)}"))
        ref, _ = hall.create_table(settings_for(text))
        for a in actions:
            ref.act(a)
        hall.close()

    benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info["actions"] = len(actions)


def test_resume_whole_match(benchmark, match, tmp_path):
    """A server restart: open the record and replay every event of a finished 7-point match."""
    text, actions = match
    hall = Hall(tmp_path)
    ref, _ = hall.create_table(settings_for(text))
    for a in actions:
        ref.act(a)
    hall.close()

    def resume():
        h = Hall(tmp_path)
        assert h.get("1").snapshot()["status"] == "match_over"
        h.close()

    benchmark.pedantic(resume, rounds=3, iterations=1)


def test_snapshot_late_in_a_match(benchmark, match):
    """The snapshot the dashboard sends on every change, with a long history."""
    text, actions = match
    ref = Referee("1", settings_for(text))
    for a in actions[: len(actions) - 5]:
        ref.act(a)
    benchmark(ref.snapshot)
