"""The JSON API: every action through Flask's test client, every refusal a 4xx JSON error that leaves
the table exactly as it was."""

from __future__ import annotations

import pytest

from tablecompanion.referee.settings import TableSettings
from tablecompanion.web import create_app

from .conftest import TOKEN, make_hall


def snap(client, table_id="1"):
    r = client.get(f"/api/tables/{table_id}")
    assert r.status_code == 200
    return r.get_json()


def act(client, op, body, table_id="1", status=200):
    r = client.post(f"/api/tables/{table_id}/actions", json=body, headers=op)
    assert r.status_code == status, r.get_json()
    return r.get_json()


def opening(client, op, dice=(6, 3)):
    return act(client, op, {"action": "roll", "dice": list(dice)})


# -- reading ------------------------------------------------------------------------------------


def test_list_tables(client):
    r = client.get("/api/tables")
    assert r.status_code == 200
    rows = r.get_json()
    assert [row["id"] for row in rows] == ["1"]
    row = rows[0]
    assert row["players"] == {"X": "Alice", "O": "Bob"}
    assert row["score"] == [0, 0] and row["match_length"] == 7
    assert row["cube"] == {"value": 1, "owner": None}


def test_table_snapshot_shape(client):
    s = snap(client)
    for key in ("position_id", "match_id", "turn", "dice", "legal_plays", "cube", "score", "match_length",
                "history"):
        assert key in s
    assert s["position_id"] == "4HPwATDgc/ABMA"
    assert s["turn"] is None and s["dice"] is None and s["legal_plays"] == []
    assert s["awaiting"] == "opening_roll"


def test_unknown_table_is_404_json(client, op):
    for r in (client.get("/api/tables/nope"), client.get("/api/tables/nope/export.mat"),
              client.post("/api/tables/nope/actions", json={"action": "double"}, headers=op)):
        assert r.status_code == 404
        assert "nope" in r.get_json()["error"]
    r = client.get("/api/no-such-route")
    assert r.status_code == 404 and r.get_json()["status"] == 404


def test_method_not_allowed_is_json(client):
    r = client.delete("/api/tables/1")
    assert r.status_code == 405 and "DELETE" in r.get_json()["error"]


# -- actions ------------------------------------------------------------------------------------


def test_opening_roll_then_play(client, op):
    out = opening(client, op, (6, 3))
    assert out["decisions"][0]["decision"] == "opening_roll"
    t = out["table"]
    assert t["turn"] == "X" and t["dice"] == [6, 3]
    assert "24/18 13/10" in t["legal_plays"]
    out = act(client, op, {"action": "play", "play": "24/18 13/10"})
    assert out["decisions"][0]["decision"] == "play_accepted"
    s = snap(client)
    assert s["turn"] == "O" and s["dice"] is None
    assert s["pips"] == [167 - 9, 167]
    assert [h["action"] for h in s["history"]] == ["opening_roll", "play"]
    assert s["history"][-1]["play"] == "24/18 13/10"


def test_opening_roll_second_player_wins(client, op):
    out = opening(client, op, (2, 5))
    assert out["table"]["turn"] == "O"


def test_opening_tie_rolls_again(client, op):
    out = opening(client, op, (4, 4))
    assert out["decisions"][0]["decision"] == "opening_roll_tie"
    assert snap(client)["awaiting"] == "opening_roll"


def test_double_take_then_cube_owned(client, op):
    opening(client, op, (3, 1))
    act(client, op, {"action": "play", "play": "8/5 6/5"})
    act(client, op, {"action": "double"})
    s = snap(client)
    assert s["awaiting"] == "take_or_pass"
    act(client, op, {"action": "take"})
    s = snap(client)
    assert s["cube"] == {"value": 2, "owner": "X"}
    assert s["awaiting"] in ("roll", "roll_or_double")


def test_double_pass_ends_the_game(client, op):
    opening(client, op, (3, 1))
    act(client, op, {"action": "play", "play": "8/5 6/5"})
    act(client, op, {"action": "double"})
    out = act(client, op, {"action": "pass"})
    assert any(d["decision"] == "game_over" for d in out["decisions"])
    assert snap(client)["score"] == [0, 1]


def test_resign_accept_and_reject(client, op):
    opening(client, op, (3, 1))
    act(client, op, {"action": "play", "play": "8/5 6/5"})
    act(client, op, {"action": "resign", "level": "gammon"})
    assert snap(client)["awaiting"] == "resign_response"
    act(client, op, {"action": "reject_resign"})
    assert snap(client)["awaiting"] != "resign_response"
    act(client, op, {"action": "resign", "level": "single"})
    out = act(client, op, {"action": "accept_resign"})
    assert any(d["decision"] == "game_over" for d in out["decisions"])
    assert snap(client)["score"] == [1, 0]


