"""Camera observations in one shape: whatever a vision stage emits becomes a plain dict the referee reads.

Accepted: dicts with ``type`` (``roll``, ``roll_void``, ``dice_picked_up``, ``board``) and the vision
objects (``RollSettled`` with a valid or void verdict, ``DicePickedUp``, board reads with ``x``/``o``
sides), duck-typed so a change of class in the vision package does not break the referee.
"""

from __future__ import annotations

from typing import Any

from .errors import BadActionError

__all__ = ["to_observation", "OBSERVATION_TYPES"]

OBSERVATION_TYPES = ("roll", "roll_void", "dice_picked_up", "board")


def to_observation(obs: Any) -> dict:
    if isinstance(obs, dict):
        if obs.get("type") not in OBSERVATION_TYPES:
            raise BadActionError(f"an observation has 'type' in {', '.join(OBSERVATION_TYPES)}, "
                                 f"not {obs.get('type')!r}")
        return obs
    name = type(obs).__name__
    if name == "RollSettled" or hasattr(obs, "verdict"):
        return _roll_settled(obs)
    if name == "DicePickedUp":
        return {"type": "dice_picked_up", "frame": getattr(obs, "frame", None)}
    board = _board_of(obs)
    if board is not None:
        return {"type": "board", "board": board, "frame": getattr(obs, "frame", None)}
    raise BadActionError(f"the referee cannot read an observation of type {name}")


def _roll_settled(obs: Any) -> dict:
    verdict = getattr(obs, "verdict", None)
    valid = getattr(verdict, "valid", None)
    if valid is None:
        valid = verdict in ("valid", True)
    frame = getattr(obs, "frame", None)
    if not valid:
        reason = getattr(verdict, "reason", None) or getattr(obs, "reason", None) or str(verdict)
        out = {"type": "roll_void", "reason": str(reason), "frame": frame}
        if getattr(obs, "proposal", None):
            out["proposal"] = [int(v) for v in obs.proposal]
        return out
    values = getattr(obs, "values", None)
    if callable(values):
        values = values()
    if values is None:
        values = [getattr(r, "value", r) for r in getattr(obs, "readings", ())]
    dice = [int(v) for v in values if v is not None]
    by_player = getattr(obs, "dice_by_player", None)
    if isinstance(by_player, dict) and set(by_player) == {"X", "O"}:
        dice = [int(by_player["X"]), int(by_player["O"])]
    return {"type": "roll", "dice": dice, "frame": frame}


def _board_of(obs: Any) -> dict | None:
    for xa, oa in (("x", "o"), ("X", "O")):
        x, o = getattr(obs, xa, None), getattr(obs, oa, None)
        if x is not None and o is not None:
            return {"X": [int(n) for n in x], "O": [int(n) for n in o]}
    return None
