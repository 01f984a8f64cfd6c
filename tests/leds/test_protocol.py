"""The wire format: CRC, COBS, framing and the streaming decoder's resynchronisation."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tablecompanion.leds import protocol as p
from tablecompanion.leds.state import PALETTE

REPO = Path(__file__).resolve().parents[2]


def test_crc_matches_ccitt_false_check_value():
    assert p.crc16(b"123456789") == 0x29B1


@given(st.binary(max_size=600))
def test_cobs_round_trip_and_no_zeros(data):
    encoded = p.cobs_encode(data)
    assert 0 not in encoded
    assert p.cobs_decode(encoded) == data


@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=p.MAX_PAYLOAD))
def test_frame_round_trip(type_, seq, payload):
    frames = p.FrameDecoder().feed(p.encode_frame(type_, seq, payload))
    assert frames == [p.Frame(type_, seq, payload)]


def test_wire_bytes_matches_encoding():
    payload = bytes(range(1, p.STATE_PAYLOAD_LEN + 1))
    assert len(p.encode_frame(p.T_STATE, 1, payload)) == p.wire_bytes(len(payload))


@settings(max_examples=200)
@given(st.binary(max_size=300), st.binary(max_size=p.MAX_PAYLOAD))
def test_any_garbage_then_good_frame_decodes(garbage, payload):
    decoder = p.FrameDecoder()
    decoder.feed(garbage)
    frames = decoder.feed(p.encode_frame(p.T_STATE, 9, payload))
    assert frames[-1] == p.Frame(p.T_STATE, 9, payload)


def test_every_single_bit_flip_is_rejected():
    frame = p.encode_frame(p.T_STATE, 42, bytes(range(p.STATE_PAYLOAD_LEN)))
    for i in range(len(frame)):
        for bit in range(8):
            damaged = bytearray(frame)
            damaged[i] ^= 1 << bit
            decoder = p.FrameDecoder()
            assert decoder.feed(bytes(damaged)) == [], (i, bit)


def test_truncated_frame_does_not_swallow_the_next():
    good = p.encode_frame(p.T_PING, 3)
    state = p.encode_frame(p.T_STATE, 4, bytes(p.STATE_PAYLOAD_LEN))
    decoder = p.FrameDecoder()
    frames = decoder.feed(state[: len(state) // 2] + good)
    assert frames == [p.Frame(p.T_PING, 3)]
    assert decoder.stats.crc_errors + decoder.stats.malformed == 1


def test_oversized_input_is_bounded_and_counted():
    decoder = p.FrameDecoder()
    assert decoder.feed(b"\x01" * 10_000 + b"\x00") == []
    assert decoder.stats.overflows == 1
    assert len(decoder._buf) == 0
    assert decoder.feed(p.encode_frame(p.T_PING, 1)) == [p.Frame(p.T_PING, 1)]


def _c_defines(path: Path) -> dict[str, int]:
    out = {}
    for name, value in re.findall(r"#define\s+(\w+)\s+(0x[0-9A-Fa-f]+|\d+)\b", path.read_text()):
        out[name] = int(value, 0)
    return out


def test_firmware_header_agrees_with_host_constants():
    c = _c_defines(REPO / "hardware" / "firmware" / "src" / "protocol.h")
    for name in ("PROTOCOL_VERSION", "LED_COUNT", "BUTTON_COUNT", "MAX_PAYLOAD", "T_HELLO", "T_STATE", "T_PING",
                 "T_EVENT_ACK", "T_HELLO_REPLY", "T_ACK", "T_PONG", "T_EVENT", "T_ERROR", "E_UNKNOWN_TYPE",
                 "E_BAD_LENGTH", "E_BAD_VERSION", "E_BAD_VALUE", "E_NEED_HELLO", "MODE_OFF", "MODE_ON",
                 "MODE_BLINK", "MODE_BLINK_FAST", "BLINK_HALF_MS", "BLINK_FAST_HALF_MS", "HOST_TIMEOUT_MS",
                 "EVENT_RETRY_MS"):
        assert c[name] == getattr(p, name), name


def test_firmware_palette_agrees_with_host_palette():
    text = (REPO / "hardware" / "firmware" / "src" / "main.c").read_text()
    block = text[text.index("PALETTE[16][3]"): text.index("};", text.index("PALETTE[16][3]"))]
    triples = [tuple(int(x) for x in m) for m in re.findall(r"\{(\d+),\s*(\d+),\s*(\d+)\}", block)]
    assert triples == [rgb for _, rgb in PALETTE]


def test_firmware_baud_agrees_with_host():
    makefile = (REPO / "hardware" / "firmware" / "Makefile").read_text()
    assert re.search(r"^BAUD\s*\?=\s*(\d+)", makefile, re.M).group(1) == str(p.BAUD)
