"""The HTML views: what each shows, who may act, CSRF on every form, the display without flags."""

from __future__ import annotations

import re

from .conftest import TOKEN


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert m, "no CSRF field on the page"
    return m.group(1)


def sign_in(client, table_id="1", token=TOKEN):
    page = client.get(f"/tables/{table_id}").get_data(as_text=True)
    r = client.post(f"/tables/{table_id}/operator", data={"csrf_token": csrf_of(page), "token": token})
    assert r.status_code == 302
    page = client.get(f"/tables/{table_id}").get_data(as_text=True)
    return page, csrf_of(page)


def api_act(client, op, body):
    r = client.post("/api/tables/1/actions", json=body, headers=op)
    assert r.status_code == 200, r.get_json()


def test_hall_lists_every_table(client):
    client.post("/api/tables", json={"players": ["Carla", "Dan"], "match_length": 11})
    html = client.get("/").get_data(as_text=True)
    assert "Alice" in html and "Bob" in html and "Carla" in html and "Dan" in html
    assert "7-point match" in html and "11-point match" in html
    assert html.count('class="hall-card') == 2
    assert "Opening roll" in html


def test_table_view_is_read_only_without_token(client):
    html = client.get("/tables/1").get_data(as_text=True)
    assert "<svg" in html and 'class="board"' in html
    assert 'id="controls"' not in html
    assert 'id="operator-form"' in html
    r = client.post("/tables/1/actions", data={"csrf_token": csrf_of(html), "action": "roll", "dice": "63"},
                    headers={"Accept": "application/json"})
    assert r.status_code == 403
    assert client.get("/api/tables/1").get_json()["history"] == []


def test_wrong_token_does_not_sign_in(client):
    page, _ = sign_in(client, token="guess")
    assert 'id="controls"' not in page
    assert "Wrong operator token" in page


def test_operator_plays_through_forms(client):
    page, csrf = sign_in(client)
    assert 'id="controls"' in page
    r = client.post("/tables/1/actions", data={"csrf_token": csrf, "action": "roll", "dice": "6 3"})
    assert r.status_code == 302
    page = client.get("/tables/1").get_data(as_text=True)
    assert "Alice to play 6-3" in page
    assert "24/18 13/10" in page  # among the legal plays
    r = client.post("/tables/1/actions", data={"csrf_token": csrf, "action": "play", "play": "24/18 13/10"})
    assert r.status_code == 302
    s = client.get("/api/tables/1").get_json()
    assert s["turn"] == "O" and s["history"][-1]["play"] == "24/18 13/10"
    page = client.get("/tables/1").get_data(as_text=True)
    assert "6-3: 24/18 13/10" in page  # in the history
    assert 'id="pips-X">158<' in page


