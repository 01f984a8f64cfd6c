"""GNU Backgammon's Position ID (14 characters) and Match ID (12 characters).

Both are little-endian bit strings packed into base64. The Position ID holds the checkers only,
first the player NOT on roll, then the player on roll (gnubg's own order, see
``../shared/data/rules/README.md``). The Match ID holds the cube, the score, whose turn it is, the
dice and the match state; :class:`MatchState` is its decoded form.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, replace

from tablecompanion.rules.errors import InvalidIdError

__all__ = ["encode_position_id", "decode_position_id", "MatchState", "GAME_STATES", "RESIGNATIONS"]

_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _b64_bytes(text: str, n_chars: int, n_bytes: int, what: str) -> bytes:
    if not isinstance(text, str):
        raise InvalidIdError(f"a {what} is a string, not {type(text).__name__}")
    text = text.strip()
    if len(text) != n_chars:
        raise InvalidIdError(f"a {what} has {n_chars} characters, {text!r} has {len(text)}")
    bad = sorted(set(text) - _B64)
    if bad:
        raise InvalidIdError(f"{text!r} is not a {what}: character {bad[0]!r} is not base64")
    pad = "=" * (-n_chars % 4)
    try:
        raw = base64.b64decode(text + pad, validate=True)
    except (binascii.Error, ValueError) as exc:  # pragma: no cover - alphabet and length checked above
        raise InvalidIdError(f"{text!r} is not a {what}: {exc}") from None
    return raw[:n_bytes]


# ---------------------------------------------------------------------------------------------
# Position ID


def encode_position_id(first: tuple[int, ...] | list[int], second: tuple[int, ...] | list[int]) -> str:
    """Pack two 25-slot lists (first = player not on roll, second = player on roll) into 14 chars.

    >>> start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    >>> encode_position_id(start, start)
    '4HPwATDgc/ABMA'
    """
    value = 0
    bit = 0
    for side in (first, second):
        for n in side:
            # n ones, then a zero (little-endian: bit k has weight 1 << k)
            value |= ((1 << n) - 1) << bit
            bit += n + 1
    return base64.b64encode(value.to_bytes(10, "little")).decode("ascii")[:14]


def decode_position_id(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Unpack a Position ID into ``(first, second)``; raises :class:`InvalidIdError` when it is not one.

    >>> first, second = decode_position_id("4HPwATDgc/ABMA")
    >>> second[5], second[7], second[12], second[23]
    (5, 3, 5, 2)
    """
    raw = _b64_bytes(text, 14, 10, "Position ID")
    value = int.from_bytes(raw, "little")
    sides: list[list[int]] = [[], []]
    side = 0
    count = 0
    bit = 0
    while side < 2:
        if bit >= 80:
            raise InvalidIdError(f"{text!r} is not a Position ID: it does not describe 50 slots")
        if value >> bit & 1:
            count += 1
        else:
            sides[side].append(count)
            count = 0
            if len(sides[side]) == 25:
                side += 1
        bit += 1
    if value >> bit:
        raise InvalidIdError(f"{text!r} is not a Position ID: bits set after the last slot")
    for who, slots in zip(("first", "second"), sides):
        total = sum(slots)
        if total > 15:
            raise InvalidIdError(f"{text!r} is not a Position ID: the {who} player has {total} checkers")
    return tuple(sides[0]), tuple(sides[1])


# ---------------------------------------------------------------------------------------------
# Match ID

GAME_STATES = ("none", "playing", "over", "resigned", "dropped")
"""Match ID game states, in gnubg's numbering (0..4)."""

RESIGNATIONS = ("none", "single", "gammon", "backgammon")
"""Match ID resignation levels, in gnubg's numbering (0..3)."""

