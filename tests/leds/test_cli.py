"""``tablecompanion leds ...`` end to end."""

from __future__ import annotations

import json

import pytest

from tablecompanion.cli import main


def test_check_in_process(capsys):
    assert main(["leds", "check", "--in-process", "--count", "20", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["round_trips"] == 20 and report["wire_ms"] == pytest.approx(2.0)


@pytest.mark.slow
def test_check_emulated_verifies_the_pins(built, capsys):
    assert main(["leds", "check", "--emulate", "--count", "50"]) == 0
    out = capsys.readouterr().out
    assert "matches the pattern" in out and "median" in out and "leds check: OK" in out
    assert "emulated MCU's clock: median" in out


def test_check_fails_clearly_without_a_board(capsys):
    assert main(["leds", "check", "--port", "/dev/nonexistent-ledboard"]) == 1
    assert "nonexistent-ledboard" in capsys.readouterr().err


def test_check_fails_on_latency_budget(capsys):
    assert main(["leds", "check", "--in-process", "--count", "5", "--max-median-ms", "0"]) == 1
    assert "max-median-ms" in capsys.readouterr().err


def test_show_lights_the_legal_destinations(capsys):
    pytest.importorskip("tablecompanion.rules")
    assert main(["leds", "show", "--position-id", "4HPwATDgc/ABMA", "--dice", "6", "3", "--in-process"]) == 0
    out = capsys.readouterr().out
    assert "2, 3, 4, 5, 7, 10, 15, 18, 21" in out and "acknowledged" in out


def test_show_top_mover_and_bad_id(capsys):
    pytest.importorskip("tablecompanion.rules")
    assert main(["leds", "show", "--position-id", "4HPwATDgc/ABMA", "--dice", "6", "3", "--mover", "top",
                 "--in-process"]) == 0
    assert "4, 7, 10, 15, 18, 20, 21, 22, 23" in capsys.readouterr().out
    assert main(["leds", "show", "--position-id", "nonsense", "--dice", "6", "3", "--in-process"]) == 2
    assert capsys.readouterr().err


def test_layout_lists_every_led(capsys):
    assert main(["leds", "layout", "--home", "left"]) == 0
    out = capsys.readouterr().out
    assert " 11  point 1" in out and " 40  status" in out
