"""Shared fixtures for the simulator tests: small cameras keep them quick on a shared machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecompanion.sim import Camera

MATCHES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "matches"


@pytest.fixture(scope="session")
def small_camera() -> Camera:
    return Camera(width=480, height=270)


@pytest.fixture(scope="session")
def match_path() -> Path:
    files = sorted(MATCHES.glob("*.mat")) if MATCHES.is_dir() else []
    if not files:
        pytest.skip(f"match files not found: {MATCHES}")
    return files[0]
