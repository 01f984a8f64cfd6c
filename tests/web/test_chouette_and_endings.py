"""What players see of a chouette (box, team, members answering the box's double) and of a match that is
over (nobody on turn, no Crawford badge, a time-out said as such), through the API and the views."""

from __future__ import annotations

import re
import time

from .test_views import csrf_of, sign_in

CH = {"Authorization": "Bearer chouette-tok"}


def _chouette(client):
    r = client.post("/api/tables", json={"chouette": ["Box", "Cap", "Mem"], "match_length": 0,
                                         "table_id": "ch", "token": "chouette-tok"})
    assert r.status_code == 201, r.get_json()
    for body in ({"action": "roll", "dice": [6, 1]}, {"action": "play", "play": "13/7 8/7"},
                 {"action": "roll", "dice": [3, 1]}, {"action": "play", "play": "8/5 6/5"},
                 {"action": "double"}):
        r = client.post("/api/tables/ch/actions", json=body, headers=CH)
        assert r.status_code == 200, r.get_json()


def test_team_members_answer_the_box_double_through_the_api(client):
    _chouette(client)
    assert client.get("/api/tables/ch").get_json()["awaiting"] == "members_respond"
    r = client.post("/api/tables/ch/actions", json={"action": "take", "member": 7}, headers=CH)
    assert r.status_code == 400 and "member" in r.get_json()["error"]
    r = client.post("/api/tables/ch/actions", json={"action": "take", "member": "Cap"}, headers=CH)
    assert r.status_code == 200
    assert r.get_json()["decisions"][0]["message"] == "Cap takes"
    r = client.post("/api/tables/ch/actions", json={"action": "pass", "member": "Mem"}, headers=CH)
    snap = r.get_json()["table"]
    assert snap["awaiting"] == "roll" and snap["chouette"]["scores"] == {"Box": 1, "Cap": 0, "Mem": -1}


def test_chouette_panel_and_member_controls(client):
    _chouette(client)
    page, csrf = sign_in(client, "ch", "chouette-tok")
    assert "The team answers the box&#39;s double" in page
    panel = re.search(r'<div class="chouette" id="chouette">.*?</div>', page, re.S).group(0)
    assert "Box <b>Box</b> against <b>Cap</b> (captain) with Mem" in panel
    assert "Waiting for: Cap, Mem" in panel
    assert 'data-action="take" data-member="Mem"' in page  # one take/pass per member in the controls
    r = client.post("/tables/ch/actions", data={"csrf_token": csrf, "action": "pass", "member": "Mem"})
    assert r.status_code == 302
    assert client.get("/api/tables/ch").get_json()["chouette"]["waiting_for"] == ["Cap"]
    client.post("/tables/ch/actions", data={"csrf_token": csrf, "action": "take", "member": "Cap"})
    for body in ({"action": "resign", "level": "single", "player": "X"}, {"action": "accept_resign"}):
        assert client.post("/api/tables/ch/actions", json=body, headers=CH).status_code == 200
    page = client.get("/tables/ch").get_data(as_text=True)
    # the seats rotated (Cap is the box now), but game 1 was won by Cap's team
    assert "Cap&#39;s team won game 1" in page and "Box <b>Cap</b> against <b>Mem</b>" in page


def test_a_finished_match_has_nobody_on_turn_and_no_crawford_badge(client, op):
    r = client.post("/api/tables", json={"players": ["Ann", "Ben"], "match_length": 2, "table_id": "e",
                                         "token": "end-token"})
    assert r.status_code == 201
    h = {"Authorization": "Bearer end-token"}
    for body in ({"action": "roll", "dice": [3, 1]}, {"action": "play", "play": "8/5 6/5"},
                 {"action": "resign", "level": "single", "player": "O"}, {"action": "accept_resign"}):
        assert client.post("/api/tables/e/actions", json=body, headers=h).status_code == 200
    assert client.get("/api/tables/e").get_json()["crawford"] == "crawford"  # 1-0 in a 2-point match
    for body in ({"action": "roll", "dice": [6, 1]}, {"action": "resign", "level": "single", "player": "O"},
                 {"action": "accept_resign"}):
        assert client.post("/api/tables/e/actions", json=body, headers=h).status_code == 200
    snap = client.get("/api/tables/e").get_json()
    assert snap["status"] == "match_over" and snap["turn"] is not None
    for url in ("/", "/tables/e", "/tables/e/display"):
        html = client.get(url).get_data(as_text=True)
        block = html if url != "/" else re.search(r'id="card-e".*?</a>', html, re.S).group(0)
        assert "Match over · Ann wins" in block, url
        assert "on-turn" not in block and "Crawford game" not in block, url


