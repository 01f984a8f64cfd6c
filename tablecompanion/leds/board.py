"""The LED board as the referee sees it: ``show(state)`` returns at once; a driver thread does the rest.

The driver thread owns the port: it handshakes, sends the latest full state (intermediate states are
skipped, since every frame is complete), waits for the ACK and retries, pings when idle, delivers button
events, and on any failure closes the port and reopens it (rediscovering it for "auto") until the board
answers again, then resends the state. Nothing here ever blocks or raises into the caller of ``show``.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable

import serial

from tablecompanion.leds import protocol as p
from tablecompanion.leds.errors import BoardErrorReply, BoardNotFound, LedError, LinkTimeout
from tablecompanion.leds.layout import render
from tablecompanion.leds.link import READ_TIMEOUT_S, Link
from tablecompanion.leds.state import LedState

log = logging.getLogger("tablecompanion.leds")

EventCallback = Callable[[str], None]
# USB serial bridges found on Arduino Nano/Uno class boards: CH340, FTDI FT232R, CP210x, Arduino's own.
KNOWN_USB_IDS = {(0x1A86, 0x7523), (0x0403, 0x6001), (0x10C4, 0xEA60), (0x2341, 0x0043), (0x2341, 0x0001),
                 (0x2A03, 0x0043)}
PORT_ENV = "TABLECOMPANION_LED_PORT"
QUALITY_LOG_INTERVAL_S = 60.0


@dataclass(frozen=True)
class LinkStats:
    """Link quality as the host sees it, plus the board's own counters from its last PONG."""

    connected: bool
    port: str | None
    firmware: str | None
    sent: int
    acked: int
    retries: int
    timeouts: int
    crc_errors: int
    malformed: int
    error_replies: int
    reconnects: int
    events: int
    states_shown: int
    rtt_last_ms: float | None
    rtt_median_ms: float | None
    rtt_p99_ms: float | None
    board: p.BoardCounters | None
    last_error: str | None

    @property
    def rtt(self) -> float | None:
        """Median round trip in milliseconds (None before the first reply)."""
        return self.rtt_median_ms


