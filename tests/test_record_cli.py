"""``tablecompanion record export|ids|stats`` on a record written by a referee."""

from __future__ import annotations

import json

import pytest

from tablecompanion.cli import main
from tablecompanion.referee import Hall, TableSettings
from tablecompanion.rules.matfile import parse_mat


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "data"
    hall = Hall(d)
    ref, _ = hall.create_table(TableSettings(players=("Alice", "Bob"), match_length=5), table_id="1", token="abcd")
    for action in ({"action": "roll", "dice": [5, 2]}, {"action": "play", "play": "13/8 13/11"},
                   {"action": "roll", "dice": [6, 4]}, {"action": "play", "play": "24/18 13/9"},
                   {"action": "roll", "dice": [3, 3]}):
        ref.act(action)
    hall.close()
    return d


def test_export_writes_a_mat_file_gnubg_reads(data_dir, tmp_path, capsys):
    out = tmp_path / "m.mat"
    assert main(["record", "export", "--data-dir", str(data_dir), "--table", "1", "-o", str(out)]) == 0
    mat = parse_mat(out.read_text())
    assert mat.length == 5
    assert [p.strip() for p in mat.players] == ["Alice", "Bob"]
    text = out.read_text()
    assert "52: 13/11 13/8" in text and "64: 24/18 13/9" in text  # gnubg writes the higher move first
    assert main(["record", "export", "--data-dir", str(data_dir)]) == 0  # to stdout, table 1 by default
    assert "13/11 13/8" in capsys.readouterr().out


def test_ids_now_and_at_an_entry(data_dir, capsys):
    assert main(["record", "ids", "--data-dir", str(data_dir), "--json"]) == 0
    now = json.loads(capsys.readouterr().out)
    assert main(["record", "ids", "--data-dir", str(data_dir), "--at", "0", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert now["position_id"] and first["position_id"] and now["position_id"] != first["position_id"]
    assert now["gnubg_id"] == f"{now['position_id']}:{now['match_id']}"
    assert now["xgid"].startswith("XGID=")
    assert main(["record", "ids", "--data-dir", str(data_dir), "--at", "-1"]) == 0
    assert "gnubg ID" in capsys.readouterr().out


def test_stats_counts_every_die(data_dir, capsys):
    assert main(["record", "stats", "--data-dir", str(data_dir), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    faces = {}
    for s in stats.values():
        for v, n in s["faces"].items():
            faces[v] = faces.get(v, 0) + n
    assert faces["5"] >= 1 and faces["2"] >= 1 and faces["6"] >= 1 and faces["4"] >= 1 and faces["3"] >= 2
    assert main(["record", "stats", "--data-dir", str(data_dir)]) == 0
    assert "throws" in capsys.readouterr().out


def test_bad_input_is_a_clear_error(data_dir, tmp_path, capsys):
    assert main(["record", "stats", "--data-dir", str(tmp_path / "nothing")]) == 2
    assert "no record" in capsys.readouterr().err
    assert not (tmp_path / "nothing").exists()  # nothing created
    assert main(["record", "ids", "--data-dir", str(data_dir), "--table", "9"]) == 2
    assert "no table '9'" in capsys.readouterr().err
    assert main(["record", "ids", "--data-dir", str(data_dir), "--at", "99"]) == 2
    assert "no history entry" in capsys.readouterr().err
