import random
from dataclasses import replace

import pytest

from tablecompanion.rules import Position
from tablecompanion.vision.identify import BoardObservation, board_distance, identify_play


def _seen(position, **kw):
    return BoardObservation.from_position(position, **kw)


def test_every_legal_play_of_the_opening_rolls_is_identified():
    start = Position.initial()
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            for play in start.legal_plays((d1, d2)):
                found = identify_play(start, (d1, d2), _seen(play.result()))
                assert found.verdict == "legal"
                assert found.play == play
                assert found.confidence > 0


def test_random_games_identify_every_turn():
    rng = random.Random(7)
    for _ in range(20):
        pos = Position.initial()
        for _ in range(60):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = pos.legal_plays(dice)
            if plays:
                play = rng.choice(plays)
                found = identify_play(pos, dice, _seen(play.result()))
                assert found.verdict == "legal" and found.play == play
                pos = pos.apply(play)
            else:
                pos = pos.swapped()
            if pos.winner():
                break


def test_six_played_from_the_six_point_into_a_block_is_flagged_with_the_reason():
    # O (opponent) holds its 6-point = mover's 19; mover tries 24/18 with a 6 while 18 is blocked
    start = Position.initial()
    opp = list(start.opponent)
    opp[5] -= 3
    opp[6] += 3  # opponent's 7-point = mover's 18-point: blocked
    before = Position.from_board(start.on_roll, opp)
    mover = list(before.on_roll)
    mover[23] -= 1
    mover[17] += 1  # 24/18 lands on a block: impossible, but a hand can do it
    mover[12] -= 1
    mover[9] += 1  # 13/10
    seen = BoardObservation(tuple(mover), before.opponent)
    found = identify_play(before, (6, 3), seen)
    assert found.verdict == "illegal"
    assert found.observed == "24/18 13/10"
    assert "18" in found.reason
    assert 24 in found.points and 18 in found.points
    assert found.candidates and found.candidates[0][1] > 0


def test_an_unmoved_board_is_reported_as_unchanged():
    start = Position.initial()
    found = identify_play(start, (3, 1), _seen(start))
    assert found.verdict == "unchanged"


def test_a_roll_that_cannot_be_played_is_a_legal_pass():
    # mover on the bar against a closed board
    mover = [0] * 25
    mover[24] = 1
    mover[5] = 14
    opp = [0] * 25
    for i in range(6):
        opp[i] = 2
    opp[7] = 3
    before = Position.from_board(mover, opp)
    found = identify_play(before, (6, 5), _seen(before))
    assert found.verdict == "legal" and found.play.is_pass()


def test_uncertain_points_can_make_two_plays_ambiguous():
    start = Position.initial()
    play = start.parse_play("13/11 6/5", (2, 1))
    other = start.parse_play("13/11 8/7", (2, 1))
    # a pile the reader could not count on the 6, 5, 8 and 7 points leaves both plays fitting
    found = identify_play(start, (2, 1), _seen(play.result(), uncertain={5, 6, 7, 8}))
    assert found.verdict == "ambiguous"
    assert {p for p, _ in found.candidates} >= {play, other}


def test_missing_checker_is_not_read_as_a_play():
    start = Position.initial()
    mover = list(start.on_roll)
    mover[12] -= 1  # a checker taken off the 13-point and not put anywhere
    found = identify_play(start, (3, 1), BoardObservation(tuple(mover), start.opponent))
    assert found.verdict != "legal" and found.play is None


def test_a_checker_the_camera_missed_still_identifies_the_play_with_less_confidence():
    start = Position.initial()
    play = start.parse_play("8/5 6/5", (3, 1))
    mover = list(play.result().on_roll)
    mover[7] -= 1  # one checker on the 8-point not seen
    found = identify_play(start, (3, 1), BoardObservation(tuple(mover), play.result().opponent))
    assert found.verdict == "legal" and found.play == play
    assert 0 < found.confidence < 1
    assert "not seen" in found.reason


def test_an_extra_checker_is_never_explained_away():
    start = Position.initial()
    play = start.parse_play("8/5 6/5", (3, 1))
    mover = list(play.result().on_roll)
    mover[7] -= 1
    mover[6] += 1  # the 8-point checker sits on the 7-point: 8/5 7/5 is no play of 3-1 from here
    found = identify_play(start, (3, 1), BoardObservation(tuple(mover), play.result().opponent))
    assert found.verdict == "illegal"


