"""One table's referee: checks every action or camera observation, records it durably, then applies it.

The order matters for a tournament: an event is (1) checked on a copy of the table, (2) written to the
record in its own committed transaction, (3) made the table's state, (4) announced to subscribers. A
refused event changes nothing and is not recorded; a crash after (2) loses nothing, because the table
is rebuilt by replaying the record.

>>> ref = Referee("1", TableSettings(players=("Alice", "Bob"), match_length=3))
>>> [d["decision"] for d in ref.act({"action": "roll", "dice": [3, 1]})]
['opening_roll']
>>> ref.act({"action": "play", "play": "8/5 6/5"})[0]["decision"]
'play_accepted'
>>> ref.snapshot()["turn"]
'O'
"""

from __future__ import annotations

import logging
import threading
import time as _time
from typing import Any, Callable

from tablecompanion.rules.actions import RESIGN_LEVELS

from .errors import BadActionError, NotAllowedError, RecordUnavailableError, RefereeError
from .settings import TableSettings
from .state import Event, TableState

__all__ = ["Referee", "ACTIONS", "normalize_action", "public_decisions"]

log = logging.getLogger(__name__)

ACTIONS = ("roll", "play", "double", "take", "pass", "beaver", "resign", "accept_resign", "reject_resign",
           "undo", "correct", "accept_illegal", "new_game", "void")
"""What ``Referee.act`` understands (``{"action": name, ...}``)."""

SOURCES = ("operator", "camera", "board", "player", "clock", "api", "test", "replay")
MAX_TEXT = 200
CHECKPOINT_EVERY = 32


def _player(value: Any) -> str | None:
    if value is None:
        return None
    if value not in ("X", "O"):
        raise BadActionError(f"'player' is 'X' or 'O', not {value!r}")
    return value


