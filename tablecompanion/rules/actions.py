"""What players do at the table, as small values a game or match applies one at a time.

Every action may name the acting ``player`` ("X" or "O"). Left out (``None``), the game assumes the
player who is expected to act; given, it is checked, so a referee that knows who rolled or who spoke
gets a clear :class:`ActionError` when the wrong person acts.

>>> Roll(6, 5)
Roll(die1=6, die2=5, player=None)
>>> Double(player="X").name
'double'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablecompanion.rules.errors import RulesError

__all__ = [
    "PLAYERS",
    "RESIGN_LEVELS",
    "ActionError",
    "Action",
    "OpeningRoll",
    "Roll",
    "PlayAction",
    "StandingPlay",
    "Double",
    "Take",
    "Pass",
    "Beaver",
    "Resign",
    "AcceptResign",
    "RejectResign",
    "other",
]

PLAYERS = ("X", "O")
"""The two sides of a game: X is player 1 (first named in a .mat file, gnubg's player 0)."""

RESIGN_LEVELS = ("single", "gammon", "backgammon")
"""What a resignation gives away, cheapest first; its index + 1 is the multiplier of the cube."""


class ActionError(RulesError):
    """An action that the rules do not allow now; the message says why in a player's words."""


def other(player: str) -> str:
    """The opponent of ``player``.

    >>> other("X")
    'O'
    """
    if player == "X":
        return "O"
    if player == "O":
        return "X"
    raise ActionError(f"a player is 'X' or 'O', not {player!r}")


def _check_player(player: Any) -> None:
    if player is not None and player not in PLAYERS:
        raise ActionError(f"a player is 'X' or 'O', not {player!r}")


def _check_die(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise ActionError(f"{what} must be a whole number from 1 to 6, not {value!r}")


@dataclass(frozen=True)
class Action:
    """Base of every action; ``name`` is the short word used in logs and errors."""

    name = "action"

    def __post_init__(self) -> None:
        _check_player(getattr(self, "player", None))


@dataclass(frozen=True)
class OpeningRoll(Action):
    """Each player's single die at the start of a game; a tie is rolled again."""

    x_die: int
    o_die: int
    name = "opening roll"

    def __post_init__(self) -> None:
        _check_die(self.x_die, "X's die")
        _check_die(self.o_die, "O's die")

    @property
    def player(self) -> None:
        return None


@dataclass(frozen=True)
class Roll(Action):
    """The two dice of a normal turn."""

    die1: int
    die2: int
    player: str | None = None
    name = "roll"

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_die(self.die1, "a die")
        _check_die(self.die2, "a die")

    @property
    def dice(self) -> tuple[int, int]:
        """The dice, higher first (the order does not matter to the rules)."""
        return (max(self.die1, self.die2), min(self.die1, self.die2))


@dataclass(frozen=True)
class PlayAction(Action):
    """The checker play for the dice rolled: a core ``Play``, notation text, or ``None``/``""``
    for the empty play of a player who cannot move."""

    play: Any = None
    player: str | None = None
    name = "play"


@dataclass(frozen=True)
class StandingPlay(Action):
    """A play that broke the rules but stands: it was not corrected before the opponent rolled
    (RULES.md, table procedure). ``result`` is the position after it, the mover still on roll
    (as ``Play.result()`` gives it); ``text`` is what was written or seen, for the record."""

    result: Any = None
    text: str | None = None
    player: str | None = None
    name = "play that stands"


@dataclass(frozen=True)
class Double(Action):
    """Offer the cube at twice its value, before rolling."""

    player: str | None = None
    name = "double"


@dataclass(frozen=True)
class Take(Action):
    """Accept the double (or the beaver) and play on for the higher stake."""

    player: str | None = None
    name = "take"


@dataclass(frozen=True)
class Pass(Action):
    """Refuse the double: lose the game at the stake before the double (a "drop")."""

    player: str | None = None
    name = "pass"


@dataclass(frozen=True)
class Beaver(Action):
    """Take a double and immediately redouble, keeping the cube (money play option)."""

    player: str | None = None
    name = "beaver"


@dataclass(frozen=True)
class Resign(Action):
    """Offer to lose the game at ``level`` ("single", "gammon" or "backgammon")."""

    level: str = "single"
    player: str | None = None
    name = "resign"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.level not in RESIGN_LEVELS:
            raise ActionError(f"a resignation is one of {', '.join(RESIGN_LEVELS)}, not {self.level!r}")


@dataclass(frozen=True)
class AcceptResign(Action):
    """Accept the resignation on offer: the game ends at that level."""

    player: str | None = None
    name = "accept resignation"


@dataclass(frozen=True)
class RejectResign(Action):
    """Refuse the resignation on offer: play goes on as before the offer."""

    player: str | None = None
    name = "reject resignation"
