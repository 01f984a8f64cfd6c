"""Fixtures for the LED board tests: the emulated MCU (real firmware under simavr) when the AVR
toolchain is there; a skip naming what is missing otherwise, and a failure under CI=true."""

from __future__ import annotations

import os

import pytest

from tablecompanion.leds import simulated


def require_toolchain() -> None:
    missing = simulated.missing_tools()
    if not missing:
        return
    message = "emulated LED board needs: " + ", ".join(missing)
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: .ci/run installs them via scripts/setup-system.sh)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def built():
    """Firmware ELF and harness binary, built once per session with make."""
    require_toolchain()
    return simulated.build()


@pytest.fixture
def sim(built):
    """A fresh simulated board (its own pty) per test."""
    elf, harness = built
    board = simulated.SimulatedBoard(elf, harness)
    yield board
    board.close()
