"""The real firmware on the emulated MCU (simavr), driven over its pty exactly like a USB port.

Colours are asserted from the WS2812 pulses the harness decodes on the data pin, and compared with
what the Python model predicts, so the firmware's palette, brightness and power limiter are checked
bit for bit.
"""

from __future__ import annotations

import time

import pytest

from tablecompanion.leds import layout
from tablecompanion.leds import protocol as p
from tablecompanion.leds.board import SerialLedBoard, default_opener
from tablecompanion.leds.errors import BoardErrorReply
from tablecompanion.leds.link import Link
from tablecompanion.leds.model import LED_BUDGET_MA, rgb_output
from tablecompanion.leds.state import LedState

pytestmark = pytest.mark.slow

STEADY = (LedState().with_point(3, "green").with_point(20, "red").with_turn("bottom")
          .with_cube(8, "top").with_bar("top", "cyan").with_tray("bottom", "purple"))


def expected(state: LedState, home: str = "right"):
    return rgb_output(layout.render(state, home), state.brightness, 0)


@pytest.fixture
def link(sim):
    port = default_opener(sim.pty)
    link = Link(port, reply_timeout=1.0, retries=3)
    link.hello()
    yield link
    port.close()


def send(link, state: LedState, home: str = "right") -> float:
    return link.send_state(p.state_payload(layout.render(state, home), state.brightness))


def test_boot_shows_dim_status_light(sim):
    frame = sim.wait_for(lambda rgb: len(rgb) == p.LED_COUNT, timeout=20)
    assert frame.rgb[layout.STATUS] == (40, 40, 40)
    assert all(c == (0, 0, 0) for c in frame.rgb[:24])


def test_handshake_over_the_pty(link):
    assert link.info.firmware == "1.0" and link.info.led_count == p.LED_COUNT


def test_state_frame_lights_exactly_the_predicted_leds(sim, link):
    send(link, STEADY)
    frame = sim.wait_for(lambda rgb: list(rgb) == expected(STEADY), timeout=20)
    assert frame.rgb[layout.point_led(3)] == (0, 255, 0)
    assert frame.rgb[layout.point_led(20)] == (255, 0, 0)
    assert frame.rgb[layout.TURN_BOTTOM] == (255, 255, 255)
    assert not sim.bad_bursts and not sim.overruns


def test_orientation_left_on_the_wire(sim, link):
    state = LedState().with_point(1, "blue")
    send(link, state, "left")
    frame = sim.wait_for(lambda rgb: list(rgb) == expected(state, "left"), timeout=20)
    assert frame.rgb[11] == (0, 0, 255) and frame.rgb[0] == (0, 0, 0)


def test_firmware_blinks_on_its_own(sim, link):
    state = LedState().with_point(5, "red", "blink")
    send(link, state)
    led = layout.point_led(5)
    start = sim.frame_count()
    # the state may land in either phase: time a whole off half-period, from the first switch-off
    # after a lit frame to the next switch-on
    lit = sim.wait_for(lambda rgb: rgb[led] == (255, 0, 0), timeout=20, after=start)
    off = sim.wait_for(lambda rgb: rgb[led] == (0, 0, 0), timeout=20, after=sim.frames.index(lit) + 1)
    on = sim.wait_for(lambda rgb: rgb[led] == (255, 0, 0), timeout=20, after=sim.frames.index(off) + 1)
    # half period 250 ms, measured on the simulated clock (cycle stamps), not the wall clock
    assert 200 <= on.time_ms - off.time_ms <= 300


def test_power_limiter_keeps_full_white_within_budget(sim, link):
    white = LedState().with_points(range(1, 25), "white").with_bar("bottom", "white").with_bar("top", "white")
    send(link, white)
    frame = sim.wait_for(lambda rgb: list(rgb) == expected(white), timeout=20)
    assert sum(map(sum, frame.rgb)) * 20 / 255 <= LED_BUDGET_MA
    assert frame.rgb[0][0] > 0


def test_error_replies_from_the_firmware(link):
    with pytest.raises(BoardErrorReply) as err:
        link.request(0x42, b"", p.T_ACK)
    assert err.value.code == p.E_UNKNOWN_TYPE
    with pytest.raises(BoardErrorReply) as err:
        link.request(p.T_STATE, bytes(5), p.T_ACK)
    assert err.value.code == p.E_BAD_LENGTH
    with pytest.raises(BoardErrorReply) as err:
        link.request(p.T_HELLO, bytes([7]), p.T_HELLO_REPLY)
    assert err.value.code == p.E_BAD_VERSION


