"""A whole board read from one camera frame: find or use the calibration, warp, count the checkers.

This is what ``tablecompanion board read`` prints and what the referee's camera mode feeds to play
identification. Without a calibration profile the board is found from its own look
(``calibration.find_board``) and points are numbered as the bottom player's with the home boards on
the right, as the CLI promises.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import cv2
import numpy as np

from tablecompanion.calibration import Calibration, CalibrationError
from tablecompanion.calibration.find_board import find_board
from tablecompanion.rules import Position
from tablecompanion.rules.errors import RulesError
from tablecompanion.vision.changes import point_changes, still_and_changed
from tablecompanion.vision.checkers import CHECKERS_PER_SIDE, DEFAULT_CONFIG, SIDES, CheckerConfig, CheckerReading, read_checkers
from tablecompanion.vision.identify import BoardObservation
from tablecompanion.vision.trays import TrayReading, read_trays, tray_count


MIN_FRAME_PX = 120  # a board smaller than this shows checkers a few pixels wide: nothing to read


class BoardReadError(Exception):
    """The frame cannot be read as a board (no board found, empty or unreadable frame)."""


@dataclass
class BoardReading:
    """Checker counts with the calibration they were read through, and the trays as seen (bottom/top).

    ``picture`` is the rectified board they were read from (``px_per_mm``): the next turn's reading compares
    its own with it to see which points a play touched (``vision.changes``)."""

    checkers: CheckerReading
    calibration: Calibration
    trays: dict[str, TrayReading] = field(default_factory=dict)
    picture: np.ndarray | None = field(default=None, repr=False)
    px_per_mm: float = 1.0

    def to_json(self) -> dict:
        """What ``board read --json`` prints: ``points`` ("1".."24" -> side or None, count; an empty point is
        ``{"side": null, "count": 0}``), ``bar`` and ``off`` per side, ``uncertain`` point numbers, and
        ``position_id`` (gnubg, bottom player on roll) when all 30 checkers are accounted for, else null."""
        c = self.checkers
        points, off = self.completed()
        position = self.bottom_position()
        return {
            "points": {str(p): {"side": points[p][0] if points[p][1] else None, "count": int(points[p][1])}
                       for p in range(1, 25)},
            "bar": {s: int(c.bar.get(s, 0)) for s in SIDES},
            "off": {s: int(off.get(s, 0)) for s in SIDES},
            "uncertain": sorted(int(p) for p in c.uncertain if 1 <= p <= 24),
            "position_id": position.position_id() if position is not None else None,
        }

    def describe(self) -> str:
        """The reading as a person reads it: points top row then bottom row, bar, off, the Position ID."""
        c = self.checkers
        points, off = self.completed()
        lines = [f"board found by {self.calibration.source}; points numbered for the bottom player, "
                 f"home boards on the {self.calibration.geometry.home}"]
        for label, row in (("top", range(13, 25)), ("bottom", range(12, 0, -1))):
            cells = []
            for point in row:
                side, n = points[point]
                mark = "?" if point in c.uncertain else ""
                cells.append(f"{point}:{'-' if not n else f'{n}{side[0].upper()}'}{mark}")
            lines.append(f"{label:>6}  " + " ".join(cells))
        lines.append("   bar  " + ", ".join(f"{s} {c.bar.get(s, 0)}" for s in SIDES))
        seen = "seen in trays" if c.off_seen else "inferred: 15 less those on the board"
        lines.append("   off  " + ", ".join(f"{s} {off.get(s, 0)}" for s in SIDES) + f" ({seen})")
        if c.uncertain:
            lines.append(f"uncertain points: {', '.join(str(p) for p in sorted(c.uncertain))}")
        bottom = self.bottom_side()
        if bottom is not None:
            lines.append(f"bottom player: {bottom} (the side further on its way home)")
        position = self.bottom_position()
        if position is not None:
            lines.append(f"Position ID: {position.position_id()} (bottom player on roll)")
        else:
            lines.append("Position ID: none (not every checker is accounted for)")
        return "\n".join(lines)

    def completed(self) -> tuple[dict[int, tuple[str | None, int]], dict[str, int]]:
        """Points and borne-off counts with the checkers a pile hides put back where they must be.

        A pile seen from above shows as the row beneath it (its count is a lower bound). A side with fewer
        than 15 checkers seen, no tray in view, a single pile and a checker still outside its home board
        (so nothing can have been borne off) has the missing checkers in that pile, unless a point other than a
        pile is uncertain (the missing checkers may be there). Anything else is left as read."""
        c = self.checkers
        points = dict(c.points)
        off = dict(c.off)
        if c.off_seen or not c.piles or set(c.uncertain) - set(c.piles):
            return points, off  # a count in doubt elsewhere (under a hand) may hold the missing checkers
        bottom = self.bottom_side()
        for side in SIDES:
            seen = sum(n for s, n in points.values() if s == side) + c.bar.get(side, 0)
            deficit = CHECKERS_PER_SIDE - seen
            piles = [p for p in c.piles if 1 <= p <= 24 and points[p][0] == side and points[p][1]]
            if deficit <= 0 or len(piles) != 1 or bottom is None:
                continue
            home = range(1, 7) if (side == bottom) else range(19, 25)
            outside = c.bar.get(side, 0) > 0 or any(s == side and n and p not in home for p, (s, n) in points.items())
            if not outside:
                continue  # bearing off: the missing checkers may be borne off
            point = piles[0]
            points[point] = (side, points[point][1] + deficit)
            off[side] = 0
        return points, off

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

    def observation(self, mover_side: str, mover_at: str = "bottom", before: "BoardReading | None" = None,
                    off_before: int | None = None) -> BoardObservation:
        """The counts in a mover's numbering, for play identification (``mover_at``: "bottom" or "top").

        With the reading of the board ``before`` the turn and the mover's ``off_before`` (borne off then, which
        the referee knows; at least one), the mover's tray is counted as the change since then
        (``BoardObservation.off``); otherwise the tray is not counted. With ``before`` read through the same
        calibration, the two pictures say which points look as they did and which were touched
        (``BoardObservation.still``/``changed``; a point read uncertain now is never called touched)."""
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
        def own(points):
            return frozenset(p if p == 25 or mover_at == "bottom" else 25 - p for p in points)

        off = None
        tray = self.trays.get(mover_at)
        earlier = before.trays.get(mover_at) if before is not None else None
        if tray is not None and earlier is not None and off_before:
            # only as a change from a tray known to hold checkers: one picture alone misses by a checker
            # under a steep camera (dark checkers on a tray of their hue)
            off = tray_count(tray, earlier, off_before, self.calibration.spec.checker_thickness)
        still, changed = self.changes_since(before)
        return BoardObservation(tuple(mover), tuple(opponent), own(self.checkers.uncertain),
                                at_least=own(self.checkers.piles), off=off, still=own(still),
                                changed=own(changed - set(self.checkers.uncertain)))

    def changes_since(self, before: "BoardReading | None") -> tuple[frozenset[int], frozenset[int]]:
        """(points that look as they did in ``before``'s picture, points that were touched), bottom numbering;
        both empty without two pictures of the board through one calibration."""
        if (before is None or before.picture is None or self.picture is None or before.px_per_mm != self.px_per_mm
                or before.calibration.geometry != self.calibration.geometry):
            return frozenset(), frozenset()
        shares = point_changes(before.picture, self.picture, self.calibration.geometry, self.px_per_mm)
        return still_and_changed(shares)

    def bottom_position(self) -> Position | None:
        """The board as a position with the bottom player on roll, when every count is sure and fits."""
        side = self.bottom_side()
        if side is None or self.checkers.uncertain:
            return None
        points, _ = self.completed()
        other = SIDES[1 - SIDES.index(side)]
        mover, opponent = [0] * 25, [0] * 25
        for point, (s, n) in points.items():
            if s == side:
                mover[point - 1] = n
            elif s == other:
                opponent[24 - point] = n
        mover[24], opponent[24] = self.checkers.bar.get(side, 0), self.checkers.bar.get(other, 0)
        try:
            return Position.from_board(mover, opponent)
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
    if min(frame.shape[:2]) < MIN_FRAME_PX:
        raise BoardReadError(f"the picture is {frame.shape[1]}x{frame.shape[0]} pixels: too small to show a board's "
                             f"checkers (at least {MIN_FRAME_PX} pixels each way)")
    if calibration is None:
        calibration = find_board(frame)
        if calibration is None:
            raise BoardReadError(
                "no board found in the frame: the board should fill a good part of the picture, "
                "or give a calibration profile (tablecompanion calibrate)"
            )
    try:
        warped = warp_board(frame, calibration, config.px_per_mm)
    except CalibrationError as exc:
        raise BoardReadError(str(exc)) from None
    return BoardReading(read_checkers(warped, calibration.geometry, config), calibration,
                        read_trays(warped, calibration, config.px_per_mm), warped, config.px_per_mm)


_MAPS: "OrderedDict[tuple[int, float], tuple[Calibration, np.ndarray, np.ndarray]]" = OrderedDict()
MAP_CACHE_SIZE = 4


def warp_board(frame: np.ndarray, calibration: Calibration, px_per_mm: float) -> np.ndarray:
    """``calibration.warp`` in one remap: the pixel maps (lens and homography together) are computed once
    per calibration and reused for every frame, which is what keeps a read of a live camera fast."""
    h, w = frame.shape[:2]
    if (w, h) != tuple(calibration.image_size):
        return calibration.warp(frame, px_per_mm)  # raises the calibration's own clear error
    key = (id(calibration), float(px_per_mm))
    entry = _MAPS.get(key)
    if entry is None or entry[0] is not calibration:
        spec = calibration.spec
        size = (int(np.ceil(spec.width * px_per_mm)), int(np.ceil(spec.height * px_per_mm)))
        us, vs = np.meshgrid(np.arange(size[0], dtype=np.float64), np.arange(size[1], dtype=np.float64))
        board = np.stack([us.ravel(), vs.ravel()], axis=1) / px_per_mm
        image = calibration.board_to_image(board).astype(np.float32)
        map_x = image[:, 0].reshape(size[1], size[0])
        map_y = image[:, 1].reshape(size[1], size[0])
        map1, map2 = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
        entry = (calibration, map1, map2)
        _MAPS[key] = entry
        while len(_MAPS) > MAP_CACHE_SIZE:
            _MAPS.popitem(last=False)
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    return cv2.remap(frame, entry[1], entry[2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
