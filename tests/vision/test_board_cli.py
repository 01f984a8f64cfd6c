"""The ``tablecompanion board read`` contract, on simulator renders of known positions.

``--json`` gives ``{"points": {"1": {"side", "count"}, ... "24": ...}, "bar": {side: n}, "off": {side: n},
"uncertain": [...], "position_id": ...}`` with points numbered for the bottom player, home boards on the
right (1 = bottom-right, 12 = bottom-left, 13 = top-left, 24 = top-right); bad input is a clear error with
a non-zero exit status and no traceback.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import Calibration, save_profile
from tablecompanion.cli import main
from tablecompanion.rules import Position
from tablecompanion.sim import Camera, Renderer, Scene

ROOT = Path(__file__).resolve().parents[2]
SIDES = {"light", "dark"}


def _midgame(seed: int, plies: int, want_bar: bool = False) -> Position:
    """A position reached by random legal plays from the start (with a checker on the bar if asked)."""
    rng = random.Random(seed)
    while True:
        pos = Position.initial()
        for ply in range(plies):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = pos.legal_plays(dice)
            pos = pos.apply(rng.choice(plays)) if plays else pos.swapped()
            if want_bar and ply > 4 and (pos.on_roll[24] or pos.opponent[24]):
                return pos
        if not want_bar:
            return pos


def _render(tmp_path: Path, position: Position, style: str, camera: str, seed: int = 1):
    renderer = Renderer(Camera.preset(camera), style, "right", True)
    scene = Scene.from_position(position, dice=(5, 2), style=style)
    img, truth = renderer.render(scene, seed=seed)
    path = tmp_path / f"{style}-{camera}.png"
    cv2.imwrite(str(path), img)
    return path, scene, renderer, truth


def _profile(tmp_path: Path, renderer: Renderer, truth: dict, name: str) -> Path:
    """Save the camera's true calibration as a profile in a fresh data directory."""
    cam = truth["camera"]
    cal = Calibration(renderer.geo, tuple(truth["image_size"]), np.array(truth["homography_image_to_board"]),
                      camera_matrix=np.array(cam["K"]), dist_coeffs=np.array(cam["dist"]), source="markers")
    data = tmp_path / "data"
    save_profile(cal, name, data)
    return data


