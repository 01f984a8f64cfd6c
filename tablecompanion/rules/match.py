"""A match to N points (or a money session, N = 0): games in a row, the score and the Crawford rule.

:class:`Match` is what the referee and the dashboard drive. ``match.apply(action)`` checks the
action against the current game and mutates (like python-chess ``Board.push``); a wrong action
raises :class:`~tablecompanion.rules.actions.ActionError` and changes nothing. When a game ends
it is added to ``match.games`` and, unless the match is over, the next game starts at once with
its opening roll. ``match.undo()`` takes back the last action, across a game boundary too.

Crawford (``match.crawford_state``): ``"pre"`` until someone reaches N-1; the first game after
that is the Crawford game (``"crawford"``: no doubling); later games are ``"post"``. A game that
starts with both players at N-1 (e.g. a 1-point match) is post-Crawford. ``None`` in money play
or with the Crawford rule off.

>>> from tablecompanion.rules.actions import OpeningRoll, Double, Pass
>>> m = Match(3, ("Alice", "Bob"))
>>> m.apply(OpeningRoll(6, 1)); m.apply(PlayAction("13/7 8/7"))
>>> m.apply(Double()); m.apply(Pass())
>>> m.score, m.crawford_state
({'X': 0, 'O': 1}, 'pre')
>>> m.games[-1].winner, m.games[-1].points, m.game.awaiting
('O', 1, 'opening_roll')
"""

from __future__ import annotations

import base64
import copy
from dataclasses import dataclass, field
from typing import Any

from tablecompanion.rules.actions import (
    Action,
    ActionError,
    Double,
    PlayAction,
    other,
)
from tablecompanion.rules.cube import Cube
from tablecompanion.rules.game import Game, GameResult, GameRules
from tablecompanion.rules.ids import MatchState
from tablecompanion.rules.position import Position
from tablecompanion.rules.xgid import Xgid

__all__ = ["Match", "GameRecord"]

_INDEX = {"X": 0, "O": 1}


@dataclass(frozen=True)
class GameRecord:
    """A finished game: who won what, from which score, and the game itself (for exports)."""

    number: int
    score_before: tuple[int, int]
    winner: str
    points: int
    level: str
    counted: str
    how: str
    cube_value: int
    crawford: bool | None
    """gnubg's flag: True/False when someone was at N-1 when the game started, else None."""
    game: Game = field(repr=False, compare=False)

    @property
    def resigned(self) -> bool:
        return self.how == "resign"

    @property
    def dropped(self) -> bool:
        return self.how == "pass"

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "score_before": list(self.score_before),
            "winner": self.winner,
            "points": self.points,
            "level": self.level,
            "how": self.how,
            "resigned": self.resigned,
            "cube_value": self.cube_value,
            "crawford": self.crawford,
        }


@dataclass
class _Frame:
    """How a game started, so it can be rebuilt by replay for ``undo``."""

    rules: GameRules
    start: dict[str, Any]
    score_before: tuple[int, int]
    post_before: bool


