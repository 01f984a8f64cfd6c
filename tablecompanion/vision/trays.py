"""Borne-off checkers counted in the trays, where players stand them on edge in a row from their own edge.

A row of standing checkers seen from above shows as a block whose front (the side towards the middle of the
board) moves one checker's thickness further in for each checker borne off. The front is measured where it
is least affected by the view: along the tray's middle, against the tray's own empty floor (the far end of
a tray never holds checkers). A checker 44 mm tall seen by a camera off the vertical reaches further than its
foot, so the front ``n`` checkers would show is predicted with the camera recovered from the calibration
(the same model the roll reader uses) and the same measurement, and the count is the ``n`` whose predicted
front the seen one matches. A count is given only when it matches one ``n`` clearly; otherwise it is None
(trays are then left out, as before: borne off = 15 less those on the board).

The camera recovered from a homography is a few per cent off (more with an uncorrected lens), which moves a
tall checker's predicted reach by a few mm, up to half a checker under a steep camera. Where the count
before the turn is known (the referee knows the position), the tray seen then calibrates the prediction:
:func:`tray_count` with ``before`` and ``before_count`` measures only the change, which cancels that error.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tablecompanion.calibration.model import Calibration
from tablecompanion.geometry import BoardGeometry
from tablecompanion.vision.camera_model import camera_from_homography

MAX_OFF = 15
BAND = 0.5  # share of the tray's width, about its middle, where the front is measured
EMPTY_END_MM = 60.0  # the tray's end towards the middle of the board: its empty floor, the reference colour
OCCUPIED_DE = 24.0  # Lab distance from the floor's colour above which a pixel is a checker
SHADOW_RATIO = (0.62, 0.97)  # lightness of a shadow on the floor relative to the floor (same hue)
SHADOW_CHROMA = 9.0  # a shadow keeps the floor's hue: a/b within this of the floor's
ROW_SHARE = 0.5  # a row of the band is occupied when this share of it is
GAP_MM = 3.0  # gaps this long in the row (a checker's rim line, a glint) do not end it
SURE = 0.3  # the seen front within this share of a checker's pitch of one count's prediction (a change)
# ... from one picture alone: the camera's error is not cancelled (dark checkers on a tray of their hue under a
# steep camera read up to 5 mm short, within 0.3 of a pitch of the count below)
SURE_ALONE = 0.2
SHIFT_MAX = 1.0  # a tray seen before further than this (pitches) from its known count's prediction is no basis
START_MM = 12.0  # a row starts within this of the edge (the frame's wall may hide its first mm)


@dataclass(frozen=True)
class TrayReading:
    """One tray as seen: how far the row of standing checkers reaches from the board's edge (mm, 0 for an
    empty tray), and how far 0..15 checkers would reach in this view (``predicted``). ``front_mm`` is None
    when the tray is not in the picture."""

    player: str
    front_mm: float | None
    predicted: tuple[float, ...] = ()


def tray_count(seen: TrayReading, before: TrayReading | None = None, before_count: int | None = None,
               pitch_mm: float = 7.0) -> int | None:
    """Checkers standing in the tray, or None when the front fits no count clearly.

    With the same tray seen ``before`` holding a known ``before_count`` (at least one checker), the prediction
    is shifted to what that picture showed, and only counts of at least ``before_count`` are considered: the
    change is measured, not the absolute reach."""
    if seen.front_mm is None or not seen.predicted:
        return None
    predicted = np.asarray(seen.predicted, np.float64)
    lowest, sure = 0, SURE_ALONE
    if before is not None and before_count is not None and before.front_mm is not None and before.predicted:
        lowest = before_count
        if before_count >= 1:
            shift = before.front_mm - before.predicted[before_count]
            if abs(shift) > SHIFT_MAX * pitch_mm:
                return None  # the tray before did not show the row it held: no basis to measure a change
            predicted, sure = predicted + shift, SURE
    if len(predicted) > 1 and seen.front_mm <= predicted[1] - (1 - sure) * pitch_mm:
        return 0 if lowest == 0 else None  # nothing that reaches as far as one checker would
    errors = np.abs(predicted - seen.front_mm)
    errors[:max(lowest, 1)] = np.inf
    n = int(np.argmin(errors))
    return n if errors[n] <= sure * pitch_mm else None


def read_trays(warped: np.ndarray, calibration: Calibration, px_per_mm: float) -> dict[str, TrayReading]:
    """Both trays of a warped top-down board image (``warp_board`` at ``px_per_mm``)."""
    fronts = _predicted_fronts(calibration, px_per_mm)
    return {player: TrayReading(player, _seen_front(warped, calibration.geometry, player, px_per_mm),
                                tuple(float(v) for v in fronts[player]))
            for player in ("bottom", "top")}


def _tray_px(geometry: BoardGeometry, player: str, px_per_mm: float) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = geometry.tray(player)
    return (int(round(x0 * px_per_mm)), int(round(y0 * px_per_mm)), int(round(x1 * px_per_mm)),
            int(round(y1 * px_per_mm)))


def _band(geometry: BoardGeometry, player: str, px_per_mm: float) -> tuple[int, int]:
    x0, _, x1, _ = geometry.tray(player)
    xm, half = (x0 + x1) / 2, (x1 - x0) * BAND / 2
    return int(round((xm - half) * px_per_mm)), int(round((xm + half) * px_per_mm))


def _rows_from_edge(mask_band: np.ndarray, player: str) -> np.ndarray:
    """The band's rows ordered from the player's own edge inwards (bottom tray: from its lowest row up)."""
    return mask_band[::-1] if player == "bottom" else mask_band


def _front(occupied_rows: np.ndarray, px_per_mm: float) -> float:
    """How far (mm) the row of checkers reaches from the edge: the last occupied row of a run that starts
    within a few mm of the edge, gaps shorter than ``GAP_MM`` bridged."""
    gap = int(round(GAP_MM * px_per_mm))
    idx = np.flatnonzero(occupied_rows)
    if idx.size == 0 or idx[0] > int(round(START_MM * px_per_mm)):
        return 0.0
    end = idx[0]
    for i in idx[1:]:
        if i - end > gap + 1:
            break
        end = i
    return (end + 1) / px_per_mm


def _seen_front(warped: np.ndarray, geometry: BoardGeometry, player: str, px_per_mm: float) -> float | None:
    x0, y0, x1, y1 = _tray_px(geometry, player, px_per_mm)
    h, w = warped.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or y1 - y0 < 2 * EMPTY_END_MM * px_per_mm:
        return None
    bx0, bx1 = _band(geometry, player, px_per_mm)
    tray = cv2.cvtColor(np.ascontiguousarray(warped[y0:y1, bx0:bx1]), cv2.COLOR_BGR2LAB).astype(np.float32)
    if tray.size == 0:
        return None
    empty = int(round(EMPTY_END_MM * px_per_mm))
    floor_px = tray[:empty] if player == "bottom" else tray[-empty:]
    floor = np.median(floor_px.reshape(-1, 3), axis=0)
    diff = tray - floor
    de = np.sqrt((diff**2).sum(axis=2))
    ratio = tray[:, :, 0] / max(float(floor[0]), 1.0)
    chroma = np.sqrt(diff[:, :, 1] ** 2 + diff[:, :, 2] ** 2)
    shadow = (ratio >= SHADOW_RATIO[0]) & (ratio <= SHADOW_RATIO[1]) & (chroma <= SHADOW_CHROMA)
    occupied = (de > OCCUPIED_DE) & ~shadow
    rows = _rows_from_edge(occupied, player).mean(axis=1) >= ROW_SHARE
    return _front(rows, px_per_mm)


_FRONTS: dict[int, tuple[Calibration, float, dict[str, np.ndarray]]] = {}


def _predicted_fronts(calibration: Calibration, px_per_mm: float) -> dict[str, np.ndarray]:
    """For each tray, the front 0..15 standing checkers would show, measured as :func:`_seen_front` measures
    it (cached per calibration)."""
    entry = _FRONTS.get(id(calibration))
    if entry is not None and entry[0] is calibration and entry[1] == px_per_mm:
        return entry[2]
    camera = camera_from_homography(calibration.homography, calibration.image_size, calibration.camera_matrix)
    geometry = calibration.geometry
    spec = geometry.spec
    r, t = spec.checker_diameter / 2, spec.checker_thickness
    a = np.linspace(0, 2 * np.pi, 36, endpoint=False)
    fronts = {}
    for player in ("bottom", "top"):
        x0, y0, x1, y1 = _tray_px(geometry, player, px_per_mm)
        bx0, bx1 = _band(geometry, player, px_per_mm)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        values = [0.0]
        for (x, y) in geometry.tray_slots(player, MAX_OFF):
            ring = np.stack([x + r * np.cos(a), np.full(a.size, y), r + r * np.sin(a)], axis=1)  # height up
            disc = np.vstack([ring - [0, t / 2, 0], ring + [0, t / 2, 0]])
            foot = _onto_board(disc, camera.centre_mm)
            hull = cv2.convexHull(np.round((foot * px_per_mm - [x0, y0]) * 16).astype(np.int32))
            cv2.fillConvexPoly(mask, hull, 1, cv2.LINE_8, 4)
            band = mask[:, bx0 - x0:bx1 - x0].astype(bool)
            rows = _rows_from_edge(band, player).mean(axis=1) >= ROW_SHARE
            values.append(_front(rows, px_per_mm))
        fronts[player] = np.array(values)
    _FRONTS.clear()
    _FRONTS[id(calibration)] = (calibration, px_per_mm, fronts)
    return fronts


def _onto_board(points_up: np.ndarray, centre_mm: np.ndarray) -> np.ndarray:
    """Where the camera sees points (x, y, height above the board) on the board's surface (x, y)."""
    c = np.asarray(centre_mm, np.float64)
    height = -c[2]  # the camera's height above the board (its z points into the table)
    s = height / np.maximum(height - points_up[:, 2], 1e-6)
    return c[:2] + (points_up[:, :2] - c[:2]) * s[:, None]