def test_undo_takes_back_the_play(client, op):
    opening(client, op, (6, 3))
    before = snap(client)["position_id"]
    act(client, op, {"action": "play", "play": "24/18 13/10"})
    assert snap(client)["position_id"] != before
    act(client, op, {"action": "undo"})
    s = snap(client)
    assert s["position_id"] == before and s["turn"] == "X" and s["dice"] == [6, 3]


def test_illegal_play_is_flagged_then_corrected(client, op):
    opening(client, op, (6, 3))
    out = act(client, op, {"action": "play", "play": "24/15 13/4"})  # 4 checkers' worth: illegal
    assert out["decisions"][0]["decision"] == "illegal_play_flagged"
    s = snap(client)
    assert s["flags"] and s["flags"][-1]["status"] == "open"
    public = client.get("/api/tables/1?public=1").get_json()
    assert "flags" not in public
    act(client, op, {"action": "correct", "play": "24/18 13/10"})
    s = snap(client)
    assert s["turn"] == "O" and s["flags"][-1]["status"] != "open"


def test_void_roll(client, op):
    opening(client, op, (6, 3))
    act(client, op, {"action": "play", "play": "24/18 13/10"})
    act(client, op, {"action": "roll", "dice": [2, 1]})
    out = act(client, op, {"action": "void", "reason": "cocked die"})
    assert out["decisions"][0]["decision"] == "void_roll"
    assert snap(client)["dice"] is None


def test_money_beaver(tmp_path):
    hall = make_hall(tmp_path / "m")
    hall.create_table(TableSettings(players=("A", "B"), match_length=0, beaver=True), table_id="m",
                      token="money")
    client = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "m"), "SECRET_KEY": "t"}, hall=hall).test_client()
    op = {"Authorization": "Bearer money"}
    act(client, op, {"action": "roll", "dice": [3, 1]}, "m")
    act(client, op, {"action": "play", "play": "8/5 6/5"}, "m")
    act(client, op, {"action": "double"}, "m")
    out = act(client, op, {"action": "beaver"}, "m")
    assert out["decisions"][0]["decision"] == "beaver" and out["decisions"][0]["cube"] == 4
    s = snap(client, "m")
    assert s["awaiting"] == "take_or_pass" and s["actor"] == "O"  # the doubler answers the beaver


# -- refusals change nothing ----------------------------------------------------------------------


BAD = [
    ({}, 401, None, {"action": "roll", "dice": [6, 3]}),
    ({"Authorization": "Bearer wrong"}, 403, None, {"action": "roll", "dice": [6, 3]}),
    ({"Authorization": "Basic VDo="}, 401, None, {"action": "roll", "dice": [6, 3]}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, "not json", None),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, "[1, 2]", None),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"dice": [6, 3]}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "fly"}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "roll"}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "roll", "dice": [7, 1]}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "roll", "dice": [6]}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "roll", "dice": [True, 1]}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "roll", "dice": "63"}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "play", "play": 42}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "resign", "level": "everything"}),
    ({"Authorization": f"Bearer {TOKEN}"}, 400, None, {"action": "double", "extra": 1}),
    ({"Authorization": f"Bearer {TOKEN}"}, 409, None, {"action": "play", "play": "24/18 13/10"}),
    ({"Authorization": f"Bearer {TOKEN}"}, 409, None, {"action": "take"}),
    ({"Authorization": f"Bearer {TOKEN}"}, 409, None, {"action": "accept_resign"}),
]


@pytest.mark.parametrize("headers,status,raw,body", BAD)
def test_bad_requests_change_nothing(client, headers, status, raw, body):
    before = snap(client)
    if raw is not None:
        r = client.post("/api/tables/1/actions", data=raw, headers={**headers, "Content-Type": "application/json"})
    else:
        r = client.post("/api/tables/1/actions", json=body, headers=headers)
    assert r.status_code == status, r.get_json()
    err = r.get_json()
    assert err["status"] == status and isinstance(err["error"], str) and err["error"]
    assert snap(client) == before


def test_bad_play_notation_mid_game_changes_nothing(client, op):
    opening(client, op, (6, 3))
    before = snap(client)
    r = client.post("/api/tables/1/actions", json={"action": "play", "play": "24-18 hello"}, headers=op)
    assert r.status_code == 400
    assert snap(client) == before
    r = client.post("/api/tables/1/actions", json={"action": "roll", "dice": [1, 2]}, headers=op)
    assert r.status_code == 409
    assert snap(client) == before


