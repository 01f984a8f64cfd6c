"""Exports from the record: a table's match as a .mat file, and dice statistics across every table.

The .mat text comes from :func:`tablecompanion.rules.matfile.write_mat`, so GNU Backgammon imports it.
"""

from __future__ import annotations

import time as _time
from typing import Any

from .errors import ExportError
from .stats import dice_statistics, rolls_from_events

__all__ = ["export_mat", "dice_statistics_for", "mat_headers"]


def mat_headers(state: Any) -> dict[str, str]:
    """The ``; [Key "value"]`` lines gnubg reads: players, event, date, Crawford."""
    s = state.settings
    t = state.history[0]["time"] if state.history else _time.time()
    tm = _time.gmtime(t)
    return {
        "Site": "TableCompanion",
        "Event": f"Table {state.table_id}",
        "Player 1": s.players[0],
        "Player 2": s.players[1],
        "EventDate": _time.strftime("%Y.%m.%d", tm),
        "EventTime": _time.strftime("%H.%M", tm),
        "Variation": "Backgammon",
        "Crawford": "On" if s.crawford and s.match_length else "Off",
        "Jacoby": "On" if s.jacoby else "Off",
    }


def export_mat(state: Any) -> str:
    """A table state's match (``state.match``) as .mat text."""
    from tablecompanion.rules.matfile import write_mat

    match = state.match
    if not match.games and not match.game.history:
        raise ExportError("nothing to export yet: no game has started")
    return write_mat(match, mat_headers(state))


def dice_statistics_for(record: Any) -> dict[str, dict]:
    """``{dice set: statistics dict}`` over every table in ``record``."""
    rolls = []
    for row in record.tables():
        ds = row.settings.get("dice_sets") or [None, None]
        sets = {"X": ds[0], "O": ds[1]}
        rolls.extend(rolls_from_events(row.id, record.events(row.id), sets))
    return {name: st.to_dict() for name, st in sorted(dice_statistics(rolls).items())}
