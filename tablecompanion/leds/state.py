"""What the LED board should show, as an immutable value the referee composes from its facts.

Points are physical: numbered 1..24 for the player sitting at the bottom, as the camera sees the board
(``tablecompanion.geometry``). A mover sitting at the top has their point p at physical 25 - p; the
helpers below take ``mover`` and do that mapping, so the referee can pass rules-numbered moves.

>>> s = LedState().with_point(3, "green").with_turn("bottom")
>>> s.point(3)
Light(colour='green', mode='on')
>>> LedState().for_illegal_play([8, 5]).point(8).mode
'blink'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Literal

from tablecompanion.leds.errors import LedError

if TYPE_CHECKING:  # the rules package is only needed by for_legal_destinations, at call time
    pass

Side = Literal["bottom", "top"]
Mode = Literal["off", "on", "blink", "blink_fast"]
SIDES: tuple[Side, Side] = ("bottom", "top")
MODES: tuple[str, ...] = ("off", "on", "blink", "blink_fast")

# Palette index -> (name, RGB at full brightness). The firmware holds the same table
# (hardware/firmware/src/main.c); tests compare the two.
PALETTE: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("off", (0, 0, 0)),
    ("white", (255, 255, 255)),
    ("red", (255, 0, 0)),
    ("green", (0, 255, 0)),
    ("blue", (0, 0, 255)),
    ("yellow", (255, 180, 0)),
    ("orange", (255, 80, 0)),
    ("cyan", (0, 255, 255)),
    ("magenta", (255, 0, 255)),
    ("purple", (128, 0, 255)),
    ("warm_white", (255, 160, 60)),
    ("pink", (255, 60, 120)),
    ("dim_white", (40, 40, 40)),
    ("dim_red", (48, 0, 0)),
    ("dim_green", (0, 48, 0)),
    ("dim_blue", (0, 0, 48)),
)
COLOURS: tuple[str, ...] = tuple(name for name, _ in PALETTE)
COLOUR_INDEX = {name: i for i, name in enumerate(COLOURS)}

Status = Literal["normal", "void_roll", "recalibrate", "host_lost", "waiting", "error"]
STATUSES: tuple[str, ...] = ("normal", "void_roll", "recalibrate", "host_lost", "waiting", "error")
CUBE_VALUES = (1, 2, 4, 8, 16, 32, 64)


class LedStateError(LedError, ValueError):
    """A state that the board cannot show (unknown colour, point out of range, ...)."""


@dataclass(frozen=True)
class Light:
    """One indicator: a palette colour and whether it is off, steady or blinking."""

    colour: str = "off"
    mode: Mode = "on"

    def __post_init__(self) -> None:
        if self.colour not in COLOUR_INDEX:
            raise LedStateError(f"unknown colour {self.colour!r}; the board knows {', '.join(COLOURS)}")
        if self.mode not in MODES:
            raise LedStateError(f"unknown mode {self.mode!r}; use one of {', '.join(MODES)}")

    @property
    def lit(self) -> bool:
        return self.colour != "off" and self.mode != "off"


OFF = Light("off", "off")


def _check_side(side: str | None, allow_none: bool = False) -> None:
    if side is None and allow_none:
        return
    if side not in SIDES:
        raise LedStateError(f"side must be 'bottom' or 'top'{' or None' if allow_none else ''}, got {side!r}")


def physical_point(point: int, mover: Side) -> int:
    """The physical (bottom player's) number of the mover's own point ``point``."""
    _check_side(mover)
    if not 1 <= point <= 24:
        raise LedStateError(f"point must be 1..24, got {point!r}")
    return point if mover == "bottom" else 25 - point


@dataclass(frozen=True)
class LedState:
    """The board's full state: every point, bar and tray light, turn, cube and a status pattern."""

    points: tuple[Light, ...] = field(default_factory=lambda: (OFF,) * 24)
    bar: tuple[Light, Light] = (OFF, OFF)  # (bottom player's half, top player's half)
    trays: tuple[Light, Light] = (OFF, OFF)  # (bottom player's tray, top player's tray)
    turn: Side | None = None
    cube_value: int = 1
    cube_owner: Side | None = None  # None = centred
    status: Status = "normal"
    brightness: int = 255

    def __post_init__(self) -> None:
        if len(self.points) != 24 or not all(isinstance(p, Light) for p in self.points):
            raise LedStateError("points must be 24 Light values (physical points 1..24)")
        for name in ("bar", "trays"):
            pair = getattr(self, name)
            if len(pair) != 2 or not all(isinstance(p, Light) for p in pair):
                raise LedStateError(f"{name} must be two Light values (bottom, top)")
        _check_side(self.turn, allow_none=True)
        _check_side(self.cube_owner, allow_none=True)
        if self.cube_value not in CUBE_VALUES and not (
            isinstance(self.cube_value, int) and self.cube_value > 64 and self.cube_value & (self.cube_value - 1) == 0
        ):
            raise LedStateError(f"cube value must be a power of two (1, 2, 4, ... 64...), got {self.cube_value!r}")
        if self.status not in STATUSES:
            raise LedStateError(f"unknown status {self.status!r}; use one of {', '.join(STATUSES)}")
        if not isinstance(self.brightness, int) or not 0 <= self.brightness <= 255:
            raise LedStateError(f"brightness must be 0..255, got {self.brightness!r}")

    # --- reading ----------------------------------------------------------------------------
    def point(self, point: int) -> Light:
        if not 1 <= point <= 24:
            raise LedStateError(f"point must be 1..24, got {point!r}")
        return self.points[point - 1]

    def lit_points(self) -> dict[int, Light]:
        return {i + 1: light for i, light in enumerate(self.points) if light.lit}

    # --- composing --------------------------------------------------------------------------
    def with_point(self, point: int, colour: str, mode: Mode = "on") -> "LedState":
        return self.with_points([point], colour, mode)

    def with_points(self, points: Iterable[int], colour: str, mode: Mode = "on") -> "LedState":
        light = Light(colour, mode)
        new = list(self.points)
        for p in points:
            if not isinstance(p, int) or not 1 <= p <= 24:
                raise LedStateError(f"point must be 1..24, got {p!r}")
            new[p - 1] = light
        return replace(self, points=tuple(new))

    def with_bar(self, side: Side, colour: str, mode: Mode = "on") -> "LedState":
        _check_side(side)
        bar = (Light(colour, mode), self.bar[1]) if side == "bottom" else (self.bar[0], Light(colour, mode))
        return replace(self, bar=bar)

    def with_tray(self, side: Side, colour: str, mode: Mode = "on") -> "LedState":
        _check_side(side)
        trays = (Light(colour, mode), self.trays[1]) if side == "bottom" else (self.trays[0], Light(colour, mode))
        return replace(self, trays=trays)

    def with_turn(self, side: Side | None) -> "LedState":
        return replace(self, turn=side)

    def with_cube(self, value: int, owner: Side | None = None) -> "LedState":
        return replace(self, cube_value=value, cube_owner=owner)

    def with_status(self, status: Status) -> "LedState":
        return replace(self, status=status)

    def with_brightness(self, brightness: int) -> "LedState":
        return replace(self, brightness=brightness)

    def cleared(self) -> "LedState":
        """Points, bar and trays off; turn, cube, status and brightness kept."""
        return replace(self, points=(OFF,) * 24, bar=(OFF, OFF), trays=(OFF, OFF))

    def _with_mover_targets(self, targets: Iterable[int], mover: Side, colour: str, mode: Mode) -> "LedState":
        """Light the mover's points (25 = bar, 0 = off/tray) in the mover's numbering."""
        state = self
        for t in targets:
            if t == 0:
                state = state.with_tray(mover, colour, mode)
            elif t == 25:
                state = state.with_bar(mover, colour, mode)
            else:
                state = state.with_point(physical_point(t, mover), colour, mode)
        return state

    def for_legal_destinations(
        self,
        position,
        dice,
        mover: Side = "bottom",
        source: int | None = None,
        colour: str = "green",
        mode: Mode = "on",
    ) -> "LedState":
        """The points a checker may move to with this roll, lit; the mover's turn light on.

        ``position`` is a ``tablecompanion.rules.Position`` with the mover on roll; every move of every
        legal play counts (intermediate landing points included), bearing off lights the mover's tray.
        With ``source`` (mover's numbering, 25 = bar), only moves of the checker picked up there count.
        Called on an existing state, keeps its cube and status; points, bar and trays start cleared.
        """
        targets = legal_destinations(position, dice, source)
        return self.cleared().with_turn(mover)._with_mover_targets(sorted(targets), mover, colour, mode)

    def for_illegal_play(
        self, points: Iterable[int], mover: Side | None = None, colour: str = "red", mode: Mode = "blink"
    ) -> "LedState":
        """The points of an illegal play blinking red, everything else on points, bar and trays off.

        Points are physical unless ``mover`` is given, in which case they are the mover's numbering
        (25 = bar, 0 = borne off)."""
        state = self.cleared()
        if mover is None:
            return state.with_points(points, colour, mode)
        return state._with_mover_targets(points, mover, colour, mode)


def legal_destinations(position, dice, source: int | None = None) -> set[int]:
    """Every landing point (mover's numbering, 0 = off) of any move in any legal play of ``dice``.

    With ``source``, only the moves of the checker picked up there (and its onward hops)."""
    dice = tuple(int(d) for d in dice)
    if len(dice) != 2 or not all(1 <= d <= 6 for d in dice):
        raise LedStateError(f"dice must be two numbers 1..6, got {dice!r}")
    targets: set[int] = set()
    for play in position.legal_plays(dice):
        moves = [_move_ends(m) for m in play.moves]
        if source is None:
            targets.update(dst for _, dst in moves)
            continue
        here = source
        for src, dst in moves:
            if src == here:
                targets.add(dst)
                here = dst
    return targets


def _move_ends(move) -> tuple[int, int]:
    """(source, destination) of a rules ``Move`` (a NamedTuple ``(source, dest, hit)``)."""
    src = getattr(move, "source", getattr(move, "src", None))
    dst = getattr(move, "dest", getattr(move, "dst", None))
    if src is None or dst is None:
        src, dst = move[0], move[1]
    return int(src), int(dst)
