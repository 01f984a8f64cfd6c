"""Where each die came to rest: in the roller's right-hand board, or somewhere that voids the roll.

Uses the shared board model (``tablecompanion.geometry``) and the calibration's homography from image
pixels to board millimetres. Without a homography every placement is "unknown": the referee then
decides from the dice values alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, Sequence

import numpy as np

from tablecompanion.geometry import BoardGeometry, Player, Rect
from tablecompanion.vision.dice import DiceReading, DiceVisionError

Placement = Literal["ok", "across the bar", "wrong half", "off the board", "unknown"]
PLACEMENTS: tuple[Placement, ...] = ("ok", "across the bar", "wrong half", "off the board", "unknown")


@dataclass(frozen=True)
class PlacementConfig:
    """How much of a die may stick out of the right-hand board before it counts as outside (mm)."""

    # a die touching the board's inner edge is still in: allow this much of its centre to overhang
    edge_tolerance_mm: float = 4.0


def _inside(rect: Rect, x: float, y: float, tol: float = 0.0) -> bool:
    x0, y0, x1, y1 = rect
    return x0 - tol <= x <= x1 + tol and y0 - tol <= y <= y1 + tol


def image_to_board(board_from_image: np.ndarray, points: Sequence[tuple[float, float]]) -> np.ndarray:
    """Image pixels → board mm through a 3x3 homography."""
    h = np.asarray(board_from_image, dtype=np.float64)
    if h.shape != (3, 3) or not np.all(np.isfinite(h)):
        raise DiceVisionError(f"board_from_image must be a finite 3x3 homography, got shape {h.shape}")
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    homog = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    w = homog[:, 2:3]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = homog[:, :2] / w
    out[~np.isfinite(out).all(axis=1)] = np.nan
    return out


def place_point(x_mm: float, y_mm: float, geometry: BoardGeometry, roller_side: Player, config: PlacementConfig | None = None) -> Placement:
    """Classify one die centre in board mm for a roller sitting at ``roller_side`` (bottom/top)."""
    config = config or PlacementConfig()
    if not (np.isfinite(x_mm) and np.isfinite(y_mm)):
        return "unknown"
    tol = config.edge_tolerance_mm
    if _inside(geometry.right_hand_board(roller_side), x_mm, y_mm, tol):
        return "ok"
    if not _inside(geometry.surface, x_mm, y_mm):
        return "off the board"
    if _inside(geometry.bar, x_mm, y_mm):
        return "across the bar"
    return "wrong half"


def place_dice(
    readings: Iterable[DiceReading],
    board_from_image: np.ndarray | None,
    geometry: BoardGeometry | None = None,
    roller_side: Player = "bottom",
    config: PlacementConfig | None = None,
) -> list[Placement]:
    """Per die: "ok", "across the bar", "wrong half", "off the board", or "unknown" without calibration.

    A die on the bar has crossed into it from the right-hand board; a die in the other half has crossed
    the bar entirely ("wrong half"); both void the roll, as does a die off the playing surface.
    """
    readings = list(readings)
    if board_from_image is None:
        return ["unknown"] * len(readings)
    geometry = geometry or BoardGeometry()
    if not readings:
        return []
    mm = image_to_board(board_from_image, [r.centre for r in readings])
    return [place_point(float(x), float(y), geometry, roller_side, config) for x, y in mm]


def place_opening_roll(
    readings: Sequence[DiceReading],
    board_from_image: np.ndarray | None,
    geometry: BoardGeometry | None = None,
    config: PlacementConfig | None = None,
) -> list[Placement]:
    """The opening roll: one die in each player's right-hand board. "ok" per die when each half holds one."""
    if board_from_image is None:
        return ["unknown"] * len(readings)
    geometry = geometry or BoardGeometry()
    out: list[Placement] = []
    for r in readings:
        bottom = place_dice([r], board_from_image, geometry, "bottom", config)[0]
        top = place_dice([r], board_from_image, geometry, "top", config)[0]
        out.append("ok" if "ok" in (bottom, top) else bottom)
    if len(readings) == 2 and out == ["ok", "ok"]:
        sides = [
            place_dice([r], board_from_image, geometry, "bottom", config)[0] == "ok" for r in readings
        ]
        if sides[0] == sides[1]:  # both dice in the same half
            out = ["ok", "wrong half"]
    return out
