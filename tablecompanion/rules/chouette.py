"""Chouette: three or more players, the box alone against a team led by its captain (money play).

The board game is an ordinary :class:`~tablecompanion.rules.game.Game` with the box as ``"X"`` and
the team as ``"O"`` (the captain rolls and moves). What a chouette adds is handled here:

* order from one die each (:meth:`Chouette.from_rolls`): highest is the box, second the captain,
  the rest follow in the order of their rolls; ties roll again (give the re-rolls as a tuple);
* the team doubles the box together (the captain's ``Double``), the box takes or passes once;
* when the box doubles, every team member still in the game answers on their own with
  ``apply(Take() or Pass(), member=name)``; droppers pay the box the stake before the double at once
  and leave the game; the takers play on for the doubled stake (if nobody takes, the game is over);
* at the end the box wins or loses the game's value against each remaining member separately;
* rotation: if the box won, the box stays and the captain goes to the end of the line; if the team
  won, the captain who finished the game becomes the box, the old box goes to the end of the line,
  and the next member becomes captain.

Beavers are not played in a chouette here (one cube is shared by the takers).

>>> from tablecompanion.rules.actions import OpeningRoll, Roll, PlayAction, Double, Take, Pass
>>> ch = Chouette.from_rolls({"Ann": 6, "Ben": 3, "Cat": 5})
>>> ch.box, ch.team
('Ann', ['Cat', 'Ben'])
>>> ch.apply(OpeningRoll(3, 1)); ch.apply(PlayAction("8/5 6/5"))
>>> ch.apply(Roll(6, 4)); ch.apply(PlayAction("24/14"))
>>> ch.apply(Double())                      # the box doubles the team
>>> ch.apply(Pass(), member="Ben"); ch.apply(Take(), member="Cat")
>>> ch.scores
{'Ann': 1, 'Cat': 0, 'Ben': -1}
>>> ch.active, ch.game.cube_value
(['Cat'], 2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tablecompanion.rules.actions import Action, ActionError, Double, Pass, Take
from tablecompanion.rules.game import Game, GameRules

__all__ = ["Chouette", "ChouetteGame", "MemberResult"]


@dataclass(frozen=True)
class MemberResult:
    """One team member's account with the box for one game (``points`` from the member's side)."""

    member: str
    points: int
    how: str  # "dropped", "bearoff", "pass", "resign"


@dataclass
class ChouetteGame:
    """A finished chouette game: who was box and captain, and each member's result."""

    number: int
    box: str
    team: list[str]
    results: list[MemberResult] = field(default_factory=list)
    box_won: bool = False

    @property
    def box_points(self) -> int:
        return -sum(r.points for r in self.results)


class Chouette:
    """A chouette session: box, team order, the current game, running scores, rotation."""

    def __init__(
        self,
        box: str,
        team: Sequence[str],
        *,
        jacoby: bool = False,
        automatic_doubles: int = 0,
        backgammon_as_gammon: bool = False,
    ) -> None:
        names = [box, *team]
        if len(names) < 3:
            raise ActionError("a chouette needs at least three players")
        if len(set(names)) != len(names) or not all(isinstance(n, str) and n.strip() for n in names):
            raise ActionError(f"chouette players need distinct names, not {names!r}")
        self.box = box
        self.team = list(team)
        self.rules = GameRules(
            money=True, jacoby=jacoby, automatic_doubles=automatic_doubles, backgammon_as_gammon=backgammon_as_gammon
        )
        self.scores: dict[str, int] = {n: 0 for n in names}
        self.games: list[ChouetteGame] = []
        self._start_game()

    @classmethod
    def from_rolls(cls, rolls: Mapping[str, int | Sequence[int]], **options) -> "Chouette":
        """Order the players by one die each (re-rolls after a tie as a tuple: ``(4, 6)``)."""
        keyed = []
        for name, r in rolls.items():
            seq = (r,) if isinstance(r, int) else tuple(r)
            if not seq or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in seq):
                raise ActionError(f"{name}'s roll must be dice 1..6, not {r!r}")
            keyed.append((seq, name))
        keyed.sort(reverse=True)
        for (a, na), (b, nb) in zip(keyed, keyed[1:]):
            common = min(len(a), len(b))
            if a[:common] == b[:common]:
                raise ActionError(f"{nb} and {na} tied at {a[common - 1]}: both roll again")
        order = [name for _, name in keyed]
        return cls(order[0], order[1:], **options)

    # -- state ----------------------------------------------------------------------------------

    @property
    def captain(self) -> str:
        """The member who rolls and moves for the team now (first of the team still playing)."""
        return self.active[0] if self.active else self.team[0]

    @property
    def awaiting(self) -> str:
        """The game's ``awaiting``, or ``"members_respond"`` while team members answer a box double."""
        if self._answers is not None:
            return "members_respond"
        return self.game.awaiting

    @property
    def waiting_for(self) -> list[str]:
        """Members who have not yet answered the box's double."""
        if self._answers is None:
            return []
        return [m for m in self.active if m not in self._answers]

    # -- actions --------------------------------------------------------------------------------

    def apply(self, action: Action, member: str | None = None) -> None:
        """Apply a board or cube action; ``member`` names who answers a box double."""
        if self._answers is not None:
            self._member_answer(action, member)
        elif isinstance(action, Double) and self.game.turn == "X":
            self.game.apply(Double(player="X"))
            self._answers = {}
        else:
            if member is not None and member != self.captain:
                raise ActionError(f"{member} is not the captain: {self.captain} acts for the team")
            self.game.apply(action)
        if self.game.is_over:
            self._finish()

    def _member_answer(self, action: Action, member: str | None) -> None:
        if not isinstance(action, (Take, Pass)):
            raise ActionError(f"the box has doubled: {', '.join(self.waiting_for)} must take or pass first")
        if member is None:
            raise ActionError("say which team member answers the box's double")
        if member not in self.active:
            raise ActionError(f"{member} is not playing this game for the team")
        if member in self._answers:
            raise ActionError(f"{member} has already answered the double")
        self._answers[member] = isinstance(action, Take)
        if self.waiting_for:
            return
        stake = self.game.cube_value
        for m, took in self._answers.items():
            if not took:  # droppers pay at once and leave the game
                self._settle(MemberResult(m, -stake, "dropped"))
                self.active.remove(m)
        self._answers = None
        if self.active:
            self.game.apply(Take(player="O"))
        else:
            self.game.apply(Pass(player="O"))

    def _finish(self) -> None:
        res = self.game.result
        box_won = res.winner == "X"
        how = {"bearoff": "bearoff", "pass": "pass", "resign": "resign"}[res.how]
        for m in self.active:
            self._settle(MemberResult(m, -res.points if box_won else res.points, how))
        rec = self._current
        rec.box_won = box_won
        self.games.append(rec)
        if box_won:
            self.team = self.team[1:] + self.team[:1]
        else:
            winner = self.captain
            old_box = self.box
            self.box = winner
            self.team = [m for m in self.team if m != winner] + [old_box]
        self._start_game()

    def _settle(self, result: MemberResult) -> None:
        self._current.results.append(result)
        self.scores[result.member] += result.points
        self.scores[self._current.box] -= result.points

    def _start_game(self) -> None:
        self.game = Game(self.rules)
        self.active = list(self.team)
        self._answers: dict[str, bool] | None = None
        self._current = ChouetteGame(len(self.games) + 1, self.box, list(self.team))

    def __repr__(self) -> str:
        return f"<Chouette box={self.box!r} team={self.team!r} game {len(self.games) + 1}: {self.awaiting}>"