# -- starting matches -----------------------------------------------------------------------------


def test_start_match_from_loopback(client):
    r = client.post("/api/tables", json={"players": ["Carla", "Dan"], "match_length": 5, "crawford": True,
                                         "move_policy": "responsible"})
    assert r.status_code == 201, r.get_json()
    out = r.get_json()
    assert out["id"] != "1" and out["token"]
    t = client.get(f"/api/tables/{out['id']}").get_json()
    assert t["players"] == {"X": "Carla", "O": "Dan"} and t["match_length"] == 5
    r = client.post(f"/api/tables/{out['id']}/actions", json={"action": "roll", "dice": [6, 1]},
                    headers={"Authorization": f"Bearer {out['token']}"})
    assert r.status_code == 200
    # table 1's token does not open the new table
    r = client.post(f"/api/tables/{out['id']}/actions", json={"action": "play", "play": "13/7 8/7"},
                    headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 403


def test_start_money_session_with_options(client):
    r = client.post("/api/tables", json={"table_id": "money-1", "token": "s3cret",
                                         "settings": {"players": ["E", "F"], "match_length": 0, "jacoby": True,
                                                      "beaver": True, "automatic_doubles": 1, "cube_limit": 8,
                                                      "clock": {"delay_s": 12, "bank_s": 600}}})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["id"] == "money-1" and r.get_json()["token"] == "s3cret"
    t = client.get("/api/tables/money-1").get_json()
    assert t["match_length"] == 0 and t["settings"]["jacoby"] is True and t["clock"] is not None


@pytest.mark.parametrize("body,status", [
    ({"players": ["Same", "Same"]}, 400),
    ({"players": ["A", "B"], "match_length": -1}, 400),
    ({"players": ["A", "B"], "jacoby": True, "match_length": 7}, 400),
    ({"players": ["A", "B"], "move_policy": "anything"}, 400),
    ({"players": ["A", "B"], "colour": "blue"}, 400),
    ({"players": ["A", "B"], "table_id": "1"}, 409),
    ({"players": ["A", "B"], "table_id": "no spaces"}, 400),
    ({"players": ["A", "B"], "token": "x"}, 400),
])
def test_start_match_refusals(client, body, status):
    before = client.get("/api/tables").get_json()
    r = client.post("/api/tables", json=body)
    assert r.status_code == status, r.get_json()
    assert r.get_json()["error"]
    assert client.get("/api/tables").get_json() == before


def test_start_match_needs_admin_token_when_configured(hall, tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "d"), "SECRET_KEY": "t", "ADMIN_TOKEN": "boss"},
                     hall=hall)
    c = app.test_client()
    body = {"players": ["G", "H"], "match_length": 3}
    assert c.post("/api/tables", json=body).status_code == 401
    assert c.post("/api/tables", json=body, headers={"Authorization": "Bearer nope"}).status_code == 403
    assert len(c.get("/api/tables").get_json()) == 1
    assert c.post("/api/tables", json=body, headers={"Authorization": "Bearer boss"}).status_code == 201


def test_start_match_refused_from_another_machine(client):
    r = client.post("/api/tables", json={"players": ["G", "H"]}, environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert r.status_code == 403
    assert len(client.get("/api/tables").get_json()) == 1


# -- export and IDs -------------------------------------------------------------------------------


def test_export_mat(client, op):
    opening(client, op, (3, 1))
    act(client, op, {"action": "play", "play": "8/5 6/5"})
    r = client.get("/api/tables/1/export.mat")
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    assert "7 point match" in text and "Alice" in text and "Bob" in text
    assert "8/5 6/5" in text
    assert "attachment" in r.headers["Content-Disposition"]


def test_ids_of_any_moment(client, op):
    opening(client, op, (6, 3))
    act(client, op, {"action": "play", "play": "24/18 13/10"})
    now = snap(client)
    r = client.get("/api/tables/1/ids?at=0")
    assert r.status_code == 200
    first = r.get_json()
    assert first["position_id"] == "4HPwATDgc/ABMA"
    last = client.get("/api/tables/1/ids?at=-1").get_json()
    assert last["position_id"] == now["history"][-1]["position_id"]
    assert last["position_id"] != first["position_id"]
    also = client.get("/api/tables/1?at=1").get_json()
    assert also["at"]["position_id"] == last["position_id"]
    assert client.get("/api/tables/1/ids?at=9").status_code == 404
    assert client.get("/api/tables/1/ids?at=x").status_code == 400
    assert client.get("/api/tables/1/ids").get_json()["position_id"] == now["position_id"]
