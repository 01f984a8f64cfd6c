"""The table's state machine: a :class:`~tablecompanion.rules.match.Match` plus what only a referee
knows (flagged plays, void rolls, the clock, the history shown to players).

:class:`TableState` is pure: ``apply(event)`` changes it from the event alone (its time included), so
replaying a table's recorded events rebuilds exactly the same state. It raises a
:class:`~tablecompanion.referee.errors.RefereeError` before changing anything when the event is not
allowed; the :class:`~tablecompanion.referee.referee.Referee` applies events to a cheap clone first, so a
refused event never leaves a half-changed table.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from tablecompanion.rules import Position
from tablecompanion.rules.actions import (
    AcceptResign,
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
from tablecompanion.rules.errors import IllegalPlayError, NotationError, RulesError
from tablecompanion.rules.match import Match

from .clock import MatchClock
from .errors import BadActionError, NotAllowedError
from .physical import PhysicallyImpossible, changed_points, closest_plays, physical_result, play_points
from .settings import TableSettings

__all__ = ["TableState", "Event", "Flag"]

_SIDE_WORD = re.compile(r"(?<![\w'/])([XO])(?![\w/])")


@dataclass(frozen=True)
class Event:
    """One recorded input: what happened (``kind`` + ``payload``), when, from where, with which frame."""

    n: int
    time: float
    source: str
    kind: str
    payload: dict
    evidence: str | None = None


@dataclass
class Flag:
    """An illegal play waiting to be corrected (or, under Responsible Moves, accepted)."""

    id: int
    n: int
    player: str
    dice: tuple[int, int]
    play: str | None
    reason: str
    points: list[int]
    closest: list[str]
    result: Position | None  # physical result, mover still on roll; None if impossible
    time: float
    source: str
    evidence: str | None = None
    status: str = "open"  # open / corrected / accepted / stood / undone
    before: Any = None  # the Game before the play stood tentatively (Responsible Moves)
    provisional: bool = False  # the play stands for now (the opponent is on turn)
    correction: str | None = None
    game: int = 1
    stood_because: str = "rolled"  # what the opponent did that let it stand: rolled / doubled / offered to resign

    def to_dict(self, settings: TableSettings) -> dict:
        mover = self.player
        return {
            "id": self.id,
            "n": self.n,
            "game": self.game,
            "player": mover,
            "dice": list(self.dice),
            "play": self.play,
            "reason": self.reason,
            "points": self.points,
            "points_x": [_to_x(p, mover) for p in self.points],
            "closest": self.closest,
            "status": self.status,
            "can_accept": settings.move_policy == "responsible" and self.result is not None,
            "stands_for_now": self.provisional,
            "correction": self.correction,
            "time": self.time,
            "source": self.source,
            "evidence": self.evidence,
        }


def _to_x(point: int, player: str) -> int:
    """A point in ``player``'s numbering as X numbers it (25 = bar, 0 = off stay as they are)."""
    if player == "X" or point in (0, 25):
        return point
    return 25 - point


def _dice_text(d) -> str:
    return f"{d[0]}-{d[1]}"


def clone_match(match: Match) -> Match:
    """A copy of ``match`` that shares only immutable parts (positions, cubes, finished games).

    Generic on purpose: every list or dict attribute is copied one level deep and the current game is
    cloned, so new attributes in the rules engine do not silently become shared between copies.
    """
    m = _shallow(match)
    m.game = clone_game(match.game)
    return m


def clone_game(game):
    return _shallow(game)


def _shallow(obj):
    new = copy.copy(obj)
    for name, value in vars(obj).items():
        if isinstance(value, list):
            setattr(new, name, [copy.copy(v) if _is_mutable_record(v) else v for v in value])
        elif isinstance(value, dict):
            setattr(new, name, dict(value))
    return new


def _is_mutable_record(value) -> bool:
    """Plain mutable dataclass instances inside lists (a match's game frames) are copied too."""
    params = getattr(type(value), "__dataclass_params__", None)
    return params is not None and not params.frozen


