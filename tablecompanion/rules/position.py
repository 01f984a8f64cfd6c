"""Positions, moves and plays: the value types of the rules engine.

A :class:`Position` is the checkers of both sides seen from the player on roll, exactly as gnubg's
board arrays: ``on_roll`` and ``opponent`` are 25 ints each, written from their own owner's point of
view (index ``i`` = the owner's point ``i + 1``, index 24 = the owner's bar). Checkers borne off are
``15 - sum(side)``. A position knows nothing of dice, cube or score.

>>> pos = Position.initial()
>>> plays = pos.legal_plays((3, 1))
>>> len(plays)
16
>>> play = pos.parse_play("8/5 6/5", (3, 1))
>>> str(play)
'8/5 6/5'
>>> pos.apply(play).position_id()
'sGfwATDgc/ABMA'
"""

from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

from tablecompanion.rules import movegen
from tablecompanion.rules.errors import IllegalPlayError, InvalidIdError, InvalidPositionError, RulesError
from tablecompanion.rules.ids import MatchState, decode_position_id, encode_position_id

__all__ = ["Position", "Play", "Move", "BAR", "OFF", "CHECKERS", "START", "normalize_dice"]

BAR = 25
"""Source point of a checker entering from the bar, in the mover's numbering."""
OFF = 0
"""Destination point of a checker borne off, in the mover's numbering."""
CHECKERS = 15
"""Checkers per side."""
START = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
"""One side of the starting position, as a 25-slot board array."""


def normalize_dice(dice: Sequence[int]) -> tuple[int, int]:
    """``(high, low)`` from any two dice; :class:`RulesError` unless both are 1..6.

    >>> normalize_dice((1, 3))
    (3, 1)
    """
    try:
        d1, d2 = dice
        d1 = int(d1)
        d2 = int(d2)
    except (TypeError, ValueError):
        raise RulesError(f"dice must be two numbers 1..6, not {dice!r}") from None
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise RulesError(f"dice must be two numbers 1..6, not {dice!r}")
    return (d1, d2) if d1 >= d2 else (d2, d1)


def point_name(p: int) -> str:
    """``'bar'`` for 25, ``'off'`` for 0, else the number."""
    if p == BAR:
        return "bar"
    if p == OFF:
        return "off"
    return str(p)


class Move(NamedTuple):
    """One die played by one checker, in the mover's numbering (``source`` 25 = bar, ``dest`` 0 = off).

    The die is ``source - dest`` except when a checker is borne off with a higher die; a play's
    :attr:`Play.dice_played` lists the dice in playing order.

    >>> str(Move(13, 7, True))
    '13/7*'
    """

    source: int
    dest: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{point_name(self.source)}/{point_name(self.dest)}{'*' if self.hit else ''}"


_new_tuple = tuple.__new__


