"""A whole board read from one camera frame: find or use the calibration, warp, count the checkers.

This is what ``tablecompanion board read`` prints and what the referee's camera mode feeds to play
identification. Without a calibration profile the board is found from its own look
(``calibration.find_board``) and points are numbered as the bottom player's with the home boards on
the right, as the CLI promises.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablecompanion.calibration import Calibration
from tablecompanion.calibration.find_board import find_board
from tablecompanion.rules import Position
from tablecompanion.rules.errors import RulesError
from tablecompanion.vision.checkers import DEFAULT_CONFIG, CheckerConfig, CheckerReading, SIDES, read_checkers
from tablecompanion.vision.identify import BoardObservation


class BoardReadError(Exception):
    """The frame cannot be read as a board (no board found, empty or unreadable frame)."""


@dataclass
class BoardReading:
    """Checker counts with the calibration they were read through."""

    checkers: CheckerReading
    calibration: Calibration

    def to_json(self) -> dict:
        out = self.checkers.to_json()
        position = self.bottom_position()
        out["position_id"] = position.position_id() if position is not None else None
        out["calibration"] = {"source": self.calibration.source, "home": self.calibration.geometry.home}
        return out

    def bottom_side(self) -> str | None:
        """The colour of the bottom player: the one whose checkers are further on their way home.

        A photo does not say who owns which colour; checkers only move towards their owner's home, so
        the assignment with fewer pips left is the likelier one (a tie, as at the start, picks "light").
        """
        pips = {}
        for side in SIDES:
            as_bottom = sum(p * n for p, (s, n) in self.checkers.points.items() if s == side)
            as_top = sum((25 - p) * n for p, (s, n) in self.checkers.points.items() if s == side)
            pips[side] = (as_bottom, as_top)
        light_bottom = pips["light"][0] + pips["dark"][1]
        dark_bottom = pips["dark"][0] + pips["light"][1]
        if not any(n for _, n in self.checkers.points.values()):
            return None
        return "light" if light_bottom <= dark_bottom else "dark"

    def observation(self, mover_side: str, mover_at: str = "bottom") -> BoardObservation:
        """The counts in a mover's numbering, for play identification (``mover_at``: "bottom" or "top")."""
        if mover_side not in SIDES:
            raise ValueError(f"mover_side must be one of {SIDES}, got {mover_side!r}")
        other = SIDES[1 - SIDES.index(mover_side)]
        mover = [0] * 25
        opponent = [0] * 25
        for point, (side, n) in self.checkers.points.items():
            own = point if mover_at == "bottom" else 25 - point
            if side == mover_side:
                mover[own - 1] = n
            elif side == other:
                opponent[24 - own] = n  # the mover's point p is the opponent's 25 - p
        mover[24] = self.checkers.bar.get(mover_side, 0)
        opponent[24] = self.checkers.bar.get(other, 0)
        uncertain = {p if mover_at == "bottom" else 25 - p for p in self.checkers.uncertain}
        return BoardObservation(tuple(mover), tuple(opponent), frozenset(uncertain))

    def bottom_position(self) -> Position | None:
        """The board as a position with the bottom player on roll, when every count is sure and fits."""
        side = self.bottom_side()
        if side is None or self.checkers.uncertain:
            return None
        try:
            obs = self.observation(side, "bottom")
            return Position.from_board(obs.mover, obs.opponent)
        except (ValueError, RulesError):
            return None


def read_board(
    frame: np.ndarray,
    calibration: Calibration | None = None,
    config: CheckerConfig = DEFAULT_CONFIG,
) -> BoardReading:
    """Read every checker on the board in ``frame``; find the board first when no calibration is given."""
    if frame is None or not hasattr(frame, "shape") or frame.size == 0 or frame.ndim not in (2, 3):
        raise BoardReadError("the frame is empty or not an image")
    if calibration is None:
        calibration = find_board(frame)
        if calibration is None:
            raise BoardReadError(
                "no board found in the frame: the board should fill a good part of the picture, "
                "or give a calibration profile (tablecompanion calibrate)"
            )
    warped = calibration.warp(frame, px_per_mm=config.px_per_mm)
    return BoardReading(read_checkers(warped, calibration.geometry, config), calibration)
