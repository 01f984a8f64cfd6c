"""The one CLI: every area's subcommands are found and each answers --help."""

import subprocess
import sys

import pytest

from tablecompanion.cli import build_parser, main

EXPECTED = {"board", "calibrate", "dice", "leds", "mat", "record", "rules", "serve", "sim"}


def _subcommands():
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return action.choices


def test_every_area_registers_its_subcommands():
    assert EXPECTED <= set(_subcommands())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_subcommand_has_help(name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([name, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "usage: tablecompanion " + name in out


def test_unknown_subcommand_is_a_usage_error():
    with pytest.raises(SystemExit) as exit_info:
        main(["no-such-command"])
    assert exit_info.value.code == 2


def test_module_entry_point_prints_help():
    result = subprocess.run([sys.executable, "-m", "tablecompanion", "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "serve" in result.stdout
