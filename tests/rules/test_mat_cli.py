"""``tablecompanion mat check`` / ``mat export`` as a person with match files uses them."""

from __future__ import annotations

import json
from pathlib import Path

from tablecompanion.cli import main
from tests.rules.conftest import need

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MATCHES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "matches"


def test_check_json_one_object_per_file_and_exit_status(capsys):
    good = FIXTURES / "galaxy_style.mat"
    bad = FIXTURES / "illegal_play.mat"
    assert main(["mat", "check", str(good), "--json"]) == 0
    assert main(["mat", "check", str(good), str(bad), "--json"]) == 1
    lines = capsys.readouterr().out.splitlines()
    objs = [json.loads(line) for line in lines]
    assert [o["file"] for o in objs] == ["galaxy_style.mat", "galaxy_style.mat", "illegal_play.mat"]
    assert set(objs[0]) == {"file", "ok", "games", "final_score", "errors"}
    assert objs[0]["ok"] and objs[0]["games"] == [{"winner": "X", "points": 4}] and objs[0]["final_score"] == [4, 0]
    assert not objs[2]["ok"] and objs[2]["errors"][0].startswith("game 1 move 2")


def test_check_text_names_the_first_illegal_action(capsys):
    assert main(["mat", "check", str(FIXTURES / "illegal_play.mat")]) == 1
    out = capsys.readouterr().out
    assert "illegal_play.mat: FAILED" in out
    assert "first illegal action: game 1 move 2 (line 11, X)" in out
    assert "game 2: O (Ben) wins 2 points (resigned)" in out
    assert "final score: 1-2, match not finished" in out


def test_missing_file_fails_without_a_traceback(capsys, tmp_path):
    assert main(["mat", "check", str(tmp_path / "nope.mat"), "--json"]) == 1
    obj = json.loads(capsys.readouterr().out)
    assert not obj["ok"] and "cannot read" in obj["errors"][0]


def test_export_writes_a_file_that_checks_ok(tmp_path, capsys):
    src = MATCHES / "match10041414.mat"
    need(src)
    out = tmp_path / "again.mat"
    assert main(["mat", "export", str(src), "-o", str(out)]) == 0
    assert main(["mat", "check", str(out), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["ok"] and obj["final_score"] == [5, 3] and len(obj["games"]) == 7


def test_export_refuses_a_file_with_illegal_actions(capsys):
    assert main(["mat", "export", str(FIXTURES / "illegal_play.mat")]) == 1
    assert "cannot export" in capsys.readouterr().err