def test_a_pile_count_is_a_lower_bound():
    start = Position.initial()
    mover = list(start.on_roll)
    mover[12] -= 2
    mover[5] += 2  # seven on the 6-point: a row of five with two piled on it
    before = Position.from_board(mover, start.opponent)
    play = before.parse_play("13/7 13/8", (6, 5))
    seen_mover = list(play.result().on_roll)
    seen_mover[5] = 5  # the camera sees the row
    found = identify_play(before, (6, 5), BoardObservation(tuple(seen_mover), play.result().opponent, at_least={6}))
    assert found.verdict == "legal" and found.play == play and found.distance == 0


def test_observation_validates_counts():
    with pytest.raises(ValueError):
        BoardObservation((0,) * 24, (0,) * 25)
    with pytest.raises(ValueError):
        BoardObservation((-1,) + (0,) * 24, (0,) * 25)
    with pytest.raises(ValueError):
        BoardObservation((0,) * 25, (0,) * 25, uncertain={30})


def test_distance_counts_each_misplaced_checker_twice():
    start = Position.initial()
    play = start.parse_play("8/5 6/5", (3, 1))
    assert board_distance(play.result(), _seen(start)) == 4  # two checkers moved: -1 and +1 each


def test_more_checkers_read_than_a_side_has_is_illegal_not_a_crash():
    """A misread that puts 16 of the opponent's checkers on the board must still give a verdict."""
    start = Position.initial()
    after = start.parse_play("8/5 6/5", (3, 1)).result()
    opp = list(after.opponent)
    opp[10] += 1  # one opponent checker more than exist
    seen = BoardObservation(after.on_roll, tuple(opp))
    found = identify_play(start, (3, 1), seen)
    assert found.verdict in ("illegal", "ambiguous")
    assert found.reason


def test_a_wrong_bear_off_is_not_taken_for_a_checker_the_camera_missed():
    """4-3 bearing off from 6, 4, 2, 1: 6/3 4/off is legal; 6/4 4/off (a checker gone from 6) is not, though
    the board then looks like the position before with one checker unseen."""
    before = Position.from_position_id("WgIAQEkAAAAAAA")
    assert not any(before.on_roll[6:])
    mover = list(before.on_roll)
    mover[5] -= 1  # the checker on 6 moved to 4 and the one on 4 borne off: 4 keeps one, 6 is empty
    found = identify_play(before, (4, 3), BoardObservation(tuple(mover), before.opponent))
    assert found.verdict == "illegal"
    legal = before.parse_play("6/3 4/off", (4, 3)).result()
    assert identify_play(before, (4, 3), BoardObservation.from_position(legal)).verdict == "legal"


def test_a_checker_put_on_a_pile_by_mistake_is_not_excused_as_a_camera_miss():
    """With 13/7 13/8 to play, a checker put on the 6-point's pile instead of the 8-point looks like the legal
    play with a checker missed on the 8-point: the pile hides it, so the answer is a look, never "legal"."""
    start = Position.initial()
    mover = list(start.on_roll)
    mover[12] -= 2
    mover[5] += 2  # seven on the 6-point: a row of five with two piled on it
    before = Position.from_board(mover, start.opponent)
    play = before.parse_play("13/7 13/8", (6, 5))
    seen_mover = list(play.result().on_roll)
    seen_mover[7] -= 1  # three on the 8-point, not four: the checker went onto the 6-point pile (13/6 is no 6 or 5)
    seen_mover[5] = 5  # the camera sees the pile's row only
    found = identify_play(before, (6, 5), BoardObservation(tuple(seen_mover), play.result().opponent, at_least={6}))
    assert found.verdict == "ambiguous"
    assert "pile" in found.reason and 6 in found.points
    # the same board without a pile anywhere: the missing checker is a camera miss on the 8-point's row
    plain = identify_play(start, (3, 1), BoardObservation(
        tuple(n - (i == 7) for i, n in enumerate(start.parse_play("8/5 6/5", (3, 1)).result().on_roll)),
        start.opponent))
    assert plain.verdict == "legal"


