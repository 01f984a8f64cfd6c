"""Shared fixtures: synthetic photos with known geometry, the shared real photos, a data directory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablecompanion.calibration.synthetic import photograph
from tablecompanion.geometry import BoardGeometry

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def point_centres(geo: BoardGeometry | None = None) -> np.ndarray:
    geo = geo or BoardGeometry()
    return np.array([geo.point_centre(p) for p in range(1, 25)])


@pytest.fixture(scope="session")
def marker_photo():
    return photograph(style="classic", seed=3)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLECOMPANION_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def real_photos(limit: int = 4) -> list[Path]:
    """A few of the shared real photographs (dice on tables), or a skip naming the folder."""
    folder = SHARED / "dice" / "byler" / "images"
    if not folder.is_dir():
        pytest.skip(f"real photos not found: {folder}")
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if not files:
        pytest.skip(f"no images in {folder}")
    step = max(1, len(files) // limit)
    return files[::step][:limit]
