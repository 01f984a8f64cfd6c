"""The calibrate command line, end to end on image files in a temporary data directory."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import load_profile
from tablecompanion.calibration.model import apply_homography, rect_corners
from tablecompanion.calibration.synthetic import photograph
from tablecompanion.cli import main
from tablecompanion.geometry import BoardGeometry


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    folder = tmp_path_factory.mktemp("frames")
    with_markers = photograph(style="classic", seed=3)
    without = photograph(style="tournament", seed=4, markers=False)
    cv2.imwrite(str(folder / "markers.png"), with_markers.image)
    cv2.imwrite(str(folder / "plain.png"), without.image)
    cv2.imwrite(str(folder / "blank.png"), np.full((360, 640, 3), 120, np.uint8))
    (folder / "broken.png").write_bytes(b"not an image")
    return folder, with_markers, without


def test_calibrate_from_markers_saves_profile_and_picture(images, data_dir, capsys):
    folder, photo, _ = images
    rc = main(["calibrate", "--image", str(folder / "markers.png"), "--name", "t1", "--bottom", "X", "--home", "left"])
    out = capsys.readouterr().out
    assert rc == 0 and "calibrated from markers" in out
    cal = load_profile("t1")
    assert cal.source == "markers" and cal.bottom_player == "X" and cal.geometry.home == "left"
    picture = cv2.imread(str(data_dir / "profiles" / "t1.png"))
    assert picture is not None and picture.shape == photo.image.shape
    assert np.abs(picture.astype(int) - photo.image.astype(int)).mean() > 1  # something was drawn


def test_check_passes_on_the_same_frame_and_fails_on_a_moved_one(images, data_dir, capsys, tmp_path):
    folder, photo, _ = images
    assert main(["calibrate", "--image", str(folder / "markers.png"), "--name", "t2"]) == 0
    assert main(["calibrate", "check", "--name", "t2", "--image", str(folder / "markers.png")]) == 0
    assert "ok: the markers are where they were" in capsys.readouterr().out
    moved = np.roll(photo.image, 25, axis=1)
    cv2.imwrite(str(tmp_path / "moved.png"), moved)
    assert main(["calibrate", "check", "--name", "t2", "--image", str(tmp_path / "moved.png")]) == 1
    assert "moved" in capsys.readouterr().out


def test_given_corners_win(images, data_dir):
    folder, photo, _ = images
    corners = apply_homography(np.linalg.inv(photo.homography), rect_corners(BoardGeometry().outline))
    args = [f"{x:.1f},{y:.1f}" for x, y in corners]
    assert main(["calibrate", "--image", str(folder / "markers.png"), "--name", "t3", "--corners", *args]) == 0
    cal = load_profile("t3")
    assert cal.source == "corners" and np.allclose(cal.board_corners_image(), corners, atol=0.1)


def test_board_look_is_the_fallback(images, data_dir, capsys):
    folder, _, _ = images
    assert main(["calibrate", "--image", str(folder / "plain.png"), "--name", "t4"]) == 0
    captured = capsys.readouterr()
    assert "looking for the board by its own look" in captured.err
    assert load_profile("t4").source == "board"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["calibrate", "--image", "{folder}/blank.png", "--name", "x"], "no board found"),
        (["calibrate", "--image", "{folder}/blank.png", "--name", "x", "--method", "markers"], "found 0 of the 4"),
        (["calibrate", "--image", "{folder}/nothing.png", "--name", "x"], "does not exist"),
        (["calibrate", "--image", "{folder}/broken.png", "--name", "x"], "cannot read"),
        (["calibrate", "--image", "{folder}/markers.png"], "--name"),
        (["calibrate", "--image", "{folder}/markers.png", "--name", "a b"], "not usable"),
        (["calibrate", "--image", "{folder}/markers.png", "--name", "x", "--corners", "1,2", "3,4", "5,6", "z"], "not x,y"),
        (["calibrate", "check", "--name", "missing", "--image", "{folder}/markers.png"], "no calibration profile"),
        (["calibrate", "--image", "{folder}/markers.png", "--name", "x", "--lens", "nolens"], "no lens model"),
    ],
)
def test_bad_input_says_what_to_do(images, data_dir, capsys, argv, message):
    folder, _, _ = images
    rc = main([a.format(folder=folder) for a in argv])
    assert rc == 2
    assert message in capsys.readouterr().err


def test_targets_and_show(tmp_path, images, data_dir, capsys):
    assert main(["calibrate", "targets", "--out", str(tmp_path / "t"), "--frame-width", "20"]) == 0
    assert (tmp_path / "t" / "corner-markers.pdf").exists()
    folder, _, _ = images
    main(["calibrate", "--image", str(folder / "markers.png"), "--name", "shown"])
    capsys.readouterr()
    assert main(["calibrate", "show"]) == 0 and "shown" in capsys.readouterr().out
    assert main(["calibrate", "show", "--name", "shown"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "shown"


def test_eval_prints_figures(capsys):
    assert main(["calibrate", "eval", "--cases", "1", "--sets", "markers", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["markers"]["cases"] == 1 and result["markers"]["success_rate"] == 1.0