def test_a_checker_missing_while_a_place_is_in_doubt_is_not_excused_as_a_camera_miss():
    """8/4 6/5 with 3-1 (illegal) and a hand beside the 4-point: the board is 8/5 6/5 with a checker missing
    from the 5-point, which the camera may have missed, or which is on the 4-point it could not read. The
    answer is a look, never "legal" (match 38 of the footage: an illegal 23/20 8/5 read as 23/20 8/4)."""
    start = Position.initial()
    illegal = list(start.on_roll)
    illegal[7] -= 1
    illegal[3] += 1  # 8/4
    illegal[5] -= 1
    illegal[4] += 1  # 6/5
    found = identify_play(start, (3, 1), BoardObservation(tuple(illegal), start.opponent, uncertain={4}))
    assert found.verdict == "ambiguous" and 4 in found.points
    # a place in doubt that holds the opponent's checkers cannot hold the mover's: the miss is excused
    legal = start.parse_play("8/5 6/5", (3, 1)).result().on_roll
    seen = tuple(n - (i == 4) for i, n in enumerate(legal))
    found = identify_play(start, (3, 1), BoardObservation(seen, start.opponent, uncertain={19}))  # their 6-point
    assert found.verdict == "legal" and found.play == start.parse_play("8/5 6/5", (3, 1))


def test_a_checker_gone_from_the_bar_is_not_unchanged_when_a_place_in_doubt_may_hold_it():
    """bar/16 with 6-4 (illegal) read while a hand comes back for the correction: the 16-point is in doubt,
    the bar empty. The checker gone from the bar may have been missed, but the board is not "unchanged"."""
    start = Position.initial()
    mover = list(start.on_roll)
    mover[23] -= 1
    mover[24] += 1  # one of the back checkers on the bar
    before = Position.from_board(mover, start.opponent)
    seen = list(mover)
    seen[24] -= 1
    seen[15] += 1  # bar/16
    found = identify_play(before, (6, 4), BoardObservation(tuple(seen), start.opponent, uncertain={16}))
    assert found.verdict == "illegal"
    assert identify_play(before, (6, 4), BoardObservation(tuple(mover), start.opponent, uncertain={16})).verdict \
        == "unchanged"


def test_checkers_borne_off_from_a_point_that_still_shows_one_are_not_camera_misses():
    """2-2 bearing off with 3 on the 2-point and 4 on the 3-point: 3/1 2/off(3) is the play; 3/2 2/off(3) leaves
    the 2-point with one checker and the 3-point with three, which looks like the position before with three
    checkers unseen. Bearing off, a row may hide one checker from the camera, not several."""
    mover = [0] * 25
    mover[1], mover[2], mover[4] = 3, 4, 3  # 2-, 3- and 5-points
    opp = [0] * 25
    opp[0], opp[2], opp[3], opp[4], opp[5] = 7, 1, 4, 2, 1
    before = Position.from_board(mover, opp)
    seen = list(mover)
    seen[1], seen[2] = 1, 3  # three borne off from 2, one moved 3/2 instead of 3/1
    found = identify_play(before, (2, 2), BoardObservation(tuple(seen), tuple(opp)))
    assert found.verdict == "illegal"
    legal = before.parse_play("3/1 2/off(3)", (2, 2)).result()
    assert identify_play(before, (2, 2), BoardObservation.from_position(legal)).verdict == "legal"


def test_a_tray_that_gained_a_checker_says_the_board_is_not_unchanged():
    """5-2 bearing off, 2 on the 6-point: 5/off 6/5 (a 1 played for the 2) leaves the 6-point one checker short,
    which reads as the board before with one checker missed by the camera. The tray counted one more checker
    borne off, so a play was made, and it is illegal (match 44 of the footage, game 1 turn 65: read 'unchanged')."""
    mover = [0] * 25
    mover[0], mover[2], mover[4], mover[5] = 2, 2, 1, 2  # 1-, 3-, 5- and 6-points
    opp = [0] * 25
    opp[0], opp[1] = 1, 3
    before = Position.from_board(mover, opp)
    seen = list(mover)
    seen[5] -= 1  # net 6/off
    without_tray = BoardObservation(tuple(seen), tuple(opp))
    assert identify_play(before, (5, 2), without_tray).verdict == "unchanged"  # the miss alone explains it
    found = identify_play(before, (5, 2), replace(without_tray, off=before.borne_off[0] + 1))
    assert found.verdict == "illegal" and 6 in found.points
    # the tray as before: the checker may still have been missed by the camera
    assert identify_play(before, (5, 2), replace(without_tray, off=before.borne_off[0])).verdict == "unchanged"


