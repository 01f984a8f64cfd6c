"""Has the camera or the board moved since calibration? Then ask for recalibration, don't read garbage.

With markers: where the markers are seen now, mapped through the saved calibration, against where the
board model puts them (mm). Without markers: the board is found again from its own look and its
corners compared with the saved calibration's, in mm on the board.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from tablecompanion.calibration.config import DEFAULT_DRIFT, DEFAULT_FIND_BOARD, DriftConfig, FindBoardConfig
from tablecompanion.calibration.errors import CalibrationError
from tablecompanion.calibration.find_board import find_board, refine_calibration
from tablecompanion.calibration.markers import detect_markers
from tablecompanion.calibration.model import Calibration, rect_corners

Status = Literal["ok", "warn", "moved", "unknown"]


@dataclass(frozen=True)
class DriftReport:
    """The verdict: ``ok``, ``warn`` (moved a little), ``moved`` (recalibrate) or ``unknown`` (board not
    seen). ``shift_mm`` is the largest displacement measured; ``per_marker`` the shift of each marker."""

    status: Status
    shift_mm: float
    method: Literal["markers", "board", "none"]
    message: str
    per_marker: dict[int, float] = field(default_factory=dict)

    @property
    def needs_recalibration(self) -> bool:
        return self.status in ("moved", "unknown")


def _verdict(shift: float, config: DriftConfig) -> Status:
    if shift > config.tolerance_mm:
        return "moved"
    if shift > config.warn_mm:
        return "warn"
    return "ok"


def _message(status: Status, shift: float, what: str, name: str | None) -> str:
    verb = "have" if what.endswith("s") else "has"
    redo = f"run 'tablecompanion calibrate --name {name or 'PROFILE'} ...' again"
    if status == "moved":
        return f"the {what} {verb} moved {shift:.1f} mm since calibration: {redo}"
    if status == "warn":
        return f"the {what} {verb} moved {shift:.1f} mm since calibration: still usable, but {redo} when convenient"
    return f"the {what} {'are' if verb == 'have' else 'is'} where {'they were' if verb == 'have' else 'it was'} at calibration (within {shift:.1f} mm)"


def check_drift(
    calibration: Calibration,
    frame: np.ndarray,
    config: DriftConfig = DEFAULT_DRIFT,
    find_config: FindBoardConfig = DEFAULT_FIND_BOARD,
) -> DriftReport:
    """Compare a live frame with the calibration; never raises for a bad frame, reports it instead."""
    if frame is None or not hasattr(frame, "shape") or frame.size == 0:
        return DriftReport("unknown", float("inf"), "none", "the frame is empty: check the camera")
    h, w = frame.shape[:2]
    if (w, h) != calibration.image_size:
        return DriftReport(
            "moved", float("inf"), "none",
            f"the camera now gives {w}x{h} px, the calibration was made at "
            f"{calibration.image_size[0]}x{calibration.image_size[1]}: set the resolution back or recalibrate",
        )
    detection = detect_markers(frame)
    if detection.corners:
        per_marker: dict[int, float] = {}
        for marker_id, seen in detection.corners.items():
            expected = np.array(calibration.geometry.marker_corners(marker_id))
            where = calibration.image_to_board(seen)
            per_marker[marker_id] = float(np.max(np.linalg.norm(where - expected, axis=1)))
        shift = max(per_marker.values())
        status = _verdict(shift, config)
        return DriftReport(status, shift, "markers", _message(status, shift, "markers", calibration.name), per_marker)
    # no markers: let the board's look pull the saved placement to where the board is now (a short local
    # search), and only if that fails search the whole frame
    found = refine_calibration(frame, calibration, find_config)
    if found is None:
        found = find_board(frame, calibration.spec, calibration.geometry.home, config=find_config)
    if found is None:
        if calibration.source == "markers":
            msg = "no corner marker and no board seen: is something covering the board, or has the camera moved?"
        else:
            msg = "the board cannot be seen: is something covering it, or has the camera moved?"
        return DriftReport("unknown", float("inf"), "none", msg)
    try:
        corners_now = found.board_to_image(rect_corners(calibration.geometry.surface))
        where = calibration.image_to_board(corners_now)
    except CalibrationError:
        return DriftReport("unknown", float("inf"), "none", "the board could not be compared with the calibration")
    expected = rect_corners(calibration.geometry.surface)
    # the board looks the same turned round: compare with the nearer of the two ways
    shifts = [np.max(np.linalg.norm(where - np.roll(expected, k, axis=0), axis=1)) for k in (0, 2)]
    shift = float(min(shifts))
    status = _verdict(shift, config)
    return DriftReport(status, shift, "board", _message(status, shift, "board", calibration.name))
