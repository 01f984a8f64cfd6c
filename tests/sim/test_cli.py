"""The ``tablecompanion sim`` commands: files written, readable errors on bad input."""

from __future__ import annotations

import json

import cv2

from tablecompanion.cli import main


def test_sim_frame_writes_image_and_truth(tmp_path):
    out = tmp_path / "f.png"
    rc = main(["sim", "frame", "--dice", "5", "2", "--die-state", "cocked", "--camera", "tilted",
               "--size", "320x180", "--home", "left", "--hand", "--out", str(out)])
    assert rc == 0
    img = cv2.imread(str(out))
    assert img.shape == (180, 320, 3)
    truth = json.loads(out.with_suffix(".png.json").read_text())
    assert truth["home"] == "left" and [d["value"] for d in truth["dice"]] == [5, 2]
    assert truth["dice"][0]["state"] == "cocked" and not truth["dice"][0]["valid"]
    assert truth["hand_pixels"] > 0


def test_sim_frame_bad_input_is_a_message_not_a_crash(tmp_path, capsys):
    assert main(["sim", "frame", "--dice", "9", "1", "--out", str(tmp_path / "x.png")]) == 2
    assert "1..6" in capsys.readouterr().err
    assert main(["sim", "frame", "--position-id", "zzz", "--out", str(tmp_path / "x.png")]) == 2
    assert main(["sim", "frame", "--size", "big", "--out", str(tmp_path / "x.png")]) == 2


def test_sim_render_small_match(tmp_path, match_path, capsys):
    rc = main(["sim", "render", str(match_path), "--out", str(tmp_path), "--max-turns", "1", "--size", "160x90",
               "--inject", "cocked:0.5", "--seed", "2"])
    assert rc == 0
    assert "frames/s" in capsys.readouterr().out
    assert (tmp_path / "truth.jsonl").exists() and (tmp_path / "frames" / "000000.jpg").exists()
    assert main(["sim", "render", str(tmp_path / "missing.mat"), "--out", str(tmp_path / "o")]) == 2
