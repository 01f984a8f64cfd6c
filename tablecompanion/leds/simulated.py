"""The real firmware on a simulated ATmega328P: builds it with make, runs the simavr harness
(hardware/sim) and reads what it reports about the WS2812 pin.

The harness's pty is opened by ``SerialLedBoard`` exactly like /dev/ttyUSB0. Tests and
``tablecompanion leds check --emulate`` use this; nothing here is needed on a real table.
"""

from __future__ import annotations

import fcntl
import glob
import os
import queue
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tablecompanion.leds.errors import LedError, ToolchainMissing

REPO = Path(__file__).resolve().parents[2]
FIRMWARE_DIR = REPO / "hardware" / "firmware"
SIM_DIR = REPO / "hardware" / "sim"
FIRMWARE_ELF = FIRMWARE_DIR / "build" / "ledboard.elf"
HARNESS = SIM_DIR / "build" / "ledboard-sim"
CPU_HZ = 16_000_000
BUTTON_INDEX = {"done": 0, "double": 1, "take": 2, "pass": 3}


def missing_tools() -> list[str]:
    """What is missing to build and run the emulated MCU (empty when everything is there)."""
    missing = [tool for tool in ("make", "avr-gcc", "avr-objcopy", "gcc") if shutil.which(tool) is None]
    if not Path("/usr/include/avr/io.h").exists() and not glob.glob("/usr/lib/avr/include/avr/io.h"):
        missing.append("avr-libc")
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        missing.append("libsimavr-dev (headers)")
    if not (glob.glob("/usr/lib/*/libsimavr.so") + glob.glob("/usr/lib/libsimavr.so")
            + glob.glob("/usr/local/lib/libsimavr.so")):
        missing.append("libsimavr-dev (library)")
    return missing


def build(quiet: bool = True) -> tuple[Path, Path]:
    """Build firmware and harness (make does nothing when they are up to date)."""
    missing = missing_tools()
    if missing:
        raise ToolchainMissing("cannot build the emulated LED board, missing: " + ", ".join(missing)
                               + " (Debian: apt-get install gcc-avr avr-libc binutils-avr libsimavr-dev gcc)")
    lock_dir = FIRMWARE_DIR / "build"
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / ".build-lock", "w") as lock:  # two test sessions must not interleave makes
        fcntl.flock(lock, fcntl.LOCK_EX)
        for directory in (FIRMWARE_DIR, SIM_DIR):
            result = subprocess.run(["make", "-C", str(directory)], capture_output=True, text=True, timeout=300)
            if result.returncode != 0:
                raise LedError(f"building {directory.relative_to(REPO)} failed:\n{result.stdout}\n{result.stderr}")
    return FIRMWARE_ELF, HARNESS


@dataclass(frozen=True)
class LedFrame:
    """One latched WS2812 frame as the harness decoded it from the data pin."""

    cycle: int
    rgb: tuple[tuple[int, int, int], ...]

    @property
    def time_ms(self) -> float:
        return self.cycle * 1000 / CPU_HZ


