"""Fuzzing both ends: random bytes, flipped bits, truncations and floods never crash or wedge the
host driver, the firmware model or the real firmware, and the next good frame always gets through."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablecompanion.leds import layout
from tablecompanion.leds import protocol as p
from tablecompanion.leds.board import SerialLedBoard, default_opener
from tablecompanion.leds.emulated import EmulatedSerial
from tablecompanion.leds.errors import LedError
from tablecompanion.leds.link import Link
from tablecompanion.leds.model import FirmwareModel, rgb_output
from tablecompanion.leds.state import LedState

STATE = LedState().with_point(7, "green").with_point(18, "orange", "blink_fast").with_cube(2, "bottom")
PAYLOAD = p.state_payload(layout.render(STATE))


def mutate(rng: random.Random, frame: bytes) -> bytes:
    kind = rng.randrange(4)
    data = bytearray(frame)
    if kind == 0:  # flipped bits
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncated
        data = data[: rng.randrange(len(data))]
    elif kind == 2:  # random bytes inserted
        i = rng.randrange(len(data))
        data[i:i] = rng.randbytes(rng.randint(1, 20))
    else:  # pure noise
        data = bytearray(rng.randbytes(rng.randint(1, 120)))
    return bytes(data)


# --- host side -----------------------------------------------------------------------------------
class NoisyPort:
    """A port whose board answers through a line that adds noise before every reply."""

    def __init__(self, noise: bytes, model: FirmwareModel) -> None:
        self.noise = noise
        self.model = model
        self.buf = bytearray()

    def write(self, data):
        self.model.feed(bytes(data))
        self.buf += self.noise + self.model.take_output()
        return len(data)

    @property
    def in_waiting(self):
        return len(self.buf)

    def read(self, size=1):
        out = bytes(self.buf[:size])
        del self.buf[:size]
        return out

    def reset_input_buffer(self):
        self.buf.clear()

    def close(self):
        pass


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.binary(max_size=200))
def test_link_survives_noise_before_every_reply(noise):
    link = Link(NoisyPort(noise, FirmwareModel()), reply_timeout=0.05, retries=1)
    try:
        link.hello()
        link.send_state(PAYLOAD)
    except LedError:
        pass  # noise may forge nothing valid but may cost a timeout; it must never be anything else
    # whatever came before, a clean line works at once
    link.port.noise = b""
    link.hello()
    assert link.send_state(PAYLOAD) >= 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=20))
def test_firmware_model_survives_garbage(chunks):
    model = FirmwareModel()
    for chunk in chunks:
        model.feed(chunk)
        model.take_output()
    model.feed(p.encode_frame(p.T_HELLO, 200, bytes([p.PROTOCOL_VERSION])))
    model.feed(p.encode_frame(p.T_STATE, 201, PAYLOAD))
    replies = [f for f in p.FrameDecoder().feed(model.take_output()) if f.seq in (200, 201)]
    assert [(f.type, f.seq) for f in replies] == [(p.T_HELLO_REPLY, 200), (p.T_ACK, 201)]
    assert bytes(model.leds) == PAYLOAD[2:]


def test_mutated_frames_into_the_model_never_apply_a_wrong_state():
    rng = random.Random(7)
    model = FirmwareModel()
    model.feed(p.encode_frame(p.T_HELLO, 1, bytes([p.PROTOCOL_VERSION])))
    other = p.state_payload(layout.render(LedState().with_point(1, "red")))
    for i in range(2000):
        model.feed(mutate(rng, p.encode_frame(p.T_STATE, i & 0xFF, other)))
        model.feed(p.encode_frame(p.T_STATE, (i + 1) & 0xFF, PAYLOAD))
        assert bytes(model.leds) == PAYLOAD[2:]
        model.take_output()


# --- firmware side (real MCU under simavr) -------------------------------------------------------
def expected():
    return rgb_output(layout.render(STATE), STATE.brightness, 0)


@pytest.fixture
def link(sim):
    port = default_opener(sim.pty)
    link = Link(port, reply_timeout=1.0, retries=3)
    link.hello()
    yield link
    port.close()


@pytest.mark.slow
def test_firmware_survives_random_and_mutated_input(sim, link):
    rng = random.Random(1234)
    good = p.encode_frame(p.T_STATE, 1, PAYLOAD)
    for _ in range(300):
        link.port.write(mutate(rng, good))
    link.port.write(rng.randbytes(3000))
    time.sleep(0.5)
    link.hello()  # noise may have looked like nothing at all, but never like a handshake
    link.send_state(PAYLOAD)
    sim.wait_for(lambda rgb: list(rgb) == expected(), timeout=30)
    counters = link.ping()
    assert counters.bad_frames > 100


@pytest.mark.slow
def test_firmware_answers_every_frame_of_a_burst(sim, link):
    frames = b"".join(p.encode_frame(p.T_STATE, i & 0xFF, PAYLOAD) for i in range(300))
    link.port.write(frames)
    acks = 0
    end = time.monotonic() + 60
    while acks < 300 and time.monotonic() < end:
        acks += sum(1 for f in link.receive() if f.type == p.T_ACK)
    assert acks == 300
    assert link.ping().dropped_bytes == 0
    assert not sim.overruns  # the receive interrupt kept up with the line through 300 refreshes


@pytest.mark.slow
def test_firmware_flood_of_pings_does_not_wedge(sim, link):
    link.port.write(b"".join(p.encode_frame(p.T_PING, i & 0xFF) for i in range(1000)))
    time.sleep(1.0)
    link.port.reset_input_buffer()
    link.decoder.reset()
    deadline = time.monotonic() + 60
    while True:  # the flood may still be draining: the board must come back within the deadline
        try:
            link.send_state(PAYLOAD)
            break
        except LedError:
            assert time.monotonic() < deadline, "board wedged after a ping flood"
    sim.wait_for(lambda rgb: list(rgb) == expected(), timeout=30)


@pytest.mark.slow
def test_oversized_frames_are_dropped_and_counted(sim, link):
    link.port.write(b"\x00" + b"\x55" * 5000 + b"\x00")
    link.send_state(PAYLOAD)
    counters = link.ping()
    assert counters.dropped_bytes >= 5000 - p.MAX_ENCODED
    sim.wait_for(lambda rgb: list(rgb) == expected(), timeout=30)


@pytest.mark.slow
def test_firmware_applies_the_next_good_frame_after_any_damage(sim, link):
    """No handshake in between: after each damaged frame (flipped bits, truncation, inserted bytes,
    noise), the very next good STATE frame is acknowledged and drives the LEDs."""
    rng = random.Random(99)
    link.reply_timeout = 5.0  # a retry below then means a lost frame, not a slow machine
    decoy = p.state_payload(layout.render(LedState().with_points(range(1, 25), "red")))
    for point in range(1, 25):
        state = LedState().with_point(point, "green").with_bar("top", "cyan")
        start = sim.frame_count()
        link.port.write(mutate(rng, p.encode_frame(p.T_STATE, 250, decoy)))
        link.send_state(p.state_payload(layout.render(state)))
        want = rgb_output(layout.render(state), state.brightness, 0)
        sim.wait_for(lambda rgb: list(rgb) == want, timeout=30, after=start)
    counters = link.ping()
    assert counters.session and counters.bad_frames >= 12
    assert link.counters.retries == 0  # the good frame never needed a second try


class FloodingSerial(EmulatedSerial):
    """The in-process board behind a line that, on the first STATE, floods the host: 64 kB of noise,
    a 5 kB run without a delimiter and 500 copies of one button event, before the real reply."""

    flooded = False

    def write(self, data):
        frames = p.FrameDecoder().feed(bytes(data))
        if not self.flooded and any(f.type == p.T_STATE for f in frames):
            self.flooded = True
            rng = random.Random(5)
            event = p.encode_frame(p.T_EVENT, 77, bytes([2]))  # "double"
            with self._cond:
                self._buf += rng.randbytes(65536) + b"\x00" + b"\x42" * 5000 + event * 500
        return super().write(data)


def test_driver_survives_a_flood_from_the_board():
    got = []
    board = SerialLedBoard("flood", reply_timeout=0.5, retries=5, opener=lambda _: FloodingSerial(FirmwareModel()))
    board.on_event(got.append)
    try:
        board.show(STATE)
        assert board.wait_shown(30)
        board.show(STATE.with_point(1, "blue"))  # the link still works after the flood
        assert board.wait_shown(30)
        end = time.monotonic() + 5
        while not got and time.monotonic() < end:
            time.sleep(0.01)
        stats = board.link_stats()
    finally:
        board.close()
    assert got == ["double"]  # 500 copies, one press
    assert stats.crc_errors + stats.malformed > 0 and stats.connected