def test_a_checker_the_points_lack_is_not_missed_when_the_tray_holds_it():
    """3-1 bearing off: 5/4 3/off played as 5/3 3/off (the 1 played as a 2). The board matches 5/1 (5/4/1)
    with one checker on the 1-point missed by the camera, but the tray counted one more checker borne off
    than 5/1 bears off: that checker is in the tray, so the play is illegal (match 49 of the footage, game 1
    turn 28: read as 5/1, legal)."""
    mover = [2, 0, 4, 2, 4, 2] + [0] * 19  # 1- to 6-points, 1 borne off
    opp = [3, 2, 3, 2, 2] + [0] * 10 + [1] + [0] * 6 + [2, 0, 0]
    before = Position.from_board(mover, opp)
    assert before.borne_off[0] == 1
    seen = list(mover)
    seen[4] -= 1  # 5/3 3/off: the 5-point one short, the 3-point as before
    without_tray = BoardObservation(tuple(seen), tuple(opp))
    found = identify_play(before, (3, 1), without_tray)
    assert found.verdict == "legal" and str(found.play) == "5/1"  # one checker missed on the 1-point
    found = identify_play(before, (3, 1), replace(without_tray, off=2))
    assert found.verdict == "illegal", found
    # the tray as before the play: the checker on the 1-point may have been missed
    assert identify_play(before, (3, 1), replace(without_tray, off=1)).verdict == "legal"


def test_a_play_whose_destinations_were_not_seen_asks_for_a_look():
    """13/11 13/8 with 5-2 played as 13/10 13/8, read while a hand hovered by the 10- and 11-points: both were
    marked uncertain and read as empty, so with them left out the legal play fits exactly (match 51 of the
    footage, game 4 turn 6). Where the play's checkers went was never seen: the answer is a look."""
    start = Position.initial()
    legal = start.parse_play("13/11 13/8", (5, 2))
    illegal = list(legal.result().on_roll)
    illegal[10] -= 1
    illegal[9] += 1  # 13/10 instead of 13/11
    seen = list(illegal)
    seen[9] = seen[10] = 0
    found = identify_play(start, (5, 2), BoardObservation(tuple(seen), start.opponent, uncertain={10, 11}))
    assert found.verdict == "ambiguous" and found.play is None
    assert 11 in found.points and "11" in found.reason
    # the same points in doubt while they show the play's checkers: the play was seen, it stands
    shown = BoardObservation(legal.result().on_roll, start.opponent, uncertain={10, 11})
    assert identify_play(start, (5, 2), shown).play == legal
    # a point in doubt that the play does not put checkers on does not hold the answer back
    other = list(legal.result().on_roll)
    other[19] = 0  # the 20-point, empty before and after
    found = identify_play(start, (5, 2), BoardObservation(tuple(other), start.opponent, uncertain={20}))
    assert found.verdict == "legal" and found.play == legal


def test_a_play_onto_two_neighbouring_piles_asks_for_a_look():
    """O's 6-5, 7/2 7/1, onto piles of 5 and 7 seen from straight above as two rows of five (match 50 of the
    footage, game 1 turn 56): a checker put a point off, onto the other pile, shows the same board. The
    camera cannot tell the play from that mistake, so it asks rather than calls it legal."""
    before, play, seen = _onto_two_piles()  # the rows; the piles on them are not counted
    found = identify_play(before, (6, 5), BoardObservation(seen, play.result().opponent, at_least={1, 2}))
    assert found.verdict == "ambiguous" and found.play is None
    assert {1, 2} <= set(found.points) and "pile" in found.reason
    # one pile only: the 2-point's count is seen, so a checker a point off would show there
    mover, opponent = list(before.on_roll), list(before.opponent)
    mover[1], mover[6] = 3, 5
    before = Position.from_board(mover, opponent)
    play = before.parse_play("7/2 7/1", (6, 5))
    seen = list(play.result().on_roll)
    seen[0] = 5
    found = identify_play(before, (6, 5), BoardObservation(tuple(seen), play.result().opponent, at_least={1}))
    assert found.verdict == "legal" and found.play == play


def test_a_play_onto_a_pile_far_from_the_other_piles_stands():
    """24/13 onto the mid-point's row of five while the 6-point's row is full too: nobody counts 18 pips
    short, so the two piles are no reason to doubt the play (the opening 6-5 of every match)."""
    start = Position.initial()
    play = start.parse_play("24/13", (6, 5))
    seen = list(play.result().on_roll)
    seen[12] = 5  # six on the mid-point, seen as its row
    found = identify_play(start, (6, 5), BoardObservation(tuple(seen), start.opponent, at_least={6, 13}))
    assert found.verdict == "legal" and found.play == play