# (name, bit offset, width) in gnubg's documented layout.
_FIELDS = (
    ("cube_log2", 0, 4),
    ("cube_owner", 4, 2),
    ("player_on_roll", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("double_offered", 12, 1),
    ("resignation", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("no_jacoby", 66, 1),
)


@dataclass(frozen=True)
class MatchState:
    """A decoded gnubg Match ID: everything but the checkers.

    Players are gnubg's indices 0 and 1. ``cube_owner`` is 0, 1 or ``None`` (centred).
    ``player_on_roll`` is whose turn it is ("move" bit), ``turn`` is who must act now (they differ
    while a double or a resignation waits for an answer). ``dice`` is ``(0, 0)`` before the roll.
    ``match_length`` 0 means money play.

    >>> m = MatchState.from_match_id("cAkAAAAAAAAA")
    >>> m.cube, m.cube_owner, m.match_length, m.dice
    (1, None, 0, (0, 0))
    >>> m.match_id()
    'cAkAAAAAAAAA'
    """

    cube: int = 1
    cube_owner: int | None = None
    player_on_roll: int = 0
    crawford: bool = False
    game_state: str = "playing"
    turn: int = 0
    double_offered: bool = False
    resignation: str = "none"
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    no_jacoby: bool = False
    """Bit 67 of the key, past the manual's 66: gnubg sets it when the Jacoby rule is not in force
    (in every match, and in money play with Jacoby off)."""

    def __post_init__(self) -> None:
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise InvalidIdError(f"cube value {self.cube} is not a power of two from 1 to 32768")
        if self.cube_owner not in (None, 0, 1):
            raise InvalidIdError(f"cube owner must be 0, 1 or None, not {self.cube_owner!r}")
        for name in ("player_on_roll", "turn"):
            if getattr(self, name) not in (0, 1):
                raise InvalidIdError(f"{name} must be 0 or 1, not {getattr(self, name)!r}")
        if self.game_state not in GAME_STATES:
            raise InvalidIdError(f"game state must be one of {GAME_STATES}, not {self.game_state!r}")
        if self.resignation not in RESIGNATIONS:
            raise InvalidIdError(f"resignation must be one of {RESIGNATIONS}, not {self.resignation!r}")
        d1, d2 = self.dice
        if (d1, d2) != (0, 0) and not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise InvalidIdError(f"dice must be two numbers 1..6 or (0, 0), not {self.dice!r}")
        if not 0 <= self.match_length < 1 << 15:
            raise InvalidIdError(f"match length {self.match_length} out of range")
        if any(not 0 <= s < 1 << 15 for s in self.score):
            raise InvalidIdError(f"score {self.score} out of range")

    @classmethod
    def from_match_id(cls, text: str) -> "MatchState":
        """Decode a 12-character Match ID; :class:`InvalidIdError` on anything that is not one."""
        raw = _b64_bytes(text, 12, 9, "Match ID")
        value = int.from_bytes(raw, "little")
        if value >> 67:
            raise InvalidIdError(f"{text!r} is not a Match ID: bits set after the match key")
        f = {name: value >> offset & ((1 << width) - 1) for name, offset, width in _FIELDS}
        if f["cube_owner"] == 2:
            raise InvalidIdError(f"{text!r} is not a Match ID: cube owner field is 2")
        if f["game_state"] >= len(GAME_STATES):
            raise InvalidIdError(f"{text!r} is not a Match ID: game state {f['game_state']} is unknown")
        if f["die1"] > 6 or f["die2"] > 6 or (f["die1"] == 0) != (f["die2"] == 0):
            raise InvalidIdError(f"{text!r} is not a Match ID: dice {f['die1']}-{f['die2']}")
        length = f["match_length"]
        if length and (f["score0"] >= length or f["score1"] >= length) and f["game_state"] != 2:
            raise InvalidIdError(
                f"{text!r} is not a Match ID: score {f['score0']}-{f['score1']} in a {length}-point match"
            )
        try:
            return cls(
                cube=1 << f["cube_log2"],
                cube_owner=None if f["cube_owner"] == 3 else f["cube_owner"],
                player_on_roll=f["player_on_roll"],
                crawford=bool(f["crawford"]),
                game_state=GAME_STATES[f["game_state"]],
                turn=f["turn"],
                double_offered=bool(f["double_offered"]),
                resignation=RESIGNATIONS[f["resignation"]],
                dice=(f["die1"], f["die2"]),
                match_length=length,
                score=(f["score0"], f["score1"]),
                no_jacoby=bool(f["no_jacoby"]),
            )
        except InvalidIdError as exc:
            raise InvalidIdError(f"{text!r} is not a Match ID: {exc}") from None

    def match_id(self) -> str:
        """Encode as gnubg's 12-character Match ID."""
        f = {
            "cube_log2": self.cube.bit_length() - 1,
            "cube_owner": 3 if self.cube_owner is None else self.cube_owner,
            "player_on_roll": self.player_on_roll,
            "crawford": int(self.crawford),
            "game_state": GAME_STATES.index(self.game_state),
            "turn": self.turn,
            "double_offered": int(self.double_offered),
            "resignation": RESIGNATIONS.index(self.resignation),
            "die1": self.dice[0],
            "die2": self.dice[1],
            "match_length": self.match_length,
            "score0": self.score[0],
            "score1": self.score[1],
            "no_jacoby": int(self.no_jacoby),
        }
        value = 0
        for name, offset, width in _FIELDS:
            value |= (f[name] & ((1 << width) - 1)) << offset
        return base64.b64encode(value.to_bytes(9, "little")).decode("ascii")

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    def with_dice(self, dice: tuple[int, int]) -> "MatchState":
        """The same state with other dice (``(0, 0)`` = not rolled yet)."""
        return replace(self, dice=tuple(dice))

    def __repr__(self) -> str:
        return f"MatchState.from_match_id({self.match_id()!r})"
