"""Play notation in and out, gnubg style: ``24/18 13/10*``, ``13/7*/5``, ``bar/22``, ``8/5(2) 6/3(2)``.

Output follows GNU Backgammon: steps sorted from the highest starting point down, the steps of one
checker joined into one path (an intermediate point is shown only where it hits), ``*`` where a blot
is hit (once per point), and repeated paths written once with ``(n)``.

Input accepts what players and match files write: ``bar``/``b``/``25`` for the bar, ``off``/``o``/``0``
for off, ``*`` present or missing, repeated moves written out or as ``(n)``, any order, one checker's
dice combined (``24/18``) or split (``24/20 20/18``), commas between moves, ``Cannot Move`` or an
empty string for a forfeited roll, and ``-`` for ``/`` (``8-5 6-5``, ``bar-22``, ``6-off``). The
text is executed die by die on the board, so an illegal step is reported with its reason, and the
result is matched against the legal plays, so the compulsory rules (use as many dice as possible,
the higher die) are enforced with their own messages.
"""

from __future__ import annotations

import re
from typing import Sequence

from tablecompanion.rules import movegen
from tablecompanion.rules.errors import IllegalPlayError, NotationError
from tablecompanion.rules.position import BAR, OFF, Play, Position, normalize_dice, point_name

__all__ = ["format_play", "format_steps", "parse_play", "parse_paths", "diagram"]


# ---------------------------------------------------------------------------------------------
# Output


def format_steps(steps: Sequence[tuple], blots: frozenset[int] | set[int]) -> str:
    """gnubg-style text for single-die ``steps`` ``(source, dest, ...)``; ``blots`` are the mover's
    points where the opponent had a checker before the play (they get a ``*``)."""
    moves = sorted(((s[0], s[1]) for s in steps), key=lambda m: (-m[0], -m[1]))
    paths: list[list[int] | None] = [[s, t] for s, t in moves]
    # Join the steps of one checker: a step that starts where an earlier path ends continues it.
    for i, pi in enumerate(paths):
        if pi is None:
            continue
        for j in range(i + 1, len(paths)):
            pj = paths[j]
            if pj is not None and pi[-1] == pj[0]:
                if pi[-1] in blots:
                    pi.append(pj[1])  # hitting on the way: keep the intermediate point
                else:
                    pi[-1] = pj[1]
                paths[j] = None
    joined = [tuple(p) for p in paths if p is not None]
    # Write repeated paths once with (n), in first-appearance order.
    counts: dict[tuple[int, ...], int] = {}
    for p in joined:
        counts[p] = counts.get(p, 0) + 1
    parts = []
    starred: set[int] = set()  # a blot is marked where it is hit, the first time only
    for p, n in counts.items():
        text = point_name(p[0])
        for q in p[1:]:
            text += "/" + point_name(q)
            if q in blots and q not in starred:
                starred.add(q)
                text += "*"
        parts.append(f"{text}({n})" if n > 1 else text)
    return " ".join(parts)


def _blots(position: Position) -> frozenset[int]:
    opp = position.opponent
    return frozenset(p for p in range(1, 25) if opp[24 - p])


def format_play(position: Position, steps: Sequence[tuple]) -> str:
    """gnubg-style text of ``steps`` played from ``position``."""
    return format_steps(steps, _blots(position))


# ---------------------------------------------------------------------------------------------
# Input

_PASS_WORDS = {"", "cannot move", "can't move", "(no move)", "no move", "pass", "-"}
_TOKEN_SPLIT = re.compile(r"[\s,;]+")
_REPEAT = re.compile(r"^(.*?)\((\d+)\)$")
_POINT = re.compile(r"^(bar|b|off|o|\d{1,2})(\*?)$")


class _Path:
    """One checker's path as written: waypoints (source first) and the points marked ``*``."""

    __slots__ = ("points", "stars", "text")

    def __init__(self, points: tuple[int, ...], stars: frozenset[int], text: str) -> None:
        self.points = points
        self.stars = stars
        self.text = text


def _parse_point(word: str, token: str, first: bool, last: bool) -> tuple[int, bool]:
    m = _POINT.match(word)
    if not m:
        raise NotationError(f"{token!r}: {word!r} is not a point (1..24, bar, off)")
    name, star = m.groups()
    if name in ("bar", "b"):
        value = BAR
    elif name in ("off", "o"):
        value = OFF
    else:
        value = int(name)
    if value > 25:
        raise NotationError(f"{token!r}: there is no point {value}")
    if first and value == OFF:
        raise NotationError(f"{token!r}: a move cannot start off the board")
    if value == BAR and not first:
        raise NotationError(f"{token!r}: a checker can only come from the bar, not go to it")
    if value == OFF and not last:
        raise NotationError(f"{token!r}: a borne-off checker cannot move on")
    if first and star:
        raise NotationError(f"{token!r}: '*' marks a hit where a checker lands, not where it starts")
    if star and value == OFF:
        raise NotationError(f"{token!r}: nothing can be hit off the board")
    return value, bool(star)


