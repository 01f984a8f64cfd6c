"""What an illegal play does on the real board, and how far a board is from each legal play.

The rules engine only produces legal plays. Over the board a player can move checkers illegally, and
under "Responsible Moves" such a play may stand, so the referee needs its physical result: the checkers
moved as written, hits where a checker lands on (or touches down on) a lone opposing checker.
"""

from __future__ import annotations

from typing import Sequence

from tablecompanion.rules import Position
from tablecompanion.rules.errors import InvalidPositionError, NotationError, RulesError
from tablecompanion.rules.notation import parse_paths

__all__ = ["physical_result", "play_points", "closest_plays", "board_distance", "changed_points",
           "PhysicallyImpossible"]

BAR_INDEX = 24


class PhysicallyImpossible(RulesError):
    """Checkers cannot be moved that way even ignoring the rules (no checker there, a held point)."""


def _idx(point: int) -> int:
    return BAR_INDEX if point == 25 else point - 1


def physical_result(position: Position, text: str) -> Position:
    """The position after moving checkers as ``text`` says, mover still on roll; rules not checked.

    Raises :class:`NotationError` for text that is not a play and :class:`PhysicallyImpossible`
    when no checker stands where a move starts or a move ends on two or more opposing checkers.
    """
    paths = parse_paths(text)
    me = list(position.on_roll)
    opp = list(position.opponent)
    for path in paths:
        src = path.points[0]
        if me[_idx(src)] == 0:
            where = "the bar" if src == 25 else str(src)
            raise PhysicallyImpossible(f"there is no checker on {where} to move")
        me[_idx(src)] -= 1
        for k, p in enumerate(path.points[1:], start=1):
            last = k == len(path.points) - 1
            if p == 0:
                break
            o_idx = 24 - p  # my point p is the opponent's point 25 - p
            if opp[o_idx] >= 2 and last:
                raise PhysicallyImpossible(f"{p} is held by two or more opposing checkers")
            if opp[o_idx] == 1 and (last or p in path.stars):
                opp[o_idx] = 0
                opp[BAR_INDEX] += 1
        dst = path.points[-1]
        if dst != 0:
            me[dst - 1] += 1
    try:
        return Position(me, opp)
    except InvalidPositionError as exc:  # pragma: no cover - guarded above
        raise PhysicallyImpossible(str(exc)) from None


def play_points(text: str) -> list[int]:
    """Every point a written play touches (mover's numbering; 25 = bar, 0 = off), highest first."""
    try:
        paths = parse_paths(text)
    except NotationError:
        return []
    pts = {p for path in paths for p in path.points}
    return sorted(pts, reverse=True)


def board_distance(a: Position, b: Position) -> int:
    """How many checkers sit differently: half the L1 distance between the two boards."""
    return (sum(abs(x - y) for x, y in zip(a.on_roll, b.on_roll))
            + sum(abs(x - y) for x, y in zip(a.opponent, b.opponent)) + 1) // 2


def changed_points(before: Position, after: Position) -> list[int]:
    """Mover's points (25 = bar) whose checkers differ between two mover-view positions."""
    pts = set()
    for i in range(25):
        if before.on_roll[i] != after.on_roll[i]:
            pts.add(25 if i == BAR_INDEX else i + 1)
        if before.opponent[i] != after.opponent[i] and i != BAR_INDEX:
            pts.add(24 - i)
    return sorted(pts, reverse=True)


def closest_plays(position: Position, dice: Sequence[int], target: Position | None, text: str = "",
                  limit: int = 3) -> list[str]:
    """The legal plays nearest what was played: by board distance to ``target`` when the physical
    result is known, else by how many written moves they share."""
    plays = position.legal_plays(dice)
    if not plays:
        return []
    if target is not None:
        ranked = sorted(plays, key=lambda p: (board_distance(p.result(), target), str(p)))
    else:
        wanted = set(_pairs(text))
        ranked = sorted(plays, key=lambda p: (-len(wanted & set(_pairs(str(p)))), str(p)))
    return [str(p) for p in ranked[:limit]]


def _pairs(text: str) -> list[tuple[int, int]]:
    try:
        return [(path.points[0], path.points[-1]) for path in parse_paths(text)]
    except NotationError:
        return []
