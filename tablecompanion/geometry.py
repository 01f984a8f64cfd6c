"""The physical board in millimetres, seen from above: where each point, the bar, the halves and trays are.

One model shared by the simulator (where to draw), calibration (what the markers frame), dice vision
(is a die in the roller's right-hand board?) and board reading (which region holds which checkers), so
that they can never disagree about the board.

Canonical frame: origin at the top-left corner of the board's outer frame, x to the right, y down,
as a camera above the board sees it with one player, "bottom", sitting at the bottom edge and the
other, "top", opposite. Point numbers are the bottom player's unless a function takes ``player``; the
top player's point p is the bottom player's point 25 - p.

>>> geo = BoardGeometry()
>>> geo.point_at(*geo.point_centre(1))
1
>>> geo.point_at(*geo.point_centre(1, player="top"))
24
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Player = Literal["bottom", "top"]
HomeSide = Literal["right", "left"]
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in mm

PLAYERS: tuple[Player, Player] = ("bottom", "top")
ROW_CAPACITY_MIN = 3

# Calibration markers stuck on the frame's corners: ArUco DICT_4X4_50, ids by corner, each centred in
# the corner square of the frame border with a side of MARKER_FILL x frame_width.
MARKER_DICTIONARY = "DICT_4X4_50"
MARKER_IDS = {"top_left": 0, "top_right": 1, "bottom_right": 2, "bottom_left": 3}
MARKER_FILL = 0.8


@dataclass(frozen=True)
class BoardSpec:
    """A board's real dimensions (mm). Tournament boards differ, so a calibration profile carries one."""

    point_width: float = 50.0
    point_length: float = 225.0
    bar_width: float = 60.0
    tray_width: float = 60.0
    frame_width: float = 25.0
    middle_gap: float = 50.0
    checker_diameter: float = 44.0
    checker_thickness: float = 7.0
    die_size: float = 16.0

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if not value > 0:
                raise ValueError(f"board dimension {name} must be positive, got {value!r}")
        if self.checker_diameter > self.point_width * 1.2:
            raise ValueError("checker_diameter is much wider than a point: check the profile's units (mm)")

    @property
    def half_width(self) -> float:
        return 6 * self.point_width

    @property
    def surface_height(self) -> float:
        return 2 * self.point_length + self.middle_gap

    @property
    def width(self) -> float:
        return 2 * self.frame_width + 2 * self.tray_width + 2 * self.half_width + self.bar_width

    @property
    def height(self) -> float:
        return 2 * self.frame_width + self.surface_height

    @classmethod
    def from_dict(cls, data: dict) -> "BoardSpec":
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown board dimensions: {', '.join(sorted(unknown))}")
        return cls(**{k: float(v) for k, v in data.items()})

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Region:
    """What lies under a point of the board: ``kind`` is point, bar, tray, surface, frame or outside."""

    kind: Literal["point", "bar", "tray", "surface", "frame", "outside"]
    point: int | None = None  # bottom player's number, for kind == "point"
    player: Player | None = None  # tray owner, for kind == "tray"
    half: Literal["left", "right"] | None = None  # for point and surface


@dataclass(frozen=True)
class CheckerSlot:
    """Where a checker rests: centre (mm) and layer (0 = on the board, 1 = piled on the row below)."""

    x: float
    y: float
    layer: int


