"""One game of backgammon as a state machine over actions: rolls, plays, cube and resignations.

A :class:`Game` checks each action against the state and raises :class:`ActionError` saying why when
it is not allowed now. It knows nothing of the match score: the :class:`~tablecompanion.rules.match.Match`
tells it whether this is the Crawford game and which options hold (:class:`GameRules`).

What the game waits for (``game.awaiting``) and who must act (``game.actor``):

==================  ========================================================================
``opening_roll``    one die each (:class:`OpeningRoll`); nobody is on turn yet
``roll_or_double``  the player on turn may :class:`Double` or :class:`Roll`
``roll``            the player on turn must :class:`Roll` (cube not theirs, Crawford game...)
``play``            the player on turn must play the dice (:class:`PlayAction`); a roll that
                    cannot be played still needs the empty play (``PlayAction(None)``), the
                    moment the player picks up the dice
``take_or_pass``    the other player answers a double: :class:`Take`, :class:`Pass` or
                    (money option) :class:`Beaver`; after a beaver the doubler answers
``resign_response`` the other player answers a resignation: accept or reject
``game_over``       ``game.result`` holds winner, level and points
==================  ========================================================================

``game.position`` is always relative to ``game.turn`` (the player on turn is ``on_roll``), like
gnubg's board arrays. A resignation may be offered by either player whenever the game waits for a
roll, a play or a cube answer.

>>> from tablecompanion.rules.actions import OpeningRoll, PlayAction, Double, Pass
>>> g = Game()
>>> g.apply(OpeningRoll(3, 1))
>>> g.turn, g.dice, g.awaiting
('X', (3, 1), 'play')
>>> g.apply(PlayAction("8/5 6/5"))
>>> g.turn, g.awaiting
('O', 'roll_or_double')
>>> g.apply(Double())
>>> g.apply(Pass())
>>> g.result.winner, g.result.points
('O', 1)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from tablecompanion.rules.actions import (
    AcceptResign,
    Action,
    ActionError,
    Beaver,
    Double,
    OpeningRoll,
    Pass,
    PlayAction,
    RejectResign,
    Resign,
    Roll,
    StandingPlay,
    Take,
    other,
)
from tablecompanion.rules.cube import Cube
from tablecompanion.rules.errors import RulesError
from tablecompanion.rules.position import Play, Position
from tablecompanion.rules.scoring import game_points, result_level, scored_level

__all__ = ["AWAITING", "GameRules", "GameResult", "Game", "Turn"]

AWAITING = (
    "opening_roll",
    "roll_or_double",
    "roll",
    "play",
    "take_or_pass",
    "resign_response",
    "game_over",
)


@dataclass(frozen=True)
class GameRules:
    """The options that change one game; the match builds this for each game."""

    money: bool = False
    crawford_game: bool = False
    jacoby: bool = False
    beaver: bool = False
    automatic_doubles: int = 0
    backgammon_as_gammon: bool = False
    cube_limit: int | None = None

    def __post_init__(self) -> None:
        if not self.money and (self.beaver or self.automatic_doubles):
            raise ActionError("beavers and automatic doubles are money-play options")
        if self.money and self.crawford_game:
            raise ActionError("money play has no Crawford game")
        if isinstance(self.automatic_doubles, bool) or not isinstance(self.automatic_doubles, int) or self.automatic_doubles < 0:
            raise ActionError(f"automatic_doubles is a count >= 0, not {self.automatic_doubles!r}")


@dataclass(frozen=True)
class GameResult:
    """How a game ended.

    ``level`` is what happened on the board (or was resigned); ``counted`` the level after Jacoby
    and backgammon-as-gammon; ``points`` = ``cube_value`` x multiplier, or the cube value on a pass.
    ``how`` is "bearoff", "pass" or "resign".
    """

    winner: str
    level: str
    counted: str
    points: int
    cube_value: int
    how: str

    @property
    def loser(self) -> str:
        return other(self.winner)

    @property
    def resigned(self) -> bool:
        return self.how == "resign"

    @property
    def dropped(self) -> bool:
        return self.how == "pass"


@dataclass(frozen=True)
class Turn:
    """One applied action with the state it was applied in (for records and exports)."""

    action: Action
    actor: str | None
    position: Position
    turn: str | None
    dice: tuple[int, int] | None
    cube: Cube
    play: Play | None = None
    notes: dict[str, Any] = field(default_factory=dict)


class Game:
    """A game in progress; ``apply`` mutates it after checking the action.

    ``position``/``turn``/``cube``/``dice`` may be given to start from a set-up position (the
    player on turn then acts first, before rolling); by default the game starts with the opening roll.
    """

    def __init__(
        self,
        rules: GameRules | None = None,
        *,
        position: Position | None = None,
        turn: str | None = None,
        cube: Cube | None = None,
        dice: tuple[int, int] | None = None,
    ) -> None:
        self.rules = rules or GameRules()
        self.cube = cube or Cube()
        self.position = position if position is not None else Position.initial()
        self.turn: str | None = None
        self.dice: tuple[int, int] | None = None
        self.result: GameResult | None = None
        self.history: list[Turn] = []
        self.auto_doubles = 0
        self._doubler: str | None = None  # who offered the double now on the table
        self._beaver = False  # the double on the table is a beaver's redouble
        self._resigner: str | None = None
        self._resign_level: str | None = None
        self._before_resign: tuple[str, str | None] | None = None
        if turn is None:
            if dice is not None:
                raise ActionError("dice can only be set up together with the player on turn")
            self.awaiting = "opening_roll"
        else:
            other(turn)
            self.turn = turn
            if dice is not None:
                self.dice = _dice(dice)
                self.awaiting = "play"
            else:
                self.awaiting = self._start_of_turn()
        if self.rules.crawford_game and not self.cube.centred:
            raise ActionError("the cube stays centred in the Crawford game")

    # -- what the table shows -------------------------------------------------------------------

    @property
    def cube_value(self) -> int:
        return self.cube.value

    @property
    def cube_owner(self) -> str | None:
        return self.cube.owner

    @property
    def crawford(self) -> bool:
        """True in the Crawford game (no doubling)."""
        return self.rules.crawford_game

    @property
    def is_over(self) -> bool:
        return self.awaiting == "game_over"

    @property
    def actor(self) -> str | None:
        """Who must act now (``None`` before the opening roll and after the game)."""
        if self.awaiting in ("opening_roll", "game_over"):
            return None
        if self.awaiting == "take_or_pass":
            return self._doubler if self._beaver else other(self._doubler)
        if self.awaiting == "resign_response":
            return other(self._resigner)
        return self.turn

    @property
    def double_offered(self) -> bool:
        return self.awaiting == "take_or_pass"

    @property
    def resignation_offered(self) -> str | None:
        """The level on offer while a resignation waits for an answer."""
        return self._resign_level if self.awaiting == "resign_response" else None

    @property
    def resigner(self) -> str | None:
        return self._resigner if self.awaiting == "resign_response" else None

    def board(self, player: str) -> tuple[int, ...]:
        """``player``'s 25 slots in their own numbering (index 24 = bar), whoever is on turn."""
        other(player)
        if self.turn is None or player == self.turn:
            return self.position.on_roll
        return self.position.opponent

    def legal_plays(self) -> list[Play]:
        """The legal plays for the dice on the table ([] when nothing can be played or no dice)."""
        if self.awaiting != "play":
            return []
        return self.position.legal_plays(self.dice)

    @property
    def can_double(self) -> bool:
        """True when the player on turn may offer the cube now."""
        return self.awaiting == "roll_or_double"

    def why_cannot_double(self, player: str | None = None) -> str | None:
        """Why ``player`` (default: the player on turn) may not double now, or ``None``."""
        player = player or self.turn
        if self.awaiting == "game_over":
            return "the game is over"
        if self.awaiting == "opening_roll":
            return "the game has not started: roll one die each first"
        other(player)
        if self.awaiting in ("take_or_pass", "resign_response"):
            return f"{self.actor} must answer the {'double' if self.awaiting == 'take_or_pass' else 'resignation'} first"
        if player != self.turn:
            return f"{player} cannot double: it is {self.turn}'s turn"
        if self.awaiting == "play":
            return f"{player} has already rolled: a double is offered before rolling"
        return self.cube.why_cannot_double(player, crawford=self.rules.crawford_game, limit=self.rules.cube_limit)

    # -- applying actions -----------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Check ``action`` and apply it; :class:`ActionError` (nothing changed) when not allowed."""
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise ActionError(f"not a game action: {action!r}")
        if self.awaiting == "game_over":
            raise ActionError(f"the game is over: {self.result.winner} won")
        before = Turn(action, self.actor, self.position, self.turn, self.dice, self.cube)
        notes: dict[str, Any] = {}
        play = handler(self, action, notes)
        self.history.append(
            Turn(action, before.actor, before.position, before.turn, before.dice, before.cube, play, notes)
        )

    def _expect_actor(self, action: Action, what: str) -> str:
        actor = self.actor
        player = getattr(action, "player", None)
        if player is not None and player != actor:
            raise ActionError(f"{player} cannot {what}: it is {actor}'s move")
        return actor

    def _start_of_turn(self) -> str:
        if self.cube.why_cannot_double(self.turn, crawford=self.rules.crawford_game, limit=self.rules.cube_limit):
            return "roll"
        return "roll_or_double"

    def _wrong_time(self, action: Action) -> ActionError:
        a = self.awaiting
        if a == "opening_roll":
            return ActionError("the game starts with the opening roll: one die each")
        if a == "play":
            return ActionError(f"{self.turn} must play the {self.dice[0]}-{self.dice[1]} first: a play is required before the turn ends")
        if a in ("roll", "roll_or_double"):
            first = "roll or double" if a == "roll_or_double" else "roll"
            return ActionError(f"{self.turn} must {first} first")
        if a == "take_or_pass":
            return ActionError(f"{self.actor} must take or pass the double first")
        if a == "resign_response":
            return ActionError(f"{self.actor} must accept or reject the resignation first")
        return ActionError(f"{action.name} is not possible now")  # pragma: no cover

    def _opening_roll(self, action: OpeningRoll, notes: dict) -> None:
        if self.awaiting != "opening_roll":
            raise ActionError("the opening roll is over: the game has started")
        if action.x_die == action.o_die:
            r = self.rules
            if r.money and self.auto_doubles < r.automatic_doubles and self.cube.centred:
                self.cube = self.cube.turned_centred()
                self.auto_doubles += 1
                notes["automatic_double"] = self.cube.value
            return None
        self.turn = "X" if action.x_die > action.o_die else "O"
        self.dice = _dice((action.x_die, action.o_die))
        self.awaiting = "play"
        return None

    def _roll(self, action: Roll, notes: dict) -> None:
        if self.awaiting not in ("roll", "roll_or_double"):
            raise self._wrong_time(action)
        self._expect_actor(action, "roll")
        self.dice = action.dice
        self.awaiting = "play"
        return None

    def _play(self, action: PlayAction, notes: dict) -> Play:
        if self.awaiting != "play":
            if self.awaiting in ("roll", "roll_or_double"):
                raise ActionError(f"{self.turn} must {'roll or double' if self.awaiting == 'roll_or_double' else 'roll'} first")
            raise self._wrong_time(action)
        self._expect_actor(action, "play")
        play = self._resolve_play(action.play)
        after = self.position.apply(play)
        mover = self.turn
        self.position = after
        self.turn = other(mover)
        self.dice = None
        if not any(after.opponent):  # the mover has borne off his last checker
            self._finish(mover, result_level(after.on_roll), "bearoff")
        else:
            self.awaiting = self._start_of_turn()
        return play

    def _standing_play(self, action: StandingPlay, notes: dict) -> Play | None:
        if self.awaiting != "play":
            raise self._wrong_time(action)
        self._expect_actor(action, "play")
        pos, result = self.position, action.result
        if not isinstance(result, Position):
            raise ActionError(f"a play that stands needs the position after it, not {type(result).__name__}")
        if sum(result.opponent) != sum(pos.opponent):
            raise ActionError("a play cannot bear off or remove the opponent's checkers")
        if sum(result.on_roll) > sum(pos.on_roll):
            raise ActionError("a play cannot bring borne-off checkers back")
        legal = next((p for p in pos.legal_plays(self.dice) if p.result() == result), None)
        notes["illegal"] = legal is None
        if action.text is not None:
            notes["text"] = action.text
        mover = self.turn
        self.position = result.swapped()
        self.turn = other(mover)
        self.dice = None
        if not any(result.on_roll):
            self._finish(mover, result_level(result.opponent), "bearoff")
        else:
            self.awaiting = self._start_of_turn()
        return legal

    def copy(self) -> "Game":
        """An independent copy (positions, cubes and results are immutable and shared)."""
        twin = copy.copy(self)
        twin.history = list(self.history)
        return twin

    def _resolve_play(self, given: Any) -> Play:
        pos, dice = self.position, self.dice
        if given is None or (isinstance(given, str) and not given.strip()) or (
            isinstance(given, Play) and given.is_pass()
        ):
            try:
                return pos.pass_play(dice)
            except RulesError as exc:
                raise ActionError(f"{self.turn} must move: {exc}") from None
        if isinstance(given, str):
            try:
                return pos.parse_play(given, dice)
            except RulesError as exc:
                raise ActionError(f"{self.turn} cannot play {given.strip()!r} with {dice[0]}-{dice[1]}: {exc}") from None
        if isinstance(given, Play):
            if given.position != pos:
                raise ActionError(f"the play {given} was worked out for another position")
            if tuple(given.dice) != tuple(dice):
                raise ActionError(f"the play {given} is for {given.dice[0]}-{given.dice[1]}, not {dice[0]}-{dice[1]}")
            if given not in pos.legal_plays(dice):
                raise ActionError(f"{given} is not a legal play of {dice[0]}-{dice[1]}")
            return given
        raise ActionError(f"a play is a Play, notation text or None, not {type(given).__name__}")

    def _double(self, action: Double, notes: dict) -> None:
        if self.awaiting not in ("roll", "roll_or_double", "play"):
            raise self._wrong_time(action)
        player = action.player or self.turn
        why = self.why_cannot_double(player)
        if why:
            raise ActionError(why)
        self._doubler = player
        self._beaver = False
        self.awaiting = "take_or_pass"
        notes["value"] = self.cube.value * 2
        return None

    def _take(self, action: Take, notes: dict) -> None:
        if self.awaiting != "take_or_pass":
            raise ActionError("there is no double to take")
        taker = self._expect_actor(action, "take")
        if self._beaver:
            # the doubler accepts the beaver: the beaverer keeps the cube at the redoubled value
            self.cube = Cube(self.cube.value * 2, self.cube.owner)
        else:
            self.cube = self.cube.taken_by(taker)
        self._beaver = False
        self._doubler = None
        notes["value"] = self.cube.value
        self.awaiting = self._start_of_turn()
        return None

    def _beaver_(self, action: Beaver, notes: dict) -> None:
        if self.awaiting != "take_or_pass":
            raise ActionError("there is no double to beaver")
        if not (self.rules.money and self.rules.beaver):
            raise ActionError("beavers are not allowed at this table")
        if self._beaver:
            raise ActionError("a beaver cannot be beavered back (raccoons are not played)")
        beaverer = self._expect_actor(action, "beaver")
        # take at twice the value, then redouble at once, keeping the cube
        self.cube = self.cube.taken_by(beaverer)
        self._beaver = True
        notes["value"] = self.cube.value * 2
        return None

    def _pass(self, action: Pass, notes: dict) -> None:
        if self.awaiting != "take_or_pass":
            raise ActionError("there is no double to pass")
        passer = self._expect_actor(action, "pass")
        # a refused (re)double pays the stake before it
        self._finish(other(passer), "single", "pass")
        return None

    def _resign(self, action: Resign, notes: dict) -> None:
        if self.awaiting in ("opening_roll", "resign_response"):
            raise self._wrong_time(action)
        resigner = action.player or self.actor
        self._before_resign = (self.awaiting, self._resigner)
        self._resigner = resigner
        self._resign_level = action.level
        self.awaiting = "resign_response"
        return None

    def _accept(self, action: AcceptResign, notes: dict) -> None:
        if self.awaiting != "resign_response":
            raise ActionError("there is no resignation to accept")
        self._expect_actor(action, "accept the resignation")
        self._finish(other(self._resigner), self._resign_level, "resign")
        return None

    def _reject(self, action: RejectResign, notes: dict) -> None:
        if self.awaiting != "resign_response":
            raise ActionError("there is no resignation to reject")
        self._expect_actor(action, "reject the resignation")
        self.awaiting = self._before_resign[0]
        self._resigner = None
        self._resign_level = None
        return None

    def _finish(self, winner: str, level: str, how: str) -> None:
        r = self.rules
        cube = self.cube
        counted = scored_level(
            level,
            cube_owner=cube.owner,
            money=r.money,
            jacoby=r.jacoby,
            backgammon_as_gammon=r.backgammon_as_gammon,
        )
        points = game_points(
            level,
            cube.value,
            cube_owner=cube.owner,
            money=r.money,
            jacoby=r.jacoby,
            backgammon_as_gammon=r.backgammon_as_gammon,
        )
        self.result = GameResult(winner, level, counted, points, cube.value, how)
        self.awaiting = "game_over"

    def __repr__(self) -> str:
        return (
            f"<Game awaiting={self.awaiting!r} turn={self.turn!r} dice={self.dice!r} "
            f"cube={self.cube.value}{'' if self.cube.owner is None else ' ' + self.cube.owner} "
            f"position={self.position.position_id()!r}>"
        )


def _dice(dice) -> tuple[int, int]:
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise ActionError(f"dice are two numbers 1..6, not {dice!r}") from None
    for d in (d1, d2):
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise ActionError(f"dice are two numbers 1..6, not {dice!r}")
    return (max(d1, d2), min(d1, d2))


_HANDLERS = {
    OpeningRoll: Game._opening_roll,
    Roll: Game._roll,
    PlayAction: Game._play,
    StandingPlay: Game._standing_play,
    Double: Game._double,
    Take: Game._take,
    Beaver: Game._beaver_,
    Pass: Game._pass,
    Resign: Game._resign,
    AcceptResign: Game._accept,
    RejectResign: Game._reject,
}