def _dice(value: Any) -> list[int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise BadActionError(f"'dice' must be two numbers from 1 to 6, like [6, 3], not {value!r}")
    out = []
    for d in value:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise BadActionError(f"'dice' must be two numbers from 1 to 6, like [6, 3], not {value!r}")
        out.append(int(d))
    return out


def _text(value: Any, what: str, default: str | None = None) -> str | None:
    if value is None:
        return default
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise BadActionError(f"{what!r} must be text of at most {MAX_TEXT} characters")
    return value.strip()


def _board(value: Any) -> dict:
    if not isinstance(value, dict) or set(value) - {"X", "O"} or len(value) != 2:
        raise BadActionError("a board is {'X': [25 counts], 'O': [25 counts]}, each in its owner's numbering")
    out = {}
    for p in ("X", "O"):
        side = value[p]
        if (not isinstance(side, (list, tuple)) or len(side) != 25
                or any(isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 15 for n in side)):
            raise BadActionError(f"board[{p!r}] must be 25 checker counts (points 1-24, then the bar)")
        out[p] = [int(n) for n in side]
    return out


def normalize_action(action: Any) -> tuple[str, dict]:
    """``(kind, payload)`` of a JSON-like action, every field checked; :class:`BadActionError` otherwise."""
    if not isinstance(action, dict):
        raise BadActionError("an action is an object like {'action': 'roll', 'dice': [6, 3]}")
    kind = action.get("action")
    if kind not in ACTIONS:
        raise BadActionError(f"unknown action {kind!r}; one of: {', '.join(ACTIONS)}")
    payload: dict[str, Any] = {}
    player = _player(action.get("player"))
    if player is not None:
        payload["player"] = player
    if action.get("member") is not None:
        if kind not in ("take", "pass"):
            raise BadActionError("'member' names the chouette team member who takes or passes the box's double")
        payload["member"] = _text(action.get("member"), "member")
    if kind == "roll":
        payload["dice"] = _dice(action.get("dice"))
    elif kind in ("play", "correct"):
        if "board" in action:
            payload["board"] = _board(action["board"])
        elif kind == "correct" and action.get("play") is None:
            pass  # a request for a correction (Responsible Moves): the mover plays again
        else:
            if "play" not in action:
                raise BadActionError(f"{kind!r} needs 'play': notation such as '24/18 13/10' ('' for no move)")
            payload["play"] = _text(action.get("play"), "play", "")
    elif kind == "resign":
        level = action.get("level", "single")
        if level not in RESIGN_LEVELS:
            raise BadActionError(f"'level' is one of {', '.join(RESIGN_LEVELS)}, not {level!r}")
        payload["level"] = level
    elif kind == "void":
        payload["reason"] = _text(action.get("reason"), "reason", "void") or "void"
        if action.get("proposal") is not None:
            payload["proposal"] = _dice(action["proposal"])
    return kind, payload


FLAG_DECISIONS = ("illegal_play_flagged", "illegal_play_stands", "illegal_play_accepted", "correction_requested",
                  "correction_out_of_time")


def public_decisions(decisions: list[dict]) -> list[dict]:
    """Decisions as the public display may show them: no flags; a correction reads as the play it is."""
    out = []
    for d in decisions:
        kind = d.get("decision")
        if kind in FLAG_DECISIONS:
            continue
        if kind == "correction_accepted":
            d = {k: v for k, v in d.items() if k != "flag"}
            d["decision"] = "play_accepted"
            d["message"] = d["message"].replace("correction accepted: ", "")
        out.append(d)
    return out


class Referee:
    """The referee of one table; thread-safe. See the module docstring for the order of work."""

    def __init__(self, table_id: str, settings: TableSettings | dict, record=None, *,
                 now: Callable[[], float] | None = None) -> None:
        self.table_id = str(table_id)
        self.settings = TableSettings.from_dict(settings)
        self.record = record
        self._now = now or _time.time
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[dict], Any]] = []
        self._state = TableState(self.table_id, self.settings)
        self._stack: list[Event] = []
        self._checkpoints: list[tuple[int, TableState]] = [(0, self._state.clone())]
        self._n = 0
        self._awaiting_board = False  # camera: dice picked up, the board read decides the play
        if record is not None:
            self._attach(record)

    # -- record ------------------------------------------------------------------------------------
    def _attach(self, record) -> None:
        from tablecompanion.record import UnknownTableError as NoTable

        try:
            row = record.table(self.table_id)
        except NoTable:
            record.create_table(self.table_id, self.settings.to_dict(), token_hash="")
            return
        if TableSettings.from_dict(row.settings) != self.settings:
            raise NotAllowedError(f"table {self.table_id!r} is already in the record with other settings")
        for ev in record.events(self.table_id):
            self._replay(Event(ev.n, ev.time, ev.source, ev.kind, ev.payload, ev.evidence))

    @classmethod
    def resume(cls, table_id: str, record, *, now: Callable[[], float] | None = None) -> "Referee":
        """The referee of a recorded table, rebuilt from its settings and events."""
        row = record.table(str(table_id))
        return cls(table_id, TableSettings.from_dict(row.settings), record, now=now)

    def _write(self, ev: Event) -> None:
        if self.record is None:
            return
        try:
            self.record.append(self.table_id, ev.kind, ev.payload, source=ev.source, time=ev.time,
                               evidence=ev.evidence)
        except Exception as exc:  # noqa: BLE001 - any failure to record means the event did not happen
            raise RecordUnavailableError(f"the event could not be recorded, so it did not take effect: {exc}")

    # -- the event pipeline -----------------------------------------------------------------------
    def _time(self, t: float | None) -> float:
        t = self._now() if t is None else float(t)
        last = self._state.last_time
        return t if last is None or t >= last else last  # never let the clock run backwards

    def _commit(self, ev: Event, new: TableState, decisions: list[dict], *, pop: int = 0) -> list[dict]:
        self._write(ev)
        self._n = ev.n
        for _ in range(pop):
            self._stack.pop()
        self._stack.append(ev)
        self._state = new
        self._prune_checkpoints()
        if len(self._stack) - self._checkpoints[-1][0] >= CHECKPOINT_EVERY:
            self._checkpoints.append((len(self._stack), new.clone()))
        self._notify(ev, decisions)
        return decisions

    def _process(self, kind: str, payload: dict, source: str, t: float | None = None,
                 frame: Any = None) -> list[dict]:
        if source not in SOURCES:
            raise BadActionError(f"unknown source {source!r}")
        with self._lock:
            t = self._time(t)
            pre = self._check_clock(t)
            if kind == "undo":
                return pre + self._undo(source, t)
            if kind == "new_game":
                return pre + self._new_game()
            if kind == "void" and self._roll_cancellable():
                payload = dict(payload, cancels_roll=True)
            if kind == "roll" and "player" not in payload:
                roller = self._state.game.turn if self._state.game.awaiting != "opening_roll" else None
                if roller is not None:
                    payload = dict(payload, player=roller)  # the record names whose dice these were
            ev = Event(self._n + 1, t, source, kind, payload)
            new, decisions, pop = self._dry_run(ev)
            if frame is not None and self.record is not None and any(
                    d["decision"] in ("void_roll", "illegal_play_flagged") for d in decisions):
                evidence = self._save_frame(frame, decisions[0].get("reason") or kind)
                ev = Event(ev.n, t, source, kind, payload, evidence)
                new, decisions, pop = self._dry_run(ev)
            return pre + self._commit(ev, new, decisions, pop=pop)

    def _dry_run(self, ev: Event) -> tuple[TableState, list[dict], int]:
        """The state after ``ev`` (on a copy) and its decisions; raises, changing nothing, if refused."""
        if ev.payload.get("cancels_roll"):
            new = self._rebuild(len(self._stack) - 1)
            pop = 1
        else:
            new = self._state.clone()
            pop = 0
        decisions = new.apply(ev)
        return new, decisions, pop

    def _save_frame(self, frame: Any, label: str) -> str | None:
        try:
            return self.record.save_evidence(self.table_id, frame, label)
        except Exception as exc:  # noqa: BLE001 - a missing picture must not stop the referee
            log.warning("table %s: evidence frame not saved: %s", self.table_id, exc)
            return None

    def _roll_cancellable(self) -> bool:
        """A void called while the roll it voids is already entered takes that roll back."""
        s = self._state
        return (bool(self._stack) and s.last_roll_n is not None and self._stack[-1].n == s.last_roll_n
                and s.game.awaiting == "play" and s.flag is None)

    def _replay(self, ev: Event) -> None:
        """Re-apply a recorded event (resume after a restart): same code path, nothing written."""
        if ev.kind == "undo":
            new = self._rebuild(len(self._stack) - 1)
            self._finish_undo(new, ev.time)
            self._stack.pop()
        else:
            new, _, pop = self._dry_run(ev)
            for _ in range(pop):
                self._stack.pop()
            self._stack.append(ev)
        self._state = new
        self._n = ev.n
        self._prune_checkpoints()
        if len(self._stack) - self._checkpoints[-1][0] >= CHECKPOINT_EVERY:
            self._checkpoints.append((len(self._stack), new.clone()))

    # -- undo ----------------------------------------------------------------------------------------
    def _rebuild(self, length: int) -> TableState:
        """The state after the first ``length`` effective events (from the nearest checkpoint)."""
        if length < 0:
            raise NotAllowedError("nothing to undo")
        k, base = max((c for c in self._checkpoints if c[0] <= length), key=lambda c: c[0])
        state = base.clone()
        for ev in self._stack[k:length]:
            state.apply(ev)
        return state

    def _prune_checkpoints(self) -> None:
        n = len(self._stack)
        while len(self._checkpoints) > 1 and self._checkpoints[-1][0] > n:
            self._checkpoints.pop()

    def _finish_undo(self, new: TableState, t: float) -> None:
        new.last_time = t
        if new.clock is not None:
            new.clock.switch(new.actor(), t)

    def _undo(self, source: str, t: float) -> list[dict]:
        if not self._stack:
            raise NotAllowedError("nothing to undo")
        last = self._stack[-1]
        new = self._rebuild(len(self._stack) - 1)
        self._finish_undo(new, t)
        ev = Event(self._n + 1, t, source, "undo", {"undone": last.n, "kind": last.kind})
        self._write(ev)
        self._n = ev.n
        self._stack.pop()
        self._state = new
        self._prune_checkpoints()
        decisions = [{"decision": "undone", "undone": {"n": last.n, "kind": last.kind, "payload": last.payload},
                      "message": f"undone: {last.kind} (event {last.n})"}]
        self._notify(ev, decisions)
        return decisions

    def _new_game(self) -> list[dict]:
        s = self._state
        if s.match_over:
            raise NotAllowedError(s._over_message())
        if s.game.awaiting != "opening_roll" or s.game.history:
            raise NotAllowedError("a game is in progress: finish it first")
        return [{"decision": "new_game", "game": s.game_number,
                 "message": f"game {s.game_number}: roll one die each (the opening roll)"}]

    # -- the clock -----------------------------------------------------------------------------------
    def _check_clock(self, t: float) -> list[dict]:
        """Record a time-out that happened before ``t``; returns its decisions (none when in time)."""
        s = self._state
        end = s.expires_at()
        if end is None or t < end:
            return []
        loser = s.clock.running
        ev = Event(self._n + 1, end, "clock", "timeout", {"player": loser})
        new = s.clone()
        decisions = new.apply(ev)
        return self._commit(ev, new, decisions)

    def tick(self, now: float | None = None) -> list[dict]:
        """Check the clock (call it every second or so from a server loop); records a time-out."""
        with self._lock:
            return self._check_clock(self._time(now))

    # -- public API ---------------------------------------------------------------------------------
    def act(self, action: dict, source: str = "operator", *, time: float | None = None) -> list[dict]:
        """Apply one action (see :data:`ACTIONS`); returns the decisions. :class:`RefereeError` if refused."""
        kind, payload = normalize_action(action)
        return self._process(kind, payload, source, time)

    def observe(self, observation: Any, *, time: float | None = None) -> list[dict]:
        """Feed one camera observation (a dict or an object with ``type``); returns the decisions.

        Types: ``roll`` (``dice`` [X's, O's] for an opening roll), ``roll_void`` (``reason``, ``frame``),
        ``dice_picked_up`` (ends the turn; a ``board`` may come with it), ``board`` (``board``:
        ``{"X": [25], "O": [25]}``). Observations that mean nothing now return ``[]``.
        """
        from .observations import to_observation

        obs = to_observation(observation)
        with self._lock:
            typ = obs["type"]
            frame = obs.get("frame")
            if typ == "roll":
                self._awaiting_board = False
                return self._process("roll", {"dice": _dice(obs.get("dice"))}, "camera", time, frame)
            if typ == "roll_void":
                reason = _text(obs.get("reason"), "reason", "void") or "void"
                payload = {"reason": reason}
                if obs.get("proposal") is not None:
                    payload["proposal"] = _dice(obs["proposal"])
                return self._process("void", payload, "camera", time, frame)
            if typ == "dice_picked_up":
                s = self._state
                if s.game.awaiting != "play" and s.flag is None:
                    return []
                self._awaiting_board = True
                if obs.get("board") is None:
                    return [{"decision": "awaiting_board", "message": "dice picked up: reading the board"}]
                typ = "board"
            if typ == "board":
                board = _board(obs.get("board"))
                s = self._state
                if s.flag is not None and not s.flag.provisional:
                    try:
                        return self._process("correct", {"board": board}, "camera", time, frame)
                    except NotAllowedError:
                        return []  # still not a legal play: the flag stays open
                if not self._awaiting_board or s.game.awaiting != "play":
                    return []
                self._awaiting_board = False
                payload = {"board": board}
                identified = obs.get("play")
                if isinstance(identified, str) and len(identified) <= MAX_TEXT:
                    payload["identified"] = identified  # vision's reading where some counts were unsure
                return self._process("play", payload, "camera", time, frame)
            raise BadActionError(f"unknown observation type {typ!r}")

    def snapshot(self, public: bool = False) -> dict:
        """The table as JSON-able data; ``public=True`` leaves out flags (for the display view)."""
        with self._lock:
            snap = self._state.to_dict(self._now(), public=public)
            snap["events"] = self._n
            snap["awaiting_board"] = self._awaiting_board
            return snap

    def ids_at(self, index: int) -> dict:
        """The gnubg Position ID and Match ID after history entry ``index`` (0 = first; negative from the end)."""
        with self._lock:
            history = self._state.history
            try:
                entry = history[index]
            except (IndexError, TypeError):
                raise BadActionError(f"no history entry {index} (the history has {len(history)})") from None
            if "position_id" not in entry:
                # entries that change nothing on the board (void, time-out): the last stamped moment
                k = index if index >= 0 else len(history) + index
                entry = next((h for h in reversed(history[:k + 1]) if "position_id" in h), None)
                if entry is None:
                    from tablecompanion.rules import Position
                    return {"index": index, "position_id": Position.initial().position_id(), "match_id": None,
                            "xgid": None}
            return {"index": index, "n": entry["n"], "position_id": entry["position_id"],
                    "match_id": entry["match_id"], "xgid": entry.get("xgid"),
                    "gnubg_id": f"{entry['position_id']}:{entry['match_id']}"}

    def export_mat(self) -> str:
        """The match so far in GNU Backgammon's .mat text format."""
        from tablecompanion.record import ExportError
        from tablecompanion.record.export import export_mat

        with self._lock:
            if self.settings.chouette:
                raise NotAllowedError("a chouette has no .mat file (the format holds two players)")
            try:
                return export_mat(self._state)
            except ExportError as exc:
                raise NotAllowedError(str(exc)) from None

    @property
    def state(self) -> TableState:
        """The live state (read-only use; copy before changing)."""
        return self._state

    def events(self) -> list[Event]:
        """The effective events (undone ones removed), oldest first."""
        with self._lock:
            return list(self._stack)

    # -- subscribers -----------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[dict], Any]) -> None:
        with self._lock:
            if callback not in self._subscribers:
                self._subscribers.append(callback)

    def unsubscribe(self, callback: Callable[[dict], Any]) -> None:
        with self._lock:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

    def _notify(self, ev: Event, decisions: list[dict]) -> None:
        note = {"table": self.table_id, "n": ev.n, "kind": ev.kind, "source": ev.source, "time": ev.time,
                "decisions": decisions, "public_decisions": public_decisions(decisions)}
        for cb in list(self._subscribers):
            try:
                cb(note)
            except Exception:  # noqa: BLE001 - a broken listener must never stop the table
                log.exception("table %s: subscriber failed", self.table_id)

    def __repr__(self) -> str:
        return f"<Referee table={self.table_id!r} events={self._n} {self._state.status}>"
