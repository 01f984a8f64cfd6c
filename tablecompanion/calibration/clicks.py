"""Corners a person clicks on a picture of the board (the dashboard's fallback when no marker is seen).

A browser shows the frame scaled to its page and the person clicks the outer frame's four corners, in
any order. ``calibrate_from_clicks`` turns those clicks into a saved profile and an annotated picture to
check by eye, so a web route needs only to pass the JSON through:

    POST {"corners": [[x, y], ...4], "displayed_size": [w, h], "name": "table-1", "home": "right",
          "bottom": "X"}
    -> calibrate_from_clicks(frame, body["corners"], body["displayed_size"], name=..., ...)
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from tablecompanion.calibration.annotate import annotate
from tablecompanion.calibration.errors import CalibrationError
from tablecompanion.calibration.markers import calibrate_from_corners
from tablecompanion.calibration.model import Calibration
from tablecompanion.calibration.profiles import check_name, save_profile
from tablecompanion.geometry import BoardSpec


def _number(v) -> bool:
    """A finite number as JSON gives one (true/false are not coordinates)."""
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) \
        and math.isfinite(v)


def _pair(v) -> bool:
    return isinstance(v, (list, tuple, np.ndarray)) and len(v) == 2 and all(map(_number, v))


def clicks_to_image(clicks: Sequence, displayed_size: Sequence[float] | None, image_size: tuple[int, int]) -> np.ndarray:
    """Clicked points (px on the displayed picture) as px of the frame itself; anything but four [x, y]
    pairs of numbers, or a size that is not two positive numbers, is a CalibrationError that says so."""
    if not (isinstance(clicks, (list, tuple, np.ndarray)) and all(map(_pair, clicks))):
        raise CalibrationError("'corners' must be a list of [x, y] pairs of numbers (where the 4 corners were clicked)")
    if len(clicks) != 4:
        raise CalibrationError(f"click the 4 outer corners of the board's frame (got {len(clicks)})")
    pts = np.asarray(clicks, dtype=np.float64)
    if displayed_size is None:
        return pts
    if not (_pair(displayed_size) and all(v > 0 for v in displayed_size)):
        raise CalibrationError("'displayed_size' must be [width, height] of the picture as shown, in px")
    dw, dh = (float(v) for v in displayed_size)
    return pts * np.array([image_size[0] / dw, image_size[1] / dh])


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Four points in any order as TL TR BR BL, taking the picture's bottom edge as the bottom player's
    (as ``find_board`` does): round the quadrilateral clockwise, starting after its lowest edge."""
    pts = np.asarray(pts, dtype=np.float64)
    centre = pts.mean(axis=0)
    clockwise = pts[np.argsort(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0]))]  # y down: clockwise
    # the bottom edge: the pair of neighbours whose midpoint is lowest in the picture; it runs BR -> BL
    mids = [(clockwise[i][1] + clockwise[(i + 1) % 4][1]) / 2 for i in range(4)]
    br = int(np.argmax(mids))
    return np.array([clockwise[(br + k) % 4] for k in (2, 3, 0, 1)])


def calibrate_from_clicks(
    frame: np.ndarray,
    clicks: Sequence,
    displayed_size: Sequence[float] | None = None,
    *,
    name: str,
    home: str = "right",
    bottom_player: str | None = None,
    spec: BoardSpec | None = None,
    in_order: bool = False,
    data_dir: str | Path | None = None,
    save: bool = True,
) -> tuple[Calibration, bytes]:
    """A profile from four clicked frame corners, saved under ``name``, and the annotated picture (JPEG
    bytes) for the person to check. ``in_order`` says the clicks are already TL TR BR BL as the bottom
    player sees the board (needed when the bottom player does not sit at the picture's bottom)."""
    check_name(name)
    if frame is None or not hasattr(frame, "shape") or frame.size == 0:
        raise CalibrationError("no picture from the camera to click on: check the camera")
    h, w = frame.shape[:2]
    pts = clicks_to_image(clicks, displayed_size, (w, h))
    if not in_order:
        pts = order_corners(pts)
    if home not in ("right", "left"):
        raise CalibrationError(f"home must be 'right' or 'left', got {home!r}")
    cal = calibrate_from_corners((w, h), pts, spec, home=home, bottom_player=bottom_player)
    cal = replace(cal, name=name)
    if save:
        save_profile(cal, name, data_dir)
    ok, jpeg = cv2.imencode(".jpg", annotate(frame, cal), [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise CalibrationError("could not encode the annotated picture")
    return cal, jpeg.tobytes()
