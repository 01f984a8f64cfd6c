"""eXtreme Gammon's XGID: a position and its match context in one line.

``XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10`` is ten fields separated by ``:``:

1. the board, 26 characters from the point of view of the uppercase player X (XG's bottom player):
   index 0 is O's bar, index ``p`` (1..24) is X's point ``p`` (O's point ``25 - p``), index 25 is
   X's bar; ``-`` is empty, ``A``..``O`` are 1..15 checkers of X, ``a``..``o`` of O;
2. the cube as a power of two (0 = 1-cube); 3. the cube owner: 1 X, -1 O, 0 centred;
4. whose turn: 1 X, -1 O; 5. the dice, ``00`` before the roll, or ``D`` (double offered),
   ``B`` (beavered), ``R`` (raccooned); 6.-7. X's and O's scores; 8. in a match 1 for the Crawford
   game, in money play Jacoby (1) + beaver (2); 9. the match length, 0 for money; 10. the cube
   limit as a power of two.

A :class:`Position` is always seen from the player on roll, so decoding flips the board when O is
on roll. Bad strings raise :class:`InvalidIdError`, never a silently wrong board.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablecompanion.rules.errors import InvalidIdError, InvalidPositionError
from tablecompanion.rules.position import Position

__all__ = ["Xgid"]

_CUBE_ACTIONS = {"D": "double", "B": "beaver", "R": "raccoon"}
_CUBE_ACTION_CODES = {v: k for k, v in _CUBE_ACTIONS.items()}


def _board_chars(x_side: tuple[int, ...], o_side: tuple[int, ...]) -> str:
    """26 board characters from X's and O's own-numbered 25-slot sides."""

    def ch(n: int, upper: bool) -> str:
        if not n:
            return "-"
        c = chr(ord("A") + n - 1)
        return c if upper else c.lower()

    chars = [ch(o_side[24], False)]
    for p in range(1, 25):
        if x_side[p - 1]:
            chars.append(ch(x_side[p - 1], True))
        else:
            chars.append(ch(o_side[24 - p], False))
    chars.append(ch(x_side[24], True))
    return "".join(chars)


def _parse_board(text: str, xgid: str) -> tuple[list[int], list[int]]:
    if len(text) != 26:
        raise InvalidIdError(f"{xgid!r}: the XGID board has 26 characters, not {len(text)}")
    x = [0] * 25
    o = [0] * 25
    for i, c in enumerate(text):
        if c == "-":
            continue
        if "A" <= c <= "O":
            n, upper = ord(c) - ord("A") + 1, True
        elif "a" <= c <= "o":
            n, upper = ord(c) - ord("a") + 1, False
        else:
            raise InvalidIdError(f"{xgid!r}: board character {c!r} at {i} is not '-', A..O or a..o")
        if upper:
            if i == 0:
                raise InvalidIdError(f"{xgid!r}: X checkers on O's bar (index 0)")
            x[24 if i == 25 else i - 1] = n
        else:
            if i == 25:
                raise InvalidIdError(f"{xgid!r}: O checkers on X's bar (index 25)")
            o[24 if i == 0 else 24 - i] = n
    return x, o


def _int(text: str, name: str, xgid: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidIdError(f"{xgid!r}: {name} {text!r} is not a number") from None


@dataclass(frozen=True)
class Xgid:
    """A decoded XGID. ``position`` is seen from the player on roll, ``turn`` says who that is.

    >>> x = Xgid.parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
    >>> x.position == Position.initial(), x.turn, x.dice, x.jacoby, x.beaver
    (True, 'X', (5, 2), True, True)
    >>> str(x)
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10'
    """

    position: Position = field(default_factory=Position.initial)
    turn: str = "X"
    cube: int = 1
    cube_owner: str | None = None
    dice: tuple[int, int] = (0, 0)
    cube_action: str | None = None
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    max_cube: int = 1024

    def __post_init__(self) -> None:
        if not isinstance(self.position, Position):
            raise InvalidIdError("position must be a Position")
        if self.turn not in ("X", "O"):
            raise InvalidIdError(f"turn must be 'X' or 'O', not {self.turn!r}")
        for name in ("cube", "max_cube"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1 or v & (v - 1):
                raise InvalidIdError(f"{name} must be a power of two, not {v!r}")
        if self.cube_owner not in (None, "X", "O"):
            raise InvalidIdError(f"cube owner must be 'X', 'O' or None, not {self.cube_owner!r}")
        d1, d2 = self.dice
        if (d1, d2) != (0, 0) and not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise InvalidIdError(f"dice must be 1..6 each or (0, 0), not {self.dice!r}")
        if self.cube_action not in (None, "double", "beaver", "raccoon"):
            raise InvalidIdError(f"cube action must be None, double, beaver or raccoon, not {self.cube_action!r}")
        if self.cube_action and (d1, d2) != (0, 0):
            raise InvalidIdError("dice and a pending cube action cannot both be set")
        if self.match_length < 0 or min(self.score) < 0:
            raise InvalidIdError("match length and scores cannot be negative")
        if self.match_length and (self.jacoby or self.beaver):
            raise InvalidIdError("Jacoby and beavers are money-play options")
        if not self.match_length and self.crawford:
            raise InvalidIdError("the Crawford game exists only in a match")

    # -- decoding -----------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> "Xgid":
        """Decode ``XGID=...`` (the ``XGID=`` prefix is optional)."""
        if not isinstance(text, str):
            raise InvalidIdError(f"an XGID is a string, not {type(text).__name__}")
        xgid = text.strip()
        body = xgid[5:] if xgid.upper().startswith("XGID=") else xgid
        fields = body.split(":")
        if len(fields) not in (9, 10):
            raise InvalidIdError(f"{xgid!r}: an XGID has 10 fields separated by ':', not {len(fields)}")
        if len(fields) == 9:
            fields.append("10")  # older XGIDs leave out the cube limit
        board, cube, owner, turn, dice, s1, s2, flags, length, limit = fields
        x, o = _parse_board(board, xgid)
        cube_log = _int(cube, "cube", xgid)
        owner_n = _int(owner, "cube owner", xgid)
        turn_n = _int(turn, "turn", xgid)
        score_x = _int(s1, "X's score", xgid)
        score_o = _int(s2, "O's score", xgid)
        flags_n = _int(flags, "Crawford/Jacoby field", xgid)
        length_n = _int(length, "match length", xgid)
        limit_log = _int(limit, "cube limit", xgid)
        if not 0 <= cube_log <= 15 or not 0 <= limit_log <= 15:
            raise InvalidIdError(f"{xgid!r}: cube fields are powers of two 0..15")
        if owner_n not in (-1, 0, 1):
            raise InvalidIdError(f"{xgid!r}: cube owner must be 1, 0 or -1, not {owner_n}")
        if turn_n not in (-1, 1):
            raise InvalidIdError(f"{xgid!r}: turn must be 1 or -1, not {turn_n}")
        cube_action = None
        if dice in _CUBE_ACTIONS:
            cube_action, dice_t = _CUBE_ACTIONS[dice], (0, 0)
        elif len(dice) == 2 and dice.isdigit():
            dice_t = (int(dice[0]), int(dice[1]))
            if dice_t != (0, 0) and not (1 <= dice_t[0] <= 6 and 1 <= dice_t[1] <= 6):
                raise InvalidIdError(f"{xgid!r}: dice {dice!r} are not two numbers 1..6")
        else:
            raise InvalidIdError(f"{xgid!r}: dice field {dice!r} is not 00, two dice, D, B or R")
        if length_n < 0 or score_x < 0 or score_o < 0:
            raise InvalidIdError(f"{xgid!r}: negative match length or score")
        if length_n:
            if flags_n not in (0, 1):
                raise InvalidIdError(f"{xgid!r}: Crawford field must be 0 or 1 in a match, not {flags_n}")
            crawford, jacoby, beaver = bool(flags_n), False, False
        else:
            if not 0 <= flags_n <= 3:
                raise InvalidIdError(f"{xgid!r}: money Jacoby/beaver field must be 0..3, not {flags_n}")
            crawford, jacoby, beaver = False, bool(flags_n & 1), bool(flags_n & 2)
        on_roll, opponent = (x, o) if turn_n == 1 else (o, x)
        try:
            position = Position(on_roll, opponent)
        except InvalidPositionError as exc:
            raise InvalidIdError(f"{xgid!r}: {exc}") from None
        return cls(
            position=position,
            turn="X" if turn_n == 1 else "O",
            cube=1 << cube_log,
            cube_owner={1: "X", -1: "O", 0: None}[owner_n],
            dice=dice_t,
            cube_action=cube_action,
            score=(score_x, score_o),
            match_length=length_n,
            crawford=crawford,
            jacoby=jacoby,
            beaver=beaver,
            max_cube=1 << limit_log,
        )

    # -- encoding -----------------------------------------------------------------------------

    def x_and_o(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The two sides as ``(X, O)``, each in its own numbering."""
        pos = self.position
        return (pos.on_roll, pos.opponent) if self.turn == "X" else (pos.opponent, pos.on_roll)

    def __str__(self) -> str:
        x, o = self.x_and_o()
        if self.cube_action:
            dice = _CUBE_ACTION_CODES[self.cube_action]
        else:
            dice = f"{self.dice[0]}{self.dice[1]}"
        flags = int(self.crawford) if self.match_length else int(self.jacoby) + 2 * int(self.beaver)
        owner = {"X": 1, "O": -1, None: 0}[self.cube_owner]
        return "XGID=" + ":".join(
            [
                _board_chars(x, o),
                str(self.cube.bit_length() - 1),
                str(owner),
                "1" if self.turn == "X" else "-1",
                dice,
                str(self.score[0]),
                str(self.score[1]),
                str(flags),
                str(self.match_length),
                str(self.max_cube.bit_length() - 1),
            ]
        )

    def __repr__(self) -> str:
        return f"Xgid.parse({str(self)!r})"
