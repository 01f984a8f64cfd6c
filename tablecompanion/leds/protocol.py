"""The LED board's framed serial protocol (hardware/PROTOCOL.md): COBS frames with a CRC-16.

Pure functions and a streaming decoder, no I/O, so the host driver, the in-process emulated board and
the fuzz tests all share exactly one implementation of the wire format.

>>> frame = encode_frame(T_PING, 7)
>>> FrameDecoder().feed(frame)
[Frame(type=3, seq=7, payload=b'')]
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass, field

PROTOCOL_VERSION = 1
BAUD = 250000
LED_COUNT = 41
BUTTON_COUNT = 4
MAX_PAYLOAD = 48
MAX_DECODED = MAX_PAYLOAD + 4
MAX_ENCODED = MAX_DECODED + 2

# host -> board
T_HELLO = 0x01
T_STATE = 0x02
T_PING = 0x03
T_EVENT_ACK = 0x04
# board -> host
T_HELLO_REPLY = 0x81
T_ACK = 0x82
T_PONG = 0x83
T_EVENT = 0x84
T_ERROR = 0x85

TYPE_NAMES = {
    T_HELLO: "HELLO", T_STATE: "STATE", T_PING: "PING", T_EVENT_ACK: "EVENT_ACK",
    T_HELLO_REPLY: "HELLO_REPLY", T_ACK: "ACK", T_PONG: "PONG", T_EVENT: "EVENT", T_ERROR: "ERROR",
}

E_UNKNOWN_TYPE = 1
E_BAD_LENGTH = 2
E_BAD_VERSION = 3
E_BAD_VALUE = 4
E_NEED_HELLO = 5
ERROR_NAMES = {
    E_UNKNOWN_TYPE: "unknown frame type",
    E_BAD_LENGTH: "bad payload length",
    E_BAD_VERSION: "unsupported protocol version",
    E_BAD_VALUE: "invalid value in payload",
    E_NEED_HELLO: "handshake required first",
}

MODE_OFF, MODE_ON, MODE_BLINK, MODE_BLINK_FAST = 0, 1, 2, 3
BLINK_HALF_MS = 250
BLINK_FAST_HALF_MS = 100
HOST_TIMEOUT_MS = 3000
EVENT_RETRY_MS = 250

BUTTONS = {1: "done", 2: "double", 3: "take", 4: "pass"}


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as avr-libc's ``_crc_xmodem_update`` from 0xFFFF.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    out = bytearray([0])
    code_pos, code = 0, 1
    for b in data:
        if b == 0:
            out[code_pos] = code
            code_pos, code = len(out), 1
            out.append(0)
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_pos] = code
                code_pos, code = len(out), 1
                out.append(0)
    out[code_pos] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """The decoded bytes, or None when ``data`` is not valid COBS."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        i += 1
        if code == 0 or i + code - 1 > n:
            return None
        chunk = data[i : i + code - 1]
        if 0 in chunk:
            return None
        out += chunk
        i += code - 1
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True)
class Frame:
    type: int
    seq: int
    payload: bytes = b""

    @property
    def name(self) -> str:
        return TYPE_NAMES.get(self.type, f"0x{self.type:02x}")


def encode_frame(type_: int, seq: int, payload: bytes = b"") -> bytes:
    """A complete frame on the wire: 0x00, COBS(type, seq, payload, crc16 big-endian), 0x00.

    The leading 0x00 ends whatever partial frame the receiver holds, so a truncated frame never
    swallows the next good one."""
    if not 0 <= type_ <= 255 or not 0 <= seq <= 255:
        raise ValueError("type and seq must be bytes")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    raw = bytes([type_, seq]) + bytes(payload)
    raw += struct.pack(">H", crc16(raw))
    return b"\x00" + cobs_encode(raw) + b"\x00"


def wire_bytes(payload_len: int) -> int:
    """Bytes on the wire for a frame with ``payload_len`` payload bytes (no zeros need more than
    one COBS overhead byte below 254 bytes)."""
    return 2 + 1 + payload_len + 4


def wire_time_s(payload_len: int, baud: int = BAUD) -> float:
    """Seconds to send such a frame at ``baud`` (8N1: 10 bits per byte)."""
    return wire_bytes(payload_len) * 10 / baud


