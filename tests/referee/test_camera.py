"""Camera observations: rolls read, void rolls with their evidence frame, dice picked up and board reads."""

from __future__ import annotations

import numpy as np
import pytest

from tablecompanion.record import Record
from tablecompanion.referee import RefereeError
from tablecompanion.rules import Position

from .conftest import decisions


def sides(pos: Position, mover: str) -> dict:
    """A board observation ({"X", "O"} own-numbered sides) of a mover-view position."""
    other = "O" if mover == "X" else "X"
    return {mover: list(pos.on_roll), other: list(pos.opponent)}


def frame(colour=(0, 0, 255)):
    f = np.zeros((60, 80, 3), np.uint8)
    f[20:40, 30:50] = colour
    return f


@pytest.fixture()
def rec(tmp_path):
    r = Record(tmp_path)
    yield r
    r.close()


def test_camera_roll_then_board_read_accepts_the_legal_play(make_ref, rec):
    ref = make_ref(record=rec)
    out = ref.observe({"type": "roll", "dice": [3, 1]})
    assert decisions(out) == ["opening_roll"]
    after = Position.initial().parse_play("8/5 6/5", (3, 1)).result()
    # board reads while the player is still moving mean nothing
    assert ref.observe({"type": "board", "board": sides(after, "X")}) == []
    out = ref.observe({"type": "dice_picked_up"})
    assert decisions(out) == ["awaiting_board"]
    out = ref.observe({"type": "board", "board": sides(after, "X")})
    assert decisions(out) == ["play_accepted"] and out[0]["play"] == "8/5 6/5"
    assert [(e.kind, e.source) for e in rec.events("1")] == [("roll", "camera"), ("play", "camera")]
    assert ref.snapshot()["turn"] == "O"


def test_dice_picked_up_with_the_board_in_one_observation(make_ref):
    ref = make_ref()
    ref.observe({"type": "roll", "dice": [3, 1]})
    after = Position.initial().parse_play("24/21 24/23", (3, 1)).result()
    out = ref.observe({"type": "dice_picked_up", "board": sides(after, "X")})
    assert decisions(out) == ["play_accepted"]
    assert Position.initial().parse_play(out[0]["play"], (3, 1)).result() == after


def test_void_roll_keeps_the_evidence_frame(make_ref, rec):
    ref = make_ref(record=rec)
    out = ref.observe({"type": "roll_void", "reason": "cocked", "frame": frame()})
    assert decisions(out) == ["void_roll"] and out[0]["reason"] == "cocked"
    rel = out[0]["evidence"]
    assert rel and rec.evidence_path(rel).read_bytes()[:2] == b"\xff\xd8"
    ev = rec.events("1")[-1]
    assert ev.kind == "void" and ev.source == "camera" and ev.evidence == rel
    assert ref.snapshot()["history"][-1]["evidence"] == rel


def test_board_matching_no_legal_play_is_flagged_with_the_frame(make_ref, rec):
    ref = make_ref(record=rec)
    ref.observe({"type": "roll", "dice": [6, 4]})
    illegal = Position.initial()
    on = list(illegal.on_roll)
    on[23] -= 1
    on[17] += 1  # 24/18
    on[12] -= 1
    on[9] += 1  # 13/10: 3 pips, not 4
    seen = Position(on, illegal.opponent)
    out = ref.observe({"type": "dice_picked_up", "board": sides(seen, "X"), "frame": frame()})
    assert decisions(out) == ["illegal_play_flagged"]
    d = out[0]
    assert d["points"] == [24, 18, 13, 10] and d["evidence"]
    assert rec.evidence_path(d["evidence"]).is_file()
    assert "24/18 13/9" in d["closest"]
    # the player puts it right: the next board read is the correction
    good = Position.initial().parse_play("24/18 13/9", (6, 4)).result()
    assert ref.observe({"type": "board", "board": sides(seen, "X")}) == []  # still wrong: nothing happens
    out = ref.observe({"type": "board", "board": sides(good, "X")})
    assert decisions(out) == ["correction_accepted"]
    assert ref.snapshot()["turn"] == "O"


def test_unmoved_board_is_flagged_when_a_play_exists(make_ref):
    ref = make_ref()
    ref.observe({"type": "roll", "dice": [6, 4]})
    out = ref.observe({"type": "dice_picked_up", "board": sides(Position.initial(), "X")})
    assert decisions(out) == ["illegal_play_flagged"] and "no checker was moved" in out[0]["reason"]


def test_operator_overrides_a_camera_roll_with_void_then_roll(make_ref):
    ref = make_ref()
    ref.observe({"type": "roll", "dice": [3, 1]})
    ref.act({"action": "play", "play": "8/5 6/5"})
    ref.observe({"type": "roll", "dice": [6, 6]})  # misread
    out = ref.act({"action": "void", "reason": "misread: operator"})
    assert out[0]["cancelled_roll"] is True
    ref.act({"action": "roll", "dice": [6, 5]})
    assert ref.snapshot()["dice"] == [6, 5]


