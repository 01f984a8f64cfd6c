import pytest

from tablecompanion.geometry import BoardGeometry, BoardSpec, to_bottom


@pytest.mark.parametrize("home", ["right", "left"])
def test_every_point_maps_back_to_itself(home):
    geo = BoardGeometry(home=home)
    for point in range(1, 25):
        assert geo.point_at(*geo.point_centre(point)) == point
        assert geo.point_at(*geo.point_centre(point, player="top")) == 25 - point


def test_home_right_layout_matches_the_usual_diagram():
    geo = BoardGeometry(home="right")
    x1, _ = geo.point_centre(1)
    x12, _ = geo.point_centre(12)
    _, y1 = geo.point_centre(1)
    _, y24 = geo.point_centre(24)
    assert x1 > x12  # 1 bottom right, 12 bottom left
    assert y1 > y24  # bottom row below the top row
    assert geo.point_half(1) == "right" and geo.point_half(13) == "left"


def test_mirrored_board_swaps_left_and_right_only():
    right, left = BoardGeometry(home="right"), BoardGeometry(home="left")
    width = right.spec.width
    for point in range(1, 25):
        xr, yr = right.point_centre(point)
        xl, yl = left.point_centre(point)
        assert xl == pytest.approx(width - xr)
        assert yl == pytest.approx(yr)


def test_right_hand_board_does_not_depend_on_orientation():
    for home in ("right", "left"):
        geo = BoardGeometry(home=home)
        assert geo.right_hand_side("bottom") == "right"
        assert geo.right_hand_side("top") == "left"


def test_checker_rows_pile_after_capacity():
    geo = BoardGeometry()
    slots = geo.checker_slots(6, 7)
    capacity = geo.row_capacity()
    assert [s.layer for s in slots] == [0] * capacity + [1] * (7 - capacity)
    for slot in slots:
        assert geo.point_at(slot.x, slot.y) == 6


def test_locate_outside_regions():
    geo = BoardGeometry()
    assert geo.locate(-1, 10).kind == "outside"
    assert geo.locate(2, 2).kind == "frame"
    bx0, by0, bx1, by1 = geo.bar
    assert geo.locate((bx0 + bx1) / 2, (by0 + by1) / 2).kind == "bar"
    tx0, ty0, tx1, ty1 = geo.tray("bottom")
    assert geo.locate((tx0 + tx1) / 2, (ty0 + ty1) / 2).player == "bottom"


def test_bad_dimensions_are_refused():
    with pytest.raises(ValueError):
        BoardSpec(point_width=-3)
    with pytest.raises(ValueError):
        BoardSpec.from_dict({"point_widht": 50})
    with pytest.raises(ValueError):
        to_bottom(0, "bottom")


def test_markers_sit_in_the_frame_corners():
    geo = BoardGeometry()
    for marker_id in range(4):
        corners = geo.marker_corners(marker_id)
        assert len(corners) == 4
        for x, y in corners:
            assert geo.locate(x, y).kind == "frame"
    with pytest.raises(ValueError):
        geo.marker_corners(7)
