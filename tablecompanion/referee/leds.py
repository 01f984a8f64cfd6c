"""The one place where the referee meets the LED board: referee facts in, an ``LedState`` out, buttons back.

Kept small and defensive: if the LED package (or a board) is missing or fails, the referee goes on and
the failure is logged, never raised into a match.
"""

from __future__ import annotations

import logging
from typing import Any

from tablecompanion.rules import Position

from .errors import RefereeError

__all__ = ["led_state_for", "LedLink", "BUTTON_ACTIONS"]

log = logging.getLogger(__name__)

BUTTON_ACTIONS = {"double": {"action": "double"}, "take": {"action": "take"}, "pass": {"action": "pass"}}
"""LED-board buttons that are referee actions; "done" ends the turn (the camera then reads the board)."""


def _side(player: str | None, bottom: str) -> str | None:
    if player not in ("X", "O"):
        return None
    return "bottom" if player == bottom else "top"


def led_state_for(snapshot: dict, *, void: bool = False):
    """What the LED board shows for a referee snapshot (private view: flags are shown on the board).

    Legal destinations of the roll glow green for the mover; an open flag blinks red on the points
    involved; a void roll shows the board's void pattern; turn and cube lights follow the match.
    """
    from tablecompanion.leds.state import LedState

    settings = snapshot.get("settings") or {}
    bottom = settings.get("bottom_player", "X")
    turn = snapshot.get("turn")
    cube = snapshot.get("cube") or {"value": 1, "owner": None}
    value = cube.get("value", 1)
    state = LedState().with_cube(value if value <= 64 else 64, _side(cube.get("owner"), bottom))
    if snapshot.get("status") == "match_over":
        return state.with_turn(None).with_status("normal")
    flag = snapshot.get("open_flag")
    if flag and flag.get("status") == "open":
        mover = _side(flag["player"], bottom)
        points = [p for p in flag.get("points", []) if 0 <= p <= 25]
        return state.for_illegal_play(points, mover=mover).with_turn(_side(turn, bottom))
    if void:
        return state.with_turn(_side(turn, bottom)).with_status("void_roll")
    if snapshot.get("awaiting") == "play" and snapshot.get("dice") and turn in ("X", "O"):
        b = snapshot["board"]
        mine, theirs = b[turn], b["O" if turn == "X" else "X"]
        position = Position(mine, theirs)
        return state.for_legal_destinations(position, snapshot["dice"], mover=_side(turn, bottom))
    if snapshot.get("awaiting") == "opening_roll":
        return state.with_turn(None).with_status("waiting")
    return state.with_turn(_side(snapshot.get("actor") or turn, bottom))


class LedLink:
    """Keeps a board (``tablecompanion.leds.open_board(...)``) in step with a referee; buttons act.

    ``on_done`` is called when the "done" button is pressed (the runner reads the board then).
    """

    def __init__(self, referee, board: Any, *, on_done=None) -> None:
        self.referee = referee
        self.board = board
        self.on_done = on_done
        self.shown = None
        self.errors = 0
        referee.subscribe(self._changed)
        try:
            board.on_event(self._button)
        except Exception as exc:  # noqa: BLE001 - a board without buttons is fine
            log.info("LED board has no buttons: %s", exc)
        self.refresh()

    def refresh(self, void: bool = False) -> None:
        try:
            state = led_state_for(self.referee.snapshot(public=False), void=void)
            self.board.show(state)
            self.shown = state
        except Exception as exc:  # noqa: BLE001 - LEDs must never stop the referee
            self.errors += 1
            log.warning("table %s: LED update failed: %s", self.referee.table_id, exc)

    def _changed(self, note: dict) -> None:
        void = any(d.get("decision") == "void_roll" for d in note.get("decisions", ()))
        self.refresh(void=void)

    def _button(self, button: str) -> None:
        if button == "done":
            if self.on_done is not None:
                self.on_done()
            return
        action = BUTTON_ACTIONS.get(button)
        if action is None:
            log.warning("unknown LED board button %r", button)
            return
        try:
            self.referee.act(dict(action), source="board")
        except RefereeError as exc:
            log.info("table %s: button %s refused: %s", self.referee.table_id, button, exc.message)
            self.refresh()

    def close(self) -> None:
        self.referee.unsubscribe(self._changed)
        try:
            self.board.close()
        except Exception:  # noqa: BLE001
            pass
