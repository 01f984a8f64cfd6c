"""The record is the truth: a Hall resumes every table exactly, even after SIGKILL mid-match."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tablecompanion.referee import Hall, RefereeError, Referee, TableSettings
from tablecompanion.referee.matplay import mat_actions, settings_for

HERE = Path(__file__).resolve().parent
MATCHES = HERE.parents[1] / ".." / "shared" / "data" / "matches"
MAT = MATCHES / "Llabba_-_Kabrus_7pt_Backgammon_Studio_2023_08_03_08_26_12.mat"

COMPARE = ("position_id", "match_id", "turn", "awaiting", "dice", "legal_plays", "cube", "score", "crawford",
           "pips", "board", "history", "games", "status", "flags", "voids", "events")


def _mat_text() -> str:
    if not MAT.exists():
        pytest.skip(f"match file not found: {MAT}")
    return MAT.read_text(encoding="utf-8", errors="replace")


def _timeless(value):
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k != "time"}
    return value


def _same(a: dict, b: dict, *, times: bool = True) -> None:
    for key in COMPARE:
        if times:
            assert a.get(key) == b.get(key), key
        else:
            assert _timeless(a.get(key)) == _timeless(b.get(key)), key


def test_hall_creates_tables_with_tokens_and_resumes_them(tmp_path):
    hall = Hall(tmp_path)
    r1, t1 = hall.create_table(TableSettings(players=("A", "B"), match_length=3))
    r2, t2 = hall.create_table({"players": ["C", "D"], "match_length": 0}, table_id="final", token="tok-final")
    assert (r1.table_id, r2.table_id, t2) == ("1", "final", "tok-final")
    assert len(t1) >= 12 and t1 != t2
    r1.act({"action": "roll", "dice": [3, 1]})
    r1.act({"action": "play", "play": "8/5 6/5"})
    r2.act({"action": "roll", "dice": [1, 3]})
    with pytest.raises(RefereeError) as err:
        hall.create_table(TableSettings(players=("E", "F")), table_id="final")
    assert err.value.status == 409
    with pytest.raises(RefereeError) as err:
        hall.create_table(TableSettings(players=("E", "F")), table_id="bad id!")
    assert err.value.status == 400
    snaps = {r.table_id: r.snapshot() for r in hall.tables()}
    hall.close()

    again = Hall(tmp_path)
    assert [r.table_id for r in again.tables()] == ["1", "final"]
    for tid, snap in snaps.items():
        _same(again.get(tid).snapshot(), snap)
    assert again.check_token("1", t1) and again.check_token("final", "tok-final")
    assert not again.check_token("1", t2) and not again.check_token("1", "") and not again.check_token("9", t1)
    with pytest.raises(RefereeError) as err:
        again.get("9")
    assert err.value.status == 404
    r3, _ = again.create_table(TableSettings(players=("G", "H")))
    assert r3.table_id == "2"
    # the record holds a salted hash, never the token
    raw = (tmp_path / "record.sqlite3").read_bytes()
    assert t1.encode() not in raw and b"tok-final" not in raw


def test_refused_actions_are_not_recorded(tmp_path):
    hall = Hall(tmp_path)
    ref, _ = hall.create_table(TableSettings(players=("A", "B")))
    ref.act({"action": "roll", "dice": [3, 1]})
    for bad in ({"action": "roll", "dice": [3, 1]}, {"action": "take"}, {"action": "roll", "dice": [9, 1]}):
        with pytest.raises(RefereeError):
            ref.act(bad)
    assert [e.kind for e in hall.record.events("1")] == ["roll"]


def test_an_event_that_cannot_be_recorded_does_not_take_effect(tmp_path):
    hall = Hall(tmp_path)
    ref, _ = hall.create_table(TableSettings(players=("A", "B")))
    ref.act({"action": "roll", "dice": [3, 1]})
    before = ref.snapshot()
    hall.record.close()  # the database is gone from under the referee
    with pytest.raises(RefereeError) as err:
        ref.act({"action": "play", "play": "8/5 6/5"})
    assert err.value.status == 503
    _same(ref.snapshot(), before)


def test_undo_void_and_flags_survive_a_restart(tmp_path):
    hall = Hall(tmp_path)
    ref, _ = hall.create_table(TableSettings(players=("A", "B"), move_policy="responsible"))
    for a in ({"action": "roll", "dice": [6, 4]}, {"action": "play", "play": "24/18 13/10"},
              {"action": "roll", "dice": [3, 1]}, {"action": "undo"}, {"action": "accept_illegal"},
              {"action": "roll", "dice": [2, 2]}, {"action": "void", "reason": "cocked"},
              {"action": "roll", "dice": [5, 2]}, {"action": "play", "play": "13/8 13/11"},
              {"action": "double", "player": "X"}, {"action": "undo"}):
        ref.act(a)
    snap = ref.snapshot()
    assert snap["flags"][0]["status"] == "accepted" and snap["voids"] == 1
    hall.close()
    _same(Hall(tmp_path).get("1").snapshot(), snap)


def test_a_whole_real_match_resumes_identically(tmp_path):
    text = _mat_text()
    actions = mat_actions(text)
    hall = Hall(tmp_path)
    ref, _ = hall.create_table(settings_for(text))
    for a in actions:
        ref.act(a)
    snap = ref.snapshot()
    assert snap["status"] == "match_over"
    hall.close()
    _same(Hall(tmp_path).get("1").snapshot(), snap)


def test_sigkill_mid_match_loses_nothing(tmp_path):
    text = _mat_text()
    actions = mat_actions(text)
    kill_after = len(actions) // 2
    child = subprocess.Popen([sys.executable, str(HERE / "killme.py"), str(tmp_path), str(MAT)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    acked = 0
    try:
        for line in child.stdout:
            if line.startswith("ACK"):
                acked = int(line.split()[1])
                if acked >= kill_after:
                    os.kill(child.pid, signal.SIGKILL)  # no clean shutdown, no flush, no atexit
                    break
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL, child.stderr.read()
    assert acked >= kill_after

    hall = Hall(tmp_path)
    ref = hall.get("1")
    recorded = ref.snapshot()["events"]
    assert recorded >= acked  # every acknowledged event is there (at most the one in flight more)
    expected = Referee("1", settings_for(text))
    for a in actions[:recorded]:
        expected.act(a)
    _same(ref.snapshot(), expected.snapshot(), times=False)
    # and the match goes on from there to the file's final score
    for a in actions[recorded:]:
        ref.act(a)
    for a in actions[recorded:]:
        expected.act(a)
    assert ref.snapshot()["status"] == "match_over"
    _same(ref.snapshot(), expected.snapshot(), times=False)


def test_concurrent_actions_on_one_table_are_serialised(tmp_path):
    import threading

    hall = Hall(tmp_path)
    ref, _ = hall.create_table(TableSettings(players=("A", "B")))
    ok, refused = [], []
    barrier = threading.Barrier(8)

    def roll(k):
        barrier.wait()
        try:
            ref.act({"action": "roll", "dice": [k % 6 + 1, (k + 3) % 6 + 1]}, source="operator")
            ok.append(k)
        except RefereeError as exc:
            refused.append(exc.status)

    threads = [threading.Thread(target=roll, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # exactly the first non-tie opening roll wins; ties re-roll (also accepted); everything else is a 409
    assert len(ok) + len(refused) == 8 and set(refused) <= {409}
    events = hall.record.events("1")
    assert len(events) == len(ok) and [e.n for e in events] == list(range(1, len(ok) + 1))
    _same(Hall(tmp_path).get("1").snapshot(), ref.snapshot())


def test_a_table_whose_record_cannot_be_replayed_does_not_stop_the_others(tmp_path):
    hall = Hall(tmp_path)
    a, _ = hall.create_table(TableSettings(players=("A", "B")))
    b, _ = hall.create_table(TableSettings(players=("C", "D")))
    a.act({"action": "roll", "dice": [3, 1]})
    b.act({"action": "roll", "dice": [3, 1]})
    hall.record.append("1", "roll", {"dice": [3, 1]}, source="operator")  # X must play first: unreplayable
    hall.close()
    again = Hall(tmp_path)
    assert "1" in again.resume_errors and "must play" in again.resume_errors["1"]
    assert [r.table_id for r in again.tables()] == ["2"]
    assert again.get("2").snapshot()["dice"] == [3, 1]
    ref, _ = again.create_table(TableSettings(players=("E", "F")))
    assert ref.table_id == "3"  # the broken table's id is not reused
