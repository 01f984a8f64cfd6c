"""What a finished game is worth: single / gammon / backgammon times the cube, with the options.

Kept apart from the game state machine so the referee, the chouette and the .mat checker all score
the same way, and so the rule book's table can be tested on its own.

>>> game_points("gammon", cube_value=2)
4
>>> game_points("gammon", cube_value=1, cube_owner=None, money=True, jacoby=True)
1
>>> game_points("backgammon", cube_value=4, backgammon_as_gammon=True)
8
"""

from __future__ import annotations

from collections.abc import Sequence

from tablecompanion.rules.actions import RESIGN_LEVELS, ActionError

__all__ = ["LEVELS", "MULTIPLIER", "result_level", "game_points", "scored_level"]

LEVELS = RESIGN_LEVELS
"""Result levels, cheapest first."""

MULTIPLIER = {"single": 1, "gammon": 2, "backgammon": 3}


def result_level(loser: Sequence[int]) -> str:
    """The level of a bear-off win from the loser's 25-slot board (his own numbering, 24 = bar).

    Gammon when the loser has borne off nothing; backgammon when, in addition, he still has a
    checker on the bar or in the winner's home board (his own points 19..24).

    >>> result_level([0] * 5 + [14] + [0] * 19)
    'single'
    >>> result_level([0] * 5 + [15] + [0] * 19)
    'gammon'
    >>> result_level([0] * 5 + [14] + [0] * 17 + [1, 0])
    'backgammon'
    """
    if len(loser) != 25:
        raise ActionError(f"a board side has 25 slots, not {len(loser)}")
    if sum(loser) < 15:
        return "single"
    if any(loser[18:25]):
        return "backgammon"
    return "gammon"


def scored_level(
    level: str,
    *,
    cube_owner: str | None = None,
    money: bool = False,
    jacoby: bool = False,
    backgammon_as_gammon: bool = False,
) -> str:
    """The level that counts once the table options are applied.

    Jacoby (money only): gammons and backgammons are singles while the cube is centred (never
    turned). Backgammon-as-gammon: a backgammon counts as a gammon.
    """
    if level not in MULTIPLIER:
        raise ActionError(f"a result is one of {', '.join(LEVELS)}, not {level!r}")
    if money and jacoby and cube_owner is None:
        return "single"
    if backgammon_as_gammon and level == "backgammon":
        return "gammon"
    return level


def game_points(
    level: str,
    cube_value: int = 1,
    *,
    cube_owner: str | None = None,
    money: bool = False,
    jacoby: bool = False,
    backgammon_as_gammon: bool = False,
) -> int:
    """Points won: cube value times 1, 2 or 3 after the options. Not capped at what a match needs."""
    if isinstance(cube_value, bool) or not isinstance(cube_value, int) or cube_value < 1:
        raise ActionError(f"a cube value is a positive whole number, not {cube_value!r}")
    counted = scored_level(
        level,
        cube_owner=cube_owner,
        money=money,
        jacoby=jacoby,
        backgammon_as_gammon=backgammon_as_gammon,
    )
    return cube_value * MULTIPLIER[counted]
