"""``tablecompanion serve`` as a real process: manual mode with a token, a SIGKILL mid-match that loses
nothing, and demo mode playing a match through the referee by itself."""

from __future__ import annotations

import time

import pytest

from .server import Server

pytestmark = pytest.mark.slow


def test_manual_mode_survives_sigkill(tmp_path):
    args = ["--manual", "--token", "T", "--data-dir", str(tmp_path / "rec"), "--players", "Alice", "Bob"]
    srv = Server(args).start()
    try:
        assert srv.request("POST", "/api/tables/1/actions", {"action": "roll", "dice": [6, 3]})[0] == 401
        assert srv.request("POST", "/api/tables/1/actions", {"action": "roll", "dice": [6, 3]}, "X")[0] == 403
        srv.act({"action": "roll", "dice": [6, 3]}, "T")
        srv.act({"action": "play", "play": "24/18 13/10"}, "T")
        srv.act({"action": "roll", "dice": [5, 2]}, "T")
        before = srv.get("/api/tables/1")
        assert before["players"] == {"X": "Alice", "O": "Bob"} and before["dice"] == [5, 2]
    finally:
        srv.kill()
    # restarted without --token: the short console token "T" was recorded (hashed), so it still opens table 1
    again = Server([a for a in args if a not in ("--token", "T")], port=srv.port).start()
    try:
        after = again.get("/api/tables/1")
        for key in ("position_id", "match_id", "turn", "dice", "legal_plays", "score", "history", "cube"):
            assert after[key] == before[key], key
        again.act({"action": "play", "play": "13/8 13/11"}, "T")  # the match goes on, same token
        assert again.get("/api/tables/1")["turn"] == "X"
    finally:
        out = again.stop()
    assert "resumed" in out


def test_random_token_is_printed(tmp_path):
    srv = Server(["--manual", "--data-dir", str(tmp_path / "rec")]).start()
    try:
        time.sleep(0.3)
    finally:
        out = srv.stop()
    line = next(l for l in out.splitlines() if "operator token for table 1" in l)
    token = line.rsplit(":", 1)[1].strip()
    assert len(token) >= 8
    # a port of its own: the first server's may not be free again yet (it failed once under a full run)
    srv2 = Server(["--manual", "--data-dir", str(tmp_path / "rec"), "--token", token]).start()
    try:
        srv2.act({"action": "roll", "dice": [4, 1]}, token)
    finally:
        srv2.stop()


def test_demo_mode_plays_by_itself(tmp_path):
    env = {"TABLECOMPANION_DATA": str(tmp_path / "data"), "HOME": str(tmp_path)}
    srv = Server(["--demo-delay", "0.05", "--demo-vision-wait", "0"], env=env).start()
    try:
        deadline = time.monotonic() + 20
        n = 0
        while time.monotonic() < deadline:
            n = len(srv.get("/api/tables/1")["history"])
            if n >= 8:
                break
            time.sleep(0.2)
        assert n >= 8, "the demo did not play"
        t = srv.get("/api/tables/1")
        assert any(h["action"] == "play" and h.get("play") for h in t["history"])
    finally:
        out = srv.stop()
    assert "demo" in out and str(tmp_path / "data") in out
    assert list((tmp_path / "data" / "demo").iterdir())  # its record is on disk


def test_a_printed_random_token_never_starts_with_a_dash(monkeypatch):
    """Typed back as ``serve --token TOKEN``, a token starting with "-" is taken for an option."""
    import secrets

    from tablecompanion.cli.serve import console_token

    drawn = iter(["-abcdefghijk", "_-abcdefghij", "Abcdefghijkl"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert console_token() == "_-abcdefghij"
