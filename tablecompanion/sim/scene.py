"""What is on the table, physically: checkers per point, bar and trays, dice, cube, hands, board style.

A ``Scene`` is the board as the camera sees it, so points are numbered for the player at the bottom
(like ``tablecompanion.geometry``) and checkers carry their colour ("light"/"dark"), not a rules side.
``Scene.from_position`` maps a rules position (relative to the side on roll) onto that board.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

from tablecompanion.sim.errors import SimError
from tablecompanion.sim.style import DIE_STYLES, STYLES

COLOURS = ("light", "dark")
SIDES = ("bottom", "top")
DIE_STATES = (
    "flat",
    "cocked",
    "leaning-on-checker",
    "on-checker",
    "against-edge",
    "across-bar",
    "wrong-half",
    "off-board",
    "rolling",
)
CHECKERS_PER_SIDE = 15


@dataclass(frozen=True)
class Die:
    """One die. ``x, y`` (board mm) ``None``: placed by the renderer where ``state`` says, from the seed.

    ``rotation`` (a 3x3 nested tuple, die frame to world) overrides the value-up orientation, for dice
    tumbling in the air (``state="rolling"``); ``height`` lifts the die off the surface (mm);
    ``motion_px`` is how far the die moves across the picture during the exposure (motion blur);
    ``pose_seed`` makes the renderer's placement choices the same in every frame; ``thrower`` (bottom/top)
    overrides the scene's roller for this die (the opening roll: one die in each player's board).
    """

    value: int
    state: str = "flat"
    x: float | None = None
    y: float | None = None
    yaw: float | None = None
    tilt: float | None = None
    style: str = "white-black-pips"
    height: float = 0.0
    rotation: tuple | None = None
    motion_px: tuple[float, float] = (0.0, 0.0)
    pose_seed: int | None = None  # fixes the placement's random choices (footage: stable across frames)
    thrower: str | None = None  # bottom/top: whose right-hand board it belongs in (default: the scene's roller)

    def __post_init__(self) -> None:
        if self.value not in range(1, 7):
            raise SimError(f"a die shows 1..6, got {self.value!r}")
        if self.state not in DIE_STATES:
            raise SimError(f"unknown die state {self.state!r}; choose from {', '.join(DIE_STATES)}")
        if self.style not in DIE_STYLES:
            raise SimError(f"unknown dice style {self.style!r}; choose from {', '.join(DIE_STYLES)}")
        if self.thrower is not None and self.thrower not in SIDES:
            raise SimError(f"a die's thrower is bottom or top, got {self.thrower!r}")


@dataclass(frozen=True)
class Cube:
    """The doubling cube: value 1 shows 64. ``position``: middle (centred), bottom or top (owner's side),
    or ``offered`` (turned up and pushed to the middle of the board for the opponent to decide)."""

    value: int = 1
    position: str = "middle"
    x: float | None = None
    y: float | None = None

    def __post_init__(self) -> None:
        if self.value not in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
            raise SimError(f"the cube shows a power of two up to 1024, got {self.value!r}")
        if self.position not in ("middle", "bottom", "top", "offered"):
            raise SimError(f"cube position must be middle, bottom, top or offered, got {self.position!r}")

    @property
    def face(self) -> int:
        return 64 if self.value == 1 else self.value


@dataclass(frozen=True)
class Hand:
    """A player's hand and forearm reaching over the board from their edge, fingertips at ``x, y`` (mm),
    ``height`` mm above the surface; ``holding`` is the colour of a checker in the fingers, if any."""

    player: str = "bottom"
    x: float = 600.0
    y: float = 380.0
    height: float = 45.0
    holding: str | None = None
    skin: tuple[int, int, int] = (120, 150, 200)
    sleeve: tuple[int, int, int] = (110, 70, 40)
    spread: float = 0.4  # 0 = fingers together (pinch), 1 = open hand
    motion_mm: tuple[float, float] = (0.0, 0.0)  # how far the hand moves during the exposure (blur)
    # Where the arm comes from: the shoulder this far (mm) to the hand's own side (a right hand's right, a
    # left hand's left) and beyond its player's edge of the board (the name is older than the elbow, which
    # ``hands`` bends as the reach needs); people reach at different angles, not along one rail.
    elbow_mm: tuple[float, float] = (160.0, 380.0)
    left: bool = False  # a left hand (the right one mirrored): about one player in ten plays with it
    # Each finger's own curl beyond the hand's (index, middle, ring, little; -1 straighter .. 1 more
    # curled): fingers curling all alike along ``spread`` gave a grab away.
    fingers: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        if self.player not in SIDES:
            raise SimError(f"hand player must be bottom or top, got {self.player!r}")
        if len(self.fingers) != 4 or not all(-1.0 <= float(f) <= 1.0 for f in self.fingers):
            raise SimError(f"fingers are four curls in -1..1 (index to little), got {self.fingers!r}")
        if self.holding is not None and self.holding not in COLOURS:
            raise SimError(f"a held checker is light or dark, got {self.holding!r}")


@dataclass(frozen=True)
class Scene:
    """The physical board. ``points[p - 1] = (colour or None, count)`` for the bottom player's point p."""

    points: tuple[tuple[str | None, int], ...] = ((None, 0),) * 24
    bar: tuple[tuple[str, int], ...] = (("light", 0), ("dark", 0))
    off: tuple[tuple[str, int], ...] = (("light", 0), ("dark", 0))
    bottom: str = "light"  # colour of the player sitting at the bottom edge
    home: str = "right"
    roller: str = "bottom"  # who rolled the dice on the table
    dice: tuple[Die, ...] = ()
    cube: Cube | None = field(default_factory=Cube)
    hands: tuple[Hand, ...] = ()
    style: str = "tournament"
    markers: bool = True
    jitter_seed: int = 0  # how imperfectly checkers sit; stable across frames of one match

    def __post_init__(self) -> None:
        if len(self.points) != 24:
            raise SimError(f"a board has 24 points, got {len(self.points)}")
        for i, (colour, count) in enumerate(self.points):
            if count < 0 or (count and colour not in COLOURS):
                raise SimError(f"point {i + 1}: need a colour light/dark and a count >= 0, got {(colour, count)!r}")
        if self.bottom not in COLOURS:
            raise SimError(f"bottom must be light or dark, got {self.bottom!r}")
        if self.home not in ("right", "left"):
            raise SimError(f"home must be right or left, got {self.home!r}")
        if self.roller not in SIDES:
            raise SimError(f"roller must be bottom or top, got {self.roller!r}")
        if self.style not in STYLES:
            raise SimError(f"unknown board style {self.style!r}; choose from {', '.join(STYLES)}")
        for colour in COLOURS:
            total = sum(c for col, c in self.points if col == colour) + self.bar_count(colour) + self.off_count(colour)
            if total > CHECKERS_PER_SIDE:
                raise SimError(f"{total} {colour} checkers on the table, a side has {CHECKERS_PER_SIDE}")

    # --- lookups --------------------------------------------------------------------------------
    def bar_count(self, colour: str) -> int:
        return dict(self.bar).get(colour, 0)

    def off_count(self, colour: str) -> int:
        return dict(self.off).get(colour, 0)

    def colour_of(self, side: str) -> str:
        """The colour of the player sitting at ``side`` (bottom/top)."""
        if side not in SIDES:
            raise SimError(f"side must be bottom or top, got {side!r}")
        return self.bottom if side == "bottom" else other_colour(self.bottom)

    def side_of(self, colour: str) -> str:
        return "bottom" if colour == self.bottom else "top"

    def checkers_key(self) -> tuple:
        """What the static layer depends on: checkers, cube, style, orientation, markers."""
        return (self.points, self.bar, self.off, self.bottom, self.home, self.cube, self.style, self.markers, self.jitter_seed)

    def replace(self, **changes: Any) -> "Scene":
        return replace(self, **changes)

    # --- rules positions ----------------------------------------------------------------------
    @classmethod
    def from_boards(
        cls, bottom_board: Sequence[int], top_board: Sequence[int], *, bottom_colour: str = "light",
        in_hand: Mapping[str, int] | None = None, **kwargs: Any
    ) -> "Scene":
        """From two gnubg-style arrays (25 ints: own point i + 1, 24 = bar), bottom player's first.

        Checkers missing from a board are borne off, except ``in_hand`` ({colour: count}) ones.
        """
        bottom_board, top_board = _board(bottom_board, "bottom"), _board(top_board, "top")
        top_colour = other_colour(bottom_colour)
        points: list[tuple[str | None, int]] = [(None, 0)] * 24
        for i in range(24):
            if bottom_board[i]:
                points[i] = (bottom_colour, bottom_board[i])
        for j in range(24):
            if top_board[j]:
                p = 24 - j  # top's own point j + 1 is bottom's 25 - (j + 1)
                if points[p - 1][1]:
                    raise SimError(f"both players have checkers on point {p}")
                points[p - 1] = (top_colour, top_board[j])
        bar = ((bottom_colour, bottom_board[24]), (top_colour, top_board[24]))
        held = dict(in_hand or {})
        off = ((bottom_colour, CHECKERS_PER_SIDE - sum(bottom_board) - held.get(bottom_colour, 0)),
               (top_colour, CHECKERS_PER_SIDE - sum(top_board) - held.get(top_colour, 0)))
        if min(n for _, n in off) < 0:
            raise SimError(f"more checkers in hand than are off the board: {held!r}")
        bar = tuple(sorted(bar, key=lambda kv: COLOURS.index(kv[0])))
        off = tuple(sorted(off, key=lambda kv: COLOURS.index(kv[0])))
        return cls(points=tuple(points), bar=bar, off=off, bottom=bottom_colour, **kwargs)

    @classmethod
    def from_position(
        cls,
        position: Any,
        bottom: str = "on_roll",
        dice: Iterable[int] | Iterable[Die] | None = (6, 3),
        *,
        die_state: str = "flat",
        dice_style: str = "white-black-pips",
        bottom_colour: str = "light",
        **kwargs: Any,
    ) -> "Scene":
        """A rules position on the table: ``bottom`` says who sits at the bottom ("on_roll"/"opponent").

        ``position`` is a ``tablecompanion.rules.Position`` (or anything with ``on_roll`` and
        ``opponent`` arrays) or a gnubg position ID. The side on roll rolled ``dice``, which lie in its
        right-hand board (the first die gets ``die_state``; pass ``Die`` objects for full control).
        """
        if isinstance(position, str):
            position = _position_from_id(position)
        try:
            on_roll, opponent = tuple(position.on_roll), tuple(position.opponent)
        except AttributeError:
            raise SimError(f"not a position: {position!r} (need on_roll/opponent arrays or a position ID)") from None
        if bottom not in ("on_roll", "opponent"):
            raise SimError(f"bottom must be 'on_roll' or 'opponent', got {bottom!r}")
        if bottom == "on_roll":
            boards, roller = (on_roll, opponent), "bottom"
        else:
            boards, roller = (opponent, on_roll), "top"
        dice_objs: list[Die] = []
        for i, d in enumerate(dice or ()):
            if isinstance(d, Die):
                dice_objs.append(d)
            else:
                dice_objs.append(Die(int(d), state=die_state if i == 0 else "flat", style=dice_style))
        kwargs.setdefault("roller", roller)
        return cls.from_boards(*boards, bottom_colour=bottom_colour, dice=tuple(dice_objs), **kwargs)

    def boards(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Back to gnubg-style arrays (bottom player's, top player's): the inverse of ``from_boards``."""
        bottom_colour, top_colour = self.bottom, other_colour(self.bottom)
        b = [0] * 25
        t = [0] * 25
        for i, (colour, count) in enumerate(self.points):
            if colour == bottom_colour:
                b[i] = count
            elif colour == top_colour:
                t[23 - i] = count
        b[24] = self.bar_count(bottom_colour)
        t[24] = self.bar_count(top_colour)
        return tuple(b), tuple(t)


def other_colour(colour: str) -> str:
    if colour not in COLOURS:
        raise SimError(f"colour must be light or dark, got {colour!r}")
    return "dark" if colour == "light" else "light"


def _board(values: Sequence[int], who: str) -> tuple[int, ...]:
    values = tuple(int(v) for v in values)
    if len(values) != 25 or min(values) < 0 or sum(values) > CHECKERS_PER_SIDE:
        raise SimError(f"{who} board must be 25 counts >= 0 totalling at most 15, got {values!r}")
    return values


def _position_from_id(position_id: str):
    try:
        from tablecompanion.rules.position import Position
    except ImportError as exc:  # pragma: no cover - the rules core ships with the package
        raise SimError("position IDs need tablecompanion.rules") from exc
    try:
        return Position.from_position_id(position_id)
    except Exception as exc:
        raise SimError(f"bad position ID {position_id!r}: {exc}") from exc


def points_from_mapping(mapping: Mapping[int, tuple[str, int]]) -> tuple[tuple[str | None, int], ...]:
    """``{point: (colour, count)}`` to the 24-tuple a Scene holds."""
    out: list[tuple[str | None, int]] = [(None, 0)] * 24
    for p, (colour, count) in mapping.items():
        if not 1 <= p <= 24:
            raise SimError(f"point must be 1..24, got {p!r}")
        out[p - 1] = (colour, int(count))
    return tuple(out)
