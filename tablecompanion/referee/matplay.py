"""Play a recorded match (a .mat file) through a referee, action by action, as an operator would.

Used by the demo, the tests and the benchmark: real games from real players exercise every rule the
referee enforces (opening rolls, forced passes, cube actions, resignations, Crawford, match end).
"""

from __future__ import annotations

from typing import Iterator

from tablecompanion.rules.matfile import MatFile, parse_mat

from .referee import Referee
from .settings import TableSettings

__all__ = ["mat_turns", "play_mat", "mat_actions", "settings_for"]


def _resign_level(points: int, cube: int) -> str:
    if points <= cube:
        return "single"
    if points <= 2 * cube:
        return "gammon"
    return "backgammon"


def mat_turns(ref: Referee, mat: MatFile | str, *, source: str = "operator") -> Iterator[list[dict]]:
    """Apply ``mat``'s games to ``ref`` one action at a time, yielding each action's decisions.

    Stops when the match is over. A file that breaks the rules raises the referee's error.
    """
    if isinstance(mat, str):
        mat = parse_mat(mat)
    state = lambda: ref.state  # noqa: E731 - always the live state
    for mg in mat.games:
        if state().match_over:
            return
        games_done = len(state().match.games)
        entries = mg.entries
        for k, e in enumerate(entries):
            if len(state().match.games) > games_done:
                break  # the game is over; what follows is the file's "Wins" line
            game = state().game
            if e.kind == "roll":
                d1, d2 = e.dice
                if game.awaiting == "opening_roll":
                    hi, lo = max(d1, d2), min(d1, d2)
                    dice = [hi, lo] if e.player == "X" else [lo, hi]
                    yield ref.act({"action": "roll", "dice": dice}, source)
                else:
                    if game.awaiting == "take_or_pass" and game._beaver:
                        yield ref.act({"action": "take"}, source)
                    yield ref.act({"action": "roll", "dice": [d1, d2], "player": e.player}, source)
                if state().game.awaiting == "play" and len(state().match.games) == games_done:
                    rest = entries[k + 1:]
                    if not e.text and rest and rest[0].kind == "win" and rest[0].player != e.player:
                        continue  # rolled, then resigned without playing
                    yield ref.act({"action": "play", "play": e.text}, source)
            elif e.kind in ("double", "beaver", "take"):
                yield ref.act({"action": e.kind, "player": e.player}, source)
            elif e.kind == "drop":
                yield ref.act({"action": "pass", "player": e.player}, source)
            elif e.kind == "win":
                level = _resign_level(e.value or 0, game.cube_value)
                yield ref.act({"action": "resign", "level": level, "player": "O" if e.player == "X" else "X"},
                              source)
                yield ref.act({"action": "accept_resign", "player": e.player}, source)


def play_mat(ref: Referee, mat: MatFile | str, *, source: str = "operator") -> int:
    """Play the whole file through ``ref``; returns the number of actions applied."""
    return sum(1 for _ in mat_turns(ref, mat, source=source))


def settings_for(mat: MatFile | str, **overrides) -> TableSettings:
    """Table settings that match a file's header: players, length, Crawford."""
    if isinstance(mat, str):
        mat = parse_mat(mat)
    x, o = (p.strip() or d for p, d in zip(mat.players, ("X", "O")))
    if x == o:
        x, o = f"{x} (X)", f"{o} (O)"
    kwargs = {"players": (x[:40], o[:40]), "match_length": mat.length, "crawford": mat.crawford}
    kwargs.update(overrides)
    return TableSettings(**kwargs)


def mat_actions(mat: MatFile | str, settings: TableSettings | None = None) -> list[dict]:
    """The referee actions that play ``mat``, worked out on a scratch table (no record)."""
    if isinstance(mat, str):
        mat = parse_mat(mat)
    scratch = Referee("scratch", settings or settings_for(mat))
    actions: list[dict] = []
    act = scratch.act

    def recording_act(action: dict, source: str = "operator", **kw):
        out = act(action, source, **kw)
        actions.append(action)
        return out

    scratch.act = recording_act  # type: ignore[method-assign]
    play_mat(scratch, mat)
    return actions