def parse_paths(text: str) -> list[_Path]:
    """Split notation into checker paths, ``(n)`` repeats expanded. Syntax only, no board.

    >>> [p.points for p in parse_paths("bar/22 13/7*/5 8/4(2)")]
    [(25, 22), (13, 7, 5), (8, 4), (8, 4)]
    """
    if not isinstance(text, str):
        raise NotationError(f"a play is written as text, not {type(text).__name__}")
    norm = text.strip().lower()
    if norm in _PASS_WORDS:
        return []
    paths: list[_Path] = []
    for token in _TOKEN_SPLIT.split(norm):
        if not token:
            continue
        repeat = 1
        m = _REPEAT.match(token)
        if m:
            token_body, repeat = m.group(1), int(m.group(2))
            if not 1 <= repeat <= 4:
                raise NotationError(f"{token!r}: a move is repeated 1 to 4 times, not {repeat}")
        else:
            token_body = token
        if "/" not in token_body and "-" in token_body:
            token_body = token_body.replace("-", "/")  # FIBS / Jellyfish style: 8-5, bar-22, 6-off
        words = token_body.split("/")
        if len(words) < 2 or any(not w for w in words):
            raise NotationError(f"{token!r} is not a move: write it as FROM/TO, e.g. 13/7 or bar/22")
        points = []
        stars = set()
        for k, word in enumerate(words):
            value, star = _parse_point(word, token, k == 0, k == len(words) - 1)
            if points and value >= points[-1]:
                raise NotationError(
                    f"{token!r}: checkers move from higher to lower points "
                    f"({point_name(points[-1])} to {point_name(value)} goes the wrong way)"
                )
            points.append(value)
            if star:
                stars.add(value)
        path = _Path(tuple(points), frozenset(stars), token_body)
        paths.extend([path] * repeat)
    if len(paths) > 4:
        raise NotationError(f"{text!r} moves {len(paths)} checkers; a roll moves at most 4")
    return paths


def _dice_text(dice: tuple[int, int]) -> str:
    return f"{dice[0]}-{dice[1]}"


def _why_not(b: list[int], o: list[int], s: int, d: int) -> str:
    """A player's reason why the step from ``s`` with die ``d`` is illegal."""
    if b[BAR] and s != BAR:
        n = b[BAR]
        return f"must enter from the bar first ({n} checker{'s' if n > 1 else ''} on the bar)"
    if not b[s]:
        return "no checker on the bar" if s == BAR else f"no checker on {s}"
    t = s - d
    if s == BAR:
        t = BAR - d
        return f"cannot enter with the {d}: {t} is blocked"
    if t > 0:
        if o[t] >= 2:
            return f"{t} is blocked (the {d} from {s})"
        return f"{s}/{t} is not possible"  # pragma: no cover - only blocked points stop a step
    outside = sum(b[7:26])
    if outside:
        return (
            f"cannot bear off from {s}: {outside} checker{'s are' if outside > 1 else ' is'} "
            "still outside the home board"
        )
    higher = max(p for p in range(1, 7) if b[p])
    return f"cannot bear off from {s} with the {d} while a checker is on {higher}: move from {higher} first"


