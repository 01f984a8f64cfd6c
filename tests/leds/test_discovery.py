"""Finding the board: USB serial ports ranked by the VID/PIDs of Arduino-class USB bridges, and the
toolchain gate of the emulated-MCU tests (skip on a developer machine, fail under CI=true)."""

from __future__ import annotations

import pytest
from serial.tools.list_ports_common import ListPortInfo

from tablecompanion.leds import board as board_module
from tablecompanion.leds import simulated
from tablecompanion.leds.errors import BoardNotFound


def port(device: str, vid: int | None = None, pid: int | None = None) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    return info


def test_known_usb_bridges_come_first(monkeypatch):
    from serial.tools import list_ports

    monkeypatch.setattr(list_ports, "comports", lambda: [
        port("/dev/ttyS0"),                          # a motherboard UART: never a candidate
        port("/dev/ttyACM3", 0x1234, 0x5678),        # some other USB serial device
        port("/dev/ttyUSB1", 0x1A86, 0x7523),        # CH340 (Nano clones)
        port("/dev/ttyACM0", 0x2341, 0x0043),        # Arduino Uno
    ])
    assert board_module.candidate_ports() == ["/dev/ttyACM0", "/dev/ttyUSB1", "/dev/ttyACM3"]


def test_discover_handshakes_candidates_and_explains_failure(monkeypatch):
    monkeypatch.delenv(board_module.PORT_ENV, raising=False)
    monkeypatch.setattr(board_module, "candidate_ports", lambda: ["/dev/nonexistent-a", "/dev/nonexistent-b"])
    with pytest.raises(BoardNotFound, match="nonexistent-a, /dev/nonexistent-b"):
        board_module.discover(timeout=0.1)


def test_environment_variable_names_the_port(monkeypatch):
    monkeypatch.setenv(board_module.PORT_ENV, "socket://ledboard.local:7000")
    assert board_module.discover() == "socket://ledboard.local:7000"


def test_missing_toolchain_skips_locally_and_fails_under_ci(monkeypatch):
    from tests.leds import conftest

    monkeypatch.setattr(simulated, "missing_tools", lambda: ["avr-gcc"])
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="avr-gcc"):
        conftest.require_toolchain()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="avr-gcc"):
        conftest.require_toolchain()
