"""Exports: .mat files gnubg imports, and dice statistics across the tables of a record."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tablecompanion.record import ExportError
from tablecompanion.referee import Hall, Referee, TableSettings
from tablecompanion.referee.matplay import play_mat, settings_for
from tablecompanion.rules.matfile import check_text

MATCHES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "matches"
FILES = ["Llabba_-_Kabrus_7pt_Backgammon_Studio_2023_08_03_08_26_12.mat",
         "Magic_-_Lasse_5pt_Backgammon_Studio_2024_04_22_19_06_30.mat"]


def _text(name: str) -> str:
    path = MATCHES / name
    if not path.exists():
        pytest.skip(f"match file not found: {path}")
    return path.read_text(encoding="utf-8", errors="replace")


def _gnubg() -> str:
    exe = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("gnubg is required in CI (Debian package gnubg)")
        pytest.skip("gnubg not installed (Debian package gnubg)")
    return exe


@pytest.mark.parametrize("name", FILES)
def test_exported_match_replays_to_the_same_score(name):
    text = _text(name)
    ref = Referee("1", settings_for(text))
    play_mat(ref, text)
    exported = ref.export_mat()
    assert '; [Player 1 "' in exported and " point match" in exported
    report = check_text(exported)
    assert report.ok, report.errors
    assert list(report.final_score) == ref.snapshot()["score"]
    assert check_text(text).final_score == report.final_score


def test_gnubg_imports_the_export(tmp_path):
    gnubg = _gnubg()
    text = _text(FILES[0])
    ref = Referee("1", settings_for(text))
    play_mat(ref, text)
    path = tmp_path / "export.mat"
    path.write_text(ref.export_mat())
    out = subprocess.run([gnubg, "-t", "-q"], input=f"import mat {path}\nshow score\n", capture_output=True,
                         text=True, timeout=120).stdout
    m = re.search(r"The score \(after (\d+) games?\) is: (.+?) (\d+), (.+?) (\d+)", out)
    assert m, out[-2000:]
    x, o = ref.snapshot()["score"]
    names = ref.snapshot()["players"]
    assert int(m.group(1)) == len(ref.snapshot()["games"])
    assert (m.group(2), int(m.group(3)), m.group(4), int(m.group(5))) == (names["X"], x, names["O"], o)


def test_a_match_in_progress_exports_its_current_game():
    ref = Referee("1", TableSettings(players=("Ann", "Bo"), match_length=5))
    from tablecompanion.referee import RefereeError

    with pytest.raises(RefereeError) as err:
        ref.export_mat()
    assert err.value.status == 409
    with pytest.raises(ExportError):
        from tablecompanion.record.export import export_mat

        export_mat(ref.state)
    ref.act({"action": "roll", "dice": [3, 1]})
    ref.act({"action": "play", "play": "8/5 6/5"})
    text = ref.export_mat()
    assert "31: 8/5 6/5" in text and " 5 point match" in text


def test_dice_statistics_across_tables_per_dice_set(tmp_path):
    hall = Hall(tmp_path)
    a, _ = hall.create_table(TableSettings(players=("A", "B"), dice_sets=("red", "white")))
    b, _ = hall.create_table(TableSettings(players=("C", "D"), dice_sets=("red", "blue")))
    a.act({"action": "roll", "dice": [5, 2]})  # opening: red 5, white 2
    a.act({"action": "play", "play": "13/8 13/11"})
    a.act({"action": "roll", "dice": [4, 4]})  # white
    a.act({"action": "undo"})  # an entry mistake: not a throw that stands
    a.act({"action": "roll", "dice": [3, 3]})  # white
    b.act({"action": "roll", "dice": [1, 6]})  # red 1, blue 6
    b.act({"action": "play", "play": "13/7 8/7"})
    b.act({"action": "void", "reason": "cocked"})  # void: never counted
    stats = hall.dice_statistics()
    assert set(stats) == {"red", "white", "blue"}
    assert stats["red"]["faces"] == {"1": 1, "2": 0, "3": 0, "4": 0, "5": 1, "6": 0}
    assert stats["red"]["tables"] == ["1", "2"] and stats["red"]["throws"] == 0
    assert stats["white"]["faces"]["3"] == 2 and stats["white"]["faces"]["4"] == 0
    assert stats["white"]["throws"] == 1 and stats["white"]["doubles"] == 1
    assert 0 <= stats["white"]["chi2"]["p_value"] <= 1