class Play:
    """One legal way to play a roll, identified by the position it leads to.

    ``moves`` are the single-die steps in the order they are played; two plays from the same
    position are equal when they lead to the same position, whatever their steps. ``str(play)`` is
    gnubg-style notation. A play with no moves is the forced pass of a roll that cannot be played.
    """

    __slots__ = ("position", "dice", "_steps", "_key", "_text")

    def __init__(self, position: "Position", dice: tuple[int, int], steps: tuple, key: tuple) -> None:
        self.position = position
        self.dice = dice
        self._steps = steps
        self._key = key
        self._text = None

    @property
    def moves(self) -> tuple[Move, ...]:
        """The single-die steps, in playing order."""
        return tuple(_new_tuple(Move, (s, t, hit)) for s, t, _, hit in self._steps)

    @property
    def dice_played(self) -> tuple[int, ...]:
        """The die of each move, in playing order (parallel to :attr:`moves`)."""
        return tuple(step[2] for step in self._steps)

    @property
    def dice_used(self) -> int:
        """How many dice the play uses (0..4)."""
        return len(self._steps)

    @property
    def hits(self) -> int:
        """How many opponent checkers the play sends to the bar."""
        return bin(self._key[1]).count("1")

    @property
    def hit_points(self) -> tuple[int, ...]:
        """The mover's points where a blot was hit, highest first."""
        mask = self._key[1]
        return tuple(p for p in range(24, 0, -1) if mask >> p & 1)

    @property
    def bears_off(self) -> int:
        """How many checkers the play bears off."""
        return self._key[0][0] - self.position.borne_off[0]

    def is_pass(self) -> bool:
        """True for the empty play of a roll that cannot be played."""
        return not self._steps

    def result(self) -> "Position":
        """The position after the play, the mover still on roll (gnubg's ``mover_view``)."""
        return self.position._after(self._key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._key == other._key and (
            self.position is other.position or self.position == other.position
        )

    def __hash__(self) -> int:
        return hash(self._key)

    def __str__(self) -> str:
        if self._text is None:
            from tablecompanion.rules.notation import format_play

            self._text = format_play(self.position, self._steps)
        return self._text

    def __repr__(self) -> str:
        d1, d2 = self.dice
        return f"{self.position!r}.parse_play({str(self)!r}, ({d1}, {d2}))"

    def __iter__(self):
        return iter(self.moves)

    def __len__(self) -> int:
        return len(self._steps)


def _check_side(side: Iterable[int], who: str) -> tuple[int, ...]:
    try:
        t = tuple(int(n) for n in side)
    except (TypeError, ValueError):
        raise InvalidPositionError(f"{who}: a board side is 25 whole numbers") from None
    if len(t) != 25:
        raise InvalidPositionError(f"{who}: a board side has 25 slots (points 1..24, bar), not {len(t)}")
    if min(t) < 0:
        raise InvalidPositionError(f"{who}: negative checker count")
    if sum(t) > CHECKERS:
        raise InvalidPositionError(f"{who}: {sum(t)} checkers on the board, at most {CHECKERS}")
    return t


class Position:
    """The checkers of both sides, from the point of view of the player on roll. Immutable.

    >>> Position.from_position_id("4HPwATDgc/ABMA") == Position.initial()
    True
    >>> Position.initial().pip_counts()
    (167, 167)
    """

    __slots__ = ("on_roll", "opponent", "_hash")

    on_roll: tuple[int, ...]
    opponent: tuple[int, ...]

    def __init__(self, on_roll: Iterable[int], opponent: Iterable[int]) -> None:
        a = _check_side(on_roll, "on roll")
        b = _check_side(opponent, "opponent")
        for p in range(1, 25):
            if a[p - 1] and b[24 - p]:
                raise InvalidPositionError(
                    f"point {p} (of the player on roll) holds checkers of both sides"
                )
        if a[24] and b[24] and all(n >= 2 for n in a[:6]) and all(n >= 2 for n in b[:6]):
            # gnubg's CheckPosition refuses this too: neither side could ever move again
            raise InvalidPositionError(
                "both sides have checkers on the bar against closed home boards: no game reaches this"
            )
        object.__setattr__(self, "on_roll", a)
        object.__setattr__(self, "opponent", b)
        object.__setattr__(self, "_hash", None)

    @classmethod
    def _trusted(cls, on_roll: tuple[int, ...], opponent: tuple[int, ...]) -> "Position":
        self = object.__new__(cls)
        object.__setattr__(self, "on_roll", on_roll)
        object.__setattr__(self, "opponent", opponent)
        object.__setattr__(self, "_hash", None)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Position is immutable")

    def __reduce__(self):
        return (Position, (self.on_roll, self.opponent))

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def initial(cls) -> "Position":
        """The starting position."""
        return cls._trusted(START, START)

    @classmethod
    def from_board(cls, on_roll: Iterable[int], opponent: Iterable[int]) -> "Position":
        """From gnubg board arrays (each from its owner's point of view, index 24 = bar)."""
        return cls(on_roll, opponent)

    @classmethod
    def from_position_id(cls, position_id: str) -> "Position":
        """From a 14-character gnubg Position ID (first half: player not on roll).

        Also accepts a full ``PositionID:MatchID`` GNUBG ID and uses its first part (the Match ID
        must still be a valid one). Raises :class:`~tablecompanion.rules.errors.InvalidIdError`
        for anything else.
        """
        if isinstance(position_id, str) and ":" in position_id:
            position_id, match_id = position_id.split(":", 1)
            MatchState.from_match_id(match_id)  # a typo there is refused, not silently dropped
        first, second = decode_position_id(position_id)
        try:
            return cls(second, first)
        except InvalidPositionError as exc:
            raise InvalidIdError(f"{position_id!r} is not a valid position: {exc}") from None

    def position_id(self) -> str:
        """The gnubg Position ID (the player on roll in the second half)."""
        return encode_position_id(self.opponent, self.on_roll)

    @classmethod
    def from_xgid(cls, xgid: str) -> "Position":
        """The checkers of an XGID, seen from the player on roll (see :class:`~tablecompanion.rules.xgid.Xgid`)."""
        from tablecompanion.rules.xgid import Xgid

        return Xgid.parse(xgid).position

    def xgid(self, dice: Sequence[int] = (0, 0)) -> str:
        """A money-game XGID of this position: the player on roll as X, centred 1-cube.

        >>> Position.initial().xgid((5, 2))
        'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10'
        """
        from tablecompanion.rules.xgid import Xgid

        return str(Xgid(position=self, dice=tuple(dice)))

    # -- value semantics ----------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.on_roll == other.on_roll and self.opponent == other.opponent

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash((self.on_roll, self.opponent))
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self) -> str:
        return f"Position.from_position_id({self.position_id()!r})"

    def __str__(self) -> str:
        from tablecompanion.rules.notation import diagram

        return diagram(self)

    # -- simple facts -------------------------------------------------------------------------

    def swapped(self) -> "Position":
        """The same checkers with the other player on roll."""
        return Position._trusted(self.opponent, self.on_roll)

    @property
    def bar(self) -> tuple[int, int]:
        """Checkers on the bar: ``(on_roll, opponent)``."""
        return self.on_roll[24], self.opponent[24]

    @property
    def borne_off(self) -> tuple[int, int]:
        """Checkers borne off: ``(on_roll, opponent)``."""
        return CHECKERS - sum(self.on_roll), CHECKERS - sum(self.opponent)

    def pip_counts(self) -> tuple[int, int]:
        """Pips each side still has to move: ``(on_roll, opponent)``; the bar counts 25."""
        return (
            sum(n * (i + 1) for i, n in enumerate(self.on_roll)),
            sum(n * (i + 1) for i, n in enumerate(self.opponent)),
        )

    def all_home(self, side: str = "on_roll") -> bool:
        """True when every checker of ``side`` (``"on_roll"`` or ``"opponent"``) still in play is in
        its home board, so it may bear off."""
        board = self.on_roll if side == "on_roll" else self.opponent
        return not any(board[6:])

    def is_contact(self) -> bool:
        """True while the two armies have not passed each other (a hit is still possible)."""
        a, b = self.on_roll, self.opponent
        if a[24] or b[24]:
            return True
        back_a = max((i + 1 for i in range(24) if a[i]), default=0)  # on-roll's furthest point
        back_b = max((i + 1 for i in range(24) if b[i]), default=0)
        # On-roll's point p is opponent's 25 - p: contact while back_a + back_b > 25.
        return back_a + back_b > 25

    def winner(self) -> str | None:
        """``"on_roll"`` or ``"opponent"`` if that side has borne off all 15, else ``None``."""
        if not any(self.on_roll):
            return "on_roll"
        if not any(self.opponent):
            return "opponent"
        return None

    def checker_at(self, point: int) -> tuple[str, int] | None:
        """Who holds the on-roll player's ``point`` (1..24) and how many: ``("on_roll", 3)``, or None."""
        if not 1 <= point <= 24:
            raise RulesError(f"point must be 1..24, not {point!r}")
        if self.on_roll[point - 1]:
            return "on_roll", self.on_roll[point - 1]
        if self.opponent[24 - point]:
            return "opponent", self.opponent[24 - point]
        return None

    # -- rules --------------------------------------------------------------------------------

    def _lists(self) -> tuple[list[int], list[int]]:
        """The generator's layout: ``b`` (mover, b[0] = off) and ``o`` (opponent on mover points)."""
        on_roll = self.on_roll
        b = [CHECKERS - sum(on_roll)]
        b.extend(on_roll)
        o = list(self.opponent[::-1])
        o.append(0)
        return b, o

    def _after(self, key: tuple) -> "Position":
        """Mover's view after the play with generator ``key``."""
        board, mask = key
        on_roll = board[1:]
        if not mask:
            return Position._trusted(on_roll, self.opponent)
        opp = list(self.opponent)
        for p in range(1, 25):
            if mask >> p & 1:
                opp[24 - p] -= 1
                opp[24] += 1
        return Position._trusted(on_roll, tuple(opp))

    def legal_plays(self, dice: Sequence[int]) -> list[Play]:
        """Every legal play of ``dice``, one per distinct resulting position (gnubg's count).

        An empty list means the roll cannot be played at all.

        >>> len(Position.initial().legal_plays((6, 6)))
        11
        """
        d1, d2 = normalize_dice(dice)
        b, o = self._lists()
        found = movegen.generate(b, o, d1, d2)
        roll = (d1, d2)
        return [Play(self, roll, steps, key) for key, steps in found.items()]

    def has_legal_play(self, dice: Sequence[int]) -> bool:
        """False when the roll must be forfeited."""
        d1, d2 = normalize_dice(dice)
        b, o = self._lists()
        return bool(movegen.single_moves(b, o, d1) or movegen.single_moves(b, o, d2))

    def pass_play(self, dice: Sequence[int]) -> Play:
        """The empty play for a roll that cannot be played; :class:`IllegalPlayError` if it can."""
        roll = normalize_dice(dice)
        if self.has_legal_play(roll):
            raise IllegalPlayError(f"{roll[0]}-{roll[1]} can be played: passing is not allowed")
        b, _ = self._lists()
        return Play(self, roll, (), (tuple(b), 0))

    def apply(self, play: Play, *, pass_turn: bool = True) -> "Position":
        """The position after ``play``; by default the opponent is then on roll.

        ``play`` must come from this position (``legal_plays`` or ``parse_play``).
        """
        if not isinstance(play, Play):
            raise TypeError(f"apply() takes a Play, not {type(play).__name__}; use parse_play() for text")
        if play.position is not self and play.position != self:
            raise IllegalPlayError(f"the play {play} belongs to another position ({play.position!r})")
        after = self._after(play._key)
        return after.swapped() if pass_turn else after

    def parse_play(self, text: str, dice: Sequence[int]) -> Play:
        """The legal play that ``text`` describes, in gnubg style or a common variant.

        Raises :class:`~tablecompanion.rules.errors.NotationError` for text that is not a play and
        :class:`~tablecompanion.rules.errors.IllegalPlayError` (saying why) for an illegal one.

        >>> str(Position.initial().parse_play("13/7 8/7", (6, 1)))
        '13/7 8/7'
        """
        from tablecompanion.rules.notation import parse_play

        return parse_play(self, text, dice)