class LedBoard(ABC):
    """What the referee drives. ``show`` never blocks; events arrive on a separate thread."""

    @abstractmethod
    def show(self, state: LedState) -> None: ...

    @abstractmethod
    def on_event(self, callback: EventCallback) -> None: ...

    @abstractmethod
    def link_stats(self) -> LinkStats: ...

    @abstractmethod
    def wait_shown(self, timeout: float = 5.0) -> bool:
        """Block until the last state passed to ``show`` is acknowledged (tests and CLI only)."""

    @abstractmethod
    def close(self) -> None: ...

    @property
    @abstractmethod
    def state(self) -> LedState | None:
        """The last state passed to ``show``."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def default_opener(spec: str, baud: int = p.BAUD):
    """Open a device path or pyserial URL (``socket://``, ``rfc2217://``, ``loop://``, ...)."""
    port = serial.serial_for_url(spec, baudrate=baud, timeout=READ_TIMEOUT_S, write_timeout=1.0,
                                 do_not_open=True)
    try:
        port.dtr = False  # fewer spurious resets of Arduino-class boards where the OS allows it
    except Exception:  # pragma: no cover - URL handlers without modem lines
        pass
    port.open()
    return port


class SerialLedBoard(LedBoard):
    """A board on a serial port or URL (real hardware, the simavr pty, a network bridge)."""

    def __init__(
        self,
        port_or_url: str,
        *,
        home: str = "right",
        baud: int = p.BAUD,
        heartbeat_s: float = 1.0,
        reply_timeout: float = 0.25,
        retries: int = 3,
        boot_wait_s: float = 2.5,
        reconnect_delays: tuple[float, float] = (0.1, 2.0),
        opener: Callable[[str], object] | None = None,
    ) -> None:
        render(LedState(), home)  # validates home now, in the caller's thread
        self.spec = port_or_url
        self.home = home
        self.baud = baud
        self.heartbeat_s = heartbeat_s
        self.reply_timeout = reply_timeout
        self.retries = retries
        self.boot_wait_s = boot_wait_s
        self.reconnect_delays = reconnect_delays
        self._opener = opener or (lambda spec: default_opener(spec, baud))
        self._callbacks: list[EventCallback] = []
        self._lock = threading.Condition()
        self._state: LedState | None = None
        self._payload: bytes | None = None
        self._wanted = 0  # version of the state asked for
        self._shown = 0  # version acknowledged by the board
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._link: Link | None = None
        self._port = None
        self._port_name: str | None = None
        self._reconnects = 0
        self._connections = 0
        self._states_shown = 0
        self._last_error: str | None = None
        self._totals = {"sent": 0, "acked": 0, "retries": 0, "timeouts": 0, "crc": 0, "malformed": 0,
                        "errors": 0, "events": 0}
        self._quality_logged_at = 0.0
        self._quality_last = (0, 0, 0, 0)
        self._events: queue.Queue = queue.Queue(maxsize=256)
        self._dispatcher = threading.Thread(target=self._dispatch, name="leds-events", daemon=True)
        self._worker = threading.Thread(target=self._run, name="leds-driver", daemon=True)
        self._dispatcher.start()
        self._worker.start()

    # --- the referee's side -------------------------------------------------------------------
    def show(self, state: LedState) -> None:
        if not isinstance(state, LedState):
            raise TypeError(f"show() takes a LedState, got {type(state).__name__}")
        payload = p.state_payload(render(state, self.home), state.brightness)
        with self._lock:
            self._state = state
            self._payload = payload
            self._wanted += 1
        self._poke()

    def on_event(self, callback: EventCallback) -> None:
        self._callbacks.append(callback)

    def wait_shown(self, timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        with self._lock:
            target = self._wanted
            while self._shown < target:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    @property
    def state(self) -> LedState | None:
        return self._state

    @property
    def connected(self) -> bool:
        return self._link is not None

    def wait_connected(self, timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self._link is not None:
                return True
            time.sleep(0.01)
        return False

    def link_stats(self) -> LinkStats:
        link = self._link
        t = dict(self._totals)
        last = median = p99 = None
        board = None
        if link is not None:
            c, d = link.counters, link.decoder.stats
            for key, value in (("sent", c.sent), ("acked", c.acked), ("retries", c.retries),
                               ("timeouts", c.timeouts), ("crc", d.crc_errors),
                               ("malformed", d.malformed + d.overflows), ("errors", c.error_replies),
                               ("events", c.events)):
                t[key] += value
            last, median, p99 = link.rtt_summary()
            board = link.board_counters
        ms = (lambda v: None if v is None else v * 1000)
        return LinkStats(
            connected=link is not None, port=self._port_name,
            firmware=link.info.firmware if link is not None and link.info else None,
            sent=t["sent"], acked=t["acked"], retries=t["retries"], timeouts=t["timeouts"], crc_errors=t["crc"],
            malformed=t["malformed"], error_replies=t["errors"], reconnects=self._reconnects, events=t["events"],
            states_shown=self._states_shown, rtt_last_ms=ms(last), rtt_median_ms=ms(median), rtt_p99_ms=ms(p99),
            board=board, last_error=self._last_error,
        )

    def close(self) -> None:
        self._stop.set()
        self._poke()
        if self._worker.is_alive() and threading.current_thread() is not self._worker:
            self._worker.join(timeout=3.0)
        self._events.put(None)
        self._drop_link(None)

    # --- the driver thread ----------------------------------------------------------------------
    def _poke(self) -> None:
        """Wake the driver thread out of its read. One cancel per wake-up: pyserial's cancel_read
        writes to a blocking pipe, so unbounded calls could block the referee."""
        if self._wake.is_set():
            return
        self._wake.set()
        port = self._port
        cancel = getattr(port, "cancel_read", None)
        if cancel is not None:
            try:
                cancel()
            except Exception:
                pass

    def _run(self) -> None:
        delay = self.reconnect_delays[0]
        while not self._stop.is_set():
            if self._link is None:
                try:
                    self._connect()
                    delay = self.reconnect_delays[0]
                except Exception as exc:  # never let the thread die: unplugged, busy, not ours
                    self._note_error(exc)
                    self._drop_link(None)
                    self._stop.wait(delay)
                    delay = min(delay * 2, self.reconnect_delays[1])
                continue
            try:
                self._step()
            except BoardErrorReply as exc:
                if exc.code == p.E_NEED_HELLO:  # the board restarted under us: new session, resend
                    log.info("LED board asked for a new handshake (it restarted?)")
                    self._drop_link(exc)
                else:
                    self._note_error(exc)
            except Exception as exc:
                log.warning("LED board link lost: %s", exc)
                self._drop_link(exc)

    def _connect(self) -> None:
        name = discover(timeout=self.boot_wait_s, opener=self._opener) if self.spec == "auto" else self.spec
        port = self._opener(name)
        self._port, self._port_name = port, name
        link = Link(port, reply_timeout=self.reply_timeout, retries=self.retries, on_event=self._queue_event)
        end = time.monotonic() + self.boot_wait_s
        while True:  # an Arduino resets when its port opens: give its bootloader time
            try:
                info = link.hello()
                break
            except LinkTimeout:
                if time.monotonic() > end or self._stop.is_set():
                    raise
        self._link = link
        self._connections += 1
        if self._connections > 1:
            self._reconnects += 1
        with self._lock:
            self._shown = min(self._shown, self._wanted - 1) if self._payload is not None else self._shown
        log.info("LED board on %s: firmware %s, protocol %d, %d LEDs", name, info.firmware, info.protocol,
                 info.led_count)

    def _step(self) -> None:
        link = self._link
        assert link is not None
        self._wake.clear()  # before looking: a show() from now on wakes the idle wait below
        with self._lock:
            wanted, payload = self._wanted, self._payload
            pending = payload is not None and self._shown < wanted
        if pending:
            try:
                link.send_state(payload)
            except BoardErrorReply as exc:
                if exc.code == p.E_NEED_HELLO:
                    raise
                # the board refuses this state (host and firmware disagree): don't resend it forever
                log.error("LED board rejected a state: %s", exc)
                self._note_error(exc)
                with self._lock:
                    self._shown = wanted
                    self._lock.notify_all()
                return
            with self._lock:
                self._shown = wanted
                self._states_shown += 1
                self._lock.notify_all()
            return
        if time.monotonic() - link.last_rx >= self.heartbeat_s:
            link.ping()
            self._log_quality()
            return
        end = time.monotonic() + min(self.heartbeat_s, 0.5)
        while not self._wake.is_set() and not self._stop.is_set() and time.monotonic() < end:
            for frame in link.receive():
                link.counters.stale_replies += 1

    def _log_quality(self) -> None:
        """Log a line when the link needed retries or saw damaged frames since the last report."""
        now = time.monotonic()
        if now - self._quality_logged_at < QUALITY_LOG_INTERVAL_S:
            return
        stats = self.link_stats()
        board_bad = stats.board.bad_frames if stats.board else 0
        trouble = (stats.retries, stats.timeouts, stats.crc_errors + stats.malformed, board_bad)
        if trouble != self._quality_last:
            log.warning("LED link quality on %s: %d retries, %d timeouts, %d damaged frames received, "
                        "%d damaged frames at the board, %d reconnects; round trip median %.1f ms, p99 %.1f ms",
                        stats.port, *trouble, stats.reconnects, stats.rtt_median_ms or 0, stats.rtt_p99_ms or 0)
            self._quality_last = trouble
        self._quality_logged_at = now

    def _drop_link(self, exc: Exception | None) -> None:
        link, port = self._link, self._port
        self._link = None
        self._port = None
        if link is not None:
            c, d = link.counters, link.decoder.stats
            for key, value in (("sent", c.sent), ("acked", c.acked), ("retries", c.retries),
                               ("timeouts", c.timeouts), ("crc", d.crc_errors),
                               ("malformed", d.malformed + d.overflows), ("errors", c.error_replies),
                               ("events", c.events)):
                self._totals[key] += value
        if exc is not None:
            self._note_error(exc)
        if port is not None:
            try:
                port.close()
            except Exception:
                pass

    def _note_error(self, exc: Exception) -> None:
        message = f"{type(exc).__name__}: {exc}"
        if message != self._last_error:
            log.info("LED board: %s", message)
        self._last_error = message

    def _queue_event(self, button: str) -> None:
        try:
            self._events.put_nowait(button)
        except queue.Full:
            log.warning("LED board event %r dropped: no one is consuming events", button)

    def _dispatch(self) -> None:
        while True:
            button = self._events.get()
            if button is None:
                return
            for callback in list(self._callbacks):
                try:
                    callback(button)
                except Exception:  # a broken callback must not stop the board
                    log.exception("LED board event callback failed for %r", button)


def candidate_ports() -> list[str]:
    """Serial ports worth a handshake: known Arduino USB bridges first, then any other USB serial."""
    from serial.tools import list_ports

    known, other = [], []
    for info in list_ports.comports():
        if info.vid is not None and (info.vid, info.pid) in KNOWN_USB_IDS:
            known.append(info.device)
        elif info.vid is not None or "USB" in info.device or "ACM" in info.device:
            other.append(info.device)
    return sorted(known) + sorted(other)


def discover(timeout: float = 2.5, opener: Callable[[str], object] | None = None,
             ports: list[str] | None = None) -> str:
    """The first port that answers the handshake; ``$TABLECOMPANION_LED_PORT`` wins when set."""
    env = os.environ.get(PORT_ENV)
    if env:
        return env
    opener = opener or default_opener
    tried = []
    for name in ports if ports is not None else candidate_ports():
        tried.append(name)
        try:
            port = opener(name)
        except Exception:
            continue
        try:
            link = Link(port, reply_timeout=0.2, retries=0)
            end = time.monotonic() + timeout
            while True:
                try:
                    link.hello()
                    return name
                except LinkTimeout:
                    if time.monotonic() > end:
                        break
        except (LedError, serial.SerialException, OSError):
            pass
        finally:
            try:
                port.close()
            except Exception:
                pass
    raise BoardNotFound("no LED board answered the handshake"
                        + (f" on {', '.join(tried)}" if tried else ": no USB serial ports found")
                        + f"; plug it in, or give its port with --port or ${PORT_ENV}")


def open_board(spec: str = "auto", **kwargs) -> LedBoard:
    """"emulated" -> EmulatedLedBoard; a device path or pyserial URL -> SerialLedBoard; "auto" ->
    SerialLedBoard that discovers (and rediscovers after unplugging) the board."""
    if spec == "emulated":
        from tablecompanion.leds.emulated import EmulatedLedBoard

        return EmulatedLedBoard(**kwargs)
    if not spec:
        raise LedError("empty board spec: use 'emulated', 'auto', a device path or a pyserial URL")
    return SerialLedBoard(spec, **kwargs)
