"""Dice statistics and the home-made chi-square survival function."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, strategies as st

from tablecompanion.record.stats import DiceRoll, chi2_sf, dice_statistics, rolls_from_events
from tablecompanion.record.store import EventRow


@given(st.floats(min_value=0.001, max_value=200))
def test_chi2_sf_matches_closed_forms(x):
    # df=2: exp(-x/2); df=1: erfc(sqrt(x/2)); df=4: exp(-x/2)(1 + x/2)
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9, abs=1e-300)
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-8, abs=1e-300)
    assert chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("x, df, p", [(11.0705, 5, 0.05), (15.0863, 5, 0.01), (3.8415, 1, 0.05),
                                      (6.6349, 1, 0.01), (1.6103, 5, 0.9)])
def test_chi2_sf_critical_values(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-3)


def test_chi2_sf_edges():
    assert chi2_sf(0, 5) == 1.0
    assert chi2_sf(-1, 5) == 1.0
    with pytest.raises(ValueError):
        chi2_sf(1.0, 0)


def test_fair_dice_are_not_rejected_and_loaded_dice_are():
    rng = random.Random(7)
    fair = [DiceRoll("fair", (rng.randint(1, 6), rng.randint(1, 6))) for _ in range(3000)]
    loaded = [DiceRoll("loaded", (rng.choice([1, 2, 3, 4, 5, 6, 6]), rng.randint(1, 6))) for _ in range(3000)]
    stats = dice_statistics(fair + loaded)
    f, l = stats["fair"], stats["loaded"]
    assert f.dice == 6000 and f.throws == 3000
    assert f.face_chi2()[1] > 0.001
    assert l.face_chi2()[1] < 1e-6
    assert 0.12 < f.doubles_rate < 0.21


def test_counts_and_doubles_exactly():
    stats = dice_statistics([DiceRoll("a", (6, 6)), DiceRoll("a", (1, 2)), DiceRoll("a", (3,))])
    a = stats["a"]
    assert a.faces == [1, 1, 1, 0, 0, 2]
    assert (a.throws, a.doubles) == (2, 1)
    d = a.to_dict()
    assert d["faces"]["6"] == 2 and d["doubles_rate"] == 0.5
    # statistic by hand: expected 5/6 each
    e = 5 / 6
    assert d["chi2"]["statistic"] == pytest.approx(3 * (1 - e) ** 2 / e + 2 * e + (2 - e) ** 2 / e)


def test_bad_die_value_is_refused():
    with pytest.raises(ValueError):
        dice_statistics([DiceRoll("a", (7, 1))])


def _ev(n, kind, payload):
    return EventRow(n, "1", n, float(n), "operator", kind, payload)


def test_rolls_from_events_splits_opening_roll_and_drops_undone_rolls():
    events = [
        _ev(1, "roll", {"dice": [5, 2], "player": None}),      # opening: X's 5, O's 2
        _ev(2, "play", {"play": "13/8 13/11"}),
        _ev(3, "roll", {"dice": [4, 4], "player": "O"}),
        _ev(4, "undo", {}),                                   # the 4-4 entry was a mistake
        _ev(5, "roll", {"dice": [4, 3], "player": "O"}),
        _ev(6, "void", {"reason": "cocked"}),
    ]
    rolls = rolls_from_events("1", events, {"X": "red", "O": None})
    assert rolls == [DiceRoll("red", (5,), "1"), DiceRoll("table 1 O", (2,), "1"),
                     DiceRoll("table 1 O", (4, 3), "1")]
