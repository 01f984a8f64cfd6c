"""``tablecompanion rules ...``: the rules engine from the command line."""

from __future__ import annotations

import json

from tablecompanion.cli import main


def test_legal_lists_one_line_per_play(capsys):
    assert main(["rules", "legal", "4HPwATDgc/ABMA", "3", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "16 legal plays"
    assert any(line.split()[:2] == ["8/5", "6/5"] and line.endswith("sGfwATDgc/ABMA") for line in out)


def test_legal_json_and_forfeit(capsys):
    assert main(["rules", "legal", "start", "6", "6", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 11 and {"play", "next_position_id"} <= set(rows[0])


def test_play_accepts_variants_and_explains_illegal_ones(capsys):
    assert main(["rules", "play", "start", "3", "1", "6/5 8/5"]) == 0
    assert "sGfwATDgc/ABMA" in capsys.readouterr().out
    assert main(["rules", "play", "start", "6", "1", "6/5"]) == 1
    assert "both dice can be played" in capsys.readouterr().err


def test_show_reads_xgid_and_rejects_garbage(capsys):
    assert main(["rules", "show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"]) == 0
    assert "4HPwATDgc/ABMA" in capsys.readouterr().out
    assert main(["rules", "show", "not-an-id"]) == 1
    assert "Position ID" in capsys.readouterr().err


def test_bench_runs(capsys):
    assert main(["rules", "bench", "--positions", "200"]) == 0
    assert "positions/s" in capsys.readouterr().out
