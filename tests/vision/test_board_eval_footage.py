"""Which stable reading the footage evaluation scores each turn on (``FootageTurns``): the last one before
the board can change again, which for a play followed by a cube action or a game's end comes after it."""

from tablecompanion.vision.board_eval import FootageTurns


def _truth(frame, phase, *events):
    return {"frame": frame, "phase": phase,
            "events": [{"type": kind, "game": game, "turn": turn} for kind, game, turn in events]}


def _run(book, script):
    """Feed (truth, reading or None) pairs; returns every turn scored, with the reading it was scored on."""
    due = []
    for truth, reading in script:
        due += book.frame(truth)
        if reading is not None:
            book.reading(truth["frame"], reading)
    return due


def test_a_play_followed_by_a_double_is_scored_on_the_board_seen_after_the_cube_moved():
    book = FootageTurns()
    due = _run(book, [
        (_truth(0, "settled", ("roll_settled", 1, 6)), "board before the play"),
        (_truth(1, "pickup", ("play_made", 1, 6)), None),  # no clear view between the last move and the cube
        (_truth(2, "cube", ("double", 1, 7)), None),
        (_truth(3, "cube", ("take", 1, 8)), "board after the play"),
        (_truth(4, "settled", ("roll_settled", 1, 9)), None),
    ])
    assert due == []  # a cube action moves no checker: the turn stays open
    due = _run(book, [(_truth(5, "moving", ("checker_picked", 1, 9)), None)])
    assert due == [((1, 6), (3, "board after the play"))]


def test_a_games_last_play_is_scored_on_the_board_seen_through_the_game_over_pause():
    book = FootageTurns()
    due = _run(book, [
        (_truth(0, "settled", ("roll_settled", 2, 40)), "board before the play"),
        (_truth(1, "pickup", ("play_made", 2, 40)), None),
        (_truth(2, "game_over", ("game_over", 2, 40)), None),
        (_truth(3, "game_over"), "board after the play"),
    ])
    assert due == []
    due = _run(book, [(_truth(4, "setup", ("game_start", 3, None)), "the next game set up")])
    assert due == [((2, 40), (3, "board after the play"))]
    assert book.finish() == []


def test_the_last_turn_of_the_footage_and_the_board_before_a_correction():
    book = FootageTurns()
    due = _run(book, [
        (_truth(0, "settled", ("roll_settled", 1, 2)), "board before"),
        (_truth(1, "pickup", ("illegal_play", 1, 2)), None),
        (_truth(2, "pickup"), "illegal board"),
        (_truth(3, "correcting"), None),
        (_truth(4, "pickup", ("correction", 1, 2), ("play_made", 1, 2)), None),
        (_truth(5, "pickup"), "corrected board"),
    ])
    assert due == []
    assert book.illegal_at == {(1, 2): 1}
    assert book.pre_correction == {(1, 2): (2, "illegal board")}
    assert book.finish() == [((1, 2), (5, "corrected board"))]


def test_a_play_before_a_dance_is_scored_not_replaced_by_the_dance():
    """A player on the bar who cannot enter makes no move: the play before it must still be scored (it was
    dropped when the dance's own turn opened, losing the hitting plays that cause dances)."""
    book = FootageTurns()
    due = _run(book, [
        (_truth(0, "settled", ("roll_settled", 1, 3)), None),
        (_truth(1, "pickup", ("play_made", 1, 3)), None),
        (_truth(2, "settled", ("roll_settled", 1, 4)), "board after the hit"),
        (_truth(3, "pickup", ("play_made", 1, 4)), None),  # the dance: no checker picked up
    ])
    assert due == [((1, 3), (2, "board after the hit"))]
    due = _run(book, [(_truth(4, "settled", ("roll_settled", 1, 5)), "board after the dance"),
                      (_truth(5, "moving", ("checker_picked", 1, 5)), None)])
    assert due == [((1, 4), (4, "board after the dance"))]


def test_an_illegal_board_read_before_the_illegal_play_event_counts_as_seen():
    """The simulator announces an illegal play once the hand is back at rest; the board stands illegal from
    its last checker placed, and a reading taken in between is a picture of it (it was counted as 'never
    visible', leaving the illegal play unscored)."""
    book = FootageTurns()
    _run(book, [
        (_truth(0, "settled", ("roll_settled", 2, 26)), "board before"),
        (_truth(10, "moving", ("checker_picked", 2, 26)), None),
        (_truth(20, "moving", ("checker_placed", 2, 26)), None),
        (_truth(27, "moving"), "illegal board"),  # hand gone, board clear
        (_truth(29, "correcting", ("illegal_play", 2, 26)), None),
        (_truth(31, "correcting"), None),
        (_truth(39, "correcting", ("checker_picked", 2, 26)), None),
        (_truth(45, "correcting", ("checker_placed", 2, 26)), None),
        (_truth(50, "pickup", ("correction", 2, 26), ("play_made", 2, 26)), "corrected board"),
    ])
    assert book.illegal_at == {(2, 26): 20}
    assert book.pre_correction == {(2, 26): (27, "illegal board")}


def test_observations_logged_by_the_footage_run_replay_to_the_same_verdicts(tmp_path):
    """The log holds what identification needs (before, roll, observed board); a replay scores it afresh."""
    import pytest

    from tablecompanion.rules import Position
    from tablecompanion.vision.board_eval import EvalError, _ObservationLog, replay_observations
    from tablecompanion.vision.identify import BoardObservation

    start = Position.initial()
    rec = {"game": 1, "turn": 0, "player": "X", "position_id_before": start.position_id(), "dice": [3, 1],
           "play": "8/5 6/5"}
    legal = start.parse_play("8/5 6/5", (3, 1)).result()
    illegal = list(legal.on_roll)
    illegal[4] -= 1
    illegal[3] += 1  # one checker put a point short: 8/5 6/4
    log = _ObservationLog(tmp_path / "obs.jsonl", "m.mat", "classic", "steep", 0)
    log.write(rec, "turn", 10, BoardObservation.from_position(legal, at_least={6}))
    log.write(rec, "pre_correction", 5, BoardObservation(tuple(illegal), legal.opponent))
    log.write(dict(rec, turn=1), "turn", 20, BoardObservation.from_position(start))  # read as unchanged: wrong
    report = replay_observations(tmp_path / "obs.jsonl")
    assert (report["turns"], report["identified"], report["wrong"]) == (2, 1, 1)
    assert (report["illegal_seen"], report["illegal_flagged"]) == (1, 1)
    assert report["failures"] == [{"match": "m.mat", "game": 1, "turn": 1, "frame": 20, "play": "8/5 6/5",
                                   "verdict": "unchanged", "reason": report["failures"][0]["reason"],
                                   "read_as": None}]
    (tmp_path / "bad.jsonl").write_text('{"kind": "turn", "dice": [3, 1]}\n')
    with pytest.raises(EvalError, match="bad.jsonl:1"):
        replay_observations(tmp_path / "bad.jsonl")
    with pytest.raises(EvalError, match="no observations file"):
        replay_observations(tmp_path / "none.jsonl")
