"""The host driver against the in-process emulated board: non-blocking show, acks, retries,
events, reconnects, bad callbacks."""

from __future__ import annotations

import threading
import time

import pytest

from tablecompanion.leds import layout
from tablecompanion.leds.board import LedBoard, discover, open_board
from tablecompanion.leds.emulated import EmulatedLedBoard
from tablecompanion.leds.errors import BoardNotFound, LedError
from tablecompanion.leds.state import LedState, Light

STATE = LedState().with_point(3, "green").with_turn("bottom").with_cube(4, "top")


def wait_until(predicate, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


@pytest.fixture
def board():
    b = EmulatedLedBoard()
    yield b
    b.close()


def test_open_board_emulated_is_a_led_board():
    with open_board("emulated") as b:
        assert isinstance(b, LedBoard)


def test_show_reaches_the_board(board):
    board.show(STATE)
    assert board.wait_shown(10)
    lights = board.lights()
    assert lights[layout.point_led(3)] == Light("green", "on")
    assert lights[layout.TURN_BOTTOM] == Light("white", "on")
    assert lights[layout.CUBE_OWNER_TOP].lit
    stats = board.link_stats()
    assert stats.connected and stats.firmware == "1.0" and stats.acked >= 2 and stats.rtt_median_ms is not None


def test_home_left_orientation_changes_addressing():
    with EmulatedLedBoard(home="left") as b:
        b.show(LedState().with_point(1, "red"))
        assert b.wait_shown(10)
        assert b.lights()[layout.point_led(1, "left")] == Light("red", "on")
        assert not b.lights()[layout.point_led(1, "right")].lit


def test_show_rejects_non_states_in_the_caller(board):
    with pytest.raises(TypeError):
        board.show("all green")  # type: ignore[arg-type]


def test_latest_state_wins(board):
    for p in range(1, 25):
        board.show(LedState().with_point(p, "blue"))
    assert board.wait_shown(10)
    lit = [i for i, light in enumerate(board.lights()[:24]) if light.lit]
    assert lit == [layout.point_led(24)]


def test_events_are_delivered_once(board):
    got = []
    board.on_event(got.append)
    assert board.wait_connected(10)
    board.press("double")
    board.press("done")
    assert wait_until(lambda: len(got) >= 2)
    time.sleep(0.6)  # longer than the board's retry interval: a lost ack would show as a duplicate
    assert got == ["double", "done"]


def test_a_failing_callback_does_not_stop_events(board):
    got = []
    board.on_event(lambda b: 1 / 0)
    board.on_event(got.append)
    assert board.wait_connected(10)
    board.press("pass")
    assert wait_until(lambda: got == ["pass"])


def test_retries_recover_lost_and_corrupted_frames():
    with EmulatedLedBoard(drop_rate=0.2, corrupt_rate=0.2, seed=3, reply_timeout=0.05, retries=6) as b:
        for i in range(30):
            b.show(LedState().with_point(i % 24 + 1, "green"))
            assert b.wait_shown(20)
        stats = b.link_stats()
        assert stats.retries > 0
        assert b.lights()[layout.point_led(29 % 24 + 1)] == Light("green", "on")


def test_unplug_never_blocks_and_replug_resends_the_state(board):
    board.show(STATE)
    assert board.wait_shown(10)
    board.unplug()
    assert wait_until(lambda: not board.link_stats().connected)
    done = threading.Event()

    def referee():
        for p in range(1, 25):
            board.show(LedState().with_point(p, "red"))
        done.set()

    threading.Thread(target=referee).start()
    assert done.wait(5)  # show() returned 24 times with no board
    assert not board.wait_shown(0.2)
    board.replug(reboot=True)  # power-cycled: the board forgot everything
    assert board.wait_shown(10)
    assert board.lights()[layout.point_led(24)] == Light("red", "on")
    assert board.link_stats().reconnects == 1


def test_board_restart_under_a_live_link_is_handled(board):
    board.show(STATE)
    assert board.wait_shown(10)
    board.model.__init__()  # reset without unplugging: the next frame gets "handshake required"
    board.show(STATE.with_point(9, "blue"))
    assert board.wait_shown(10)
    assert board.lights()[layout.point_led(9)] == Light("blue", "on")


def test_close_is_prompt_and_idempotent():
    b = EmulatedLedBoard()
    b.show(STATE)
    b.close()
    b.close()
    assert not b.link_stats().connected


def test_unreachable_port_reports_not_crashes():
    with open_board("/dev/nonexistent-ledboard", reconnect_delays=(0.05, 0.1)) as b:
        b.show(STATE)
        assert not b.wait_shown(0.5)
        stats = b.link_stats()
        assert not stats.connected
        assert "nonexistent" in (stats.last_error or "")


def test_discovery_without_boards_says_what_to_do(monkeypatch):
    monkeypatch.delenv("TABLECOMPANION_LED_PORT", raising=False)
    with pytest.raises(BoardNotFound, match="--port"):
        discover(ports=[])


def test_empty_spec_is_an_error():
    with pytest.raises(LedError):
        open_board("")


def test_link_quality_is_logged_when_frames_are_lost(caplog, monkeypatch):
    import logging

    from tablecompanion.leds import board as board_module

    monkeypatch.setattr(board_module, "QUALITY_LOG_INTERVAL_S", 0.0)
    with caplog.at_level(logging.WARNING, logger="tablecompanion.leds"):
        with EmulatedLedBoard(drop_rate=0.3, seed=5, reply_timeout=0.03, retries=8, heartbeat_s=0.05) as b:
            for i in range(10):
                b.show(LedState().with_point(i + 1, "green"))
                assert b.wait_shown(20)
            assert wait_until(lambda: "LED link quality" in caplog.text)
    assert "retries" in caplog.text


def test_a_state_the_board_rejects_is_not_resent_forever(board):
    from tablecompanion.leds import protocol as p

    assert board.wait_connected(10)
    original = board.model._handle

    def refuse_states(frame):
        if frame.type == p.T_STATE:
            return board.model._error(frame.seq, p.E_BAD_VALUE, 2)
        return original(frame)

    board.model._handle = refuse_states
    board.show(STATE)
    assert board.wait_shown(10)  # settled (refused), not retried in a loop
    sent = board.link_stats().sent
    time.sleep(0.3)
    assert board.link_stats().sent - sent <= 1  # at most a heartbeat, no resend storm
    assert "rejected" in (board.link_stats().last_error or "")
    board.model._handle = original
    board.show(STATE.with_point(1, "red"))
    assert board.wait_shown(10)
    assert board.lights()[layout.point_led(1)] == Light("red", "on")


def test_snapshot_for_a_dashboard(board):
    import json

    board.show(LedState().with_point(6, "green"))
    assert board.wait_shown(10)
    snap = board.snapshot()
    json.dumps(snap)
    point6 = next(item for item in snap if item["name"] == "point 6")
    assert point6["colour"] == "green" and point6["mode"] == "on" and point6["rgb"] == [0, 255, 0]
    assert len(snap) == 41


def test_a_board_behind_a_pyserial_url():
    """``socket://host:port`` (a network serial bridge such as ser2net) opens like a device path."""
    import socket

    from tablecompanion.leds.board import SerialLedBoard
    from tablecompanion.leds.model import FirmwareModel

    model = FirmwareModel()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    stop = threading.Event()

    def bridge():
        conn, _ = server.accept()
        conn.settimeout(0.05)
        with conn:
            while not stop.is_set():
                try:
                    data = conn.recv(4096)
                except socket.timeout:
                    continue
                if not data:
                    return
                model.feed(data)
                conn.sendall(model.take_output())

    threading.Thread(target=bridge, daemon=True).start()
    url = f"socket://127.0.0.1:{server.getsockname()[1]}"
    try:
        with SerialLedBoard(url, reply_timeout=1.0) as b:
            b.show(STATE)
            assert b.wait_shown(10)
            assert b.link_stats().port == url
        assert bytes(model.leds) == layout.render(STATE)
    finally:
        stop.set()
        server.close()
