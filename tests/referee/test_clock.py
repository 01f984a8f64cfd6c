"""The match clock: delay per move, bank per point, time-out loses the match, replay rebuilds it exactly."""

from __future__ import annotations

import pytest

from tablecompanion.referee import Hall, RefereeError, TableSettings
from tablecompanion.referee.clock import MatchClock
from tablecompanion.referee.settings import ClockSettings

from .conftest import FakeClock, decisions


def test_clock_charges_only_beyond_the_delay_and_only_the_running_player():
    c = MatchClock(ClockSettings(delay_s=12, bank_per_point_s=120), match_length=5)
    assert c.bank == {"X": 600.0, "O": 600.0}
    c.switch("X", 0.0)
    assert c.remaining("X", 10.0) == 600.0  # inside the delay
    assert c.remaining("X", 20.0) == 592.0
    c.switch("O", 20.0)
    assert c.bank["X"] == 592.0
    assert c.remaining("X", 500.0) == 592.0  # X's clock is stopped
    assert c.remaining("O", 42.0) == 590.0
    assert c.expires_at() == 20.0 + 12 + 600
    assert c.expired(631.9) is None and c.expired(632.0) == "O"


def test_money_clock_needs_an_explicit_bank():
    with pytest.raises(RefereeError):
        TableSettings(match_length=0, clock={"delay_s": 12, "bank_per_point_s": 120})
    s = TableSettings(match_length=0, clock={"delay_s": 5, "bank_s": 300})
    assert s.clock.bank_for(0) == 300


@pytest.mark.parametrize("clock", [{"delay_s": -1}, {"delay_s": "12"}, {"bank_per_point_s": 1e9}, {"speed": 3}, 12])
def test_bad_clock_settings_are_refused(clock):
    with pytest.raises(RefereeError) as err:
        TableSettings(clock=clock)
    assert err.value.status == 400


def test_clock_runs_for_whoever_must_act(make_ref, clock):
    ref = make_ref(match_length=1, clock={"delay_s": 10, "bank_per_point_s": 60})
    assert ref.snapshot()["clock"]["running"] is None  # nobody's clock before the opening roll
    ref.act({"action": "roll", "dice": [3, 1]})
    assert ref.snapshot()["clock"]["running"] == "X"
    clock.advance(25)
    ref.act({"action": "play", "play": "8/5 6/5"})
    snap = ref.snapshot()["clock"]
    assert snap["running"] == "O" and snap["remaining"]["X"] == 45.0
    clock.advance(5)
    ref.act({"action": "double"})  # not in a 1-point match? post-Crawford rules allow it
    assert ref.snapshot()["clock"]["running"] == "X"  # X answers the double
    clock.advance(3)
    assert ref.snapshot()["clock"]["delay_left"] == 7.0


def test_time_out_loses_the_match_at_the_exact_moment(make_ref, clock, tmp_path):
    from tablecompanion.record import Record

    rec = Record(tmp_path)
    ref = make_ref(record=rec, match_length=3, clock={"delay_s": 12, "bank_per_point_s": 10})
    ref.act({"action": "roll", "dice": [3, 1]})
    start = clock.t
    clock.advance(12 + 30 - 1)
    assert ref.tick() == []
    clock.advance(5)
    out = ref.tick()
    assert decisions(out) == ["timeout", "match_over"]
    assert out[0]["player"] == "X" and out[0]["winner"] == "O"
    snap = ref.snapshot()
    assert snap["status"] == "match_over" and snap["winner"] == "O" and snap["timeout"]["time"] == start + 42
    with pytest.raises(RefereeError) as err:
        ref.act({"action": "play", "play": "8/5 6/5"})
    assert err.value.status == 409 and "ran out of time" in err.value.message
    timeout_event = rec.events("1")[-1]
    assert timeout_event.kind == "timeout" and timeout_event.source == "clock"


def test_a_late_action_is_refused_because_the_time_ran_out_first(make_ref, clock):
    ref = make_ref(match_length=3, clock={"delay_s": 0, "bank_per_point_s": 10})
    ref.act({"action": "roll", "dice": [3, 1]})
    clock.advance(31)
    with pytest.raises(RefereeError) as err:
        ref.act({"action": "play", "play": "8/5 6/5"})
    assert err.value.status == 409
    assert ref.snapshot()["winner"] == "O"


def test_clock_is_rebuilt_exactly_on_resume(tmp_path):
    clk = FakeClock(5000.0)
    hall = Hall(tmp_path, now=clk)
    ref, token = hall.create_table(TableSettings(players=("A", "B"), match_length=5,
                                                 clock={"delay_s": 12, "bank_per_point_s": 120}))
    for action, dt in (({"action": "roll", "dice": [6, 1]}, 3), ({"action": "play", "play": "13/7 8/7"}, 40),
                       ({"action": "roll", "dice": [5, 2]}, 17), ({"action": "play", "play": "13/8 13/11"}, 100)):
        clk.advance(dt)
        ref.act(action)
    clk.advance(7)
    before = ref.snapshot()["clock"]
    hall.close()
    again = Hall(tmp_path, now=clk).get("1")
    assert again.snapshot()["clock"] == before
    assert before["remaining"] == {"X": 600 - 28, "O": 600 - (17 + 100 - 12)}


def test_hall_ticker_records_a_time_out_nobody_acted_on(tmp_path):
    import time

    clk = FakeClock(100.0)
    hall = Hall(tmp_path, now=clk, tick_interval=0.02)
    try:
        ref, _ = hall.create_table(TableSettings(players=("A", "B"), match_length=1,
                                                 clock={"delay_s": 1, "bank_per_point_s": 2}))
        ref.act({"action": "roll", "dice": [3, 1]})
        time.sleep(0.1)
        assert ref.snapshot()["status"] == "playing"
        clk.advance(3.5)
        deadline = time.monotonic() + 5
        while ref.snapshot()["status"] != "match_over" and time.monotonic() < deadline:
            time.sleep(0.02)
        snap = ref.snapshot()
        assert snap["status"] == "match_over" and snap["timeout"] == {"loser": "X", "winner": "O", "time": 103.0}
    finally:
        hall.close()