class Match:
    """A match or money session between X (player 1) and O (player 2)."""

    def __init__(
        self,
        length: int = 0,
        players: tuple[str, str] = ("X", "O"),
        *,
        crawford: bool = True,
        jacoby: bool = False,
        beaver: bool = False,
        automatic_doubles: int = 0,
        backgammon_as_gammon: bool = False,
        cube_limit: int | None = None,
        score: tuple[int, int] = (0, 0),
        post_crawford: bool = False,
    ) -> None:
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise ActionError(f"a match length is a whole number >= 0 (0 = money), not {length!r}")
        if len(players) != 2 or not all(isinstance(p, str) and p.strip() for p in players):
            raise ActionError(f"a match has two named players, not {players!r}")
        if length and (jacoby or beaver or automatic_doubles):
            raise ActionError("Jacoby, beavers and automatic doubles are for money play, not matches")
        x, o = score
        if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in (x, o)):
            raise ActionError(f"a score is two whole numbers >= 0, not {score!r}")
        if length and (x >= length or o >= length):
            raise ActionError(f"score {x}-{o} is already over in a {length}-point match")
        self.length = length
        self.players = (players[0], players[1])
        self.crawford = bool(crawford) and length > 0
        self.jacoby = jacoby
        self.beaver = beaver
        self.automatic_doubles = automatic_doubles
        self.backgammon_as_gammon = backgammon_as_gammon
        self.cube_limit = cube_limit
        self._score = [x, o]
        self._post = bool(post_crawford)
        self.games: list[GameRecord] = []
        self._frames: list[_Frame] = []
        self._new_game()

    @classmethod
    def from_xgid(cls, text: str, players: tuple[str, str] = ("X", "O"), **options: Any) -> "Match":
        """A match set up from an XGID: score, length, cube, position, turn, dice or pending double.

        The Crawford flag must agree with the score (exactly one player at N-1); a match with
        someone at N-1 and no Crawford flag is taken as post-Crawford.

        >>> m = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:2:4:0:7:10")
        >>> m.score, m.game.turn, m.game.dice, m.game.cube_value, m.game.cube_owner
        ({'X': 2, 'O': 4}, 'X', (5, 2), 2, 'O')
        """
        x = Xgid.parse(text)
        n = x.match_length
        sx, so = x.score
        one_away = n > 0 and ((sx == n - 1) != (so == n - 1))
        if x.crawford and not one_away:
            raise ActionError(f"{text.strip()}: a Crawford game needs exactly one player at {n - 1}")
        if n:
            options.setdefault("crawford", True)
        else:
            options.setdefault("jacoby", x.jacoby)
            options.setdefault("beaver", x.beaver)
        match = cls(n, players, score=(sx, so), post_crawford=n > 0 and not x.crawford and (sx >= n - 1 or so >= n - 1), **options)
        if x.crawford and not match.game.crawford:  # pragma: no cover - guarded above
            raise ActionError("the XGID's Crawford flag does not fit the match")
        dice = None if x.dice == (0, 0) else x.dice
        match.set_position(x.position, x.turn, cube_value=x.cube, cube_owner=x.cube_owner, dice=dice)
        if x.cube_action == "double":
            match.apply(Double(player=x.turn))
        elif x.cube_action is not None:
            raise ActionError(f"{text.strip()}: a pending {x.cube_action} cannot be set up")
        return match

    # -- state ----------------------------------------------------------------------------------

    @property
    def is_money(self) -> bool:
        return self.length == 0

    @property
    def score(self) -> dict[str, int]:
        """Points so far, not capped at the match length: ``{"X": a, "O": b}``."""
        return {"X": self._score[0], "O": self._score[1]}

    @property
    def is_over(self) -> bool:
        return bool(self.length) and max(self._score) >= self.length

    @property
    def winner(self) -> str | None:
        if not self.is_over:
            return None
        return "X" if self._score[0] >= self.length else "O"

    @property
    def crawford_state(self) -> str | None:
        """"pre", "crawford" or "post" for the current game; None for money or Crawford off."""
        if not self.crawford:
            return None
        if self.game.crawford:
            return "crawford"
        if self._post or min(self._score) >= self.length - 1:
            return "post"
        return "pre"

    @property
    def actions(self) -> list[Action]:
        """Every action applied so far, all games, in order."""
        out = [t.action for rec in self.games for t in rec.game.history]
        if not self.games or self.games[-1].game is not self.game:
            out.extend(t.action for t in self.game.history)
        return out

    def name(self, player: str) -> str:
        """The name of "X" or "O"."""
        other(player)
        return self.players[_INDEX[player]]

    def rules_for_next_game(self) -> GameRules:
        x, o = self._score
        n = self.length
        crawford_game = self.crawford and not self._post and ((x == n - 1) != (o == n - 1))
        return GameRules(
            money=self.is_money,
            crawford_game=crawford_game,
            jacoby=self.jacoby,
            beaver=self.beaver,
            automatic_doubles=self.automatic_doubles,
            backgammon_as_gammon=self.backgammon_as_gammon,
            cube_limit=self.cube_limit,
        )

    # -- actions --------------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply one action to the current game; :class:`ActionError` (nothing changed) if not allowed."""
        if self.is_over:
            x, o = self._score
            raise ActionError(f"the match is over: {self.winner} won {x}-{o}")
        if not isinstance(action, Action):
            raise ActionError(f"not an action: {action!r}")
        self.game.apply(action)
        if self.game.is_over:
            self._game_over()

    def copy(self) -> "Match":
        """An independent copy: apply or undo on it without touching this match."""
        twin = copy.copy(self)
        twin._score = list(self._score)
        twin.games = list(self.games)
        twin._frames = [_Frame(f.rules, dict(f.start), f.score_before, f.post_before) for f in self._frames]
        twin.game = self.game.copy()
        return twin

    def push(self, action: Action) -> None:
        """Alias of :meth:`apply`, for python-chess habits."""
        self.apply(action)

    def undo(self) -> Action:
        """Take back the last action (replaying the game up to it) and return it."""
        game = self.game
        if not game.history:
            if not self.games:
                raise ActionError("nothing to undo")
            self._frames.pop()  # drop the fresh game and reopen the previous one
            game = self.games[-1].game
        if self.games and self.games[-1].game is game:
            record = self.games.pop()
            self._score = list(record.score_before)
            self._post = self._frames[-1].post_before
        frame = self._frames[-1]
        actions = [t.action for t in game.history]
        last = actions.pop()
        rebuilt = Game(frame.rules, **frame.start)
        for a in actions:
            rebuilt.apply(a)
        self.game = rebuilt
        return last

    def set_position(
        self,
        position: Position,
        turn: str,
        *,
        cube_value: int = 1,
        cube_owner: str | None = None,
        dice: tuple[int, int] | None = None,
    ) -> None:
        """Start the current (untouched) game from a set-up position instead of the opening roll.

        ``position`` is relative to ``turn`` (the player on turn is ``on_roll``).
        """
        if self.game.history:
            raise ActionError("a position can only be set up before the game's first action")
        other(turn)
        start = {"position": position, "turn": turn, "cube": Cube(cube_value, cube_owner), "dice": dice}
        frame = self._frames[-1]
        self.game = Game(frame.rules, **start)
        frame.start = start

    def _new_game(self) -> None:
        rules = self.rules_for_next_game()
        self._frames.append(_Frame(rules, {}, (self._score[0], self._score[1]), self._post))
        self.game = Game(rules)

    def _game_over(self) -> None:
        game = self.game
        result: GameResult = game.result
        frame = self._frames[-1]
        x, o = frame.score_before
        n = self.length
        flag = None
        if self.crawford and (x == n - 1 or o == n - 1):
            flag = game.crawford
        self.games.append(
            GameRecord(
                number=len(self.games) + 1,
                score_before=(x, o),
                winner=result.winner,
                points=result.points,
                level=result.level,
                counted=result.counted,
                how=result.how,
                cube_value=result.cube_value,
                crawford=flag,
                game=game,
            )
        )
        self._score[_INDEX[result.winner]] += result.points
        if game.crawford:
            self._post = True
        if not self.is_over:
            self._new_game()

    # -- identifiers ----------------------------------------------------------------------------

    def match_state(self) -> MatchState:
        """The current state in gnubg's Match ID terms (player 0 = X)."""
        g = self.game
        if g.awaiting == "game_over":
            state = {"bearoff": "over", "pass": "dropped", "resign": "resigned"}[g.result.how]
        elif g.awaiting == "opening_roll":
            state = "none"
        else:
            state = "playing"
        on_roll = g.turn or "X"
        actor = g.actor or on_roll
        owner = None if g.cube_owner is None else _INDEX[g.cube_owner]
        score = tuple(min(s, (1 << 15) - 1) for s in self._score)
        return MatchState(
            cube=g.cube_value,
            cube_owner=owner,
            player_on_roll=_INDEX[on_roll],
            crawford=g.crawford,
            game_state=state,
            turn=_INDEX[actor],
            double_offered=g.double_offered,
            resignation=g.resignation_offered or "none",
            dice=g.dice or (0, 0),
            match_length=self.length,
            score=score,
        )

    def match_id(self) -> str:
        """gnubg's 12-character Match ID of the current state.

        gnubg also stores "Jacoby off" in bit 66, which :class:`MatchState` does not carry; it is
        set here so the ID is exactly the one gnubg shows.
        """
        mid = self.match_state().match_id()
        if self.is_money and self.jacoby:
            return mid
        value = int.from_bytes(base64.b64decode(mid), "little") | 1 << 66
        return base64.b64encode(value.to_bytes(9, "little")).decode("ascii")

    def position_id(self) -> str:
        """gnubg's Position ID of the current position (player on turn in the second half)."""
        return self.game.position.position_id()

    def gnubg_id(self) -> str:
        """``PositionID:MatchID``, as gnubg shows it."""
        return f"{self.position_id()}:{self.match_id()}"

    def xgid(self) -> str:
        """The XGID of the current state (eXtreme Gammon's ID), via the core's :class:`Xgid`.

        The turn field is the player whose turn it is (also while the opponent answers a double,
        which shows as ``D``, or ``B`` after a beaver); before the opening roll it is X.
        """
        g = self.game
        cube_action = None
        if g.double_offered:
            cube_action = "beaver" if g._beaver else "double"
        limit = self.cube_limit or 1024
        return str(
            Xgid(
                position=g.position,
                turn=g.turn or "X",
                cube=g.cube_value,
                cube_owner=g.cube_owner,
                dice=(0, 0) if cube_action or not g.dice else g.dice,
                cube_action=cube_action,
                score=(self._score[0], self._score[1]),
                match_length=self.length,
                crawford=g.crawford,
                jacoby=self.jacoby and self.is_money,
                beaver=self.beaver and self.is_money,
                max_cube=1 << (limit.bit_length() - 1),
            )
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary of the whole state, for dashboards and logs."""
        g = self.game
        return {
            "players": list(self.players),
            "length": self.length,
            "score": [self._score[0], self._score[1]],
            "crawford_state": self.crawford_state,
            "is_over": self.is_over,
            "winner": self.winner,
            "game": {
                "number": len(self.games) + (0 if g.is_over else 1),
                "awaiting": g.awaiting,
                "turn": g.turn,
                "actor": g.actor,
                "dice": list(g.dice) if g.dice else None,
                "cube_value": g.cube_value,
                "cube_owner": g.cube_owner,
                "crawford": g.crawford,
                "board": {"X": list(g.board("X")), "O": list(g.board("O"))},
                "result": None
                if g.result is None
                else {"winner": g.result.winner, "points": g.result.points, "level": g.result.level, "how": g.result.how},
            },
            "games": [r.as_dict() for r in self.games],
            "position_id": self.position_id(),
            "match_id": self.match_id(),
            "xgid": self.xgid(),
        }

    def __repr__(self) -> str:
        x, o = self._score
        kind = "money" if self.is_money else f"{self.length}-point"
        return f"<Match {kind} {self.players[0]} {x} - {o} {self.players[1]}, game {len(self.games) + 1}: {self.game.awaiting}>"