def test_a_time_out_is_said_on_the_page(client):
    r = client.post("/api/tables", json={"players": ["Cat", "Dan"], "match_length": 1, "table_id": "t",
                                         "token": "time-token", "clock": {"delay_s": 0, "bank_per_point_s": 0.2}})
    assert r.status_code == 201
    r = client.post("/api/tables/t/actions", json={"action": "roll", "dice": [6, 1]},
                    headers={"Authorization": "Bearer time-token"})
    assert r.status_code == 200
    time.sleep(0.4)
    client.application.extensions["tablecompanion"].hall.tick()
    html = client.get("/tables/t").get_data(as_text=True)
    assert "Dan wins on time (Cat ran out of time)" in html
    assert csrf_of(html)


def test_each_history_row_gives_the_ids_of_that_moment(client, op):
    for body in ({"action": "roll", "dice": [6, 3]}, {"action": "play", "play": "24/18 13/10"}):
        assert client.post("/api/tables/1/actions", json=body, headers=op).status_code == 200
    after_play = client.get("/api/tables/1/ids?at=1").get_json()
    html = client.get("/tables/1").get_data(as_text=True)
    row = re.search(r'<li class="h-play"[^>]*title="after this: ([^"]+)"', html)
    assert row, "the play's history row has no IDs"
    assert row.group(1) == f"GNUBG ID {after_play['gnubg_id']} · {after_play['xgid']}"


def test_hall_card_of_a_chouette_names_box_and_team(client):
    _chouette(client)
    card = re.search(r'id="card-ch".*?</a>', client.get("/").get_data(as_text=True), re.S).group(0)
    assert "Chouette of 3" in card and "Box Box · team Cap, Mem" in card


def test_crawford_game_says_roll_not_roll_or_double(client):
    r = client.post("/api/tables", json={"players": ["Ida", "Jo"], "match_length": 3, "table_id": "cr",
                                         "token": "crawford"})
    assert r.status_code == 201
    h = {"Authorization": "Bearer crawford"}
    for body in ({"action": "roll", "dice": [3, 1]}, {"action": "play", "play": "8/5 6/5"},
                 {"action": "double"}, {"action": "take"}, {"action": "roll", "dice": [6, 4]},
                 {"action": "play", "play": "24/14"}, {"action": "resign", "level": "single"},
                 {"action": "accept_resign"}, {"action": "roll", "dice": [5, 2]},
                 {"action": "play", "play": "13/8 13/11"}):
        assert client.post("/api/tables/cr/actions", json=body, headers=h).status_code == 200, body
    snap = client.get("/api/tables/cr").get_json()
    assert snap["crawford"] == "crawford" and snap["can_double"] is False
    html = client.get("/tables/cr").get_data(as_text=True)
    assert ">Jo to roll<" in html and "Crawford game" in html


def test_a_gammon_is_named_when_the_game_ends(client, op):
    for body in ({"action": "roll", "dice": [3, 1]}, {"action": "play", "play": "8/5 6/5"},
                 {"action": "resign", "level": "gammon"}, {"action": "accept_resign"}):
        assert client.post("/api/tables/1/actions", json=body, headers=op).status_code == 200
    html = client.get("/tables/1/display").get_data(as_text=True)
    assert "Alice won game 1 (gammon, 2 pts) · opening roll next" in html


