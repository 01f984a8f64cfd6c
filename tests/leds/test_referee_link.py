"""The referee's side of the LED board (tablecompanion/referee/leds.py) on a real driver: a dead port
never holds up the referee, and on the firmware under simavr a roll lights its legal destinations
on the WS2812 pin."""

from __future__ import annotations

import threading
import time

import pytest

from tablecompanion.leds import layout
from tablecompanion.leds.board import SerialLedBoard
from tablecompanion.leds.model import rgb_output

referee = pytest.importorskip("tablecompanion.referee")
from tablecompanion.referee.leds import LedLink, led_state_for  # noqa: E402


def new_referee():
    return referee.Referee("1", referee.TableSettings(players=("A", "B")))


def test_a_dead_board_never_holds_up_the_referee():
    ref = new_referee()
    board = SerialLedBoard("/dev/nonexistent-ledboard", reconnect_delays=(0.05, 0.2))
    done = threading.Event()

    def play():
        LedLink(ref, board)
        ref.act({"action": "roll", "dice": [3, 1]})
        ref.act({"action": "play", "play": "8/5 6/5"})
        ref.act({"action": "roll", "dice": [6, 4]})
        done.set()

    try:
        threading.Thread(target=play, daemon=True).start()
        assert done.wait(10)
        assert ref.snapshot()["dice"] == [6, 4]
        # the referee did not wait for the board; the board's own thread reports the failure when its
        # first attempt to open the port has run (on a loaded machine that can come after the three acts)
        deadline = time.monotonic() + 5
        while board.link_stats().last_error is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not board.link_stats().connected and "nonexistent" in (board.link_stats().last_error or "")
    finally:
        board.close()


@pytest.mark.slow
def test_a_roll_lights_its_legal_destinations_on_the_mcu(sim):
    ref = new_referee()
    board = SerialLedBoard(sim.pty, reply_timeout=1.0)
    try:
        link = LedLink(ref, board)
        ref.act({"action": "roll", "dice": [3, 1]})  # X, sitting at the bottom, plays the opening 3-1
        state = led_state_for(ref.snapshot(public=False))
        assert 5 in state.lit_points()  # 8/5 6/5 makes the 5 point
        want = rgb_output(layout.render(state), state.brightness, 0)
        frame = sim.wait_for(lambda rgb: list(rgb) == want, timeout=30)
        assert frame.rgb[layout.point_led(5)] == (0, 255, 0)
        assert link.errors == 0
    finally:
        board.close()