class TableState:
    """Everything a table shows and enforces; see the module docstring."""

    def __init__(self, table_id: str, settings: TableSettings) -> None:
        self.table_id = table_id
        self.settings = settings
        s = settings
        if s.chouette:
            from .chouette import ChouetteMatch

            self.match = ChouetteMatch(s.chouette, jacoby=s.jacoby, automatic_doubles=s.automatic_doubles,
                                       backgammon_as_gammon=s.backgammon_as_gammon)
        else:
            self.match = Match(
                s.match_length,
                s.players,
                crawford=s.crawford,
                jacoby=s.jacoby,
                beaver=s.beaver,
                automatic_doubles=s.automatic_doubles,
                backgammon_as_gammon=s.backgammon_as_gammon,
                cube_limit=s.cube_limit,
            )
        self.flag: Flag | None = None
        self.flags: list[Flag] = []  # every flag of the match, newest last
        self.history: list[dict] = []
        self.clock = MatchClock(s.clock, s.match_length) if s.clock else None
        self.timeout: dict | None = None
        self.last_time: float | None = None
        self.voids = 0
        # the roll the camera read but could not accept only for what a die touches, until the next event:
        # a person who sees the die lie flat enters it as the roll
        self.roll_proposal: dict | None = None
        self.events_applied = 0
        self.last_roll_n: int | None = None  # event n of the roll now on the table (cancellable by void)

    # -- copying ----------------------------------------------------------------------------------
    def clone(self) -> "TableState":
        s = copy.copy(self)
        s.match = self.match.clone() if hasattr(self.match, "clone") else clone_match(self.match)
        s.flags = [copy.copy(f) for f in self.flags]
        s.flag = None
        if self.flag is not None:
            s.flag = s.flags[self.flags.index(self.flag)]
        s.history = list(self.history)
        s.clock = copy.deepcopy(self.clock)
        return s

    # -- facts ------------------------------------------------------------------------------------
    @property
    def game(self):
        return self.match.game

    @property
    def match_over(self) -> bool:
        return self.match.is_over or self.timeout is not None

    @property
    def status(self) -> str:
        if self.match_over:
            return "match_over"
        if self.match.games and not self.game.history:
            return "game_over"
        return "playing"

    @property
    def game_number(self) -> int:
        g = self.match
        if g.games and g.games[-1].game is g.game:
            return len(g.games)
        return len(g.games) + 1

    def actor(self) -> str | None:
        """Who must act now (whose clock runs)."""
        if self.match_over:
            return None
        return self.game.actor

    def expires_at(self) -> float | None:
        if self.clock is None or self.match_over:
            return None
        return self.clock.expires_at()

    # -- the one entry point ----------------------------------------------------------------------
    def apply(self, ev: Event) -> list[dict]:
        """Apply one event; return the referee's decisions. Raises before changing anything."""
        handler = getattr(self, "_on_" + ev.kind, None)
        if handler is None:
            raise BadActionError(f"unknown action {ev.kind!r}")
        if self.match_over and ev.kind not in ("void", "correct"):
            raise NotAllowedError(self._over_message())
        games_before = len(self.match.games)
        self._gno = self.game_number
        decisions = handler(ev)
        if ev.kind != "void":
            self.roll_proposal = None
        decisions.extend(self._after_games(games_before, ev))
        self.events_applied += 1
        self.last_time = ev.time
        if self.clock is not None:
            self.clock.switch(self.actor(), ev.time)
        return decisions

    def _over_message(self) -> str:
        if self.timeout is not None:
            t = self.timeout
            return f"the match is over: {self._name(t['loser'])} ran out of time"
        x, o = self.match.score["X"], self.match.score["O"]
        return f"the match is over: {self._name(self.match.winner)} won {x}-{o}"

    def _name(self, player: str | None) -> str:
        if player not in ("X", "O"):
            return "nobody"
        return self.match.players[0 if player == "X" else 1]

    def _can_double(self) -> bool:
        """Whether the player on turn may offer the cube now (not in the Crawford game, not with the
        opponent's cube, not at the limit, not past a flag that must be corrected first)."""
        if self.match_over or (self.flag is not None and not self.flag.provisional):
            return False
        try:
            return self.game.awaiting == "roll_or_double" and self.game.why_cannot_double() is None
        except Exception:  # noqa: BLE001 - a rules object without the check: the referee decides on the action
            return self.game.awaiting == "roll_or_double"

    def _winner_name(self, rec) -> str:
        """Who won a finished game, named as seated in that game (a chouette rotates the seats after it)."""
        box = getattr(rec, "box", None)
        if box is not None:
            team = list(getattr(rec, "team", ()) or ())
            return box if rec.winner == "X" else (f"{team[0]}'s team" if team else "the team")
        return self._name(rec.winner)

    def _after_games(self, games_before: int, ev: Event) -> list[dict]:
        out = []
        for rec in self.match.games[games_before:]:
            x, o = self.match.score["X"], self.match.score["O"]
            out.append({
                "decision": "game_over", "winner": rec.winner, "points": rec.points, "level": rec.counted,
                "how": rec.how, "game": rec.number, "score": [x, o],
                "message": f"{self._winner_name(rec)} wins game {rec.number}: {rec.points} point"
                           f"{'s' if rec.points != 1 else ''} ({rec.counted}"
                           f"{', passed' if rec.how == 'pass' else ', resigned' if rec.how == 'resign' else ''})",
            })
            self.last_roll_n = None
            if self.flag is not None:  # a game that ended cannot have a play left to correct
                self.flag.status = "stood"
                self.flag.stood_because = "game over"
                self.flag.provisional = False
                self.flag = None
        if self.match.is_over and len(self.match.games) > games_before:
            x, o = self.match.score["X"], self.match.score["O"]
            out.append({"decision": "match_over", "winner": self.match.winner, "score": [x, o],
                        "message": f"{self._name(self.match.winner)} wins the match {x}-{o}"})
        return out

    def _history(self, ev: Event, action: str, player: str | None, **extra) -> dict:
        entry = {"n": ev.n, "game": getattr(self, "_gno", None) or self.game_number, "player": player, "action": action, "time": ev.time,
                 "source": ev.source}
        entry.update(extra)
        self.history.append(entry)
        return entry

    def _stamp(self, entry: dict) -> None:
        """The gnubg IDs after an entry, so any moment of the match can be shown again."""
        entry["position_id"] = self.game.position.position_id()
        entry["match_id"] = self.match.match_id()
        try:
            entry["xgid"] = self.match.xgid()
        except Exception:  # noqa: BLE001 - the XGID encoder is optional in the rules core
            pass

    def _match_apply(self, action, member: str | None = None) -> None:
        if member is not None and not self.settings.chouette:
            raise BadActionError("'member' is only for the team of a chouette")
        try:
            if member is not None:
                self.match.apply(action, member=member)
            else:
                self.match.apply(action)
        except ActionError as exc:
            raise NotAllowedError(self._named(str(exc))) from None

    def _named(self, message: str) -> str:
        """The rules engine says "X"/"O"; players read their names."""
        return _SIDE_WORD.sub(lambda m: self._name(m.group(1)), message)

    # -- flags ------------------------------------------------------------------------------------
    def _flag_block_message(self, what: str) -> str:
        f = self.flag
        written = f" {f.play}" if f.play else ""
        return (f"{self._name(f.player)}'s play{written} is flagged as illegal ({f.reason}): it must be "
                f"corrected before {what}")

    def _settle_flag_before(self, ev: Event, what: str) -> list[dict]:
        """The opponent rolls or doubles while a flag is open: refused (Legal Moves) or the play stands."""
        f = self.flag
        if f is None:
            return []
        if not f.provisional:
            present = {"rolled": "rolls", "doubled": "doubles"}.get(what, what)
            raise NotAllowedError(self._flag_block_message(f"{self._name(other(f.player))} {present}"))
        f.status = "stood"
        f.stood_because = what
        f.provisional = False
        self.flag = None
        self._history(ev, "illegal_play_stands", f.player, flag=f.id)
        return [{"decision": "illegal_play_stands", "flag": f.id, "player": f.player,
                 "message": f"{self._name(f.player)}'s illegal play stands: it was not corrected before "
                            f"{self._name(other(f.player))} {what}"}]

    def _open_flag(self, ev: Event, text: str | None, reason: str, result: Position | None,
                   points: list[int]) -> list[dict]:
        game = self.game
        mover, dice, before_pos = game.turn, game.dice, game.position
        closest = closest_plays(before_pos, dice, result, text or "")
        flag = Flag(
            id=len(self.flags) + 1, n=ev.n, player=mover, dice=dice, play=text, reason=reason, points=points,
            closest=closest, result=result, time=ev.time, source=ev.source, evidence=ev.evidence,
            game=self.game_number,
        )
        responsible = self.settings.move_policy == "responsible"
        if responsible and result is not None and any(result.on_roll):
            # Responsible Moves: the play stands for now; the opponent may accept it or ask for a correction,
            # and rolling (or doubling) without either lets it stand for good.
            flag.before = clone_game(game)
            flag.provisional = True
            self.match.apply(StandingPlay(result=result, text=text, player=mover))
            self.last_roll_n = None
        self.flags.append(flag)
        self.flag = flag
        entry = self._history(ev, "play", mover, dice=list(dice), play=text if text is not None else "(board)",
                              illegal=True, flag=flag.id)
        self._stamp(entry)
        if flag.provisional:
            tail = (f"{self._name(other(mover))} may accept it or ask for a correction; "
                    f"rolling without either lets it stand")
        elif responsible and result is not None:
            tail = f"{self._name(other(mover))} may accept it, or it must be corrected"
        else:
            tail = "it must be corrected before the next roll"
        return [{
            "decision": "illegal_play_flagged", "flag": flag.id, "player": mover, "dice": list(dice),
            "play": text, "reason": reason, "points": points, "points_x": [_to_x(p, mover) for p in points],
            "closest": closest, "policy": self.settings.move_policy, "evidence": ev.evidence,
            "message": f"illegal play by {self._name(mover)}"
                       f"{' (' + text + ')' if text else ''}: {reason}; {tail}",
        }]

    def _reopen_for_correction(self) -> None:
        """Put the game back to just before the flagged play (the mover with the dice)."""
        f = self.flag
        if f.provisional and f.before is not None:
            self.match.game = clone_game(f.before)

    # -- handlers ---------------------------------------------------------------------------------
    def _on_roll(self, ev: Event) -> list[dict]:
        dice = ev.payload["dice"]
        player = ev.payload.get("player")
        game = self.game
        out = self._settle_flag_before(ev, "rolled")
        game = self.game
        if game.awaiting == "opening_roll":
            if player is not None:
                raise NotAllowedError("the opening roll is one die each: give both dice, X's first, not a player")
            self._match_apply(OpeningRoll(dice[0], dice[1]))
            notes = game.history[-1].notes if game.history else {}
            if dice[0] == dice[1]:
                self._history(ev, "opening_roll", None, dice=list(dice), tie=True)
                d = {"decision": "opening_roll_tie", "dice": list(dice),
                     "message": f"both rolled {dice[0]}: roll again"}
                out.append(d)
                if "automatic_double" in notes:
                    out.append({"decision": "automatic_double", "cube": notes["automatic_double"],
                                "message": f"automatic double: the cube is now {notes['automatic_double']}"})
                return out
            first = self.game.turn
            entry = self._history(ev, "opening_roll", first, dice=list(dice))
            self._stamp(entry)
            self.last_roll_n = ev.n
            out.append({"decision": "opening_roll", "player": first, "dice": list(dice),
                        "message": f"{self._name(first)} starts with {max(dice)}-{min(dice)}"})
            out.extend(self._forced_pass(ev))
            return out
        if game.awaiting == "take_or_pass":
            raise NotAllowedError(f"{self._name(game.actor)} must take or pass the double first")
        if game.awaiting == "resign_response":
            raise NotAllowedError(f"{self._name(game.actor)} must accept or reject the resignation first")
        self._match_apply(Roll(dice[0], dice[1], player=player))
        roller = self.game.turn
        entry = self._history(ev, "roll", roller, dice=list(dice))
        self._stamp(entry)
        self.last_roll_n = ev.n
        out.append({"decision": "roll", "player": roller, "dice": list(dice),
                    "legal_plays": len(self.game.legal_plays()),
                    "message": f"{self._name(roller)} rolled {_dice_text(self.game.dice)}"})
        out.extend(self._forced_pass(ev))
        return out

    def _forced_pass(self, ev: Event) -> list[dict]:
        """A roll that cannot be played is forfeited at once: the turn passes."""
        game = self.game
        if game.awaiting != "play" or game.position.has_legal_play(game.dice):
            return []
        mover, dice = game.turn, game.dice
        self._match_apply(PlayAction(None, player=mover))
        entry = self._history(ev, "play", mover, dice=list(dice), play="", forced=True)
        self._stamp(entry)
        self.last_roll_n = None
        return [{"decision": "no_legal_play", "player": mover, "dice": list(dice),
                 "message": f"{self._name(mover)} cannot play {_dice_text(dice)}: the turn passes"}]

    def _on_play(self, ev: Event) -> list[dict]:
        if self.flag is not None:
            return self._on_correct(ev)
        game = self.game
        if game.awaiting != "play":
            self._match_apply(PlayAction(ev.payload.get("play"), player=ev.payload.get("player")))  # says why
            raise NotAllowedError("no play is expected now")  # pragma: no cover - apply raised
        player = ev.payload.get("player")
        if player is not None and player != game.turn:
            raise NotAllowedError(f"{self._name(player)} cannot play: it is {self._name(game.turn)}'s move")
        if "board" in ev.payload:
            return self._play_from_board(ev, ev.payload["board"])
        return self._play_text(ev, ev.payload.get("play") or "")

    def _play_text(self, ev: Event, text: str) -> list[dict]:
        game = self.game
        pos, dice = game.position, game.dice
        try:
            play = pos.pass_play(dice) if not text.strip() else pos.parse_play(text, dice)
        except NotationError as exc:
            raise BadActionError(f"{text!r} is not a play: {exc}") from None
        except IllegalPlayError as exc:
            try:
                result = physical_result(pos, text)
            except PhysicallyImpossible as why:
                result = None
                reason = f"{exc}; the checkers cannot be moved that way ({why})"
            else:
                reason = str(exc)
            return self._open_flag(ev, text.strip(), reason, result, play_points(text))
        except RulesError as exc:
            raise BadActionError(str(exc)) from None
        return self._accept_play(ev, play)

    def _accept_play(self, ev: Event, play, decision: str = "play_accepted") -> list[dict]:
        game = self.game
        mover, dice = game.turn, game.dice
        self._match_apply(PlayAction(play, player=mover))
        text = str(play)
        entry = self._history(ev, "play", mover, dice=list(dice), play=text)
        self._stamp(entry)
        self.last_roll_n = None
        return [{"decision": decision, "player": mover, "dice": list(dice), "play": text,
                 "message": f"{self._name(mover)} plays {_dice_text(dice)}: {text or 'no move'}"}]

    def _play_from_board(self, ev: Event, board: dict) -> list[dict]:
        """A camera board read at the end of a turn: the legal play it shows, or a flag."""
        game = self.game
        mover, dice, pos = game.turn, game.dice, game.position
        seen = _board_position(board, mover)
        for play in pos.legal_plays(dice) or [pos.pass_play(dice)]:
            if play.result() == seen:
                return self._accept_play(ev, play)
        identified = ev.payload.get("identified")
        if identified:
            # the board reader was unsure of some counts and play identification named the play
            try:
                play = pos.parse_play(identified, dice)
            except RulesError:
                play = None
            if play is not None:
                out = self._accept_play(ev, play)
                out[0]["identified_by"] = "vision"
                return out
        if seen == pos:
            reason = f"no checker was moved, but {_dice_text(dice)} can be played"
        else:
            reason = f"the board after the turn matches no legal play of {_dice_text(dice)}"
        return self._open_flag(ev, None, reason, seen, changed_points(pos, seen))

    def _on_correct(self, ev: Event) -> list[dict]:
        f = self.flag
        if f is None:
            return self._late_correction(ev)
        if "play" not in ev.payload and "board" not in ev.payload:
            return self._request_correction(ev)
        player = ev.payload.get("player")
        # The rule book lets either player correct, so ``player`` is not checked against the mover.
        self._reopen_for_correction()
        game = self.game
        pos, dice = game.position, game.dice
        if "board" in ev.payload:
            seen = _board_position(ev.payload["board"], f.player)
            play = next((p for p in pos.legal_plays(dice) or [pos.pass_play(dice)] if p.result() == seen), None)
            if play is None:
                raise NotAllowedError(f"the board still matches no legal play of {_dice_text(dice)}")
        else:
            text = ev.payload.get("play") or ""
            try:
                play = pos.pass_play(dice) if not text.strip() else pos.parse_play(text, dice)
            except NotationError as exc:
                raise BadActionError(f"{text!r} is not a play: {exc}") from None
            except RulesError as exc:
                raise NotAllowedError(f"the correction {text.strip()!r} is not legal either: {exc}") from None
        f.status = "corrected"
        f.provisional = False
        f.correction = str(play)
        self.flag = None
        out = self._accept_play(ev, play, decision="correction_accepted")
        out[0]["flag"] = f.id
        out[0]["message"] = f"correction accepted: {self._name(f.player)} plays {_dice_text(dice)}: {play}"
        self.history[-1]["correction_of"] = f.id
        del player
        return out

    def _request_correction(self, ev: Event) -> list[dict]:
        """The opponent asks for a correction (Responsible Moves): the mover takes the dice back."""
        f = self.flag
        if not f.provisional:
            raise NotAllowedError(f"{self._name(f.player)} must correct the play: enter the correct play")
        self._reopen_for_correction()
        f.provisional = False
        self._history(ev, "correction_requested", other(f.player), flag=f.id)
        return [{"decision": "correction_requested", "flag": f.id, "player": f.player,
                 "message": f"{self._name(other(f.player))} asks for a correction: {self._name(f.player)} "
                            f"must play the {_dice_text(f.dice)} again"}]

    def _late_correction(self, ev: Event) -> list[dict]:
        """A correction asked for after the flagged play already stood: recorded, changes nothing."""
        game_no = self.game_number
        stood = [f for f in self.flags if f.status in ("stood", "accepted") and f.game == game_no]
        if not stood:
            raise NotAllowedError("there is no flagged play to correct")
        f = stood[-1]
        text = ev.payload.get("play")
        f.correction = f"late: {text}" if text else "late"
        self._history(ev, "correction_out_of_time", f.player, flag=f.id, play=text)
        if f.status == "accepted":
            why = "it was accepted"
        elif f.stood_because == "game over":
            why = "that game is over"
        else:  # rolled / doubled / offered to resign
            verb = "has rolled" if f.stood_because == "rolled" else f.stood_because
            why = f"{self._name(other(f.player))} {verb} since"
        return [{"decision": "correction_out_of_time", "flag": f.id, "player": f.player, "play": text,
                 "message": f"too late to correct {self._name(f.player)}'s play: {why}, so it stands as played"}]

    def _on_accept_illegal(self, ev: Event) -> list[dict]:
        f = self.flag
        if f is None:
            raise NotAllowedError("there is no flagged play to accept")
        if self.settings.move_policy != "responsible":
            raise NotAllowedError("this table plays Legal Moves: an illegal play must be corrected, not accepted")
        if f.result is None:
            raise NotAllowedError(f"this play cannot stand: {f.reason}")
        player = ev.payload.get("player")
        if player is not None and player == f.player:
            raise NotAllowedError("only the opponent can accept an illegal play")
        out = []
        f.status = "accepted"
        f.provisional = False
        self.flag = None
        if not any(f.result.on_roll):  # the illegal play bore off the last checker: it ends the game
            self.match.apply(StandingPlay(result=f.result, text=f.play, player=f.player))
        self._history(ev, "accept_illegal", other(f.player), flag=f.id)
        out.append({"decision": "illegal_play_accepted", "flag": f.id, "player": f.player,
                    "message": f"{self._name(other(f.player))} accepts the illegal play: it stands"})
        return out

    def _cube_or_resign(self, ev: Event, action, decision: str, verb: str) -> list[dict]:
        if self.flag is not None:
            if ev.kind == "double":
                out = self._settle_flag_before(ev, "doubled")
            elif ev.kind == "resign" and self.flag.provisional:
                # Responsible Moves: offering to resign goes on with the game as it stands, like a roll
                out = self._settle_flag_before(ev, "offered to resign")
            else:
                raise NotAllowedError(self._flag_block_message("the game goes on"))
        else:
            out = []
        actor = self.game.actor
        member = ev.payload.get("member")
        # named before the action: a chouette game that ends here rotates the seats (X/O name others after)
        who_name = member or self._name(action.player or actor)
        self._match_apply(action, member)
        game = self.game
        extra: dict = {}
        if ev.kind == "resign":
            extra["level"] = action.level
        if member is not None:
            extra["member"] = member
        if ev.kind in ("double", "beaver"):
            extra["cube"] = game.cube_value * 2
        elif ev.kind == "take":
            extra["cube"] = game.cube_value
        who = action.player or actor
        entry = self._history(ev, ev.kind, who, **extra)
        self._stamp(entry)
        d = {"decision": decision, "player": who, **extra, "message": f"{who_name} {verb}"}
        if ev.kind in ("double", "beaver"):
            d["message"] += f" to {extra['cube']}"
        if ev.kind == "resign":
            d["message"] += f" ({action.level})"
        out.append(d)
        return out

    def _on_double(self, ev):
        return self._cube_or_resign(ev, Double(player=ev.payload.get("player")), "double_offered", "doubles")

    def _on_take(self, ev):
        return self._cube_or_resign(ev, Take(player=ev.payload.get("player")), "double_taken", "takes")

    def _on_pass(self, ev):
        return self._cube_or_resign(ev, Pass(player=ev.payload.get("player")), "double_passed", "passes")

    def _on_beaver(self, ev):
        return self._cube_or_resign(ev, Beaver(player=ev.payload.get("player")), "beaver", "beavers")

    def _on_resign(self, ev):
        return self._cube_or_resign(ev, Resign(ev.payload.get("level", "single"), player=ev.payload.get("player")),
                                    "resign_offered", "offers to resign")

    def _on_accept_resign(self, ev):
        return self._cube_or_resign(ev, AcceptResign(player=ev.payload.get("player")), "resign_accepted",
                                    "accepts the resignation")

    def _on_reject_resign(self, ev):
        return self._cube_or_resign(ev, RejectResign(player=ev.payload.get("player")), "resign_rejected",
                                    "rejects the resignation")

    def _on_void(self, ev: Event) -> list[dict]:
        """A void roll: recorded with its reason (and frame); a roll already entered is taken back."""
        reason = ev.payload.get("reason") or "void"
        game = self.game
        cancelled = bool(ev.payload.get("cancels_roll"))
        player = game.turn if game.awaiting in ("roll", "roll_or_double", "play") else None
        self.voids += 1
        entry = self._history(ev, "void", player, reason=reason, evidence=ev.evidence, cancelled_roll=cancelled)
        self._stamp(entry)
        who = self._name(player) if player else "the opening roll"
        proposal = ev.payload.get("proposal")
        decision = {"decision": "void_roll", "player": player, "reason": reason, "evidence": ev.evidence,
                    "cancelled_roll": cancelled, "message": f"void roll ({who}): {reason}; roll again"}
        self.roll_proposal = None
        if proposal and not cancelled:
            if game.awaiting == "opening_roll" and len(proposal) == 2:  # one die each, X's first
                roll = f"{proposal[0]} for {self._name('X')}, {proposal[1]} for {self._name('O')}"
            else:
                roll = "-".join(map(str, sorted(proposal, reverse=True)))
            self.roll_proposal = {"player": player, "dice": list(proposal), "reason": reason, "roll": roll}
            decision["proposal"] = list(proposal)
            decision["message"] = (f"void roll ({who}): {reason}; the camera read {roll}: "
                                   f"if the die lies flat, enter {roll}, else roll again")
        return [decision]

    def _on_timeout(self, ev: Event) -> list[dict]:
        loser = ev.payload["player"]
        if self.clock is None:
            raise NotAllowedError("this table has no clock")
        self.timeout = {"loser": loser, "winner": other(loser), "time": ev.time}
        self._history(ev, "timeout", loser)
        if self.flag is not None:
            self.flag.status = "stood"
            self.flag.provisional = False
            self.flag = None
        return [{"decision": "timeout", "player": loser, "winner": other(loser),
                 "message": f"{self._name(loser)} ran out of time: {self._name(other(loser))} wins the match"},
                {"decision": "match_over", "winner": other(loser), "score": [self.match.score["X"], self.match.score["O"]],
                 "reason": "time", "message": f"{self._name(other(loser))} wins the match on time"}]

    # -- what the table shows ---------------------------------------------------------------------
    _FLAG_ACTIONS = ("illegal_play_stands", "correction_out_of_time", "accept_illegal", "correction_requested")

    def _public_history(self) -> list[dict]:
        """The history for the public display: no flags, no plays that were taken back by a correction."""
        status = {f.id: f.status for f in self.flags}
        out = []
        for h in self.history:
            if h["action"] in self._FLAG_ACTIONS:
                continue
            if h.get("illegal") and status.get(h.get("flag")) not in ("accepted", "stood"):
                continue
            out.append({k: v for k, v in h.items() if k not in ("illegal", "flag", "correction_of")})
        return out

    def board(self) -> dict:
        game = self.game
        pos = game.position
        turn = game.turn or "X"
        x = pos.on_roll if turn == "X" else pos.opponent
        o = pos.opponent if turn == "X" else pos.on_roll
        return {
            "X": list(x), "O": list(o),
            "bar": {"X": x[24], "O": o[24]},
            "off": {"X": 15 - sum(x), "O": 15 - sum(o)},
            "points_x": [_point_x(x, o, p) for p in range(1, 25)],
        }

    def to_dict(self, now: float, *, public: bool = False) -> dict:
        m, game = self.match, self.game
        pos = game.position
        turn = game.turn
        b = self.board()
        pip_x = sum(n * (i + 1) for i, n in enumerate(b["X"]))
        pip_o = sum(n * (i + 1) for i, n in enumerate(b["O"]))
        try:
            xgid = m.xgid()
        except Exception:  # noqa: BLE001 - the XGID encoder is optional in the rules core
            xgid = None
        s = self.settings
        snap = {
            "id": self.table_id,
            "players": {"X": m.players[0], "O": m.players[1]},
            "position_id": pos.position_id(),
            "match_id": m.match_id(),
            "gnubg_id": f"{pos.position_id()}:{m.match_id()}",
            "xgid": xgid,
            "turn": turn,
            "actor": self.actor(),
            "awaiting": "match_over" if self.match_over else getattr(m, "awaiting", game.awaiting),
            "dice": list(game.dice) if game.dice else None,
            "legal_plays": [str(p) for p in game.legal_plays()] if not self.match_over else [],
            "cube": {"value": game.cube_value, "owner": game.cube_owner},
            "can_double": self._can_double(),
            "double_offered": game.double_offered,
            "resignation": ({"player": game.resigner, "level": game.resignation_offered}
                            if game.resignation_offered else None),
            "score": list(m.score_pair) if hasattr(m, "score_pair") else [m.score["X"], m.score["O"]],
            "match_length": s.match_length,
            "crawford": m.crawford_state,
            "pips": [pip_x, pip_o],
            "board": b,
            "history": self._public_history() if public else [dict(h) for h in self.history],
            "games": [g.as_dict() for g in m.games],
            "game_number": self.game_number,
            "clock": self.clock.to_dict(now) if self.clock else None,
            "status": self.status,
            "winner": (self.timeout["winner"] if self.timeout else m.winner),
            "timeout": self.timeout,
            "move_policy": s.move_policy,
            "settings": s.to_dict(),
            "voids": self.voids,
            "roll_proposal": dict(self.roll_proposal) if self.roll_proposal else None,
            "chouette": m.summary() if hasattr(m, "summary") else None,
        }
        if not public:
            snap["flags"] = [f.to_dict(s) for f in self.flags]
            snap["open_flag"] = self.flag.to_dict(s) if self.flag else None
        return snap


def _point_x(x, o, p: int) -> dict | None:
    """Who holds X's point ``p`` and how many."""
    if x[p - 1]:
        return {"player": "X", "count": x[p - 1]}
    if o[24 - p]:
        return {"player": "O", "count": o[24 - p]}
    return None


def _board_position(board: dict, mover: str) -> Position:
    """The mover-view position of a board given as each player's own 25 slots (``{"X": [...], "O": [...]}``)."""
    try:
        mine, theirs = board[mover], board[other(mover)]
        return Position(mine, theirs)
    except (KeyError, TypeError) as exc:
        raise BadActionError(f"a board is {{'X': 25 counts, 'O': 25 counts}}: {exc}") from None
    except RulesError as exc:
        raise BadActionError(f"the board read is not a position: {exc}") from None