def test_host_lost_pattern_then_recovery(sim, link):
    send(link, STEADY)
    sim.wait_for(lambda rgb: list(rgb) == expected(STEADY), timeout=20)
    lost = sim.wait_for(lambda rgb: rgb[0] == (48, 0, 0) and rgb[layout.STATUS] == (255, 0, 0), timeout=30)
    assert lost.rgb[layout.TURN_BOTTOM] == (0, 0, 0)
    # the firmware dropped the session with the host: a new handshake, one full frame, and it is back
    with pytest.raises(BoardErrorReply):
        send(link, STEADY)
    link.hello()
    send(link, STEADY)
    sim.wait_for(lambda rgb: list(rgb) == expected(STEADY), timeout=20, after=sim.frames.index(lost))


def test_pings_keep_the_host_alive(sim, link):
    send(link, STEADY)
    end = time.monotonic() + 4.5
    while time.monotonic() < end:
        counters = link.ping()
        time.sleep(0.5)
    assert counters.session and counters.bad_frames == 0
    assert list(sim.latest().rgb) == expected(STEADY)


def test_button_press_reaches_the_driver(sim):
    got = []
    with SerialLedBoard(sim.pty, reply_timeout=1.0) as board:
        board.on_event(got.append)
        assert board.wait_connected(20)
        sim.press("double")
        end = time.monotonic() + 20
        while not got and time.monotonic() < end:
            time.sleep(0.02)
        time.sleep(0.6)
    assert got == ["double"]


def test_serial_board_shows_and_reports_latency(sim):
    with SerialLedBoard(sim.pty, reply_timeout=1.0) as board:
        for i in range(20):
            board.show(STEADY.with_point(i + 1, "yellow"))
            assert board.wait_shown(20)
        final = STEADY.with_point(20, "yellow")
        sim.wait_for(lambda rgb: list(rgb) == expected(final), timeout=20)
        stats = board.link_stats()
    assert stats.states_shown >= 1 and stats.rtt_median_ms is not None and stats.timeouts == 0


def test_reconnect_after_the_board_goes_away(built):
    """Harness killed (cable pulled) and restarted (plugged back, freshly booted): state resent."""
    from tablecompanion.leds.simulated import SimulatedBoard

    elf, harness = built
    current = {"sim": SimulatedBoard(elf, harness)}
    board = SerialLedBoard("sim", reply_timeout=0.5, retries=2, heartbeat_s=0.3,
                           reconnect_delays=(0.05, 0.2), opener=lambda _: default_opener(current["sim"].pty))
    try:
        board.show(STEADY)
        assert board.wait_shown(20)
        current["sim"].close()
        end = time.monotonic() + 20
        while board.link_stats().connected and time.monotonic() < end:
            time.sleep(0.05)
        assert not board.link_stats().connected
        current["sim"] = SimulatedBoard(elf, harness)
        current["sim"].wait_for(lambda rgb: list(rgb) == expected(STEADY), timeout=30)
        assert board.link_stats().reconnects >= 1
    finally:
        board.close()
        current["sim"].close()


def test_firmware_repeats_an_event_until_acknowledged(sim):
    """Read the raw line (no driver, so nothing acknowledges): the same event comes again and again,
    and stops once acknowledged."""
    port = default_opener(sim.pty)
    try:
        decoder = p.FrameDecoder()
        port.reset_input_buffer()
        sim.press("take")
        events = []
        end = time.monotonic() + 20
        while len(events) < 3 and time.monotonic() < end:
            events += [f for f in decoder.feed(port.read(64)) if f.type == p.T_EVENT]
        assert len(events) >= 3
        assert len({(f.seq, f.payload) for f in events}) == 1
        assert p.BUTTONS[events[0].payload[0]] == "take"
        # ACK then PING: the firmware handles frames in order, so once the PONG is here the ACK has
        # been processed and no copy of the event may follow (copies before it are fine).
        port.write(p.encode_frame(p.T_EVENT_ACK, events[0].seq) + p.encode_frame(p.T_PING, 77))
        after_pong = None
        end = time.monotonic() + 30
        while time.monotonic() < end:
            frames = decoder.feed(port.read(64))
            if after_pong is not None:
                after_pong += [f for f in frames if f.type == p.T_EVENT]
            else:
                for i, f in enumerate(frames):
                    if f.type == p.T_PONG and f.seq == 77:
                        after_pong = [g for g in frames[i + 1:] if g.type == p.T_EVENT]
                        end = time.monotonic() + 1.0  # longer than the 250 ms retry interval
                        break
        assert after_pong == []
    finally:
        port.close()


