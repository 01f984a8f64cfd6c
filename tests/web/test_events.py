"""Live updates: every change reaches every open stream, flags stay off the public one, and a closed
stream leaves no listener behind."""

from __future__ import annotations

import json
import time



class Stream:
    """Reads SSE messages from a streaming test-client response."""

    def __init__(self, client, url):
        self.resp = client.get(url, buffered=False)
        assert self.resp.status_code == 200
        assert self.resp.mimetype == "text/event-stream"
        self.it = iter(self.resp.response)
        self.buf = ""

    def next_message(self, kind=None, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while "\n\n" in self.buf:
                block, self.buf = self.buf.split("\n\n", 1)
                fields = dict(line.split(": ", 1) for line in block.splitlines()
                              if ": " in line and not line.startswith(":"))
                if "data" in fields and (kind is None or fields.get("event") == kind):
                    return fields.get("event"), json.loads(fields["data"])
            try:
                chunk = next(self.it)
            except StopIteration:
                break
            self.buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        raise AssertionError(f"no {kind or 'SSE'} message within {timeout} s")

    def close(self):
        self.resp.close()


def act(client, op, body, table_id="1"):
    r = client.post(f"/api/tables/{table_id}/actions", json=body, headers=op)
    assert r.status_code == 200, r.get_json()


def test_table_stream_sends_state_then_each_change(client, op):
    s = Stream(client, "/tables/1/events")
    kind, first = s.next_message("state")
    assert first["table"]["awaiting"] == "opening_roll"
    assert "<svg" in first["html"]["board"] and "Alice" in first["html"]["panel"]
    act(client, op, {"action": "roll", "dice": [6, 3]})
    _, second = s.next_message("state")
    assert second["seq"] > first["seq"]
    assert second["table"]["dice"] == [6, 3]
    assert "24/18 13/10" in [p["play"] for p in second["plays"]]
    steps = {p["play"]: p["steps"] for p in second["plays"]}
    assert sorted(steps["24/18 13/10"]) == [[13, 10], [24, 18]]
    assert second["events"][0]["decisions"][0]["decision"] == "opening_roll"
    assert "6-3" in second["html"]["panel"]
    s.close()


def test_api_alias_and_unknown_table(client):
    s = Stream(client, "/api/tables/1/events")
    assert s.next_message("state")[1]["table"]["id"] == "1"
    s.close()
    assert client.get("/tables/nope/events").status_code == 404


def test_public_stream_leaves_flags_out(client, op):
    full = Stream(client, "/tables/1/events")
    public = Stream(client, "/tables/1/events?view=display")
    full.next_message("state")
    public.next_message("state")
    act(client, op, {"action": "roll", "dice": [6, 3]})
    full.next_message("state")
    public.next_message("state")
    act(client, op, {"action": "play", "play": "24/15 13/4"})  # illegal: flagged
    _, f = full.next_message("state")
    _, p = public.next_message("state")
    assert f["table"]["flags"] and "flags" not in p["table"]
    assert "illegal_play_flagged" in [d["decision"] for d in f["events"][0]["decisions"]]
    assert "illegal_play_flagged" not in json.dumps(p)
    assert "24/15 13/4" not in json.dumps(p["html"])
    assert p["plays"] == [] and "flags" not in p["html"]
    full.close()
    public.close()


def test_many_listeners_get_the_same_update(client, op):
    streams = [Stream(client, "/tables/1/events") for _ in range(12)]
    for s in streams:
        s.next_message("state")
    act(client, op, {"action": "roll", "dice": [5, 2]})
    seqs = {s.next_message("state")[1]["seq"] for s in streams}
    assert len(seqs) == 1  # one rendering shared by every listener
    for s in streams:
        s.close()


def test_hall_stream_announces_changes_and_new_tables(client, op):
    s = Stream(client, "/events")
    _, first = s.next_message("table")
    assert first["table"]["id"] == "1" and 'id="card-1"' in first["html"]
    act(client, op, {"action": "roll", "dice": [6, 3]})
    _, msg = s.next_message("table")
    assert msg["table"]["id"] == "1" and msg["table"]["turn"] == "X"
    r = client.post("/api/tables", json={"players": ["Carla", "Dan"], "match_length": 3})
    new_id = r.get_json()["id"]
    _, msg = s.next_message("table")
    assert msg["table"]["id"] == new_id and "Carla" in msg["html"]
    s.close()


def test_closed_streams_are_forgotten(app, client):
    broker = app.extensions["tablecompanion"].broker
    s = Stream(client, "/tables/1/events")
    s.next_message("state")
    assert broker.listener_count(("table", "1", "full")) == 1
    s.close()
    assert broker.listener_count(("table", "1", "full")) == 0


def test_stream_ends_after_max_time_with_heartbeats(client):
    s = Stream(client, "/tables/1/events")
    s.next_message("state")
    text = ""
    t0 = time.monotonic()
    for chunk in s.it:  # SSE_MAX_S = 2 s in the test config
        text += chunk.decode()
    assert time.monotonic() - t0 < 4
    assert ": ping" in text
