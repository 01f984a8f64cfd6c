"""The ``tablecompanion sim`` commands: files written, readable errors on bad input."""

from __future__ import annotations

import json

import cv2
import pytest

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


def test_sim_frame_lighting_varied_draws_a_room_per_seed(tmp_path):
    """--lighting varied: each seed its own lamp and room, recorded in the truth; the preset's lamp is the
    same whatever the seed, and the same seed gives the same room again."""

    def lighting(seed: int, mode: str):
        out = tmp_path / f"{mode}_{seed}.png"
        assert main(["sim", "frame", "--size", "160x90", "--seed", str(seed), "--lighting", mode, "--out", str(out)]) == 0
        return json.loads(out.with_suffix(".png.json").read_text())["camera"]["lighting"], cv2.imread(str(out))

    preset = [lighting(s, "preset")[0] for s in (1, 2)]
    assert preset[0] == preset[1]
    (room1, img1), (room2, _), (again, img_again) = lighting(1, "varied"), lighting(2, "varied"), lighting(1, "varied")
    assert room1 != room2 and room1 != preset[0]
    assert room1 == again and (img1 == img_again).all()
    lamp_heights = [r["light_mm"][2] for r in (room1, room2)]
    assert all(700 <= h <= 2000 for h in lamp_heights)


def test_sim_frame_mirrors_the_window_unless_told_there_is_none(tmp_path, capsys):
    """The window beyond the top player is in the picture by default (0.3, recorded in the truth) and a
    steep camera sees it in the far tops; ``--window 0`` takes it away; a strength outside 0-2 is refused."""

    def frame(*extra: str):
        out = tmp_path / f"w{len(list(tmp_path.iterdir()))}.png"
        assert main(["sim", "frame", "--camera", "steep", "--size", "640x360", "--seed", "3", "--out", str(out),
                     *extra]) == 0
        return json.loads(out.with_suffix(".png.json").read_text())["camera"]["lighting"]["window_glint"], \
            cv2.imread(str(out)).astype(int)

    (on, lit), (off, dark) = frame(), frame("--window", "0")
    assert (on, off) == (0.3, 0.0)
    far = (slice(0, 180), slice(None))  # the window shows in the far half only
    assert (lit[far] - dark[far]).clip(0).sum() > 20 * (lit[180:] - dark[180:]).clip(0).sum() + 1
    with pytest.raises(SystemExit) as exc:
        main(["sim", "frame", "--window", "5", "--out", str(tmp_path / "x.png")])
    assert exc.value.code == 2 and "--window" in capsys.readouterr().err