class _Execution:
    """Depth-first search that plays the written paths die by die, in every order and split."""

    def __init__(self, position: Position, dice: tuple[int, int], paths: list[_Path]) -> None:
        self.b, self.o = position._lists()
        d1, d2 = dice
        self.remaining = [d1] * 4 if d1 == d2 else [d1, d2]
        self.paths = paths
        self.cur = [p.points[0] for p in paths]  # where each written checker is now
        self.nxt = [1] * len(paths)  # index of the waypoint each is heading to
        self.steps: list[tuple] = []
        self.results: dict[tuple, tuple] = {}  # key -> steps
        self.failure: tuple[int, str] | None = None

    def fail(self, depth: int, message: str, weight: int, literal: tuple[bool, bool] = (False, False)) -> None:
        """Keep the most telling reason: one on the board beats a dice mismatch; then a step as the
        player wrote it (from a written point, to a written point) beats a split the search tried;
        then the deeper one."""
        rank = (weight, *literal, depth)
        if self.failure is None or rank > self.failure[0]:
            self.failure = (rank, message)

    def run(self, mask: int = 0) -> None:
        b, o, paths = self.b, self.o, self.paths
        depth = len(self.steps)
        pending = [i for i in range(len(paths)) if self.nxt[i] < len(paths[i].points)]
        if not pending:
            key = (tuple(b), mask)
            if key not in self.results:
                self.results[key] = tuple(self.steps)
            return
        if not self.remaining:
            self.fail(depth, "it needs more dice than were rolled", 0)
            return
        seen_states = set()
        for i in pending:
            state = (self.cur[i], self.nxt[i], paths[i].points)
            if state in seen_states:  # two identical checkers waiting: try one of them
                continue
            seen_states.add(state)
            s = self.cur[i]
            target = paths[i].points[self.nxt[i]]
            for d in sorted(set(self.remaining), reverse=True):
                t = s - d if s != BAR else BAR - d
                if target != OFF and t < target:
                    seg = f"{point_name(s)}/{point_name(target)}"
                    left = "-".join(str(x) for x in sorted(self.remaining, reverse=True))
                    self.fail(depth, f"{seg} cannot be made with the dice left ({left})", 0)
                    continue
                if t < 0:
                    t = 0
                if (s, t) not in movegen.single_moves(b, o, d):
                    literal = (s == paths[i].points[self.nxt[i] - 1], t == target)
                    self.fail(depth, _why_not(b, o, s, d), 1, literal)
                    continue
                # play the step
                b[s] -= 1
                b[t] += 1
                hit = t > 0 and o[t] == 1
                if hit:
                    o[t] = 0
                    o[0] += 1
                self.remaining.remove(d)
                self.steps.append((s, t, d, hit))
                self.cur[i] = t
                reached = t == target
                if reached:
                    self.nxt[i] += 1
                self.run(mask | (1 << t) if hit else mask)
                if reached:
                    self.nxt[i] -= 1
                self.cur[i] = s
                self.steps.pop()
                self.remaining.append(d)
                if hit:
                    o[t] = 1
                    o[0] -= 1
                b[t] -= 1
                b[s] += 1


def parse_play(position: Position, text: str, dice: Sequence[int]) -> Play:
    """The legal play from ``position`` that ``text`` describes for ``dice``.

    Returns the same :class:`Play` as the member of ``position.legal_plays(dice)`` with that result
    (for a forfeited roll, the empty pass play). Raises :class:`NotationError` when the text is not
    a play or is ambiguous, :class:`IllegalPlayError` (with the reason) when it is not legal.

    >>> pos = Position.initial()
    >>> str(parse_play(pos, "24/18 13/11", (6, 2)))
    '24/18 13/11'
    >>> parse_play(pos, "6/5", (6, 1))
    Traceback (most recent call last):
    ...
    tablecompanion.rules.errors.IllegalPlayError: both dice can be played: 6/5 alone is not enough
    """
    roll = normalize_dice(dice)
    paths = parse_paths(text)
    b, o = position._lists()
    legal = movegen.generate(b, o, roll[0], roll[1])
    if not paths:
        if legal:
            raise IllegalPlayError(
                f"{_dice_text(roll)} can be played ({len(legal)} legal play"
                f"{'s' if len(legal) > 1 else ''}): passing is not allowed"
            )
        return Play(position, roll, (), (tuple(b), 0))
    if not legal:
        raise IllegalPlayError(f"{_dice_text(roll)} cannot be played here: the roll is forfeited")

    blots = _blots(position)
    for path in paths:
        for p in path.stars:
            if p not in blots:
                raise IllegalPlayError(f"{path.text}: there is no blot to hit on {p}")

    try:
        _check_pips(paths, roll)
    except IllegalPlayError:
        # '7/3 3/off' with 6-2: a wrong description of the legal 7/off, which gnubg accepts
        key = _same_result_as_a_legal_play(position, paths, legal)
        if key is None:
            raise
        return Play(position, roll, legal[key], key)
    run = _Execution(position, roll, paths)
    run.run()
    if not run.results:
        assert run.failure is not None
        key = _same_result_as_a_legal_play(position, paths, legal)
        if key is not None:
            return Play(position, roll, legal[key], key)
        raise IllegalPlayError(f"{text.strip()}: {run.failure[1]}")

    matching = {key: steps for key, steps in run.results.items() if key in legal}
    if not matching:
        raise IllegalPlayError(_compulsory_reason(position, text.strip(), roll, run.results, legal))

    written = 0
    for path in paths:
        for p in path.points[1:]:
            if p:
                written |= 1 << p
    preferred = [key for key in matching if not key[1] & ~written]
    keys = preferred or list(matching)
    if len(keys) > 1:
        options = " or ".join(format_play(position, legal[k]) for k in keys)
        raise NotationError(f"{text.strip()!r} is ambiguous: it can mean {options}")
    key = keys[0]
    return Play(position, roll, legal[key], key)


