"""Shared helpers of the benchmarks: a place for figures that compare two benchmarks of one run.

A benchmark stores ``(group, label, value, unit)`` rows with :func:`report`; they are printed at
the end of the session, after pytest-benchmark's own tables.
"""

from __future__ import annotations

import pytest

_ROWS: list[tuple[str, str, float, str]] = []


@pytest.fixture
def report():
    """``report(group, label, value, unit)`` adds a line to the end-of-run summary."""

    def add(group: str, label: str, value: float, unit: str = "") -> None:
        _ROWS.append((group, label, value, unit))

    return add


@pytest.fixture
def report_median(benchmark, report):
    """``report_median(group, label, rate_unit=None)`` adds this test's timed median to the summary, in ms,
    or as a rate (runs per second) in ``rate_unit`` ("frames/s"). Nothing is added when pytest-benchmark
    is disabled (``--benchmark-disable``, pyproject's addopts): the test then runs once, untimed, to check
    that it still works."""

    def add(group: str, label: str, rate_unit: str | None = None) -> None:
        if benchmark.stats is None:
            return
        median = benchmark.stats.stats.median
        if rate_unit is None:
            report(group, label, median * 1000.0, "ms")
        else:
            report(group, label, 1.0 / median, rate_unit)

    return add


@pytest.fixture(scope="session")
def session_rows():
    """The rows reported so far in this run (to compute ratios between benchmarks)."""
    return _ROWS


def pytest_terminal_summary(terminalreporter):
    if not _ROWS:
        return
    terminalreporter.section("benchmark figures")
    for group, label, value, unit in _ROWS:
        terminalreporter.write_line(f"{group:<14} {label:<40} {value:>12,.2f} {unit}")