@dataclass(frozen=True)
class BoardGeometry:
    """A board's regions for one orientation: home boards on the right (usual) or the left."""

    spec: BoardSpec = field(default_factory=BoardSpec)
    home: HomeSide = "right"

    def __post_init__(self) -> None:
        if self.home not in ("right", "left"):
            raise ValueError(f"home must be 'right' or 'left', got {self.home!r}")

    # --- large regions -------------------------------------------------------------------------
    @property
    def surface(self) -> Rect:
        """The playing surface: both halves and the bar, inside the trays and frame."""
        s = self.spec
        x0 = s.frame_width + s.tray_width
        y0 = s.frame_width
        return (x0, y0, x0 + 2 * s.half_width + s.bar_width, y0 + s.surface_height)

    def half(self, side: Literal["left", "right"]) -> Rect:
        x0, y0, x1, y1 = self.surface
        if side == "left":
            return (x0, y0, x0 + self.spec.half_width, y1)
        if side == "right":
            return (x1 - self.spec.half_width, y0, x1, y1)
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")

    @property
    def bar(self) -> Rect:
        x0, y0, x1, y1 = self.surface
        left = x0 + self.spec.half_width
        return (left, y0, left + self.spec.bar_width, y1)

    @property
    def outline(self) -> Rect:
        return (0.0, 0.0, self.spec.width, self.spec.height)

    def right_hand_side(self, player: Player) -> Literal["left", "right"]:
        """The half on a player's right as they sit: where their dice must land. Orientation-free."""
        _check_player(player)
        return "right" if player == "bottom" else "left"

    def right_hand_board(self, player: Player) -> Rect:
        return self.half(self.right_hand_side(player))

    @property
    def home_side(self) -> Literal["left", "right"]:
        return self.home

    def tray(self, player: Player) -> Rect:
        """The borne-off tray beside the player's home board, on their own edge of the board."""
        _check_player(player)
        s = self.spec
        if self.home == "right":
            x0 = s.width - s.frame_width - s.tray_width
        else:
            x0 = s.frame_width
        y_mid = s.frame_width + s.surface_height / 2
        if player == "bottom":
            return (x0, y_mid, x0 + s.tray_width, s.frame_width + s.surface_height)
        return (x0, s.frame_width, x0 + s.tray_width, y_mid)

    # --- points -------------------------------------------------------------------------------
    def _column(self, point: int) -> tuple[int, Literal["top", "bottom"]]:
        """Column 0..11 from the left (ignoring the bar) and row of a bottom-numbered point."""
        if not 1 <= point <= 24:
            raise ValueError(f"point must be 1..24, got {point!r}")
        if point <= 12:
            column_from_right = point - 1  # 1 at the far right, 12 at the far left (home right)
            column = 11 - column_from_right
            row: Literal["top", "bottom"] = "bottom"
        else:
            column = point - 13  # 13 at the far left, 24 at the far right (home right)
            row = "top"
        if self.home == "left":
            column = 11 - column
        return column, row

    def _column_x0(self, column: int) -> float:
        x0 = self.surface[0] + column * self.spec.point_width
        if column >= 6:
            x0 += self.spec.bar_width
        return x0

    def point_rect(self, point: int, player: Player = "bottom") -> Rect:
        """The strip a point's checkers occupy: the triangle's bounding box."""
        point = to_bottom(point, player)
        column, row = self._column(point)
        x0 = self._column_x0(column)
        y0 = self.surface[1] if row == "top" else self.surface[3] - self.spec.point_length
        return (x0, y0, x0 + self.spec.point_width, y0 + self.spec.point_length)

    def point_triangle(self, point: int, player: Player = "bottom") -> tuple[tuple[float, float], ...]:
        """The printed triangle: base on the board's edge, tip towards the middle."""
        x0, y0, x1, y1 = self.point_rect(point, player)
        _, row = self._column(to_bottom(point, player))
        xm = (x0 + x1) / 2
        if row == "top":
            return ((x0, y0), (x1, y0), (xm, y1))
        return ((x0, y1), (x1, y1), (xm, y0))

    def point_centre(self, point: int, player: Player = "bottom") -> tuple[float, float]:
        x0, y0, x1, y1 = self.point_rect(point, player)
        return ((x0 + x1) / 2, (y0 + y1) / 2)

    def point_half(self, point: int, player: Player = "bottom") -> Literal["left", "right"]:
        column, _ = self._column(to_bottom(point, player))
        return "left" if column < 6 else "right"

    def row_capacity(self) -> int:
        return max(ROW_CAPACITY_MIN, int(self.spec.point_length // self.spec.checker_diameter))

    def checker_slots(self, point: int, count: int, player: Player = "bottom") -> list[CheckerSlot]:
        """Where ``count`` checkers sit on a point: a row from the edge, then piled on that row.

        Players fill a row along the point and, when it runs out, pile the rest on top of it starting
        again from the edge; the simulator draws them there and board reading expects them there.
        """
        if count < 0:
            raise ValueError("count must be >= 0")
        x0, y0, x1, y1 = self.point_rect(point, player)
        _, row = self._column(to_bottom(point, player))
        r = self.spec.checker_diameter / 2
        xm = (x0 + x1) / 2
        capacity = self.row_capacity()
        slots = []
        for i in range(count):
            layer, pos = divmod(i, capacity)
            offset = r + pos * self.spec.checker_diameter
            y = y0 + offset if row == "top" else y1 - offset
            slots.append(CheckerSlot(xm, y, layer))
        return slots

    def bar_slots(self, player: Player, count: int) -> list[CheckerSlot]:
        """Checkers on the bar: each side's stand on their own half of the bar, from the middle out."""
        _check_player(player)
        x0, y0, x1, y1 = self.bar
        xm = (x0 + x1) / 2
        ym = (y0 + y1) / 2
        d = self.spec.checker_diameter
        capacity = self.row_capacity()
        slots = []
        for i in range(count):
            layer, pos = divmod(i, capacity)
            offset = self.spec.middle_gap / 2 + d / 2 + pos * d
            y = ym + offset if player == "bottom" else ym - offset
            slots.append(CheckerSlot(xm, y, layer))
        return slots

    def tray_slots(self, player: Player, count: int) -> list[tuple[float, float]]:
        """Centres of borne-off checkers standing on edge in the tray, from the board's edge inwards."""
        x0, y0, x1, y1 = self.tray(player)
        t = self.spec.checker_thickness
        xm = (x0 + x1) / 2
        out = []
        for i in range(count):
            offset = t / 2 + i * t + 4.0
            out.append((xm, y1 - offset) if player == "bottom" else (xm, y0 + offset))
        return out

    # --- calibration markers ---------------------------------------------------------------------
    def marker_corners(self, marker_id: int) -> tuple[tuple[float, float], ...]:
        """A marker's four corners in mm, in ArUco's order (its own top-left, top-right, bottom-right,
        bottom-left), the marker printed upright as seen from the bottom player's seat."""
        corner = {v: k for k, v in MARKER_IDS.items()}.get(marker_id)
        if corner is None:
            raise ValueError(f"marker id must be one of {sorted(MARKER_IDS.values())}, got {marker_id!r}")
        s = self.spec
        f = s.frame_width
        cx = f / 2 if corner.endswith("left") else s.width - f / 2
        cy = f / 2 if corner.startswith("top") else s.height - f / 2
        h = MARKER_FILL * f / 2
        return ((cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h))

    # --- lookups --------------------------------------------------------------------------------
    def point_at(self, x: float, y: float) -> int | None:
        """The bottom player's point whose strip contains (x, y), or None."""
        region = self.locate(x, y)
        return region.point if region.kind == "point" else None

    def locate(self, x: float, y: float) -> Region:
        s = self.spec
        if not (0 <= x <= s.width and 0 <= y <= s.height):
            return Region("outside")
        for player in PLAYERS:
            if _inside(self.tray(player), x, y):
                return Region("tray", player=player)
        sx0, sy0, sx1, sy1 = self.surface
        if not (sx0 <= x <= sx1 and sy0 <= y <= sy1):
            return Region("frame")
        if _inside(self.bar, x, y):
            return Region("bar")
        half: Literal["left", "right"] = "left" if x < self.bar[0] else "right"
        column = int((x - sx0 - (s.bar_width if half == "right" else 0)) // s.point_width)
        column = min(max(column, 0), 11)
        for point in range(1, 25):
            if _inside(self.point_rect(point), x, y) and self._column(point)[0] == column:
                return Region("point", point=point, half=half)
        return Region("surface", half=half)


def to_bottom(point: int, player: Player) -> int:
    """A player's own point number as the bottom player's number."""
    _check_player(player)
    if not 1 <= point <= 24:
        raise ValueError(f"point must be 1..24, got {point!r}")
    return point if player == "bottom" else 25 - point


def _check_player(player: str) -> None:
    if player not in PLAYERS:
        raise ValueError(f"player must be 'bottom' or 'top', got {player!r}")


def _inside(rect: Rect, x: float, y: float) -> bool:
    x0, y0, x1, y1 = rect
    return x0 <= x <= x1 and y0 <= y <= y1