def _same_result_as_a_legal_play(position: Position, paths: list[_Path], legal: dict) -> tuple | None:
    """The legal play whose result the written moves reach when the checkers are simply picked up
    and put down as written, in some order, or None.

    GNU Backgammon's importer accepts a play this way (it compares resulting positions), and its own
    .mat export writes such descriptions: ``7/1 1/0`` for a 6-2 played 7/5/off while a checker is
    on 4, illegal step by step in the written order but the same checkers in the same places as the
    legal play. Only an exact legal result is accepted, so nothing illegal gets through.
    """
    from itertools import permutations

    matches = set()
    for order in set(permutations(range(len(paths)))):
        b, o = position._lists()
        mask = 0
        for i in order:
            points = paths[i].points
            for s, t in zip(points, points[1:]):
                if b[s] <= 0:
                    break
                if t and o[t] >= 2:
                    break
                b[s] -= 1
                if t and o[t] == 1:
                    o[t] = 0
                    o[0] += 1
                    mask |= 1 << t
                b[t] += 1  # b[0] counts the checkers borne off
            else:
                continue
            break  # a step could not be placed: try another order
        else:
            key = (tuple(b), mask)
            if key in legal:
                matches.add(key)
    return matches.pop() if len(matches) == 1 else None


def _pip_options(roll: tuple[int, int]) -> list[int]:
    d1, d2 = roll
    if d1 == d2:
        return [d1 * k for k in range(1, 5)]
    return sorted({d2, d1, d1 + d2})


def _or_list(values: list[int]) -> str:
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _check_pips(paths: list[_Path], roll: tuple[int, int]) -> None:
    """Reject, with the numbers, a written move whose length no die or dice of the roll can make.

    Bearing off may use a higher die than the distance, so only moves that stay on the board are
    checked this way; the rest is left to the die-by-die execution.
    """
    options = _pip_options(roll)
    total = 0
    exact = True
    for path in paths:
        pts = path.points
        if pts[-1] == OFF:
            exact = False
            continue
        n = pts[0] - pts[-1]
        total += n
        if n not in options:
            raise IllegalPlayError(
                f"{path.text} is {n} pip{'s' if n > 1 else ''}: the dice {_dice_text(roll)} move {_or_list(options)}"
            )
    if exact and total not in options:
        text = " ".join(p.text for p in paths)
        raise IllegalPlayError(
            f"{text} moves {total} pips: the dice {_dice_text(roll)} move {_or_list(options)}"
        )


def _compulsory_reason(position, text, roll, results, legal) -> str:
    """Why a sequence of legal steps is still not a legal play."""
    d1, d2 = roll
    needed = len(next(iter(legal.values())))
    used = max(len(steps) for steps in results.values())
    if used < needed:
        if d1 != d2:
            return f"both dice can be played: {text} alone is not enough"
        return f"{needed} of the four {d1}s can be played: {text} plays only {used}"
    # Same number of dice: only the higher-die rule is left (one die of a non-double).
    example = format_play(position, next(iter(legal.values())))
    return f"the higher die must be played: the {d1} can be played (e.g. {example})"


# ---------------------------------------------------------------------------------------------
# A text picture of a position


def diagram(position: Position) -> str:
    """A small text board from the point of view of the player on roll (X), points 24..1.

    >>> print(diagram(Position.initial()).splitlines()[-1])
    Position ID 4HPwATDgc/ABMA
    """
    a, b = position.on_roll, position.opponent

    def cell(p: int) -> str:
        if a[p - 1]:
            return f"X{a[p - 1]}"
        if b[24 - p]:
            return f"O{b[24 - p]}"
        return "."

    top = " ".join(f"{cell(p):>3}" for p in range(13, 19)) + " |" + " ".join(
        f"{cell(p):>3}" for p in range(19, 25)
    )
    bottom = " ".join(f"{cell(p):>3}" for p in range(12, 6, -1)) + " |" + " ".join(
        f"{cell(p):>3}" for p in range(6, 0, -1)
    )
    nums_top = " ".join(f"{p:>3}" for p in range(13, 19)) + " |" + " ".join(f"{p:>3}" for p in range(19, 25))
    nums_bottom = " ".join(f"{p:>3}" for p in range(12, 6, -1)) + " |" + " ".join(
        f"{p:>3}" for p in range(6, 0, -1)
    )
    off_x, off_o = position.borne_off
    pip_x, pip_o = position.pip_counts()
    return "\n".join(
        [
            nums_top,
            top,
            bottom,
            nums_bottom,
            f"X on roll  bar X{a[24]} O{b[24]}  off X{off_x} O{off_o}  pips X{pip_x} O{pip_o}",
            f"Position ID {position.position_id()}",
        ]
    )
