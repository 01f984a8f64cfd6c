"""Saving and loading calibration profiles: versioned JSON files, one per name, under a data directory.

The directory is ``$TABLECOMPANION_DATA/profiles`` when that variable is set, else
``~/.local/share/tablecompanion/profiles``; commands accept ``--data-dir`` to override both.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from tablecompanion.calibration.errors import CalibrationError, ProfileError
from tablecompanion.calibration.lens import LensCalibration
from tablecompanion.calibration.model import PROFILE_VERSION, Calibration

PROFILE_KIND = "tablecompanion-calibration"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The data directory: the override, else $TABLECOMPANION_DATA, else ~/.local/share/tablecompanion."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get("TABLECOMPANION_DATA")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".local" / "share" / "tablecompanion"


def profiles_dir(override: str | os.PathLike | None = None) -> Path:
    return data_dir(override) / "profiles"


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ProfileError(
            f"profile name {name!r} is not usable: use letters, digits, '-', '_' or '.', up to 64 characters "
            "(for example table-1)"
        )
    return name


def profile_path(name: str, directory: str | os.PathLike | None = None) -> Path:
    return profiles_dir(directory) / f"{check_name(name)}.json"


def save_profile(calibration: Calibration, name: str, directory: str | os.PathLike | None = None) -> Path:
    """Write the profile atomically (a crash never leaves half a file); returns its path."""
    path = profile_path(name, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = calibration.to_dict()
    data["name"] = name
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def list_profiles(directory: str | os.PathLike | None = None) -> list[str]:
    folder = profiles_dir(directory)
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.json"))


def read_profile_file(path: str | os.PathLike) -> Calibration:
    """A profile from a file path; every way it can be wrong is a ProfileError that says what to do."""
    path = Path(path)
    name = path.stem
    redo = f"run 'tablecompanion calibrate --name {name} ...' again to replace it"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(f"no calibration profile {name!r} at {path}: {redo.replace('again to replace it', 'to make it')}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"cannot read calibration profile {path} ({exc}): {redo}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"calibration profile {path} is corrupt (not JSON: {exc.msg} at line {exc.lineno}): {redo}") from exc
    if not isinstance(data, dict) or data.get("kind") != PROFILE_KIND:
        raise ProfileError(f"{path} is not a TableCompanion calibration profile: {redo}")
    version = data.get("version")
    if not isinstance(version, int):
        raise ProfileError(f"calibration profile {path} has no version number: {redo}")
    if version < PROFILE_VERSION:
        raise ProfileError(f"calibration profile {path} is from an older version ({version} < {PROFILE_VERSION}): {redo}")
    if version > PROFILE_VERSION:
        raise ProfileError(
            f"calibration profile {path} was written by a newer TableCompanion (version {version}, this one reads "
            f"{PROFILE_VERSION}): upgrade TableCompanion or {redo}"
        )
    try:
        return Calibration.from_dict(data)
    except CalibrationError as exc:
        raise ProfileError(f"calibration profile {path}: {exc}. {redo}") from exc


def load_profile(name: str, directory: str | os.PathLike | None = None) -> Calibration:
    """The profile saved under ``name``; a missing one lists the profiles that exist."""
    path = profile_path(name, directory)
    if not path.exists():
        known = list_profiles(directory)
        hint = f" (saved profiles: {', '.join(known)})" if known else ""
        raise ProfileError(
            f"no calibration profile named {name!r} in {path.parent}{hint}: run "
            f"'tablecompanion calibrate --camera 0 --name {name}' (or --image FILE) to make it"
        )
    return read_profile_file(path)


LENS_KIND = "tablecompanion-lens"


def lens_path(name: str, directory: str | os.PathLike | None = None) -> Path:
    return data_dir(directory) / "lenses" / f"{check_name(name)}.json"


def save_lens(lens: LensCalibration, name: str, directory: str | os.PathLike | None = None) -> Path:
    path = lens_path(name, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "kind": LENS_KIND,
        "version": PROFILE_VERSION,
        "camera_matrix": lens.camera_matrix.tolist(),
        "dist_coeffs": lens.dist_coeffs.tolist(),
        "rms_px": lens.rms_px,
        "image_size": list(lens.image_size),
        "views": lens.views,
    }
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_lens(name: str, directory: str | os.PathLike | None = None) -> LensCalibration:
    path = lens_path(name, directory)
    redo = f"run 'tablecompanion calibrate lens --name {name} IMAGE...' to make it"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"no lens model named {name!r} at {path}: {redo}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"lens model {path} is unreadable or corrupt ({exc}): {redo}") from exc
    if not isinstance(data, dict) or data.get("kind") != LENS_KIND or data.get("version") != PROFILE_VERSION:
        raise ProfileError(f"{path} is not a lens model of this version: {redo}")
    try:
        return LensCalibration(
            np.asarray(data["camera_matrix"], dtype=np.float64).reshape(3, 3),
            np.asarray(data["dist_coeffs"], dtype=np.float64).reshape(-1),
            float(data["rms_px"]),
            tuple(int(v) for v in data["image_size"]),  # type: ignore[arg-type]
            int(data["views"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ProfileError(f"lens model {path} is incomplete ({exc}): {redo}") from exc