def test_a_play_whose_destination_was_not_seen_stands_when_no_slip_could_hide():
    """The 11-point in doubt and read empty, but the points beside it read clearly: a checker put a point
    off, onto 10 or 12, would show there, so the board can only be the play (match 47 of the footage, game 1
    turn 63, asked for a look under the tenth session's rule although nothing could hide the mistake)."""
    start = Position.initial()
    legal = start.parse_play("13/11 13/8", (5, 2))
    seen = list(legal.result().on_roll)
    seen[10] = 0
    found = identify_play(start, (5, 2), BoardObservation(tuple(seen), start.opponent, uncertain={11}))
    assert found.verdict == "legal" and found.play == legal
    # the 10-point in doubt as well: 13/10 for 13/11 would leave this board too
    found = identify_play(start, (5, 2), BoardObservation(tuple(seen), start.opponent, uncertain={10, 11}))
    assert found.verdict == "ambiguous" and {10, 11} <= set(found.points)
    # the mover's pile beside it hides a slip as well as a point in doubt does: 8/5 6/5 with the 5-point read
    # empty beside the 6-point's row, where a checker put a point short would not be counted
    point = start.parse_play("8/5 6/5", (3, 1))
    seen = list(point.result().on_roll)
    seen[4] = 0
    found = identify_play(start, (3, 1), BoardObservation(tuple(seen), start.opponent, uncertain={5}, at_least={6}))
    assert found.verdict == "ambiguous" and "read 5" in found.reason and "on 6 for 5" in found.reason
    found = identify_play(start, (3, 1), BoardObservation(tuple(seen), start.opponent, uncertain={5}))
    assert found.verdict == "legal" and found.play == point


def test_a_hit_on_a_point_in_doubt_is_told_by_the_checker_on_the_bar():
    """15/10* onto a point read uncertain (a hand beside it) with the 9-point in doubt too: a checker put a
    point off would have left the opponent's blot on 10, not on the bar, so the bar's checker says the play
    reached 10. With the bar in doubt as well nothing tells them apart, and a look is asked for."""
    mover = [0] * 25
    mover[14], mover[5], mover[7] = 2, 5, 3
    opponent = [0] * 25
    opponent[14] = 1  # the opponent's 15-point is the mover's 10-point
    opponent[0] = 14
    before = Position.from_board(mover, opponent)
    play = before.parse_play("15/10* 8/7", (5, 1))
    seen_mover = list(play.result().on_roll)
    seen_mover[9] = 0  # the 10-point read empty
    found = identify_play(before, (5, 1), BoardObservation(tuple(seen_mover), play.result().opponent,
                                                           uncertain={9, 10}))
    assert found.verdict == "legal" and found.play == play, found
    found = identify_play(before, (5, 1), BoardObservation(tuple(seen_mover), play.result().opponent,
                                                           uncertain={9, 10, 25}))
    assert found.verdict == "ambiguous" and 10 in found.points


def _onto_two_piles():
    """Match 50's O 6-5, 7/2 7/1, onto piles of 5 and 7 read as two rows of five (see above): the position
    before, the play, and the counts the camera reads after it."""
    mover = [0] * 25
    mover[0], mover[1], mover[6] = 7, 5, 3
    opponent = [0] * 25
    opponent[5] = 15
    before = Position.from_board(mover, opponent)
    play = before.parse_play("7/2 7/1", (6, 5))
    seen = list(play.result().on_roll)
    seen[0] = seen[1] = 5
    return before, play, tuple(seen)


def test_where_the_picture_changed_tells_a_play_onto_piles_from_a_checker_put_a_point_off():
    """The counts of 7/2 7/1 and of 7/2(2) or 7/1(2) are the same on two piles; the picture is not: both piles
    were touched. A touched 2-point and 1-point rule out the slips (each leaves one of them as it was), and
    the play stands."""
    before, play, seen = _onto_two_piles()
    opp = play.result().opponent
    found = identify_play(before, (6, 5), BoardObservation(seen, opp, at_least={1, 2}, changed={1, 2, 7}))
    assert found.verdict == "legal" and found.play == play
    # only the 2-point touched: the player put both checkers there (7/2 7/2 for 7/1), a look is asked for
    found = identify_play(before, (6, 5), BoardObservation(seen, opp, at_least={1, 2}, changed={2, 7}))
    assert found.verdict == "ambiguous" and "on 2 for 1" in found.reason
    # the 1-point looking as it did does not settle it: a checker put exactly on top of a pile can leave the
    # picture as it was (match 44, leather seen from straight above), so the look is still asked for
    found = identify_play(before, (6, 5), BoardObservation(seen, opp, at_least={1, 2}, changed={2, 7}, still={1}))
    assert found.verdict == "ambiguous" and "on 2 for 1" in found.reason
    # where the checker would land in the row, on the bare point, a point that looks as it did is evidence:
    # 7/3 7/2 onto the row of five on 2 and the empty 3-point, against 7/2(2), with the 3-point untouched
    play = before.parse_play("7/3 7/2", (4, 5))
    seen3 = list(play.result().on_roll)
    seen3[0] = seen3[1] = 5
    found = identify_play(before, (5, 4), BoardObservation(tuple(seen3), play.result().opponent, at_least={1, 2},
                                                           uncertain={3}, changed={2, 7}, still={3}))
    assert found.verdict == "ambiguous" and "no change on 3" in found.reason and 3 in found.points


