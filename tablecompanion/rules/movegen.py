"""Legal-play generation on plain lists: the hot loop of the rules engine.

Internal layout (mover's point of view, never exposed):

* ``b``: the mover's checkers, 26 ints. ``b[0]`` borne off, ``b[1..24]`` points 1..24, ``b[25]`` bar.
* ``o``: the opponent's checkers on the same numbering, 26 ints. ``o[p]`` for p in 1..24 is the
  opponent's count on the mover's point p (his point 25-p), ``o[0]`` is the opponent's bar,
  ``o[25]`` is unused (always 0).

A *step* is one die played by one checker: ``(source, dest, die, hit)`` with source 25 for the bar and
dest 0 for off. The generator returns a dict ``{key: steps}``, one entry per distinct resulting
position, where ``key = (tuple(b_after), hitmask)`` and bit ``p`` of ``hitmask`` is set when a blot on
the mover's point ``p`` was hit. The opponent's side after the play follows from the mask alone.
"""

from __future__ import annotations

__all__ = ["generate", "single_moves"]


def single_moves(b: list[int], o: list[int], d: int) -> list[tuple[int, int]]:
    """Every legal ``(source, dest)`` for one die ``d`` (dest 0 = off), highest source first."""
    if b[25]:
        t = 25 - d
        return [(25, t)] if o[t] < 2 else []
    hi = 24
    while not b[hi]:
        hi -= 1
        if hi == 0:
            return []
    res = []
    if hi > 6:
        s = hi
        while s > d:
            if b[s] and o[s - d] < 2:
                res.append((s, s - d))
            s -= 1
        return res
    # All checkers home: bearing off is allowed.
    s = hi
    while s > 0:
        if b[s]:
            t = s - d
            if t > 0:
                if o[t] < 2:
                    res.append((s, t))
            elif t == 0 or s == hi:
                res.append((s, 0))
        s -= 1
    return res


def generate(b: list[int], o: list[int], d1: int, d2: int) -> dict:
    """Legal plays for dice ``d1 >= d2`` as ``{key: steps}``; ``b`` and ``o`` are restored on return.

    An empty dict means no legal play (the roll is forfeited).
    """
    if d1 < d2:
        d1, d2 = d2, d1
    if d1 == d2:
        return _doubles(b, o, d1)
    return _non_doubles(b, o, d1, d2)


def _non_doubles(b, o, d1, d2):
    both: dict = {}
    single_hi: dict = {}
    single_lo: dict = {}
    for first, second, singles in ((d1, d2, single_hi), (d2, d1, single_lo)):
        for s, t in single_moves(b, o, first):
            # play the first step
            b[s] -= 1
            b[t] += 1
            hit1 = t > 0 and o[t] == 1
            if hit1:
                o[t] = 0
                o[0] += 1
                mask1 = 1 << t
            else:
                mask1 = 0
            step1 = (s, t, first, hit1)
            seconds = single_moves(b, o, second)
            if seconds:
                for s2, t2 in seconds:
                    b[s2] -= 1
                    b[t2] += 1
                    if t2 > 0 and o[t2] == 1:
                        key = (tuple(b), mask1 | (1 << t2))
                        if key not in both:
                            both[key] = (step1, (s2, t2, second, True))
                    else:
                        key = (tuple(b), mask1)
                        if key not in both:
                            both[key] = (step1, (s2, t2, second, False))
                    b[t2] -= 1
                    b[s2] += 1
            elif not both:
                key = (tuple(b), mask1)
                if key not in singles:
                    singles[key] = (step1,)
            # undo the first step
            if hit1:
                o[t] = 1
                o[0] -= 1
            b[t] -= 1
            b[s] += 1
    if both:
        return both
    return single_hi or single_lo


def _doubles(b, o, d):
    """Doubles: steps are searched in non-increasing order of source point, which reaches every
    multiset of steps exactly once (a higher checker's step never makes a lower one illegal)."""
    found: list[dict] = [{}, {}, {}, {}, {}]
    best = [0]
    steps: list = []

    def search(depth: int, max_source: int, mask: int) -> None:
        moved = False
        if depth < 4:
            for s, t in single_moves(b, o, d):
                if s > max_source:
                    continue
                moved = True
                b[s] -= 1
                b[t] += 1
                hit = t > 0 and o[t] == 1
                if hit:
                    o[t] = 0
                    o[0] += 1
                    steps.append((s, t, d, True))
                    search(depth + 1, s, mask | (1 << t))
                    o[t] = 1
                    o[0] -= 1
                else:
                    steps.append((s, t, d, False))
                    search(depth + 1, s, mask)
                steps.pop()
                b[t] -= 1
                b[s] += 1
        if not moved and depth >= best[0] and depth:
            if depth > best[0]:
                best[0] = depth
            bucket = found[depth]
            key = (tuple(b), mask)
            if key not in bucket:
                bucket[key] = tuple(steps)

    search(0, 25, 0)
    return found[best[0]] if best[0] else {}