class SimulatedBoard:
    """A running harness: ``pty`` to open, ``frames`` seen on the LED pin, ``press`` for buttons."""

    def __init__(self, elf: Path | None = None, harness: Path | None = None, start_timeout: float = 30.0,
                 trace_frames: bool = False) -> None:
        if elf is None or harness is None:
            elf, harness = build()
        env = dict(os.environ)
        if trace_frames:
            env["LEDBOARD_SIM_FRAMES"] = "1"
        #: (direction, cycle) of every 0x00 frame delimiter in ("RX0", host to MCU) and out ("TX0"),
        #: when trace_frames: frame timing on the simulated clock, free of host scheduling noise.
        self.delimiters: list[tuple[str, int]] = []
        self._lines: queue.Queue = queue.Queue()
        self._cond = threading.Condition()
        self.frames: list[LedFrame] = []
        self.bad_bursts: list[str] = []
        #: simulated cycles at which a host byte was lost because the MCU left two received bytes
        #: unread (a real UART's data overrun); the firmware must never let this happen
        self.overruns: list[int] = []
        self.exited: str | None = None
        self.proc = subprocess.Popen([str(harness), str(elf)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env)
        self._reader = threading.Thread(target=self._read, name="simavr-harness", daemon=True)
        self._reader.start()
        self.pty = self._wait_pty(start_timeout)

    def _wait_pty(self, timeout: float) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self._lines.get(timeout=0.1)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            if line.startswith("PTY "):
                return line.split(None, 1)[1].strip()
        self.close()
        raise LedError("the simavr harness did not report its pty" + (f" (exit {self.proc.returncode})"
                                                                      if self.proc.returncode is not None else ""))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self._parse(line)
            except (ValueError, IndexError):  # a line cut short when the harness is stopped
                self._lines.put(line)
        with self._cond:
            if self.exited is None:
                self.exited = "harness exited"
            self._cond.notify_all()

    def _parse(self, line: str) -> None:
        if line.startswith("LEDS "):
            parts = line.split()
            n = int(parts[2])
            rgb = tuple((int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)) for h in parts[3 : 3 + n])
            if len(rgb) != n or any(len(h) != 6 for h in parts[3 : 3 + n]):
                raise ValueError("short LEDS line")
            with self._cond:
                self.frames.append(LedFrame(int(parts[1]), rgb))
                if len(self.frames) > 5000:  # bounded memory on long runs (indices shift then)
                    del self.frames[:1000]
                self._cond.notify_all()
        elif line.startswith("BITS "):
            self.bad_bursts.append(line.strip())
        elif line.startswith(("RX0 ", "TX0 ")):
            kind, cycle = line.split()
            with self._cond:
                self.delimiters.append((kind, int(cycle)))
        elif line.startswith("OVERRUN "):
            with self._cond:
                self.overruns.append(int(line.split()[1]))
        elif line.startswith("EXIT "):
            self.exited = line.strip()
        else:
            self._lines.put(line)

    # --- observing -------------------------------------------------------------------------------
    def latest(self) -> LedFrame | None:
        with self._cond:
            return self.frames[-1] if self.frames else None

    def wait_for(self, predicate, timeout: float = 10.0, after: int = 0) -> LedFrame:
        """The first frame (index >= ``after``) for which ``predicate(frame.rgb)`` holds."""
        end = time.monotonic() + timeout
        i = after
        with self._cond:
            while True:
                while i < len(self.frames):
                    frame = self.frames[i]
                    i += 1
                    if predicate(frame.rgb):
                        return frame
                left = end - time.monotonic()
                if left <= 0 or self.exited:
                    last = self.frames[-1].rgb if self.frames else None
                    raise LedError(f"the emulated board never showed the expected LEDs "
                                   f"({'firmware stopped: ' + self.exited if self.exited else 'timeout'}); "
                                   f"last frame: {last}")
                self._cond.wait(min(left, 0.5))

    def exchange_times_ms(self, char_cycles: int = CPU_HZ * 10 // 250_000) -> list[float]:
        """Simulated-clock duration of each request/reply exchange, in order: from the first byte of
        a host frame entering the UART to the end of the last byte of the board's reply. Needs
        ``trace_frames``; assumes one reply per request (a Link without events, as in benchmarks)."""
        with self._cond:
            rx = [c for kind, c in self.delimiters if kind == "RX0"]
            tx = [c for kind, c in self.delimiters if kind == "TX0"]
        pairs = min(len(rx), len(tx)) // 2
        return [(tx[2 * k + 1] + char_cycles - rx[2 * k]) * 1000 / CPU_HZ for k in range(pairs)]

    def frame_count(self) -> int:
        with self._cond:
            return len(self.frames)

    # --- acting ----------------------------------------------------------------------------------
    def press(self, button: str) -> None:
        if button not in BUTTON_INDEX:
            raise LedError(f"unknown button {button!r}; buttons are {', '.join(BUTTON_INDEX)}")
        self._command(f"press {BUTTON_INDEX[button]}")

    def _command(self, text: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise LedError("the simavr harness is not running") from exc

    def kill(self) -> None:
        """Pull the cable: the harness dies at once (SIGKILL), its pty vanishes mid-conversation."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._command("quit")
            except LedError:
                pass
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=3)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except Exception:
                pass

    def __enter__(self) -> "SimulatedBoard":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"