def test_a_picture_that_says_nothing_changes_nothing():
    """No picture from before the turn (still and changed empty), or points in between: as before, a look."""
    before, play, seen = _onto_two_piles()
    found = identify_play(before, (6, 5), BoardObservation(seen, play.result().opponent, at_least={1, 2}))
    assert found.verdict == "ambiguous"
    found = identify_play(before, (6, 5), BoardObservation(seen, play.result().opponent, at_least={1, 2},
                                                           still=set(range(8, 25))))
    assert found.verdict == "ambiguous"


def test_an_untouched_point_tells_two_legal_plays_apart():
    """Match 49's first bear-off, 5/off 4/off, beside a pile of six on the 1-point, from an empty tray: 5/1
    4/off fits the counts as well (one more on the pile). A pile looking as it did does not settle it; a
    point whose row is not full does."""
    mover = [0] * 25
    mover[0], mover[1], mover[2], mover[3], mover[4] = 6, 3, 2, 3, 1
    opponent = [0] * 25
    opponent[0] = 15
    before = Position.from_board(mover, opponent)
    off = before.parse_play("5/off 4/off", (5, 4))
    seen = list(off.result().on_roll)
    seen[0] = 5  # the pile read as its row
    obs = BoardObservation(tuple(seen), off.result().opponent, at_least={1})
    assert identify_play(before, (5, 4), obs).verdict == "ambiguous"
    # the 1-point's pile looking as it did says nothing (a checker put exactly on top can leave it so)
    found = identify_play(before, (5, 4), replace(obs, still=frozenset({1, 2, 3}), changed=frozenset({4, 5})))
    assert found.verdict == "ambiguous" and len(found.candidates) == 2
    # a row not yet full: the checker 5/1 would put in it shows on the bare point, so the 1-point as it was
    # settles it
    mover[0] = 3
    before = Position.from_board(mover, opponent)
    off = before.parse_play("5/off 4/off", (5, 4))
    obs = BoardObservation(off.result().on_roll, off.result().opponent, uncertain={1})
    assert identify_play(before, (5, 4), obs).verdict == "ambiguous"
    found = identify_play(before, (5, 4), replace(obs, still=frozenset({1, 2, 3}), changed=frozenset({4, 5})))
    assert found.verdict == "legal" and found.play == off and "picture" in found.reason
    # a touched 1-point does not rule 5/off 4/off out (a checker nudged): only one that looks as it did would
    found = identify_play(before, (5, 4), replace(obs, still=frozenset({2, 3}), changed=frozenset({1, 4, 5})))
    assert found.verdict == "ambiguous" and len(found.candidates) == 2


def test_an_illegal_slip_onto_a_pile_is_still_flagged_when_the_picture_shows_it():
    """The player put both checkers on the 2-point's pile (7/2 7/2 with a 6-5: illegal). The counts fit 7/2
    7/1; the picture shows the 1-point as it was, so the legal play is not accepted."""
    before, play, seen = _onto_two_piles()
    found = identify_play(before, (6, 5), BoardObservation(seen, play.result().opponent, at_least={1, 2},
                                                           still={1, 3, 4, 5, 6}, changed={2, 7}))
    assert found.verdict in ("illegal", "ambiguous") and found.play is None


def test_an_observation_with_a_picture_round_trips_through_json():
    obs = BoardObservation(Position.initial().on_roll, Position.initial().opponent, still={1, 2}, changed={6})
    assert BoardObservation.from_json(obs.to_json()) == obs
    with pytest.raises(ValueError):
        BoardObservation(Position.initial().on_roll, Position.initial().opponent, still={6}, changed={6})
