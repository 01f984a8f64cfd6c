"""Random tables, random actions (legal, illegal, malformed, undo, void): refusals change nothing, the
record replays to exactly the live state, and the rules hold throughout."""

from __future__ import annotations

import random
import tempfile

from hypothesis import HealthCheck, given, settings, strategies as st

from tablecompanion.referee import Hall, RefereeError, TableSettings

KEYS = ("position_id", "match_id", "turn", "awaiting", "dice", "legal_plays", "cube", "score", "crawford",
        "pips", "board", "history", "games", "status", "flags", "voids", "events", "clock")


def _choose(rng: random.Random, snap: dict) -> dict:
    aw = snap["awaiting"]
    r = rng.random()
    if r < 0.06:
        return {"action": "undo"}
    if r < 0.09:
        return {"action": "void", "reason": rng.choice(["cocked", "crossed the bar", "off the board"])}
    if r < 0.12:
        return rng.choice([{"action": "roll", "dice": [0, 7]}, {"action": "fly"}, {"action": "play", "play": "x/y"},
                           {"action": "resign", "level": "quadruple"}])
    if snap.get("open_flag"):
        if rng.random() < 0.5 and snap["open_flag"]["closest"]:
            return {"action": "correct", "play": rng.choice(snap["open_flag"]["closest"])}
        return rng.choice([{"action": "accept_illegal"}, {"action": "correct"},
                           {"action": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)]}])
    if aw in ("opening_roll", "roll", "roll_or_double"):
        if aw == "roll_or_double" and rng.random() < 0.15:
            return {"action": "double"}
        if rng.random() < 0.03:
            return {"action": "resign", "level": rng.choice(["single", "gammon", "backgammon"])}
        return {"action": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)]}
    if aw == "play":
        legal = snap["legal_plays"]
        if legal and rng.random() < 0.85:
            return {"action": "play", "play": rng.choice(legal)}
        return {"action": "play", "play": rng.choice(["24/18 13/10", "6/1 6/1", "13/7", "8/2 6/2", ""])}
    if aw == "take_or_pass":
        return rng.choice([{"action": "take"}, {"action": "take"}, {"action": "pass"}, {"action": "beaver"}])
    if aw == "resign_response":
        return rng.choice([{"action": "accept_resign"}, {"action": "reject_resign"}])
    return {"action": "new_game"}


def _same(a: dict, b: dict) -> None:
    for k in KEYS:
        assert a.get(k) == b.get(k), k


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), policy=st.sampled_from(["legal", "responsible"]),
       length=st.sampled_from([0, 1, 3, 5]))
def test_random_play_replays_exactly(seed, policy, length):
    rng = random.Random(seed)
    t = [10_000.0]
    with tempfile.TemporaryDirectory() as d:
        opts = {"beaver": True, "automatic_doubles": 1, "jacoby": True} if length == 0 else {}
        clock = {"delay_s": 5, "bank_s": 100000} if length == 0 else {"delay_s": 5, "bank_per_point_s": 20000}
        hall = Hall(d, now=lambda: t[0])
        ref, _ = hall.create_table(TableSettings(players=("A", "B"), match_length=length, move_policy=policy,
                                                 clock=clock, **opts))
        for _ in range(120):
            snap = ref.snapshot()
            if snap["status"] == "match_over":
                break
            action = _choose(rng, snap)
            t[0] += rng.uniform(0.5, 20)
            try:
                ref.act(action)
            except RefereeError as exc:
                assert exc.status in (400, 409), exc.message
                after = ref.snapshot()
                # nothing changed but the clock's running time
                _same({k: v for k, v in after.items() if k != "clock"}, {k: v for k, v in snap.items() if k != "clock"})
            snap = ref.snapshot()
            # invariants of the table
            b = snap["board"]
            assert sum(b["X"]) + b["off"]["X"] == 15 and sum(b["O"]) + b["off"]["O"] == 15
            assert snap["cube"]["value"] >= 1
            if snap["dice"] is not None and snap["awaiting"] == "play":
                assert snap["legal_plays"]  # an unplayable roll passes at once
        live = ref.snapshot()
        hall.close()
        again = Hall(d, now=lambda: t[0]).get("1").snapshot()
        _same(again, live)
