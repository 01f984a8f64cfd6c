"""A chouette table: :class:`tablecompanion.rules.chouette.Chouette` behind the same face as a ``Match``.

The referee's state machine drives a ``Match``; a chouette is money play between the box ("X") and the
team ("O", its captain rolls and moves), plus a team that answers the box's doubles member by member and
a rotation after each game. This adapter gives the referee what it reads from a match (``game``,
``games``, ``_score``, IDs) and passes ``member`` through for the answers to a box double.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from tablecompanion.rules.chouette import Chouette
from tablecompanion.rules.match import Match

__all__ = ["ChouetteMatch", "ChouetteRecord"]


@dataclass(frozen=True)
class ChouetteRecord:
    """A finished chouette game as the referee lists games (winner "X" = the box)."""

    number: int
    winner: str
    points: int
    level: str
    counted: str
    how: str
    cube_value: int
    box: str
    team: tuple[str, ...]
    results: tuple[dict, ...]
    game: Any = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict:
        return {"number": self.number, "winner": self.winner, "points": self.points, "level": self.level,
                "how": self.how, "cube_value": self.cube_value, "box": self.box, "team": list(self.team),
                "results": list(self.results)}


class ChouetteMatch:
    """Money play in chouette; ``names`` is the order from the players' rolls: box first, then the team."""

    length = 0
    crawford = False
    beaver = False
    cube_limit = None
    is_over = False
    winner = None
    crawford_state = None

    def __init__(self, names, *, jacoby: bool = False, automatic_doubles: int = 0,
                 backgammon_as_gammon: bool = False) -> None:
        self.ch = Chouette(names[0], list(names[1:]), jacoby=jacoby, automatic_doubles=automatic_doubles,
                           backgammon_as_gammon=backgammon_as_gammon)
        self.jacoby = jacoby
        self.games: list[ChouetteRecord] = []

    # -- what the referee reads ---------------------------------------------------------------------
    @property
    def is_money(self) -> bool:
        return True

    @property
    def game(self):
        return self.ch.game

    @game.setter
    def game(self, value) -> None:
        self.ch.game = value

    @property
    def awaiting(self) -> str:
        return self.ch.awaiting

    @property
    def score_pair(self) -> list[int]:
        """[box's running total, captain's running total] (either may be negative)."""
        return [self.ch.scores[self.ch.box], self.ch.scores[self.ch.captain]]

    @property
    def _score(self) -> list[int]:
        """What gnubg's Match ID can hold: a money session's score, never negative."""
        return [max(0, v) for v in self.score_pair]

    @property
    def score(self) -> dict[str, int]:
        """As :attr:`Match.score` reads it (box = "X", captain = "O")."""
        x, o = self._score
        return {"X": x, "O": o}

    @property
    def players(self) -> tuple[str, str]:
        return (self.ch.box, self.ch.captain)

    def match_id(self) -> str:
        return Match.match_id(self)  # type: ignore[arg-type]

    def match_state(self):
        return Match.match_state(self)  # type: ignore[arg-type]

    def xgid(self) -> str:
        return Match.xgid(self)  # type: ignore[arg-type]

    def summary(self) -> dict:
        ch = self.ch
        return {"box": ch.box, "captain": ch.captain, "team": list(ch.team), "active": list(ch.active),
                "waiting_for": list(ch.waiting_for), "scores": dict(ch.scores)}

    # -- changing it ------------------------------------------------------------------------------
    def apply(self, action, member: str | None = None) -> None:
        before, game = len(self.ch.games), self.ch.game
        self.ch.apply(action, member=member)
        self._collect(before, game)

    def _collect(self, before: int, game) -> None:
        result = getattr(game, "result", None)
        for g in self.ch.games[before:]:
            kept = [r for r in g.results if r.how != "dropped"]
            res = kept[0] if kept else (g.results[0] if g.results else None)
            points = abs(res.points) if res else 0
            how = res.how if res else "pass"
            level = result.level if result is not None else "single"
            counted = result.counted if result is not None else level
            self.games.append(ChouetteRecord(
                number=g.number, winner="X" if g.box_won else "O", points=points, level=level, counted=counted,
                how=how, cube_value=result.cube_value if result is not None else 1, box=g.box, team=tuple(g.team),
                results=tuple({"member": r.member, "points": r.points, "how": r.how} for r in g.results)))

    def clone(self) -> "ChouetteMatch":
        """A copy that shares nothing mutable with this one."""
        from .state import clone_game

        new = copy.copy(self)
        ch = copy.copy(self.ch)
        ch.team = list(self.ch.team)
        ch.active = list(self.ch.active)
        ch.scores = dict(self.ch.scores)
        ch.games = list(self.ch.games)
        ch._answers = None if self.ch._answers is None else dict(self.ch._answers)
        cur = copy.copy(self.ch._current)
        cur.team = list(cur.team)
        cur.results = list(cur.results)
        ch._current = cur
        ch.game = clone_game(self.ch.game)
        new.ch = ch
        new.games = list(self.games)
        return new

