"""A deliberately plain legal-play generator, written from RULES.md alone, to check the fast one.

Nothing here is shared with ``tablecompanion.rules.movegen``: it tries every order of the dice,
every checker for every die, one step at a time, keeps the plays that use the most dice (and the
higher die when only one of two can be played), and returns the set of resulting boards. Slow and
obvious on purpose.
"""

from __future__ import annotations

import random

CHECKERS = 15


def _steps(me: list[int], opp: list[int], die: int) -> list[tuple[int, int]]:
    """Every legal single step ``(source, dest)`` for one die; source 25 = bar, dest 0 = off.

    ``me``/``opp`` are 25-int lists in their owner's numbering (index 24 = bar).
    """
    def open_for_me(point: int) -> bool:  # my point numbering, 1..24
        return opp[24 - point] < 2

    if me[24]:
        dest = 25 - die
        return [(25, dest)] if open_for_me(dest) else []
    out = []
    all_home = all(me[i] == 0 for i in range(6, 24))
    highest = max((i + 1 for i in range(24) if me[i]), default=0)
    for src in range(1, 25):
        if not me[src - 1]:
            continue
        dest = src - die
        if dest >= 1:
            if open_for_me(dest):
                out.append((src, dest))
        elif all_home and (dest == 0 or src == highest):
            out.append((src, 0))
    return out


def _play_step(me: list[int], opp: list[int], src: int, dest: int) -> tuple[list[int], list[int], bool]:
    me = list(me)
    opp = list(opp)
    me[24 if src == 25 else src - 1] -= 1
    hit = False
    if dest:
        if opp[24 - dest] == 1:
            opp[24 - dest] = 0
            opp[24] += 1
            hit = True
        me[dest - 1] += 1
    return me, opp, hit


def reference_results(on_roll, opponent, dice) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The set of ``(on_roll, opponent)`` boards after every legal play (mover's view); an empty set
    when nothing can be played."""
    d1, d2 = max(dice), min(dice)
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    finals: dict[tuple, int] = {}  # result -> most dice used to reach it
    single_dice: dict[tuple, int] = {}  # result of a one-die play -> that die (non-doubles)

    def walk(me, opp, remaining, used, first_die):
        moved = False
        if remaining:
            for src, dest in _steps(me, opp, remaining[0]):
                moved = True
                nme, nopp, _ = _play_step(me, opp, src, dest)
                walk(nme, nopp, remaining[1:], used + 1, first_die if used else remaining[0])
        if not moved and used:
            key = (tuple(me), tuple(opp))
            finals[key] = max(finals.get(key, 0), used)
            if used == 1:
                single_dice.setdefault(key, set()).add(first_die)

    for order in orders:
        walk(list(on_roll), list(opponent), order, 0, None)
    if not finals:
        return set()
    most = max(finals.values())
    results = {k for k, n in finals.items() if n == most}
    if d1 != d2 and most == 1:
        # only one die can be played: the higher one if it can be
        high = {k for k in results if d1 in single_dice.get(k, ())}
        if high:
            results = high
    return results


# ------------------------------------------------------------------------------------------
# Random positions of the awkward kinds (bar entries, bear-offs, blocks, partial entries)

KINDS = ("game", "bar", "bar_closed", "bearoff", "bearoff_contact", "almost_home", "primed", "sparse")


def _place(rng: random.Random, board: list[int], taken: set[int], mover: bool, n: int, lo: int, hi: int) -> int:
    """Put up to ``n`` checkers on the owner's points lo..hi avoiding the other side's points; return
    how many could not be placed (they count as borne off)."""
    tries = 0
    while n > 0 and tries < 200:
        tries += 1
        own = rng.randint(lo, hi)
        mover_point = own if mover else 25 - own
        if mover_point in taken and board[own - 1] == 0:
            continue
        k = rng.randint(1, min(n, 4))
        board[own - 1] += k
        taken.add(mover_point)
        n -= k
    return n


def random_position(rng: random.Random, kind: str | None = None) -> tuple[list[int], list[int]]:
    """``(on_roll, opponent)`` boards of a random legal position of ``kind`` (random when None)."""
    kind = kind or rng.choice(KINDS)
    me = [0] * 25
    opp = [0] * 25
    taken: set[int] = set()  # mover's point numbers holding checkers
    if kind in ("bar_closed", "primed"):
        # the opponent first: a closed or nearly closed home board, or a prime in front of us
        start = 1 if kind == "bar_closed" else rng.randint(1, 12)
        made = rng.randint(4, 6)
        points = rng.sample(range(start, start + 6), made)
        for own in points:
            opp[own - 1] = 2
            taken.add(25 - own)
        left = CHECKERS - 2 * made - rng.randint(0, 2)
        opp[24] = rng.choice([0, 0, 1])
        left -= opp[24]
        _place(rng, opp, taken, False, max(left, 0), 1, 24)
        me[24] = rng.randint(1, 4) if kind == "bar_closed" else rng.choice([0, 0, 1])
        _place(rng, me, taken, True, CHECKERS - me[24] - rng.randint(0, 2), 1, 24)
        return me, opp
    if kind in ("bearoff", "bearoff_contact", "almost_home"):
        off = rng.randint(0, 13)
        outside = rng.randint(1, 2) if kind == "almost_home" else 0
        home = CHECKERS - off - outside
        _place(rng, me, taken, True, home, 1, 6)
        if outside:
            _place(rng, me, taken, True, outside, 7, rng.choice([8, 9, 12]))
        if kind == "bearoff_contact":
            opp[24] = rng.randint(0, 2)
            _place(rng, opp, taken, False, rng.randint(1, 4), 19, 24)  # in our home board
            _place(rng, opp, taken, False, CHECKERS - sum(opp) - rng.randint(0, 6), 1, 18)
        else:
            _place(rng, opp, taken, False, CHECKERS - rng.randint(0, 12), 1, rng.choice([6, 12, 18, 24]))
        return me, opp
    if kind == "sparse":
        _place(rng, me, taken, True, rng.randint(1, 5), 1, 24)
        _place(rng, opp, taken, False, rng.randint(1, 8), 1, 24)
        return me, opp
    # "game" and "bar": checkers anywhere
    if kind == "bar":
        me[24] = rng.randint(1, 3)
    opp[24] = rng.choice([0, 0, 0, 1, 2])
    _place(rng, me, taken, True, CHECKERS - me[24] - rng.randint(0, 3), 1, 24)
    _place(rng, opp, taken, False, CHECKERS - opp[24] - rng.randint(0, 3), 1, 24)
    return me, opp