def test_operator_json_actions_need_csrf_header(client):
    _, csrf = sign_in(client)
    r = client.post("/tables/1/actions", json={"action": "roll", "dice": [6, 3]})
    assert r.status_code == 400 and "CSRF" in r.get_json()["error"]
    assert client.get("/api/tables/1").get_json()["history"] == []
    r = client.post("/tables/1/actions", json={"action": "roll", "dice": [6, 3]}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200
    assert r.get_json()["table"]["dice"] == [6, 3]
    r = client.post("/tables/1/actions", json={"action": "take"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 409 and r.get_json()["error"]


def test_forms_without_csrf_are_refused(client):
    sign_in(client)
    r = client.post("/tables/1/actions", data={"action": "roll", "dice": "63"})
    assert r.status_code == 400
    r = client.post("/tables/1/actions", data={"action": "roll", "dice": "63", "csrf_token": "forged"})
    assert r.status_code == 400
    assert client.get("/api/tables/1").get_json()["history"] == []
    r = client.post("/tables/1/operator", data={"token": TOKEN})
    assert r.status_code == 400


def test_start_match_form(client):
    html = client.get("/tables/new").get_data(as_text=True)
    csrf = csrf_of(html)
    r = client.post("/tables", data={"csrf_token": csrf, "player_x": "Eve", "player_o": "Finn", "kind": "match",
                                     "match_length": "3", "crawford": "on", "move_policy": "responsible",
                                     "clock": "on", "clock_delay": "12", "clock_bank_min": "2",
                                     "table_id": "final", "token": "final-token"})
    assert r.status_code == 302 and r.headers["Location"].endswith("/tables/final")
    t = client.get("/api/tables/final").get_json()
    assert t["players"] == {"X": "Eve", "O": "Finn"} and t["match_length"] == 3
    assert t["settings"]["move_policy"] == "responsible" and t["settings"]["clock"]["delay_s"] == 12
    page = client.get("/tables/final").get_data(as_text=True)
    assert 'id="controls"' in page  # the creator is signed in as its operator
    r = client.post("/tables", data={"csrf_token": csrf, "player_x": "Same", "player_o": "Same"})
    assert r.status_code == 400 and "different names" in r.get_data(as_text=True)


def test_display_has_no_flags_and_no_controls(client, op):
    api_act(client, op, {"action": "roll", "dice": [6, 3]})
    api_act(client, op, {"action": "play", "play": "24/15 13/4"})  # illegal: flagged
    table = client.get("/tables/1").get_data(as_text=True)
    assert 'id="flag-list"' in table and "⚑" in table
    sign_in(client)
    display = client.get("/tables/1/display").get_data(as_text=True)
    assert "Alice" in display and "Bob" in display
    assert "flag" not in display.lower()
    assert "<form" not in display and "<button" not in display and "<input" not in display
    assert "24/15 13/4" not in display
    assert re.search(r'id="last-line">Alice wins the opening roll 6-3<', display)  # not the flagged play


def test_board_svg_draws_every_checker(client, op):
    api_act(client, op, {"action": "roll", "dice": [6, 4]})
    api_act(client, op, {"action": "play", "play": "24/14"})
    api_act(client, op, {"action": "roll", "dice": [6, 5]})
    api_act(client, op, {"action": "play", "play": "24/13"})  # O runs; X's blot on 14 is not hit
    svg = client.get("/tables/1/board.svg").get_data(as_text=True)
    assert 'class="die ' not in svg  # no dice between turns
    api_act(client, op, {"action": "roll", "dice": [2, 1]})
    svg = client.get("/tables/1/board.svg").get_data(as_text=True)
    assert svg.startswith("<svg")
    counts = {"X": 0, "O": 0}
    for owner, n in re.findall(r'class="pt" data-x="\d+" data-owner="([XO]?)" data-n="(\d+)"', svg):
        if owner:
            counts[owner] += int(n)
    for side, n in re.findall(r'class="barzone" data-side="([XO])" data-n="(\d+)"', svg):
        counts[side] += int(n)
    for side, n in re.findall(r'class="offzone" data-side="([XO])" data-n="(\d+)"', svg):
        counts[side] += int(n)
    assert counts == {"X": 15, "O": 15}
    assert re.search(r'class="pt" data-x="14" data-owner="X" data-n="1"', svg)
    assert 'class="die die-X' in svg  # X's roll is on the table


def test_export_and_unknown_pages(client, op):
    r = client.get("/tables/1/export.mat")
    assert r.status_code == 409 and "nothing to export" in r.get_data(as_text=True)
    assert client.get("/api/tables/1/export.mat").status_code == 409
    api_act(client, op, {"action": "roll", "dice": [6, 3]})
    assert client.get("/tables/1/export.mat").status_code == 200
    r = client.get("/tables/zzz")
    assert r.status_code == 404 and "Nothing here" in r.get_data(as_text=True)
    assert client.get("/tables/zzz/display").status_code == 404


def test_clock_and_game_over_are_shown(client):
    r = client.post("/api/tables", json={"players": ["Ida", "Jo"], "match_length": 3, "table_id": "c",
                                         "token": "clock-token", "clock": {"delay_s": 12, "bank_per_point_s": 120}})
    assert r.status_code == 201
    op = {"Authorization": "Bearer clock-token"}
    for body in ({"action": "roll", "dice": [3, 1]}, {"action": "play", "play": "8/5 6/5"}):
        assert client.post("/api/tables/c/actions", json=body, headers=op).status_code == 200
    page = client.get("/tables/c").get_data(as_text=True)
    m = re.search(r'id="clock-O" data-seconds="([0-9.]+)" data-delay="([0-9.]+)" data-running="1">(\d+:\d\d)<', page)
    assert m, "O's clock runs after X's play"
    assert 350 < float(m.group(1)) <= 360 and m.group(3) in ("6:00", "5:59")
    assert 'id="clock-X"' in page and 'data-running="0"' in page
    for body in ({"action": "double"}, {"action": "pass"}):
        assert client.post("/api/tables/c/actions", json=body, headers=op).status_code == 200
    page = client.get("/tables/c").get_data(as_text=True)
    assert "Jo won game 1 (1 pt) · opening roll next" in page  # Jo doubled, Ida passed
    assert "Earlier games" in page and "Jo wins 1 (double passed)" in page
