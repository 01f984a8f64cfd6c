"""The one exception family of the rules engine: every error a player or a caller can cause."""

from __future__ import annotations

__all__ = ["RulesError", "NotationError", "IllegalPlayError", "InvalidIdError", "InvalidPositionError"]


class RulesError(ValueError):
    """Base of every error raised by :mod:`tablecompanion.rules`.

    It is a :class:`ValueError`, so callers that only want "bad input" can catch that.
    """


class InvalidPositionError(RulesError):
    """A board that cannot exist: wrong checker counts, both sides on one point, negative counts."""


class NotationError(RulesError):
    """Text that is not a play at all: ``"13-7"``, ``"26/20"``, ``"8/5(x)"``."""


class IllegalPlayError(RulesError):
    """A well-formed play that the rules do not allow for this position and roll.

    The message says why in a player's words ("no checker on 9", "5 is blocked",
    "must enter from the bar first"...).
    """


class InvalidIdError(RulesError):
    """A gnubg Position ID, Match ID or XGID that does not decode to a valid position or state."""
