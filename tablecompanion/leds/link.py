"""One conversation with a board over a serial-like port: handshake, requests with retries, events.

Synchronous and single-threaded on purpose: ``SerialLedBoard`` runs it on its own thread, and the CLI
and benchmark call it directly to time round trips without a thread in the way.
"""

from __future__ import annotations

import logging
import math
import statistics
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Protocol

from tablecompanion.leds import protocol as p
from tablecompanion.leds.errors import BoardErrorReply, LinkTimeout, ProtocolError

log = logging.getLogger("tablecompanion.leds")

READ_TIMEOUT_S = 0.02  # how long one port.read may block: bounds how late a stop or show is noticed


class Port(Protocol):
    """What Link needs from a port: pyserial's Serial, a serial_for_url object or EmulatedSerial."""

    def write(self, data: bytes) -> int | None: ...
    def read(self, size: int = 1) -> bytes: ...
    @property
    def in_waiting(self) -> int: ...
    def reset_input_buffer(self) -> None: ...
    def close(self) -> None: ...


@dataclass
class LinkCounters:
    sent: int = 0  # frames written, retries included
    acked: int = 0  # requests answered
    retries: int = 0
    timeouts: int = 0  # requests that exhausted their retries
    error_replies: int = 0
    stale_replies: int = 0  # replies to an earlier attempt or request
    events: int = 0  # button events delivered (duplicates excluded)
    duplicate_events: int = 0


class Link:
    def __init__(
        self,
        port: Port,
        *,
        reply_timeout: float = 0.25,
        retries: int = 3,
        on_event: Callable[[str], None] | None = None,
    ) -> None:
        self.port = port
        self.reply_timeout = reply_timeout
        self.retries = retries
        self.on_event = on_event
        self.decoder = p.FrameDecoder()
        self.counters = LinkCounters()
        self.rtts: deque[float] = deque(maxlen=2000)
        self.info: p.BoardInfo | None = None
        self.board_counters: p.BoardCounters | None = None
        self.last_rx = time.monotonic()
        self._seq = 0
        self._recent_events: deque[int] = deque(maxlen=8)

    # --- requests -------------------------------------------------------------------------------
    def hello(self) -> p.BoardInfo:
        """Version handshake; a fresh session (stale bytes dropped, event de-duplication reset)."""
        try:
            self.port.reset_input_buffer()
        except Exception:  # some URL handlers cannot; stale bytes are then dropped by seq checks
            pass
        self.decoder.reset()
        self._recent_events.clear()
        reply, _ = self.request(p.T_HELLO, bytes([p.PROTOCOL_VERSION]), p.T_HELLO_REPLY)
        try:
            info = p.BoardInfo.from_payload(reply.payload)
        except ValueError as exc:
            raise ProtocolError(f"malformed handshake reply: {exc}") from exc
        if info.protocol != p.PROTOCOL_VERSION:
            raise ProtocolError(f"board speaks protocol {info.protocol}, this host speaks {p.PROTOCOL_VERSION}")
        if info.led_count != p.LED_COUNT:
            raise ProtocolError(f"board drives {info.led_count} LEDs, this host expects {p.LED_COUNT}: "
                                "firmware and host are from different versions")
        self.info = info
        return info

    def send_state(self, payload: bytes) -> float:
        """Send a full-state frame and wait for its ACK; returns the round trip in seconds."""
        _, rtt = self.request(p.T_STATE, payload, p.T_ACK)
        return rtt

    def ping(self) -> p.BoardCounters:
        reply, _ = self.request(p.T_PING, b"", p.T_PONG)
        try:
            self.board_counters = p.BoardCounters.from_payload(reply.payload)
        except ValueError as exc:
            raise ProtocolError(f"malformed PONG: {exc}") from exc
        return self.board_counters

    def request(self, type_: int, payload: bytes, expect: int) -> tuple[p.Frame, float]:
        """Send, wait for the reply with the same seq, resend on silence; BoardErrorReply on ERROR."""
        self._seq = (self._seq + 1) & 0xFF
        seq = self._seq
        data = p.encode_frame(type_, seq, payload)
        for attempt in range(self.retries + 1):
            if attempt:
                self.counters.retries += 1
            t0 = time.perf_counter()
            self.port.write(data)
            self.counters.sent += 1
            deadline = t0 + self.reply_timeout
            while time.perf_counter() < deadline:
                for frame in self.receive():
                    if frame.seq != seq:
                        self.counters.stale_replies += 1
                        continue
                    if frame.type == expect:
                        rtt = time.perf_counter() - t0
                        self.counters.acked += 1
                        self.rtts.append(rtt)
                        return frame, rtt
                    if frame.type == p.T_ERROR:
                        self.counters.error_replies += 1
                        code = frame.payload[0] if frame.payload else 0
                        detail = frame.payload[1] if len(frame.payload) > 1 else 0
                        name = p.ERROR_NAMES.get(code, f"error code {code}")
                        raise BoardErrorReply(code, detail, f"board rejected {p.TYPE_NAMES.get(type_, type_)}: "
                                                            f"{name} (detail {detail})")
                    self.counters.stale_replies += 1
        self.counters.timeouts += 1
        raise LinkTimeout(f"no reply to {p.TYPE_NAMES.get(type_, type_)} after {self.retries + 1} tries "
                          f"({self.reply_timeout * 1000:.0f} ms each): is the board plugged in and running?")

    # --- receiving ------------------------------------------------------------------------------
    def receive(self) -> list[p.Frame]:
        """Read what the port has (blocking at most its read timeout); answer and deliver events;
        return the other frames."""
        waiting = self.port.in_waiting
        data = self.port.read(waiting if waiting > 0 else 1)
        if not data:
            return []
        self.last_rx = time.monotonic()
        out = []
        for frame in self.decoder.feed(data):
            if frame.type == p.T_EVENT:
                self._event(frame)
            else:
                out.append(frame)
        return out

    def poll(self, duration: float) -> list[p.Frame]:
        """Receive for about ``duration`` seconds (events are handled; other frames returned)."""
        end = time.perf_counter() + duration
        frames = self.receive()
        while time.perf_counter() < end:
            frames += self.receive()
        return frames

    def _event(self, frame: p.Frame) -> None:
        self.port.write(p.encode_frame(p.T_EVENT_ACK, frame.seq))
        if frame.seq in self._recent_events:
            self.counters.duplicate_events += 1
            return
        self._recent_events.append(frame.seq)
        button = p.BUTTONS.get(frame.payload[0] if frame.payload else 0)
        if button is None:
            log.warning("board sent an event for unknown button %r", frame.payload)
            return
        self.counters.events += 1
        if self.on_event is not None:
            self.on_event(button)

    # --- reporting ------------------------------------------------------------------------------
    def rtt_summary(self) -> tuple[float | None, float | None, float | None]:
        """(last, median, p99) round trips in seconds over the recent requests."""
        if not self.rtts:
            return None, None, None
        values = sorted(self.rtts)
        return self.rtts[-1], statistics.median(values), percentile(values, 99)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    if not sorted_values:
        raise ValueError("no values")
    k = max(0, min(len(sorted_values), math.ceil(q / 100 * len(sorted_values))) - 1)
    return sorted_values[k]