def test_vision_objects_are_understood():
    from types import SimpleNamespace

    from tablecompanion.referee.observations import to_observation

    valid = SimpleNamespace(verdict=SimpleNamespace(valid=True, reason=None),
                            readings=(SimpleNamespace(value=5), SimpleNamespace(value=2)))
    assert to_observation(valid)["dice"] == [5, 2]
    void = SimpleNamespace(verdict=SimpleNamespace(valid=False, reason="crossed the bar"), readings=())
    assert to_observation(void) == {"type": "roll_void", "reason": "crossed the bar", "frame": None}
    with pytest.raises(RefereeError):
        to_observation({"type": "teleport"})
    with pytest.raises(RefereeError):
        to_observation(object())


def test_bad_board_observation_is_400_and_changes_nothing(make_ref):
    ref = make_ref()
    ref.observe({"type": "roll", "dice": [3, 1]})
    ref.observe({"type": "dice_picked_up"})
    before = ref.snapshot()
    with pytest.raises(RefereeError) as err:
        ref.observe({"type": "board", "board": {"X": [0] * 25}})
    assert err.value.status == 400
    bad = {"X": [15] + [0] * 24, "O": [0] * 23 + [15, 0]}  # both sides on one point
    with pytest.raises(RefereeError) as err:
        ref.observe({"type": "board", "board": bad})
    assert err.value.status == 400
    assert ref.snapshot()["history"] == before["history"]


def test_a_roll_the_camera_could_not_accept_for_what_a_die_touches_can_be_taken(make_ref):
    """The camera read 6-3 but a die touches a checker: void, with the values kept; the operator who sees
    the die lie flat enters them, and the proposal goes with the next event."""
    ref = make_ref()
    ref.observe({"type": "roll", "dice": [3, 1]})
    ref.act({"action": "play", "play": "8/5 6/5"})
    out = ref.observe({"type": "roll_void", "reason": "die 2 unclear (touching a checker: it may lean on it): re-roll",
                       "proposal": [6, 3]})
    assert decisions(out) == ["void_roll"] and out[0]["proposal"] == [6, 3]
    assert "enter 6-3" in out[0]["message"]
    snap = ref.snapshot()
    assert snap["roll_proposal"]["dice"] == [6, 3] and snap["roll_proposal"]["player"] == "O"
    assert snap["dice"] is None  # nothing entered until a person says so
    ref.act({"action": "roll", "dice": [6, 3]})
    snap = ref.snapshot()
    assert snap["dice"] == [6, 3] and snap["roll_proposal"] is None


def test_an_opening_roll_the_camera_could_not_accept_is_put_to_the_players_die_by_die(make_ref):
    """The opening roll's dice belong one to each player: the proposal is X's die then O's, and says so."""
    ref = make_ref()
    out = ref.observe({"type": "roll_void", "proposal": [2, 5],
                       "reason": "die 1 unclear (touching the board's edge: it may lean on it): re-roll"})
    assert decisions(out) == ["void_roll"] and out[0]["proposal"] == [2, 5]
    assert "the camera read 2 for Alice, 5 for Bob" in out[0]["message"]
    snap = ref.snapshot()
    assert snap["roll_proposal"]["player"] is None and snap["roll_proposal"]["roll"] == "2 for Alice, 5 for Bob"
    ref.act({"action": "roll", "dice": snap["roll_proposal"]["dice"]})  # what the dashboard's button sends
    snap = ref.snapshot()
    assert snap["turn"] == "O" and sorted(snap["dice"]) == [2, 5] and snap["roll_proposal"] is None
    opening = [h for h in snap["history"] if h.get("action") == "opening_roll"]
    assert [h["dice"] for h in opening] == [[2, 5]]  # X's die first, as the camera saw the halves


def test_a_proposal_lasts_until_the_next_event_and_must_be_two_dice(make_ref):
    ref = make_ref()
    ref.observe({"type": "roll", "dice": [3, 1]})
    ref.act({"action": "play", "play": "8/5 6/5"})
    ref.observe({"type": "roll_void", "reason": "touching the board's edge", "proposal": [5, 5]})
    ref.observe({"type": "roll_void", "reason": "die 1 cocked (resting on a checker)"})  # the re-roll, void again
    assert ref.snapshot()["roll_proposal"] is None
    with pytest.raises(RefereeError):
        ref.observe({"type": "roll_void", "reason": "touching", "proposal": [7, 1]})
    assert ref.snapshot()["voids"] == 2


def test_a_settled_roll_carries_its_proposal_to_the_referee():
    from tablecompanion.referee.observations import to_observation
    from tablecompanion.vision.settle import RollSettled

    ev = RollSettled((), (), "void", "die 2 unclear (touching a checker: it may lean on it): re-roll", 7, 0.2,
                     proposal=(6, 3))
    assert to_observation(ev) == {"type": "roll_void", "reason": ev.reason, "frame": None, "proposal": [6, 3]}
    assert "proposal" not in to_observation(RollSettled((), (), "void", "die 1 across the bar", 7, 0.2))
