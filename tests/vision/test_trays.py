"""Borne-off checkers counted in the trays, and the plays the count tells apart."""

import pytest

from tablecompanion.rules import Position
from tablecompanion.vision.identify import BoardObservation, identify_play
from tablecompanion.vision.trays import TrayReading, tray_count

# fronts 0..15 checkers would show in some view: the first reaches 12 mm, then 7 mm a checker
PREDICTED = tuple([0.0] + [12.0 + 7.0 * i for i in range(15)])


def _tray(front):
    return TrayReading("bottom", front, PREDICTED)


def test_a_change_is_measured_against_the_tray_before_so_a_steady_error_of_the_view_cancels():
    # the view reads every front 4 mm short (a steep camera, dark checkers on a tray of their hue): alone, 5
    # checkers read as a front between 4 and 5; against the tray before (3 checkers, also 4 mm short) it is 5
    before, after = _tray(PREDICTED[3] - 4.0), _tray(PREDICTED[5] - 4.0)
    assert tray_count(after) is None
    assert tray_count(after, before, before_count=3) == 5
    assert tray_count(_tray(PREDICTED[4] - 4.0), before, before_count=3) == 4


def test_a_front_between_two_counts_or_behind_the_count_before_is_no_count():
    before = _tray(PREDICTED[3])
    assert tray_count(_tray(PREDICTED[4] + 3.5), before, before_count=3) is None  # half a checker: no answer
    assert tray_count(_tray(PREDICTED[2]), before, before_count=3) is None  # checkers do not leave the tray
    assert tray_count(_tray(PREDICTED[3] + 0.5), before, before_count=3) == 3
    # a tray before that does not show what it held is no basis
    assert tray_count(_tray(PREDICTED[5]), _tray(PREDICTED[6] + 3.0), before_count=3) is None
    assert tray_count(TrayReading("top", None, PREDICTED)) is None


def test_the_tray_tells_a_checker_borne_off_from_one_put_on_a_pile():
    # O's 6-1 of a real match (match10445279, game 4): 6/off 1/off, with 7 checkers on the 1-point read as
    # a pile of 5; 6/5/off leaves one more on the pile and one fewer borne off, which the points cannot show
    before = Position.from_position_id("OQEAwF9uAQAAAA")
    played = before.parse_play("6/off 1/off", (6, 1)).result()
    other = before.parse_play("6/5/off", (6, 1)).result()
    assert played.borne_off[0] == other.borne_off[0] + 1
    mover = list(played.on_roll)
    assert mover[0] > 5
    mover[0] = 5
    kwargs = dict(mover=tuple(mover), opponent=played.opponent, at_least=frozenset({1}))
    assert identify_play(before, (6, 1), BoardObservation(**kwargs)).verdict == "ambiguous"
    told = identify_play(before, (6, 1), BoardObservation(**kwargs, off=played.borne_off[0]))
    assert told.verdict == "legal" and told.play.result() == played
    told = identify_play(before, (6, 1), BoardObservation(**kwargs, off=other.borne_off[0]))
    assert told.verdict == "legal" and told.play.result() == other
    # a count that fits neither leaves the question to a person
    assert identify_play(before, (6, 1), BoardObservation(**kwargs, off=played.borne_off[0] + 1)).verdict == "ambiguous"
    with pytest.raises(ValueError):
        BoardObservation(**kwargs, off=16)


@pytest.mark.parametrize("style,camera,mover_at", [("tournament", "top", "top"), ("leather", "steep", "top"),
                                                   ("classic", "tilted", "bottom")])
def test_rendered_trays_count_the_checkers_borne_off_in_a_turn(style, camera, mover_at):
    from tablecompanion.sim import Camera, Renderer, Scene
    from tablecompanion.vision.board_eval import truth_calibration
    from tablecompanion.vision.board_reader import read_board

    before = Position.from_position_id("OQEAwF9uAQAAAA")  # 1 borne off
    after = before.parse_play("6/off 1/off", (6, 1)).result()  # 3 borne off
    reads, calibration = [], None
    for seed, position in enumerate((before, after)):
        scene = Scene.from_position(position, bottom="on_roll" if mover_at == "bottom" else "opponent",
                                    dice=None, style=style)
        renderer = Renderer(Camera.preset(camera), style, "right", scene.markers)
        img, _ = renderer.render(scene, seed=seed)
        calibration = calibration or truth_calibration(renderer)
        reads.append(read_board(img, calibration))
    side = "light" if mover_at == "bottom" else "dark"
    seen = reads[1].observation(side, mover_at, before=reads[0], off_before=before.borne_off[0])
    assert seen.off == 3
    # the other tray did not change and is not the mover's: the opponent's count is not taken from it
    other = "top" if mover_at == "bottom" else "bottom"
    assert reads[1].trays[other].front_mm == pytest.approx(reads[0].trays[other].front_mm, abs=2.0)
    # without the board before, the tray is not counted (one picture alone can be a checker off)
    assert reads[1].observation(side, mover_at).off is None
