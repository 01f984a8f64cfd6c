"""The Python firmware model that backs the emulated board: replies, errors, events, host lost."""

from __future__ import annotations

import pytest

from tablecompanion.leds import protocol as p
from tablecompanion.leds.layout import render
from tablecompanion.leds.model import FirmwareModel, rgb_output
from tablecompanion.leds.state import LedState


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def talk(model, type_, seq, payload=b""):
    model.feed(p.encode_frame(type_, seq, payload))
    return p.FrameDecoder().feed(model.take_output())


def hello(model):
    return talk(model, p.T_HELLO, 1, bytes([p.PROTOCOL_VERSION]))


STATE = p.state_payload(render(LedState().with_point(3, "green")))


def test_handshake_reports_the_board():
    [reply] = hello(FirmwareModel())
    assert reply.type == p.T_HELLO_REPLY and reply.seq == 1
    info = p.BoardInfo.from_payload(reply.payload)
    assert info.protocol == p.PROTOCOL_VERSION and info.led_count == p.LED_COUNT


@pytest.mark.parametrize("type_,payload,code", [
    (p.T_HELLO, bytes([99]), p.E_BAD_VERSION),
    (p.T_HELLO, b"", p.E_BAD_LENGTH),
    (0x42, b"", p.E_UNKNOWN_TYPE),
])
def test_error_replies(type_, payload, code):
    [reply] = talk(FirmwareModel(), type_, 7, payload)
    assert reply.type == p.T_ERROR and reply.seq == 7 and reply.payload[0] == code


def test_state_needs_a_handshake_then_is_applied_whole():
    m = FirmwareModel()
    [reply] = talk(m, p.T_STATE, 2, STATE)
    assert reply.payload[0] == p.E_NEED_HELLO
    hello(m)
    [reply] = talk(m, p.T_STATE, 3, STATE[:-1])
    assert reply.payload[0] == p.E_BAD_LENGTH
    bad = bytearray(STATE)
    bad[10] |= 0x80
    [reply] = talk(m, p.T_STATE, 4, bytes(bad))
    assert reply.payload[0] == p.E_BAD_VALUE
    assert m.states_applied == 0  # a rejected frame changes nothing
    [reply] = talk(m, p.T_STATE, 5, STATE)
    assert reply.type == p.T_ACK and reply.seq == 5
    assert bytes(m.leds) == STATE[2:]


def test_events_repeat_until_acknowledged():
    clock = Clock()
    m = FirmwareModel(clock)
    m.press("take")
    [ev] = p.FrameDecoder().feed(m.take_output())
    assert ev.type == p.T_EVENT and p.BUTTONS[ev.payload[0]] == "take"
    assert m.take_output() == b""  # not yet due again
    clock.t += 0.3
    [again] = p.FrameDecoder().feed(m.take_output())
    assert again == ev
    talk(m, p.T_EVENT_ACK, ev.seq)
    clock.t += 1
    assert m.take_output() == b""


def test_host_lost_after_silence_and_back_on_next_frame():
    clock = Clock()
    m = FirmwareModel(clock)
    hello(m)
    talk(m, p.T_STATE, 2, STATE)
    assert not m.host_lost
    clock.t += p.HOST_TIMEOUT_MS / 1000 + 0.1
    assert m.host_lost
    assert m.rgb()[0] in ((48, 0, 0), (0, 0, 0))  # dim red blinking on the points
    [reply] = talk(m, p.T_STATE, 3, STATE)
    assert reply.payload[0] == p.E_NEED_HELLO  # session dropped with the host
    hello(m)
    assert not m.host_lost


def test_rgb_output_blinks_and_limits_power():
    leds = bytes([2 | p.MODE_BLINK << 4] + [0] * (p.LED_COUNT - 1))
    assert rgb_output(leds, 255, 0)[0] == (255, 0, 0)
    assert rgb_output(leds, 255, p.BLINK_HALF_MS)[0] == (0, 0, 0)
    white = bytes([1 | p.MODE_ON << 4] * p.LED_COUNT)
    out = rgb_output(white, 255, 0, budget_ma=400)
    assert sum(map(sum, out)) * 20 / 255 <= 400
    assert out[0][0] > 0
    dim = rgb_output(white, 31, 0, budget_ma=10_000)
    assert dim[0] == (31, 31, 31)  # 255 * (31 + 1) >> 8
