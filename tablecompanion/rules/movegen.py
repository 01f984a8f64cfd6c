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
    """Both orders of the two dice; plays reaching the same position are kept once.

    Away from the bar and the bear-off (``fast``), the second die's steps after a first step are
    the second die's steps before it, less those from a point the first step emptied, plus one
    from the point it newly occupied. In that case the second order (lower die first) only adds
    the plays where one checker continues from where the lower die left it: every other pair of
    steps was already played the other way round. Near the end of the race the board is scanned
    again after each first step.
    """
    both: dict = {}
    single_hi: dict = {}
    single_lo: dict = {}
    hi = _below(b, 25)
    fast = not b[25] and hi > 6
    for first, second, singles in ((d1, d2, single_hi), (d2, d1, single_lo)):
        firsts = single_moves(b, o, first)
        if not firsts:
            continue
        base2 = single_moves(b, o, second) if fast else None
        reversed_order = first == d2
        for s, t in firsts:
            # play the first step
            b[s] -= 1
            b[t] += 1
            if t and o[t] == 1:
                hit1 = True
                o[t] = 0
                o[0] += 1
                mask1 = 1 << t
            else:
                hit1 = False
                mask1 = 0
            step1 = (s, t, first, hit1)
            if fast and (s != hi or b[s] or _still_out(b, hi)):
                if b[s]:
                    any_base = bool(base2)
                    seconds = None if reversed_order else base2
                else:
                    rest = [m for m in base2 if m[0] != s]
                    any_base = bool(rest)
                    seconds = None if reversed_order else rest
                chain = None
                if b[t] == 1:
                    t2 = t - second
                    if t2 > 0 and o[t2] < 2:
                        chain = (t, t2)
                if seconds:
                    _record(b, o, both, step1, mask1, seconds, second)
                if chain:
                    _record(b, o, both, step1, mask1, (chain,), second)
                played_both = any_base or chain is not None
            else:
                seconds = single_moves(b, o, second)
                if seconds:
                    _record(b, o, both, step1, mask1, seconds, second)
                played_both = bool(seconds)
            if not played_both and not both:
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


def _record(b, o, both, step1, mask1, seconds, second):
    """Play each of ``seconds`` after ``step1`` and keep the positions not seen yet."""
    for s2, t2 in seconds:
        b[s2] -= 1
        b[t2] += 1
        if t2 and o[t2] == 1:
            key = (tuple(b), mask1 | (1 << t2))
            if key not in both:
                both[key] = (step1, (s2, t2, second, True))
        else:
            key = (tuple(b), mask1)
            if key not in both:
                both[key] = (step1, (s2, t2, second, False))
        b[t2] -= 1
        b[s2] += 1


def _below(b, p):
    """The highest point under ``p`` holding a checker of ``b`` (0 if none)."""
    p -= 1
    while p and not b[p]:
        p -= 1
    return p


def _still_out(b, hi):
    """True while a checker stays outside the home board (points 7..hi)."""
    p = hi
    while p > 6:
        if b[p]:
            return True
        p -= 1
    return False


def _doubles(b, o, d):
    """Doubles: enter from the bar first (forced), then search the remaining steps in
    non-increasing order of source point. That order reaches every multiset of steps exactly once:
    a step from a higher point never makes a step from a lower point illegal. Landing points are
    fixed for the whole play (a hit only empties a blot's point), so they are computed once."""
    entering = b[25]
    steps: list = []
    mask = 0
    left = 4
    if entering:
        t = 25 - d
        if o[t] >= 2:
            return {}
        n = entering if entering < 4 else 4
        b[25] -= n
        b[t] += n
        if o[t] == 1:
            o[t] = 0
            o[0] += 1
            mask = 1 << t
            steps.append((25, t, d, True))
            steps.extend([(25, t, d, False)] * (n - 1))
        else:
            steps.extend([(25, t, d, False)] * n)
        left = 4 - n
        if b[25] or not left:
            key = (tuple(b), mask)
            found = {key: tuple(steps)}
        else:
            found = _doubles_search(b, o, d, left, steps, mask)
        # undo the entries
        b[t] -= n
        b[25] += n
        if mask:
            o[t] = 1
            o[0] -= 1
        return found
    return _doubles_search(b, o, d, 4, steps, 0)


def _doubles_search(b, o, d, moves_left, prefix, mask0):
    open_ = [n < 2 for n in o]
    found: dict = {}
    best = [len(prefix)]  # most steps in a recorded play
    steps = list(prefix)
    full = len(prefix) + moves_left

    def search(left: int, max_source: int, mask: int, hi: int) -> None:
        # ``left`` >= 1 here: a node with no step left is recorded by its parent.
        # ``hi`` is the highest point holding a checker (0 when none is left).
        s = max_source if max_source < hi else hi
        moved = False
        stop = 0 if hi <= 6 else d
        last = left == 1
        while s > stop:
            if b[s]:
                t = s - d
                if t > 0:
                    if not open_[t]:
                        s -= 1
                        continue
                elif t < 0 and s != hi:
                    s -= 1
                    continue
                else:
                    t = 0
                moved = True
                b[s] -= 1
                b[t] += 1
                if t and o[t] == 1:
                    o[t] = 0
                    o[0] += 1
                    if last:
                        key = (tuple(b), mask | (1 << t))
                        if key not in found:
                            found[key] = (*steps, (s, t, d, True))
                    else:
                        steps.append((s, t, d, True))
                        search(left - 1, s, mask | (1 << t), hi if b[s] or s != hi else _below(b, s))
                        steps.pop()
                    o[t] = 1
                    o[0] -= 1
                else:
                    if last:
                        key = (tuple(b), mask)
                        if key not in found:
                            found[key] = (*steps, (s, t, d, False))
                    else:
                        steps.append((s, t, d, False))
                        search(left - 1, s, mask, hi if b[s] or s != hi else _below(b, s))
                        steps.pop()
                b[t] -= 1
                b[s] += 1
            s -= 1
        if last and moved:
            if best[0] < full:
                best[0] = full
                # plays of fewer steps found earlier are not legal after all
                for key in [k for k, v in found.items() if len(v) < full]:
                    del found[key]
            return
        if not moved:
            n = len(steps)
            if n >= best[0]:
                if n > best[0]:
                    best[0] = n
                    for key in [k for k, v in found.items() if len(v) < n]:
                        del found[key]
                key = (tuple(b), mask)
                if key not in found:
                    found[key] = tuple(steps)

    search(moves_left, 24, mask0, _below(b, 25))
    if not best[0]:
        return {}
    return found
