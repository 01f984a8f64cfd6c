"""XGID encode/decode per the eXtreme Gammon format, with typed errors on bad strings."""

from __future__ import annotations

import pytest

from tablecompanion.rules import InvalidIdError, Position, Xgid

START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"


def test_starting_position():
    x = Xgid.parse(START_XGID)
    assert x.position == Position.initial()
    assert (x.turn, x.dice, x.cube, x.cube_owner, x.match_length, x.max_cube) == ("X", (5, 2), 1, None, 0, 1024)
    assert x.jacoby and x.beaver  # money play: 3 = Jacoby + beaver
    assert str(x) == START_XGID
    assert Position.from_xgid(START_XGID) == Position.initial()


def test_board_is_from_x_point_of_view_and_flipped_when_o_is_on_roll():
    # X: 2 checkers on his 6 point, 1 on the bar; O: 3 on his own 1 point (= X's 24), 2 on O's bar.
    xgid = "XGID=b-----B" + "-" * 17 + "cA:1:-1:-1:31:2:4:1:7:10"
    x = Xgid.parse(xgid)
    assert x.turn == "O"
    # the position is seen from O, who is on roll
    assert x.position.on_roll[24] == 2 and x.position.on_roll[0] == 3 and sum(x.position.on_roll) == 5
    assert x.position.opponent[5] == 2 and x.position.opponent[24] == 1
    assert (x.cube, x.cube_owner, x.score, x.match_length, x.crawford) == (2, "O", (2, 4), 7, True)
    assert str(x) == xgid
    assert x.x_and_o()[0][5] == 2


def test_pending_cube_actions():
    for code, action in (("D", "double"), ("B", "beaver"), ("R", "raccoon")):
        text = f"XGID=-b----E-C---eE---c-e----B-:1:0:1:{code}:0:0:0:0:10"
        x = Xgid.parse(text)
        assert x.cube_action == action and x.dice == (0, 0)
        assert str(x) == text


def test_nine_field_xgid_gets_the_default_cube_limit():
    x = Xgid.parse("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0")
    assert x.max_cube == 1024 and x.dice == (0, 0)


def test_every_dev_position_round_trips(legal_cases):
    for case in legal_cases:
        pos = Position.from_position_id(case["position_id"])
        text = pos.xgid(case["dice"])
        back = Xgid.parse(text)
        assert back.position == pos
        assert str(back) == text
        o_on_roll = Xgid(position=pos, turn="O", dice=tuple(case["dice"]))
        assert Xgid.parse(str(o_on_roll)).position == pos


@pytest.mark.parametrize(
    "bad,why",
    [
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:3:0:10", "26 characters"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0", "10 fields"),
        ("XGID=-b----E-C---eE---c-e----Z-:0:0:1:52:0:0:3:0:10", "board character"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10", "X checkers on O's bar"),
        ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:52:0:0:3:0:10", "O checkers on X's bar"),
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:52:0:0:3:0:10", "not a number"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:52:0:0:3:0:10", "cube owner"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:52:0:0:3:0:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:3:0:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:5:0:0:3:0:10", "dice field"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:7:10", "Crawford field"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:4:0:10", "Jacoby"),
        ("XGID=-b----E-C---eE---c-e----B-:16:0:1:52:0:0:3:0:10", "powers of two"),
        ("XGID=-b----P-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10", "board character"),
        ("XGID=-b----O-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10", "checkers on the board"),
        (None, "string"),
    ],
)
def test_bad_xgids_raise(bad, why):
    with pytest.raises(InvalidIdError, match=why):
        Xgid.parse(bad)


def test_constructor_validates():
    with pytest.raises(InvalidIdError):
        Xgid(turn="Z")
    with pytest.raises(InvalidIdError):
        Xgid(cube=3)
    with pytest.raises(InvalidIdError):
        Xgid(match_length=5, jacoby=True)
    with pytest.raises(InvalidIdError):
        Xgid(crawford=True)
    assert eval(repr(Xgid())) == Xgid()