def _run_json(capsys, *argv: str) -> dict:
    assert main(["board", "read", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _check_shape(out: dict) -> None:
    assert set(out) == {"points", "bar", "off", "uncertain", "position_id"}
    assert list(out["points"]) == [str(p) for p in range(1, 25)]
    for entry in out["points"].values():
        assert set(entry) == {"side", "count"}
        assert isinstance(entry["count"], int) and entry["count"] >= 0
        assert (entry["side"] is None) == (entry["count"] == 0)
        assert entry["side"] is None or entry["side"] in SIDES
    assert set(out["bar"]) == SIDES and set(out["off"]) == SIDES
    assert all(isinstance(p, int) and 1 <= p <= 24 for p in out["uncertain"])


def _truth_points(scene: Scene) -> dict:
    return {str(p): {"side": c if n else None, "count": n} for p, (c, n) in enumerate(scene.points, start=1)}


CASES = [
    (11, 14, False, "tournament", "default"),
    (23, 30, True, "classic", "tilted"),
    (5, 22, False, "leather", "top"),
    (8, 40, True, "tournament", "steep"),
]


@pytest.mark.parametrize("seed,plies,bar,style,camera", CASES)
def test_json_with_a_profile_gives_the_rendered_position(tmp_path, capsys, seed, plies, bar, style, camera):
    position = _midgame(seed, plies, bar)
    path, scene, renderer, truth = _render(tmp_path, position, style, camera)
    data = _profile(tmp_path, renderer, truth, "table-1")
    out = _run_json(capsys, str(path), "--profile", "table-1", "--data-dir", str(data))
    _check_shape(out)
    assert out["points"] == _truth_points(scene)
    bar = dict(scene.bar)
    assert out["bar"] == {s: bar.get(s, 0) for s in SIDES}
    assert out["off"] == {s: 15 - sum(n for c, n in scene.points if c == s) - bar.get(s, 0) for s in SIDES}
    assert out["uncertain"] == []
    # the bottom player's colour is the light one here, and it is on roll in the render
    assert out["position_id"] == position.position_id()


def test_numbering_is_the_bottom_players_with_home_on_the_right(tmp_path, capsys):
    """One lone checker on four corner points: 1 is bottom-right, 12 bottom-left, 13 top-left, 24 top-right."""
    points: list = [(None, 0)] * 24
    for p, side in ((1, "light"), (12, "dark"), (13, "light"), (24, "dark")):
        points[p - 1] = (side, 1)
    renderer = Renderer(Camera.preset("default"), "tournament", "right", True)
    scene = Scene(points=tuple(points), off=(("light", 13), ("dark", 13)),
                  style="tournament", dice=())
    img, truth = renderer.render(scene, seed=2)
    path = tmp_path / "corners.png"
    cv2.imwrite(str(path), img)
    data = _profile(tmp_path, renderer, truth, "t")
    out = _run_json(capsys, str(path), "--profile", "t", "--data-dir", str(data))
    got = {int(p): (e["side"], e["count"]) for p, e in out["points"].items() if e["count"]}
    assert got == {1: ("light", 1), 12: ("dark", 1), 13: ("light", 1), 24: ("dark", 1)}
    # and those numbers sit where the contract says in the picture
    h, w = img.shape[:2]
    geo = renderer.geo
    cam = truth["camera"]
    cal = Calibration(geo, (w, h), np.array(truth["homography_image_to_board"]), camera_matrix=np.array(cam["K"]),
                      dist_coeffs=np.array(cam["dist"]))
    at = {p: cal.board_to_image(np.array([geo.point_centre(p)]))[0] for p in (1, 12, 13, 24)}
    assert at[1][0] > w / 2 and at[1][1] > h / 2
    assert at[12][0] < w / 2 and at[12][1] > h / 2
    assert at[13][0] < w / 2 and at[13][1] < h / 2
    assert at[24][0] > w / 2 and at[24][1] < h / 2
    # the other 26 are read as borne off (no trays in view): bottom (light) on roll with its 1 and 13 points,
    # dark's own 13 and 1 points are the bottom player's 12 and 24
    pos = Position.from_position_id(out["position_id"])
    assert [i + 1 for i, n in enumerate(pos.on_roll[:24]) if n] == [1, 13]
    assert [i + 1 for i, n in enumerate(pos.opponent[:24]) if n] == [1, 13]
    assert pos.borne_off == (13, 13)


@pytest.mark.parametrize("style,camera", [("tournament", "default"), ("classic", "tilted")])
def test_json_without_a_profile_finds_the_board(tmp_path, capsys, style, camera):
    position = _midgame(3, 18)
    path, scene, _, _ = _render(tmp_path, position, style, camera, seed=4)
    out = _run_json(capsys, str(path))
    _check_shape(out)
    truth = _truth_points(scene)
    wrong = [p for p in truth if out["points"][p] != truth[p] and int(p) not in out["uncertain"]]
    assert wrong == []
    assert len(out["uncertain"]) <= 2
    if not out["uncertain"]:
        assert out["position_id"] == position.position_id()


def test_text_output_and_annotation(tmp_path, capsys):
    position = _midgame(11, 14)
    path, _, renderer, truth = _render(tmp_path, position, "tournament", "default")
    data = _profile(tmp_path, renderer, truth, "table-1")
    out_png = tmp_path / "out" / "annotated.png"
    assert main(["board", "read", str(path), "--profile", "table-1", "--data-dir", str(data),
                 "--annotate", str(out_png)]) == 0
    text = capsys.readouterr().out
    assert f"Position ID: {position.position_id()}" in text
    assert "bar" in text and "off" in text
    drawn = cv2.imread(str(out_png))
    original = cv2.imread(str(path))
    assert drawn is not None and drawn.shape == original.shape
    assert np.mean(cv2.absdiff(drawn, original)) > 0.5  # something was drawn on it


def test_bad_input_is_a_clear_error(tmp_path, capsys):
    missing = tmp_path / "nope.jpg"
    assert main(["board", "read", str(missing), "--json"]) != 0
    assert "no such image" in capsys.readouterr().err

    not_image = tmp_path / "notes.png"
    not_image.write_text("this is not a picture")
    assert main(["board", "read", str(not_image)]) != 0
    assert "cannot read" in capsys.readouterr().err

    truncated = tmp_path / "cut.jpg"
    ok, buf = cv2.imencode(".jpg", np.full((400, 600, 3), 90, np.uint8))
    truncated.write_bytes(buf.tobytes()[:200])
    assert main(["board", "read", str(truncated)]) != 0
    assert "error" in capsys.readouterr().err

    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((8, 8, 3), np.uint8))
    assert main(["board", "read", str(tiny)]) != 0
    assert "too small" in capsys.readouterr().err

    assert main(["board", "read", str(tiny), "--profile", "nobody", "--data-dir", str(tmp_path / "d")]) != 0
    err = capsys.readouterr().err
    assert "nobody" in err and "Traceback" not in err


def test_a_profile_for_another_camera_size_is_a_clear_error(tmp_path, capsys):
    path, _, renderer, truth = _render(tmp_path, _midgame(11, 14), "tournament", "default")
    data = _profile(tmp_path, renderer, truth, "table-1")
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(path)), (640, 360)))
    assert main(["board", "read", str(small), "--profile", "table-1", "--data-dir", str(data)]) != 0
    assert "error" in capsys.readouterr().err


