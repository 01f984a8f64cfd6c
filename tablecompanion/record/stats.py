"""Dice statistics per dice set across matches: fairness evidence for a tournament director.

For each set: how often each face came up, how often a pair of its dice showed doubles, and two
chi-square goodness-of-fit tests (faces against 1/6 each, doubles against 1/6). The chi-square survival
function is computed here (regularised upper incomplete gamma), so no SciPy is needed.

>>> round(chi2_sf(11.0705, 5), 4)
0.05
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

__all__ = ["chi2_sf", "DiceSetStats", "dice_statistics", "rolls_from_events", "DiceRoll"]

_EPS = 1e-15
_MAX_ITER = 10_000


def chi2_sf(x: float, df: int | float) -> float:
    """P(X >= x) for X chi-square distributed with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if x <= 0:
        return 1.0
    return _gammaincc(df / 2.0, x / 2.0)


def _gammaincc(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x): series below a+1, Lentz continued fraction above."""
    if x < a + 1.0:
        return max(0.0, 1.0 - _gammainc_series(a, x))
    return min(1.0, _gammaincc_cf(a, x))


def _gammainc_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    ap = a
    for _ in range(_MAX_ITER):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gammaincc_cf(a: float, x: float) -> float:
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


@dataclass(frozen=True)
class DiceRoll:
    """The dice of one set that came up in one throw (one die for an opening roll, two otherwise)."""

    dice_set: str
    values: tuple[int, ...]
    table_id: str = ""


@dataclass
class DiceSetStats:
    """Counts and tests for one dice set."""

    dice_set: str
    faces: list[int] = field(default_factory=lambda: [0] * 6)  # faces[v-1] = times v came up
    throws: int = 0  # throws of two dice of this set
    doubles: int = 0
    tables: set[str] = field(default_factory=set)

    @property
    def dice(self) -> int:
        return sum(self.faces)

    @property
    def doubles_rate(self) -> float | None:
        return self.doubles / self.throws if self.throws else None

    def face_chi2(self) -> tuple[float, float] | None:
        """(statistic, p-value) of the faces against a fair die (5 degrees of freedom)."""
        n = self.dice
        if n == 0:
            return None
        expected = n / 6.0
        stat = sum((o - expected) ** 2 / expected for o in self.faces)
        return stat, chi2_sf(stat, 5)

    def doubles_chi2(self) -> tuple[float, float] | None:
        """(statistic, p-value) of doubles against 1 in 6 (1 degree of freedom)."""
        n = self.throws
        if n == 0:
            return None
        e_d, e_n = n / 6.0, n * 5.0 / 6.0
        stat = (self.doubles - e_d) ** 2 / e_d + (n - self.doubles - e_n) ** 2 / e_n
        return stat, chi2_sf(stat, 1)

    def to_dict(self) -> dict:
        fc, dc = self.face_chi2(), self.doubles_chi2()
        n = self.dice
        return {
            "dice_set": self.dice_set,
            "dice": n,
            "throws": self.throws,
            "faces": {str(v + 1): c for v, c in enumerate(self.faces)},
            "frequencies": {str(v + 1): (c / n if n else None) for v, c in enumerate(self.faces)},
            "doubles": self.doubles,
            "doubles_rate": self.doubles_rate,
            "chi2": None if fc is None else {"statistic": fc[0], "df": 5, "p_value": fc[1]},
            "doubles_chi2": None if dc is None else {"statistic": dc[0], "df": 1, "p_value": dc[1]},
            "tables": sorted(self.tables),
        }


def dice_statistics(rolls: Iterable[DiceRoll]) -> dict[str, DiceSetStats]:
    """Accumulate rolls into one :class:`DiceSetStats` per dice set."""
    out: dict[str, DiceSetStats] = {}
    for roll in rolls:
        st = out.get(roll.dice_set)
        if st is None:
            st = out[roll.dice_set] = DiceSetStats(roll.dice_set)
        for v in roll.values:
            if not (isinstance(v, int) and 1 <= v <= 6):
                raise ValueError(f"a die shows 1 to 6, got {v!r}")
            st.faces[v - 1] += 1
        if len(roll.values) == 2:
            st.throws += 1
            st.doubles += roll.values[0] == roll.values[1]
        if roll.table_id:
            st.tables.add(roll.table_id)
    return out


def default_dice_set(table_id: str, player: str) -> str:
    return f"table {table_id} {player}"


def rolls_from_events(table_id: str, events: Iterable, dice_sets: dict | None = None) -> list[DiceRoll]:
    """The throws that stand in a table's event log (undone events removed; void rolls never count).

    Roll events carry ``dice`` and ``player`` ("X"/"O"; None for an opening roll, where the first die is
    X's and the second O's). ``dice_sets`` maps "X"/"O" to the name of that player's dice set.
    """
    sets = {p: (dice_sets or {}).get(p) or default_dice_set(table_id, p) for p in ("X", "O")}
    stack: list = []
    for ev in events:
        if ev.kind == "undo" or (ev.kind == "void" and ev.payload.get("cancels_roll")):
            if stack:
                stack.pop()  # a void called after its roll was entered takes that roll back
            if ev.kind == "undo":
                continue
        stack.append(ev)
    rolls: list[DiceRoll] = []
    for ev in stack:
        if ev.kind != "roll":
            continue
        dice = ev.payload.get("dice") or []
        player = ev.payload.get("player")
        if player in ("X", "O"):
            rolls.append(DiceRoll(sets[player], tuple(dice), table_id))
        elif len(dice) == 2:  # opening roll: one die from each player's set
            rolls.append(DiceRoll(sets["X"], (dice[0],), table_id))
            rolls.append(DiceRoll(sets["O"], (dice[1],), table_id))
    return rolls
