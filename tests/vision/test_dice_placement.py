"""Placement of dice on the board model through a homography."""

from __future__ import annotations

import numpy as np
import pytest

from tablecompanion.geometry import BoardGeometry
from tablecompanion.vision.dice import DiceReading, DiceVisionError
from tablecompanion.vision.placement import place_dice, place_opening_roll

GEO = BoardGeometry()
# image pixels = board mm / 2 (a camera 2 mm per pixel, no rotation)
BOARD_FROM_IMAGE = np.diag([2.0, 2.0, 1.0])


def _die_at_mm(x: float, y: float) -> DiceReading:
    return DiceReading(3, (x / 2, y / 2), (), 0.9, "flat", 8.0)


def _centre(rect):
    x0, y0, x1, y1 = rect
    return (x0 + x1) / 2, (y0 + y1) / 2


def test_right_hand_board_is_ok_for_each_side():
    for side in ("bottom", "top"):
        x, y = _centre(GEO.right_hand_board(side))
        assert place_dice([_die_at_mm(x, y)], BOARD_FROM_IMAGE, GEO, side) == ["ok"]


def test_other_half_bar_and_outside():
    left = _centre(GEO.half("left"))
    bar = _centre(GEO.bar)
    tray = _centre(GEO.tray("bottom"))
    outside = (-50.0, 100.0)
    got = place_dice([_die_at_mm(*p) for p in (left, bar, tray, outside)], BOARD_FROM_IMAGE, GEO, "bottom")
    assert got == ["wrong half", "across the bar", "off the board", "off the board"]


def test_without_calibration_everything_is_unknown():
    assert place_dice([_die_at_mm(10, 10)] * 2, None, GEO, "bottom") == ["unknown", "unknown"]


def test_bad_homography_is_a_clear_error():
    with pytest.raises(DiceVisionError):
        place_dice([_die_at_mm(10, 10)], np.eye(2), GEO, "bottom")


def test_opening_roll_needs_one_die_in_each_half():
    right = _die_at_mm(*_centre(GEO.half("right")))
    left = _die_at_mm(*_centre(GEO.half("left")))
    assert place_opening_roll([right, left], BOARD_FROM_IMAGE, GEO) == ["ok", "ok"]
    assert "wrong half" in place_opening_roll([right, right], BOARD_FROM_IMAGE, GEO)
    bar = _die_at_mm(*_centre(GEO.bar))
    assert place_opening_roll([right, bar], BOARD_FROM_IMAGE, GEO)[1] == "across the bar"