def test_accept_and_reject_answer_whatever_is_on_offer(client, op):
    def act(body):
        return client.post("/api/tables/1/actions", json=body, headers=op)

    assert act({"action": "accept"}).status_code == 409  # nothing on offer: refused, nothing recorded
    assert client.get("/api/tables/1").get_json()["history"] == []
    for body in ({"action": "roll", "dice": [3, 1]}, {"action": "play", "play": "8/5 6/5"},
                 {"action": "double"}):
        assert act(body).status_code == 200
    r = act({"action": "accept"})
    assert r.status_code == 200 and r.get_json()["decisions"][0]["decision"] == "double_taken"
    for body in ({"action": "roll", "dice": [6, 4]}, {"action": "play", "play": "24/14"},
                 {"action": "resign", "level": "gammon"}):
        assert act(body).status_code == 200
    r = act({"action": "reject"})
    assert r.get_json()["decisions"][0]["decision"] == "resign_rejected"
    act({"action": "resign", "level": "single"})
    snap = act({"action": "accept"}).get_json()["table"]
    assert snap["score"] == [0, 2] and snap["status"] == "game_over"  # single x cube 2, to Bob


def test_an_open_flag_says_what_happens_next_under_each_policy(client, op):
    client.post("/api/tables", json={"players": ["Rita", "Sam"], "match_length": 5, "move_policy": "responsible",
                                     "table_id": "rm", "token": "resp-token"})
    h = {"Authorization": "Bearer resp-token"}
    for table, head in (("1", op), ("rm", h)):
        for body in ({"action": "roll", "dice": [6, 4]}, {"action": "play", "play": "24/18 13/10"}):
            assert client.post(f"/api/tables/{table}/actions", json=body, headers=head).status_code == 200
    legal = client.get("/tables/1").get_data(as_text=True)
    assert "Alice must correct it before Bob rolls." in legal
    responsible = client.get("/tables/rm").get_data(as_text=True)
    assert "Sam may accept it or ask for a correction; rolling or doubling lets it stand." in responsible
    assert "flag-note" not in client.get("/tables/rm/display").get_data(as_text=True)  # never on the display


def test_start_match_form_names_the_dice_sets(client):
    from .test_views import csrf_of

    csrf = csrf_of(client.get("/tables/new").get_data(as_text=True))
    base = {"csrf_token": csrf, "player_x": "Eve", "player_o": "Finn", "kind": "match", "match_length": "3"}
    r = client.post("/tables", data={**base, "dice_set_x": "red", "table_id": "half"})
    assert r.status_code == 400 and "both dice sets" in r.get_data(as_text=True)
    r = client.post("/tables", data={**base, "dice_set_x": "red", "dice_set_o": "white", "table_id": "ds"})
    assert r.status_code == 302
    assert client.get("/api/tables/ds").get_json()["settings"]["dice_sets"] == ["red", "white"]
    client.post("/tables/ds/actions", data={"csrf_token": csrf, "action": "roll", "dice": "5 2"})
    stats = client.get("/api/dice").get_json()
    assert stats["red"]["faces"]["5"] == 1 and stats["white"]["faces"]["2"] == 1


def test_start_a_chouette_from_the_form(client):
    from .test_views import csrf_of

    csrf = csrf_of(client.get("/tables/new").get_data(as_text=True))
    r = client.post("/tables", data={"csrf_token": csrf, "kind": "chouette", "chouette_players": "Ann, Ben",
                                     "table_id": "c2"})
    assert r.status_code == 400 and "at least three names" in r.get_data(as_text=True)
    r = client.post("/tables", data={"csrf_token": csrf, "kind": "chouette", "chouette_players": "Ann, Ben, Cat",
                                     "table_id": "c3", "crawford": "on"})
    assert r.status_code == 302
    snap = client.get("/api/tables/c3").get_json()
    assert snap["match_length"] == 0 and snap["chouette"]["box"] == "Ann" and snap["chouette"]["team"] == ["Ben", "Cat"]
    r = client.post("/tables", data={"csrf_token": csrf, "kind": "match", "player_x": "", "player_o": "Bo"})
    assert r.status_code == 400 and "two non-empty names" in r.get_data(as_text=True)