@dataclass
class DecoderStats:
    frames: int = 0
    crc_errors: int = 0
    malformed: int = 0  # invalid COBS, too short
    overflows: int = 0  # longer than any legal frame
    dropped_bytes: int = 0


@dataclass
class FrameDecoder:
    """Streaming decoder: feed any bytes, get the valid frames; everything else is counted, never raised.

    Every 0x00 ends a frame, and a frame longer than ``MAX_ENCODED`` is dropped up to the next 0x00, so
    memory is bounded and no input can keep the decoder from seeing the next good frame."""

    max_encoded: int = MAX_ENCODED
    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray)
    _overflow: bool = False

    def feed(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        for b in data:
            if b == 0:
                frame = self._finish()
                if frame is not None:
                    frames.append(frame)
                continue
            if self._overflow:
                self.stats.dropped_bytes += 1
                continue
            if len(self._buf) >= self.max_encoded:
                self._overflow = True
                self.stats.dropped_bytes += len(self._buf) + 1
                self._buf.clear()
                continue
            self._buf.append(b)
        return frames

    def reset(self) -> None:
        self._buf.clear()
        self._overflow = False

    def _finish(self) -> Frame | None:
        if self._overflow:
            self._overflow = False
            self.stats.overflows += 1
            return None
        if not self._buf:
            return None
        raw = cobs_decode(bytes(self._buf))
        self._buf.clear()
        if raw is None or len(raw) < 4:
            self.stats.malformed += 1
            return None
        if crc16(raw[:-2]) != struct.unpack(">H", raw[-2:])[0]:
            self.stats.crc_errors += 1
            return None
        self.stats.frames += 1
        return Frame(raw[0], raw[1], raw[2:-2])


# --- payloads -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoardInfo:
    """What the board says about itself in its HELLO_REPLY."""

    protocol: int
    firmware: str
    led_count: int
    button_count: int
    max_payload: int

    @classmethod
    def from_payload(cls, payload: bytes) -> "BoardInfo":
        if len(payload) < 6:
            raise ValueError(f"HELLO_REPLY payload of {len(payload)} bytes, expected 6")
        return cls(payload[0], f"{payload[1]}.{payload[2]}", payload[3], payload[4], payload[5])

    def to_payload(self) -> bytes:
        major, minor = (int(x) for x in self.firmware.split("."))
        return bytes([self.protocol, major, minor, self.led_count, self.button_count, self.max_payload])


@dataclass(frozen=True)
class BoardCounters:
    """The board's own view of the link, from a PONG: uptime and frames it received good or bad."""

    uptime_ms: int
    good_frames: int
    bad_frames: int
    dropped_bytes: int
    session: bool

    @classmethod
    def from_payload(cls, payload: bytes) -> "BoardCounters":
        if len(payload) < 11:
            raise ValueError(f"PONG payload of {len(payload)} bytes, expected 11")
        up, good, bad, dropped, session = struct.unpack(">IHHHB", payload[:11])
        return cls(up, good, bad, dropped, bool(session))

    def to_payload(self) -> bytes:
        return struct.pack(">IHHHB", self.uptime_ms & 0xFFFFFFFF, self.good_frames & 0xFFFF,
                           self.bad_frames & 0xFFFF, self.dropped_bytes & 0xFFFF, int(self.session))


def led_byte(colour: int, mode: int) -> int:
    if not 0 <= colour <= 15 or not 0 <= mode <= 3:
        raise ValueError(f"colour must be 0..15 and mode 0..3, got {colour}, {mode}")
    return colour | mode << 4


def state_payload(led_bytes: bytes, brightness: int = 255) -> bytes:
    """STATE payload: flags (0), global brightness, one byte per LED (colour | mode << 4)."""
    if len(led_bytes) != LED_COUNT:
        raise ValueError(f"expected {LED_COUNT} LED bytes, got {len(led_bytes)}")
    if not 0 <= brightness <= 255:
        raise ValueError("brightness must be 0..255")
    return bytes([0, brightness]) + bytes(led_bytes)


STATE_PAYLOAD_LEN = 2 + LED_COUNT
