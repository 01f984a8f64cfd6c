"""Unplugging and replugging the real firmware under simavr: the harness is killed (the pty vanishes
mid-conversation, as /dev/ttyUSB0 does when the cable is pulled) and a fresh one is started, either
behind the same path (a udev-style symlink such as /dev/serial/by-id/...) or on a new pty that the
driver finds again by handshaking. The driver must never block the referee meanwhile, and must
resend the latest state to the freshly booted MCU."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from tablecompanion.leds import board as board_module
from tablecompanion.leds import layout
from tablecompanion.leds.board import SerialLedBoard, discover
from tablecompanion.leds.model import rgb_output
from tablecompanion.leds.simulated import SimulatedBoard
from tablecompanion.leds.state import LedState

pytestmark = pytest.mark.slow

BEFORE = LedState().with_point(3, "green").with_turn("bottom").with_cube(2, "top")
DURING = [LedState().with_point(p, "blue").with_turn("top") for p in range(1, 25)]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def expected(state: LedState):
    return rgb_output(layout.render(state), state.brightness, 0)


def wait_until(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def repoint(link_path: str, target: str) -> None:
    """Atomically make ``link_path`` point at ``target`` (what udev does on replug)."""
    tmp = link_path + ".new"
    os.symlink(target, tmp)
    os.replace(tmp, link_path)


def shows_during_outage(board) -> bool:
    """The referee keeps calling show() while the board is gone: every call returns promptly."""
    done = threading.Event()

    def referee():
        for state in DURING:
            board.show(state)
        done.set()

    threading.Thread(target=referee, daemon=True).start()
    return done.wait(5)


def test_unplug_and_replug_behind_the_same_path(built, tmp_path):
    elf, harness = built
    stable = str(tmp_path / "ttyLEDBOARD")
    first = SimulatedBoard(elf, harness)
    second = None
    repoint(stable, first.pty)
    board = SerialLedBoard(stable, reply_timeout=0.5, retries=2, heartbeat_s=0.3, reconnect_delays=(0.05, 0.3))
    try:
        board.show(BEFORE)
        assert board.wait_shown(30)
        first.wait_for(lambda rgb: list(rgb) == expected(BEFORE), timeout=30)

        first.kill()  # cable pulled: the pty disappears under an open port
        os.unlink(stable)
        assert wait_until(lambda: not board.link_stats().connected, 20)
        assert shows_during_outage(board)
        assert not board.wait_shown(0.3)  # nothing can acknowledge it now

        second = SimulatedBoard(elf, harness)  # plugged back: a freshly booted MCU, its state lost
        repoint(stable, second.pty)
        second.wait_for(lambda rgb: list(rgb) == expected(DURING[-1]), timeout=30)
        assert board.wait_shown(30)
        stats = board.link_stats()
        assert stats.connected and stats.reconnects >= 1 and stats.port == stable
        assert stats.last_error  # the outage was noted, not swallowed
    finally:
        board.close()
        first.close()
        if second is not None:
            second.close()


def test_replug_on_a_new_pty_is_found_again_by_handshake(built, monkeypatch):
    """spec "auto": the replugged board comes back under another name; discovery handshakes the
    candidates (a port that does not exist, a silent one, the board) and picks the board."""
    elf, harness = built
    monkeypatch.delenv(board_module.PORT_ENV, raising=False)
    silent_master, silent_slave = os.openpty()
    current = {"sim": SimulatedBoard(elf, harness)}
    candidates = lambda: ["/dev/nonexistent-ledboard", os.ttyname(silent_slave), current["sim"].pty]  # noqa: E731
    monkeypatch.setattr(board_module, "candidate_ports", candidates)
    board = SerialLedBoard("auto", reply_timeout=0.5, retries=2, heartbeat_s=0.3, boot_wait_s=0.5,
                           reconnect_delays=(0.05, 0.3))
    old_pty = current["sim"].pty
    try:
        board.show(BEFORE)
        assert board.wait_shown(60)
        assert board.link_stats().port == old_pty

        current["sim"].kill()
        assert wait_until(lambda: not board.link_stats().connected, 20)
        assert shows_during_outage(board)
        current["sim"] = SimulatedBoard(elf, harness)
        current["sim"].wait_for(lambda rgb: list(rgb) == expected(DURING[-1]), timeout=60)
        stats = board.link_stats()
        assert stats.port == current["sim"].pty and stats.reconnects >= 1
    finally:
        board.close()
        current["sim"].close()
        os.close(silent_master)
        os.close(silent_slave)


def test_discover_picks_the_port_that_answers_the_handshake(sim, monkeypatch):
    monkeypatch.delenv(board_module.PORT_ENV, raising=False)
    silent_master, silent_slave = os.openpty()
    try:
        found = discover(timeout=0.5, ports=["/dev/nonexistent-ledboard", os.ttyname(silent_slave), sim.pty])
    finally:
        os.close(silent_master)
        os.close(silent_slave)
    assert found == sim.pty


def test_check_exits_non_zero_when_the_port_vanishes(built):
    """`tablecompanion leds check --port PORT` while the board is unplugged mid-check."""
    elf, harness = built
    with SimulatedBoard(elf, harness) as sim:
        proc = subprocess.Popen([sys.executable, "-u", "-m", "tablecompanion", "leds", "check", "--port", sim.pty,
                                 "--count", "1000000"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        try:
            assert proc.stdout is not None
            seen = []
            for line in proc.stdout:  # wait until it is in the middle of its round trips
                seen.append(line)
                if line.startswith("test pattern"):
                    break
            assert any("test pattern" in line for line in seen), seen
            time.sleep(0.3)
            sim.kill()
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 1
    assert "leds check failed" in err and "unplugged" in err and "leds check: OK" not in out


def test_show_on_the_emulated_mcu(built, capsys):
    from tablecompanion.cli import main

    pytest.importorskip("tablecompanion.rules")
    assert main(["leds", "show", "--position-id", "4HPwATDgc/ABMA", "--dice", "6", "3", "--emulate"]) == 0
    out = capsys.readouterr().out
    assert "2, 3, 4, 5, 7, 10, 15, 18, 21" in out
    assert "verified: the emulated MCU drives exactly these LEDs" in out
