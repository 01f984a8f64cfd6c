"""The board in-process: the real driver talking to ``FirmwareModel`` through a fake serial port.

For the demo and unit tests. Faults (dropped or corrupted writes, unplugging) can be injected to
exercise the driver's retries and reconnects without hardware.
"""

from __future__ import annotations

import random
import threading
import time

import serial

from tablecompanion.leds.board import SerialLedBoard
from tablecompanion.leds.layout import decode_led_bytes, led_names
from tablecompanion.leds.link import READ_TIMEOUT_S
from tablecompanion.leds.model import FirmwareModel
from tablecompanion.leds.state import Light


class EmulatedSerial:
    """A pyserial-like port whose other end is a FirmwareModel."""

    def __init__(self, model: FirmwareModel, *, drop_rate: float = 0.0, corrupt_rate: float = 0.0,
                 seed: int | None = None, plugged: threading.Event | None = None) -> None:
        self.model = model
        self.timeout = READ_TIMEOUT_S
        self.drop_rate = drop_rate
        self.corrupt_rate = corrupt_rate
        self._rng = random.Random(seed)
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._cancelled = False
        self._plugged = plugged
        self.is_open = True

    def _check(self) -> None:
        if not self.is_open:
            raise serial.PortNotOpenError()
        if self._plugged is not None and not self._plugged.is_set():
            raise serial.SerialException("emulated board unplugged")

    def write(self, data: bytes) -> int:
        self._check()
        data = bytes(data)
        if self.drop_rate and self._rng.random() < self.drop_rate:
            return len(data)
        if self.corrupt_rate and data and self._rng.random() < self.corrupt_rate:
            buf = bytearray(data)
            i = self._rng.randrange(len(buf))
            buf[i] ^= 1 << self._rng.randrange(8)
            data = bytes(buf)
        self.model.feed(data)
        self._pull()
        return len(data)

    def _pull(self) -> None:
        out = self.model.take_output()
        if out:
            with self._cond:
                self._buf += out
                self._cond.notify_all()

    @property
    def in_waiting(self) -> int:
        self._check()
        self._pull()
        return len(self._buf)

    def read(self, size: int = 1) -> bytes:
        self._check()
        end = time.monotonic() + (self.timeout or 0)
        while True:
            self._pull()
            with self._cond:
                if self._buf or self._cancelled:
                    self._cancelled = False
                    out = bytes(self._buf[:size])
                    del self._buf[:size]
                    return out
                left = end - time.monotonic()
                if left <= 0:
                    return b""
                self._cond.wait(min(left, 0.005))
            self._check()

    def cancel_read(self) -> None:
        with self._cond:
            self._cancelled = True
            self._cond.notify_all()

    def reset_input_buffer(self) -> None:
        self._pull()
        with self._cond:
            self._buf.clear()

    def close(self) -> None:
        self.is_open = False


class EmulatedLedBoard(SerialLedBoard):
    """``open_board("emulated")``: the full driver over an in-process firmware model."""

    def __init__(self, *, home: str = "right", drop_rate: float = 0.0, corrupt_rate: float = 0.0,
                 seed: int | None = 0, **kwargs) -> None:
        self.model = FirmwareModel()
        self._plugged = threading.Event()
        self._plugged.set()
        self._faults = dict(drop_rate=drop_rate, corrupt_rate=corrupt_rate, seed=seed)
        kwargs.setdefault("boot_wait_s", 0.5)
        kwargs.setdefault("reply_timeout", 0.1)
        super().__init__("emulated", home=home, opener=self._open, **kwargs)

    def _open(self, spec: str) -> EmulatedSerial:
        if not self._plugged.is_set():
            raise serial.SerialException("could not open emulated board: unplugged")
        return EmulatedSerial(self.model, plugged=self._plugged, **self._faults)

    # --- what a person would see or do at the board ---------------------------------------------
    def lights(self) -> list[Light]:
        """The light (colour, mode) of every chain index as the board holds it."""
        return decode_led_bytes(bytes(self.model.leds))

    def displayed(self) -> list[tuple[int, int, int]]:
        """RGB of every LED right now (blink phase, host-lost pattern and power limit applied)."""
        return self.model.rgb()

    def snapshot(self) -> list[dict]:
        """Every LED as JSON-ready data for a dashboard: chain index, what it is (for this board's
        orientation), colour and mode as held, and the RGB it shows at this instant."""
        names = led_names(self.home)
        rgb = self.displayed()
        return [{"led": i, "name": names[i], "colour": light.colour, "mode": light.mode, "rgb": list(rgb[i])}
                for i, light in enumerate(self.lights())]

    def press(self, button: str) -> None:
        self.model.press(button)

    def unplug(self) -> None:
        self._plugged.clear()

    def replug(self, reboot: bool = False) -> None:
        if reboot:
            self.model.__init__()  # a power cycle: all state and the session are gone
        self._plugged.set()
