"""A Python model of the LED board firmware: the same protocol replies, blinking, host-lost fallback,
power limiter and button events as hardware/firmware/src/main.c, so the emulated board behaves like
the real one and integration tests can predict the exact colours the MCU drives.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from tablecompanion.leds import protocol as p
from tablecompanion.leds.state import PALETTE

LED_BUDGET_MA = 400  # the firmware Makefile's default LED_BUDGET_MA
FIRMWARE_VERSION = (1, 0)
STATUS_LED = 40
POINT_LEDS = 24
DIM_WHITE, DIM_RED, RED = 12, 13, 2


def rgb_output(
    led_bytes: bytes, brightness: int, now_ms: int, host_lost: bool = False, budget_ma: int = LED_BUDGET_MA
) -> list[tuple[int, int, int]]:
    """The RGB values the firmware sends down the strip at ``now_ms`` (same integer arithmetic)."""
    if host_lost:
        led_bytes = bytes(
            DIM_RED | p.MODE_BLINK << 4 if i < POINT_LEDS else RED | p.MODE_BLINK << 4 if i == STATUS_LED else 0
            for i in range(p.LED_COUNT)
        )
        brightness = 255
    slow_on = (now_ms // p.BLINK_HALF_MS) % 2 == 0
    fast_on = (now_ms // p.BLINK_FAST_HALF_MS) % 2 == 0
    out: list[list[int]] = []
    total = 0
    for b in led_bytes:
        mode, colour = (b >> 4) & 3, b & 0x0F
        lit = mode == p.MODE_ON or (mode == p.MODE_BLINK and slow_on) or (mode == p.MODE_BLINK_FAST and fast_on)
        rgb = [((c if lit else 0) * (brightness + 1)) >> 8 for c in PALETTE[colour][1]]
        total += sum(rgb)
        out.append(rgb)
    limit = budget_ma * 255 // 20
    if total > limit:
        k = limit * 256 // total
        out = [[(c * k) >> 8 for c in rgb] for rgb in out]
    return [tuple(rgb) for rgb in out]  # type: ignore[misc]


@dataclass
class _Event:
    seq: int
    button: int
    tries: int = 0
    sent_ms: int = 0


class FirmwareModel:
    """Feed it host bytes, read back board bytes. Thread-safe; time comes from ``clock`` (seconds)."""

    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        self._t0 = clock()
        self._rx = p.FrameDecoder()
        self._out = bytearray()
        self.leds = bytearray(p.LED_COUNT)
        self.leds[STATUS_LED] = DIM_WHITE | p.MODE_ON << 4
        self.brightness = 255
        self.session = False
        self.last_host_ms = 0
        self.good_frames = 0
        self.states_applied = 0
        self._events: list[_Event] = []
        self._event_seq = 0

    def now_ms(self) -> int:
        return int((self._clock() - self._t0) * 1000)

    @property
    def host_lost(self) -> bool:
        return self.now_ms() - self.last_host_ms > p.HOST_TIMEOUT_MS

    def feed(self, data: bytes) -> None:
        with self._lock:
            for frame in self._rx.feed(data):
                self._handle(frame)

    def take_output(self) -> bytes:
        """Board-to-host bytes produced so far (replies, and events due for (re)sending)."""
        with self._lock:
            self._service_events()
            out, self._out = bytes(self._out), bytearray()
            return out

    def press(self, button: str | int) -> None:
        ids = {name: i for i, name in p.BUTTONS.items()}
        bid = ids[button] if isinstance(button, str) else int(button)
        if bid not in p.BUTTONS:
            raise ValueError(f"unknown button {button!r}; buttons are {', '.join(p.BUTTONS.values())}")
        with self._lock:
            if len(self._events) < 4:
                self._event_seq = (self._event_seq + 1) & 0xFF
                self._events.append(_Event(self._event_seq, bid))

    def rgb(self) -> list[tuple[int, int, int]]:
        with self._lock:
            return rgb_output(bytes(self.leds), self.brightness, self.now_ms(), self.host_lost)

    @property
    def counters(self) -> p.BoardCounters:
        return p.BoardCounters(
            self.now_ms(), self.good_frames,
            self._rx.stats.crc_errors + self._rx.stats.malformed + self._rx.stats.overflows,
            self._rx.stats.dropped_bytes, self.session,
        )

    # --- internals ----------------------------------------------------------------------------
    def _send(self, type_: int, seq: int, payload: bytes = b"") -> None:
        self._out += p.encode_frame(type_, seq, payload)

    def _error(self, seq: int, code: int, detail: int = 0) -> None:
        self._send(p.T_ERROR, seq, bytes([code, detail & 0xFF]))

    def _handle(self, f: p.Frame) -> None:
        now = self.now_ms()
        if now - self.last_host_ms > p.HOST_TIMEOUT_MS:
            self.session = False  # the firmware drops the session when it declares the host lost
        self.good_frames += 1
        self.last_host_ms = now
        if f.type == p.T_HELLO:
            if len(f.payload) < 1:
                return self._error(f.seq, p.E_BAD_LENGTH, len(f.payload))
            if f.payload[0] != p.PROTOCOL_VERSION:
                return self._error(f.seq, p.E_BAD_VERSION, p.PROTOCOL_VERSION)
            self.session = True
            info = p.BoardInfo(p.PROTOCOL_VERSION, "%d.%d" % FIRMWARE_VERSION, p.LED_COUNT, p.BUTTON_COUNT,
                               p.MAX_PAYLOAD)
            return self._send(p.T_HELLO_REPLY, f.seq, info.to_payload())
        if f.type == p.T_STATE:
            if not self.session:
                return self._error(f.seq, p.E_NEED_HELLO)
            if len(f.payload) != p.STATE_PAYLOAD_LEN:
                return self._error(f.seq, p.E_BAD_LENGTH, len(f.payload))
            if f.payload[0] != 0:
                return self._error(f.seq, p.E_BAD_VALUE, 0)
            for i, b in enumerate(f.payload[2:]):
                if b & 0xC0:
                    return self._error(f.seq, p.E_BAD_VALUE, 2 + i)
            self.brightness = f.payload[1]
            self.leds[:] = f.payload[2:]
            self.states_applied += 1
            return self._send(p.T_ACK, f.seq)
        if f.type == p.T_PING:
            return self._send(p.T_PONG, f.seq, self.counters.to_payload())
        if f.type == p.T_EVENT_ACK:
            if self._events and self._events[0].seq == f.seq:
                self._events.pop(0)
            return None
        return self._error(f.seq, p.E_UNKNOWN_TYPE, f.type)

    def _service_events(self) -> None:
        if not self._events:
            return
        now = self.now_ms()
        ev = self._events[0]
        if ev.tries and now - ev.sent_ms < p.EVENT_RETRY_MS:
            return
        if ev.tries >= 20:
            self._events.pop(0)
            return
        self._send(p.T_EVENT, ev.seq, bytes([ev.button]))
        ev.tries += 1
        ev.sent_ms = now
