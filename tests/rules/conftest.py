"""Shared fixtures of the rules tests: the gnubg oracle files in ../shared/data."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"
LEGAL_MOVES_DEV = SHARED_DATA / "rules" / "gnubg_legal_moves_dev.jsonl"
MATCHES_DIR = SHARED_DATA / "matches"


def need(path: Path) -> Path:
    """``path`` if present, else skip the test (fail under CI=true, where the data must be there)."""
    if not path.exists():
        message = f"shared data not found: {path}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def load_jsonl(path: Path) -> list[dict]:
    with need(path).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="session")
def legal_cases() -> list[dict]:
    """The 500 gnubg legal-move cases of the dev file."""
    return load_jsonl(LEGAL_MOVES_DEV)


@pytest.fixture(scope="session")
def match_files() -> list[Path]:
    """The real .mat files of ../shared/data/matches."""
    return sorted(need(MATCHES_DIR).glob("*.mat"))
