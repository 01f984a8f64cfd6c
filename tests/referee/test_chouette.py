"""Chouette tables: the box against a team, members answering the box's double, rotation, resume."""

from __future__ import annotations

import pytest

from tablecompanion.referee import Hall, RefereeError, TableSettings

from .conftest import decisions, refused


@pytest.fixture()
def chouette(make_ref):
    return make_ref(players=("-", "--"), match_length=0, chouette=("Ann", "Cat", "Ben"))


def _opening(ref):
    ref.act({"action": "roll", "dice": [3, 1]})  # the box (X) starts
    ref.act({"action": "play", "play": "8/5 6/5"})
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/14"})


def test_settings_check_the_chouette():
    with pytest.raises(RefereeError):
        TableSettings(match_length=0, chouette=("Ann", "Ben"))
    with pytest.raises(RefereeError):
        TableSettings(match_length=5, chouette=("Ann", "Ben", "Cat"))
    with pytest.raises(RefereeError):
        TableSettings(match_length=0, chouette=("Ann", "Ann", "Cat"))
    s = TableSettings(match_length=0, chouette=["Ann", "Cat", "Ben"])
    assert s.players == ("Ann", "Cat") and TableSettings.from_dict(s.to_dict()) == s


def test_box_double_is_answered_member_by_member(chouette):
    ref = chouette
    _opening(ref)
    ref.act({"action": "double"})
    snap = ref.snapshot()
    assert snap["awaiting"] == "members_respond" and snap["chouette"]["waiting_for"] == ["Cat", "Ben"]
    refused(ref, {"action": "take"}, 409, contains="which team member")
    refused(ref, {"action": "take", "member": "Zed"}, 409, contains="not playing")
    out = ref.act({"action": "pass", "member": "Ben"})
    assert decisions(out) == ["double_passed"] and out[0]["member"] == "Ben"
    ref.act({"action": "take", "member": "Cat"})
    snap = ref.snapshot()
    assert snap["chouette"]["active"] == ["Cat"] and snap["chouette"]["scores"] == {"Ann": 1, "Cat": 0, "Ben": -1}
    assert snap["cube"] == {"value": 2, "owner": "O"} and snap["awaiting"] == "roll"


def test_rotation_when_the_team_wins_and_resume(make_ref, tmp_path):
    hall = Hall(tmp_path)
    ref, _ = hall.create_table(TableSettings(match_length=0, chouette=("Ann", "Cat", "Ben")))
    _opening(ref)
    ref.act({"action": "resign", "level": "gammon", "player": "X"})  # the box gives up a gammon
    out = ref.act({"action": "accept_resign"})
    assert decisions(out) == ["resign_accepted", "game_over"] and out[1]["winner"] == "O"
    snap = ref.snapshot()
    # the captain who won becomes the box; the old box goes to the end of the line
    assert snap["chouette"]["box"] == "Cat" and snap["chouette"]["team"] == ["Ben", "Ann"]
    assert snap["players"] == {"X": "Cat", "O": "Ben"}
    assert snap["chouette"]["scores"] == {"Ann": -4, "Cat": 2, "Ben": 2}
    assert snap["games"][0]["level"] == "gammon"
    hall.close()
    again = Hall(tmp_path).get("1").snapshot()
    for key in ("chouette", "players", "games", "position_id", "match_id", "history"):
        assert again[key] == snap[key], key


def test_member_is_refused_outside_a_chouette(make_ref):
    ref = make_ref()
    ref.act({"action": "roll", "dice": [3, 1]})
    ref.act({"action": "play", "play": "8/5 6/5"})
    ref.act({"action": "double"})
    refused(ref, {"action": "take", "member": "Bob"}, 400, contains="chouette")
    refused(ref, {"action": "roll", "dice": [1, 2], "member": "Bob"}, 400, contains="member")


def test_chouette_has_no_mat_export(chouette):
    _opening(chouette)
    with pytest.raises(RefereeError) as err:
        chouette.export_mat()
    assert err.value.status == 409


def test_messages_name_the_people_seated_when_the_game_ended(make_ref):
    """The seats rotate as the game ends: the decisions still name who accepted and who won then."""
    ref = make_ref(players=("-", "--"), match_length=0, chouette=("Ann", "Cat", "Ben"))
    _opening(ref)
    ref.act({"action": "resign", "level": "single", "player": "X"})
    out = ref.act({"action": "accept_resign"})
    assert out[0]["message"] == "Cat accepts the resignation"  # the captain then, the box now
    assert out[1]["message"].startswith("Cat's team wins game 1")
    assert ref.snapshot()["chouette"]["box"] == "Cat"