def test_harness_reports_a_bad_firmware_file(built, tmp_path):
    from tablecompanion.leds.errors import LedError
    from tablecompanion.leds.simulated import SimulatedBoard

    _, harness = built
    bogus = tmp_path / "not-firmware.elf"
    bogus.write_bytes(b"\x7fELF garbage")
    with pytest.raises(LedError, match="pty"):
        SimulatedBoard(bogus, harness, start_timeout=10)


def test_emulated_line_is_never_faster_than_the_wire(built):
    """On the simulated clock, a state frame and its ACK take at least their bytes' wire time: the
    harness paces host bytes at the line rate (simavr alone would take two per character time)."""
    from tablecompanion.leds.simulated import SimulatedBoard

    elf, harness = built
    with SimulatedBoard(elf, harness, trace_frames=True) as sim:
        port = default_opener(sim.pty)
        try:
            link = Link(port, reply_timeout=1.0)
            link.hello()
            payload = p.state_payload(layout.render(STEADY))
            for _ in range(20):
                link.send_state(payload)
            end = time.monotonic() + 10
            while len(sim.exchange_times_ms()) < 21 and time.monotonic() < end:
                time.sleep(0.05)
        finally:
            port.close()
        times = sim.exchange_times_ms()[1:21]
    assert len(times) == 20
    wire_ms = (p.wire_bytes(len(payload)) + p.wire_bytes(0)) * 10 / p.BAUD * 1000
    assert min(times) >= wire_ms


def test_harness_reports_a_data_overrun_when_the_mcu_does_not_read(built, tmp_path):
    """The harness's UART is as strict as the chip's: a firmware that never reads UDR0 holds two
    bytes, and every further byte from the host is lost and reported. (So the absence of OVERRUN
    lines in the other tests means the LED firmware really keeps up with the line.)"""
    import shutil
    import subprocess

    from tablecompanion.leds.simulated import SimulatedBoard

    _, harness = built
    source = tmp_path / "deaf.c"
    source.write_text("#include <avr/io.h>\n"
                      "int main(void) { UBRR0L = 3; UCSR0B = _BV(RXEN0) | _BV(TXEN0); for (;;) {} }\n")
    elf = tmp_path / "deaf.elf"
    subprocess.run([shutil.which("avr-gcc"), "-mmcu=atmega328p", "-Os", "-o", str(elf), str(source)], check=True)
    with SimulatedBoard(elf, harness) as sim:
        port = default_opener(sim.pty)
        try:
            port.write(bytes(range(1, 8)))
            end = time.monotonic() + 20
            while len(sim.overruns) < 5 and time.monotonic() < end:
                time.sleep(0.05)
        finally:
            port.close()
        time.sleep(0.2)
        assert len(sim.overruns) == 5  # 7 bytes: 2 wait in the receive buffer, 5 are lost
        gaps = [b - a for a, b in zip(sim.overruns, sim.overruns[1:])]
        assert all(g == 16_000_000 * 10 // 250_000 for g in gaps)  # one character time apart


def test_a_rejected_frame_changes_nothing(sim, link):
    """Atomic frames: a STATE whose only fault is in its last byte is refused whole; not one LED of
    it reaches the strip, and the board keeps showing the previous state."""
    send(link, STEADY)
    shown = sim.wait_for(lambda rgb: list(rgb) == expected(STEADY), timeout=20)
    bad = bytearray(p.state_payload(layout.render(STEADY.with_point(1, "red").with_point(24, "blue"))))
    bad[-1] |= 0x40  # a reserved bit in the last LED
    with pytest.raises(BoardErrorReply) as err:
        link.request(p.T_STATE, bytes(bad), p.T_ACK)
    assert err.value.code == p.E_BAD_VALUE and err.value.detail == 2 + p.LED_COUNT - 1
    link.ping()
    time.sleep(0.3)  # a redraw would have latched long before now
    after = sim.frames[sim.frames.index(shown):]
    assert after and all(list(frame.rgb) == expected(STEADY) for frame in after)
    assert link.ping().session  # the session survives a refused frame


def test_the_driver_heartbeat_keeps_the_board_out_of_host_lost(sim):
    """Nothing changes for 4.5 s (longer than the firmware's 3 s host-lost timeout): the driver's
    idle pings keep the session, and the strip keeps showing the state."""
    with SerialLedBoard(sim.pty, reply_timeout=1.0) as board:
        board.show(STEADY)
        assert board.wait_shown(20)
        shown = sim.wait_for(lambda rgb: list(rgb) == expected(STEADY), timeout=20)
        time.sleep(4.5)
        stats = board.link_stats()
    after = sim.frames[sim.frames.index(shown):]
    assert all(list(frame.rgb) == expected(STEADY) for frame in after)  # never the host-lost pattern
    assert stats.board is not None and stats.board.session and stats.reconnects == 0
