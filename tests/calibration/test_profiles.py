"""Profiles on disk: round trip, and every way a file can be wrong gives an error that says what to do."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tablecompanion.calibration import ProfileError, calibrate_from_corners, list_profiles, load_profile, save_profile
from tablecompanion.calibration.profiles import PROFILE_VERSION, data_dir, profile_path

CORNERS = [(100, 50), (1180, 70), (1200, 680), (90, 660)]


@pytest.fixture
def cal():
    return calibrate_from_corners((1280, 720), CORNERS, home="left", bottom_player="O")


def test_save_and_load_round_trip(cal, data_dir):
    path = save_profile(cal, "table-1")
    assert path == data_dir / "profiles" / "table-1.json"
    loaded = load_profile("table-1")
    assert loaded.name == "table-1" and loaded.geometry.home == "left" and loaded.bottom_player == "O"
    assert np.allclose(loaded.homography, cal.homography)
    assert list_profiles() == ["table-1"]


def test_explicit_directory_beats_the_environment(cal, data_dir, tmp_path):
    other = tmp_path / "elsewhere"
    save_profile(cal, "t", other)
    assert (other / "profiles" / "t.json").exists() and not (data_dir / "profiles" / "t.json").exists()
    assert data_dir == data_dir.__class__(str(data_dir)) and data_dir_default_is_home()


def data_dir_default_is_home() -> bool:
    import os

    saved = os.environ.pop("TABLECOMPANION_DATA", None)
    try:
        return str(data_dir()).endswith(".local/share/tablecompanion")
    finally:
        if saved is not None:
            os.environ["TABLECOMPANION_DATA"] = saved


def test_missing_profile_lists_what_exists(cal, data_dir):
    save_profile(cal, "kitchen")
    with pytest.raises(ProfileError, match=r"no calibration profile named 'lounge'.*kitchen.*tablecompanion calibrate"):
        load_profile("lounge")


def _write(name: str, text: str) -> None:
    path = profile_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: "{not json", "corrupt"),
        (lambda d: json.dumps([1, 2]), "not a TableCompanion calibration profile"),
        (lambda d: json.dumps({**d, "version": PROFILE_VERSION - 1}), "older version"),
        (lambda d: json.dumps({**d, "version": PROFILE_VERSION + 1}), "newer TableCompanion"),
        (lambda d: json.dumps({k: v for k, v in d.items() if k != "version"}), "no version"),
        (lambda d: json.dumps({k: v for k, v in d.items() if k != "homography"}), "incomplete or corrupt"),
        (lambda d: json.dumps({**d, "homography": [[0, 0, 0]] * 3}), "not an invertible"),
        (lambda d: json.dumps({**d, "board": {**d["board"], "point_width": -3}}), "must be positive"),
        (lambda d: json.dumps({**d, "board": {**d["board"], "colour": 3}}), "unknown board dimensions"),
        (lambda d: json.dumps({**d, "home": "up"}), "home must be"),
    ],
)
def test_bad_profiles_say_recalibrate(cal, data_dir, mutate, message):
    good = cal.to_dict()
    _write("bad", mutate(good))
    with pytest.raises(ProfileError, match=message) as info:
        load_profile("bad")
    assert "tablecompanion calibrate --name bad" in str(info.value)


@pytest.mark.parametrize("name", ["", "../escape", "a b", "x" * 65, ".hidden"])
def test_unusable_names_are_refused(cal, data_dir, name):
    with pytest.raises(ProfileError, match="not usable"):
        save_profile(cal, name)


def test_example_profiles_in_the_repo_load():
    from pathlib import Path

    from tablecompanion.calibration.profiles import read_profile_file

    folder = Path(__file__).resolve().parents[2] / "calibration" / "profiles"
    files = sorted(folder.glob("*.json"))
    assert files, f"no example profiles in {folder}"
    for path in files:
        cal = read_profile_file(path)
        assert cal.reprojection_error_mm < 5