def test_no_board_in_the_picture_exits_non_zero_without_a_traceback(tmp_path):
    """A table top with no board (smooth wood grain and a mug) run as a separate process."""
    rng = np.random.default_rng(0)
    img = np.zeros((480, 640, 3), np.uint8)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (480, 640)).astype(np.float32), (0, 0), sigmaX=30, sigmaY=2)
    grain = (grain - grain.min()) / (np.ptp(grain) + 1e-6)
    img[..., 0] = (40 + 40 * grain).astype(np.uint8)
    img[..., 1] = (70 + 50 * grain).astype(np.uint8)
    img[..., 2] = (110 + 60 * grain).astype(np.uint8)
    cv2.circle(img, (420, 200), 60, (230, 230, 235), -1)
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), img)
    run = subprocess.run([sys.executable, "-m", "tablecompanion", "board", "read", str(path), "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert "no board found" in run.stderr
    assert run.stdout.strip() == ""


def test_a_pile_is_counted_from_the_checkers_it_must_hide(tmp_path, capsys):
    """Seven on the 6-point: a row of five with two piled on it. Seen from above the pile is the row; with
    checkers still outside the home board none can be borne off, so the two missing ones are in the pile."""
    position = Position.initial().parse_play("8/6(2) 13/11(2)", (2, 2)).result()
    assert position.on_roll[5] == 7
    path, scene, renderer, truth = _render(tmp_path, position, "tournament", "default", seed=6)
    data = _profile(tmp_path, renderer, truth, "t")
    out = _run_json(capsys, str(path), "--profile", "t", "--data-dir", str(data))
    assert out["points"]["6"] == {"side": "light", "count": 7}
    assert out["points"] == _truth_points(scene)
    assert out["off"] == {"light": 0, "dark": 0}
    assert out["position_id"] == position.position_id()


def test_eval_replay_scores_an_observations_file_and_refuses_a_bad_one(tmp_path, capsys):
    from tablecompanion.vision.identify import BoardObservation

    start = Position.initial()
    line = {"match": "m.mat", "kind": "turn", "game": 1, "turn": 0, "player": "X",
            "position_id_before": start.position_id(), "dice": [3, 1], "play": "8/5 6/5", "frame": 3,
            "observation": BoardObservation.from_position(start.parse_play("8/5 6/5", (3, 1)).result()).to_json()}
    good = tmp_path / "obs.jsonl"
    good.write_text(json.dumps(line) + "\n")
    assert main(["board", "eval", "--replay", str(good), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["turns"], report["identified"]) == (1, 1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert main(["board", "eval", "--replay", str(bad)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err


def test_photo_eval_draws_the_camera_tilt_from_the_range_asked(capsys):
    """``--photo-tilt 35,60`` renders the steep views of a phone held by a seated player; a range that is no
    range is refused before anything is rendered."""
    import re

    from tablecompanion.vision.board_eval import photo_cases

    tilts = [float(re.search(r"tilt (\d+)", what).group(1)) for *_, what in photo_cases(2, seed=3, tilt=(50.0, 55.0))]
    assert len(tilts) == 2 and all(49.5 <= t <= 55.5 for t in tilts)
    for bad in ("60,50", "steep", "10,90"):
        with pytest.raises(SystemExit) as exc:
            main(["board", "eval", "--photos", "1", "--photo-tilt", bad])
        assert exc.value.code == 2
        assert "--photo-tilt" in capsys.readouterr().err


def test_eval_renders_the_window_unless_told_otherwise_and_refuses_a_glint_out_of_range(capsys, monkeypatch):
    """``board eval`` renders the frames it scores with the window mirrored as the simulator's cameras have
    it (0.3: the steep camera sees it); ``--window 0`` takes it away, ``--window 0.6`` brightens it; a
    strength outside 0-2 is refused before anything is rendered."""
    import tablecompanion.vision.board_eval as board_eval

    glints = []
    real = board_eval.truth_calibration
    monkeypatch.setattr(board_eval, "truth_calibration", lambda r: glints.append(r.camera.window_glint) or real(r))
    for extra in ([], ["--window", "0"], ["--window", "0.6"]):
        assert main(["board", "eval", "--limit-matches", "1", "--max-turns", "1", "--styles", "classic",
                     "--cameras", "steep", "--json", *extra]) == 0
        assert '"turns": 1' in capsys.readouterr().out
    assert glints == [0.3, 0.0, 0.6]
    for bad in ("3", "-0.1", "bright"):
        with pytest.raises(SystemExit) as exc:
            main(["board", "eval", "--window", bad])
        assert exc.value.code == 2
        assert "--window" in capsys.readouterr().err


def test_eval_footage_with_flicker_passes_it_to_the_footage_and_refuses_a_depth_out_of_range(capsys, monkeypatch):
    """``board eval --footage --flicker 0.05`` scores footage rendered under mains flicker; a depth outside
    0-0.3 is refused before anything is rendered."""
    import tablecompanion.vision.board_eval as board_eval

    seen = []
    monkeypatch.setattr(board_eval, "evaluate_footage",
                        lambda mat, **kw: seen.append(kw["flicker"]) or {"summary": ["footage scored"]})
    assert main(["board", "eval", "--footage", "--limit-matches", "1", "--max-turns", "1", "--flicker", "0.05"]) == 0
    assert seen == [0.05] and "footage scored" in capsys.readouterr().out
    for bad in ("0.5", "-0.01", "strong"):
        with pytest.raises(SystemExit) as exc:
            main(["board", "eval", "--footage", "--flicker", bad])
        assert exc.value.code == 2
        assert "--flicker" in capsys.readouterr().err
