"""The camera side of a table runner: the dice locator, pick-up detection, stop(), the demo's operator,
and (with the shared match files) simulator footage read end to end by the real vision."""

from __future__ import annotations

import math
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import Calibration
from tablecompanion.geometry import BoardGeometry
from tablecompanion.referee import Referee, TableSettings
from tablecompanion.referee.camera import DiceLocator, LocatorConfig
from tablecompanion.referee.camera_demo import FootageOperator
from tablecompanion.referee.runner import TableRunner
from tablecompanion.vision.dice import DiceReading

MATCHES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "matches"
DEMO_MATCH = "Magic_-_Lasse_5pt"


def _calibration() -> Calibration:
    """Image pixels = board millimetres: a 16 mm die is 16 px."""
    geo = BoardGeometry()
    return Calibration(geometry=geo, image_size=(int(geo.spec.width), int(geo.spec.height)), homography=np.eye(3))


def _table() -> np.ndarray:
    geo = BoardGeometry()
    img = np.zeros((int(geo.spec.height), int(geo.spec.width), 3), np.uint8)
    img[:] = (40, 110, 40)
    return img


def _square(img, centre, side, colour=(230, 230, 230)) -> None:
    x, y = centre
    h = side / 2
    cv2.rectangle(img, (int(x - h), int(y - h)), (int(x + h), int(y + h)), colour, -1)


def _square_reader(crop, config=None):
    """A stand-in dice reader: every bright square in the crop is a die showing 3."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    n, _, stats, cents = cv2.connectedComponentsWithStats((grey > 180).astype(np.uint8))
    out = []
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        cx, cy = cents[i]
        outline = ((x, y), (x + w, y), (x + w, y + h), (x, y + h))
        out.append(DiceReading(3, (float(cx), float(cy)), outline, 1.0, "flat", size=float(max(w, h))))
    return out


def test_locator_reads_only_die_sized_new_things_on_the_playing_surface():
    """The older crop-and-size locator (``board_aware=False``)."""
    calls = []

    def reader(crop, config=None):
        calls.append(crop.shape)
        return _square_reader(crop, config)

    loc = DiceLocator(_calibration(), LocatorConfig(board_aware=False), reader=reader)
    empty = _table()
    _square(empty, (300, 100), 16)  # something that was there before the throw (a printed mark)
    loc.set_reference(empty)
    frame = empty.copy()
    _square(frame, (600, 380), 16)  # a die in the right half
    _square(frame, (400, 200), 44)  # checker-sized: not a die
    _square(frame, (775, 400), 16)  # in the bottom tray, off the playing surface
    got = loc(frame)
    assert [tuple(round(v) for v in r.centre) for r in got] == [(600, 380)]
    assert abs(got[0].size - 16) <= 2  # read on a 4x crop, back in frame pixels
    assert loc.rejected["size"] == 1
    assert all(max(s[:2]) < 400 for s in calls)  # crops, never the whole frame
    assert loc([empty.copy()][0]) == []  # nothing new: nothing read


def test_board_aware_locator_sees_dice_wherever_they_land_and_never_a_checker():
    """The roll reader behind the locator: a checker-sized change is no die, a die in the tray is seen (and
    judged off the board), and a die the grid reader cannot read is "unclear", never given a value."""
    loc = DiceLocator(_calibration(), reader=_square_reader)
    empty = _table()
    loc.set_reference(empty)
    frame = empty.copy()
    _square(frame, (600, 380), 16)  # a die in the right half (a plain square: no pips to check)
    _square(frame, (400, 200), 44)  # checker-sized: not a die
    _square(frame, (775, 400), 16)  # in the bottom tray, off the playing surface
    got = loc(frame)
    assert sorted(tuple(round(v) for v in r.centre) for r in got) == [(600, 380), (775, 400)]
    assert all(r.value is None and r.status == "unclear" for r in got)
    placements, verdict, reason = loc.verdict_for(got, "bottom", False, 2)
    assert verdict == "void" and sorted(placements) == ["off the board", "ok"]


def test_the_old_dice_places_come_from_the_pick_up_frame_but_not_a_new_die_in_it():
    """The board before a throw that ran into the pick-up still shows the old die; its place is taken from
    the pick-up frame. When that frame was taken once the new dice lay (one beside the old place), the new
    die's pixels come from the board the old dice were read against, and a checker both show stays."""
    loc = DiceLocator(_calibration(), reader=_square_reader)
    table = _table()
    loc.set_reference(table)  # the board the old roll is read against
    old = (600, 380)
    before_throw = table.copy()
    _square(before_throw, old, 16)
    cv2.circle(before_throw, (600, 410), 19, (30, 30, 160), -1)  # a checker the play put near the old die
    loc.dice_settled([DiceReading(3, old, (), 1.0, "flat", 16.0)], before_throw)
    loc.dice_gone()
    pick_up = table.copy()
    cv2.circle(pick_up, (600, 410), 19, (30, 30, 160), -1)
    _square(pick_up, (585, 372), 14, (200, 200, 250))  # the new die, beside the old die's place
    loc.set_reference(pick_up)
    out = loc._without_last_dice(before_throw)
    assert np.array_equal(out[380, 600], table[380, 600])  # the old die is gone
    assert np.array_equal(out[372, 585], table[372, 585])  # the new die is not taken in
    assert np.array_equal(out[410, 600], before_throw[410, 600])  # the checker stays


def test_a_pick_up_seen_once_the_next_throw_rests_leaves_the_roll_reader_its_reference():
    """The pick-up frame of a play run into the throw holds the new dice: the roll reader does not take it for
    the board before the throw (the watcher hands it that board) and finds no checkers on it; it keeps it as
    an earlier view of what stood still, and the locator's own empty-table view is that frame."""
    loc = DiceLocator(_calibration(), reader=_square_reader)
    table = _table()
    loc.set_reference(table)
    reader = loc.roll_reader
    reference, boards, views = reader.reference, len(reader._checker_boards), len(reader._views)
    pick_up = table.copy()
    _square(pick_up, (600, 380), 16)  # the new die, already at rest
    loc.set_reference(pick_up, resting=True)
    assert reader.reference is reference and len(reader._checker_boards) == boards
    assert len(reader._views) == views + 1
    assert np.array_equal(loc._empty_full, pick_up)
    loc.set_reference(pick_up)  # between turns the frame becomes the reader's reference as before
    assert reader.reference is not reference


def test_dice_count_as_picked_up_only_when_their_place_shows_the_empty_table():
    loc = DiceLocator(_calibration(), reader=_square_reader)
    empty = _table()
    loc.set_reference(empty)
    with_die = empty.copy()
    _square(with_die, (600, 380), 16)
    dice = loc(with_die)
    loc.dice_settled(dice, with_die)
    assert loc.dice_down and not loc.gone(with_die)
    assert loc(with_die) == dice  # still there: the same dice
    hand = with_die.copy()
    cv2.circle(hand, (600, 380), 30, (120, 150, 200), -1)  # a hand over the die...
    cv2.rectangle(hand, (575, 380), (625, hand.shape[0]), (120, 150, 200), -1)  # ... and its arm from the edge
    assert not loc.gone(hand)
    assert not loc.gone(with_die)
    assert loc.gone(empty.copy())
    assert loc(empty.copy()) == []  # the watcher's read says: picked up


def test_a_die_a_checker_was_put_over_counts_as_gone_once_no_hand_is_there():
    """The play may cover a die with a checker (the simulator's do; players push dice aside): its place
    shows no die face and no hand is over the board, so it is gone; a hand there is not a pick-up."""
    loc = DiceLocator(_calibration(), reader=_square_reader)
    empty = _table()
    loc.set_reference(empty)
    with_die = empty.copy()
    _square(with_die, (600, 380), 16)
    loc.dice_settled(loc(with_die), with_die)
    covered = with_die.copy()
    cv2.circle(covered, (603, 384), 22, (40, 40, 190), -1)  # a red checker over the die
    hand = covered.copy()
    cv2.rectangle(hand, (560, 300), (640, hand.shape[0]), (120, 150, 200), -1)
    assert not loc.gone(hand)
    assert loc.gone(covered)


def test_stop_really_stops_a_runner_reading_frames():
    ref = Referee("t", TableSettings(players=("A", "B"), match_length=3))
    observed = []
    ref_observe = ref.observe

    def observe(obs, **kw):
        observed.append(time.monotonic())
        return ref_observe(obs, **kw)

    ref.observe = observe

    class SlowPipeline:
        def feed(self, image, t=None):
            time.sleep(0.05)
            return [{"type": "roll_void", "reason": "test"}]

        def board_observation(self, image):
            return {}

    frames = (np.zeros((4, 4, 3), np.uint8) for _ in range(10_000))
    runner = TableRunner(ref, frames=frames, pipeline=SlowPipeline()).start()
    time.sleep(0.3)
    runner.stop()
    stopped = time.monotonic()
    assert not runner.running
    time.sleep(0.3)
    assert observed and all(t <= stopped for t in observed)


def _mat() -> Path:
    files = sorted(MATCHES.glob(f"{DEMO_MATCH}*.mat")) if MATCHES.is_dir() else []
    if not files:
        pytest.skip(f"shared match files not found: {MATCHES}")
    return files[0]


def _records(mat: Path, n: int) -> list[dict]:
    from tablecompanion.sim.footage import script_match

    out = []
    for t in script_match(mat).turns[:n]:
        out.append({"game": t.game, "turn": t.index, "kind": t.kind, "player": t.player,
                    "dice": list(t.dice) if t.dice else None, "play": t.play, "opening": t.opening,
                    "position_id_before": t.position_id_before, "position_id_after": t.position_id_after,
                    "result": t.result})
    return out


def _referee(mat: Path) -> Referee:
    from tablecompanion.referee.matplay import settings_for
    from tablecompanion.rules.matfile import parse_mat

    return Referee("1", settings_for(parse_mat(mat.read_text(encoding="utf-8", errors="replace"))))


def test_footage_operator_enters_what_the_camera_missed_and_corrects_what_it_misread():
    mat = _mat()
    recs = _records(mat, 3)
    ref = _referee(mat)
    turns: list = []
    op = FootageOperator(ref, turns)
    # turn 0: the camera read the opening roll and the play
    first = recs[0]
    ref.observe({"type": "roll", "dice": FootageOperator._dice(first)})
    ref.act({"action": "play", "play": first["play"]}, "camera")
    turns.append(first)
    op(None, {"phase": "settled"})
    # turn 1: the camera misread the roll (a wrong value), nothing else
    second = recs[1]
    wrong = [d % 6 + 1 for d in second["dice"]]
    ref.observe({"type": "roll", "dice": wrong})
    turns.append(second)
    op(None, {"phase": "rolling"})  # not yet: the next roll is not down (the camera may still read the board)
    assert len(op.tally.turns) == 1
    op(None, {"phase": "settled"})
    # turn 2: the camera saw nothing at all
    turns.append(recs[2])
    op.finish()
    got = [(t["roll"], t["play"]) for t in op.tally.turns]
    assert got == [("camera", "camera"), ("corrected", "operator"), ("operator", "operator")]
    assert ref.state.game.position.position_id() == recs[2]["position_id_after"]
    summary = op.tally.summary()
    assert summary["roll_camera"] == 1 and summary["roll_corrected"] == 1 and summary["roll_operator"] == 1


def test_footage_operator_takes_a_roll_the_camera_put_to_the_players():
    """The camera read the roll but a die touched a checker: the void carries the values, and the operator,
    seeing the die flat (the footage's throw was good), takes them: a confirmed roll, not a typed one."""
    mat = _mat()
    recs = _records(mat, 2)
    ref = _referee(mat)
    turns: list = []
    op = FootageOperator(ref, turns)
    first, second = recs[0], recs[1]
    ref.observe({"type": "roll", "dice": FootageOperator._dice(first)})
    ref.act({"action": "play", "play": first["play"]}, "camera")
    turns.append(first)
    op(None, {"phase": "settled"})
    ref.observe({"type": "roll_void", "reason": "die 2 unclear (touching a checker: it may lean on it): re-roll",
                 "proposal": list(reversed(second["dice"]))})
    turns.append(second)
    op.finish()
    assert [t["roll"] for t in op.tally.turns] == ["camera", "confirmed"]
    assert op.tally.summary()["roll_confirmed"] == 1
    assert ref.state.game.position.position_id() == second["position_id_after"]


def test_simulator_footage_is_read_by_the_camera_pipeline():
    """Two turns of the demo match's footage through calibration, dice and board reading: the camera reads
    both rolls and both plays (the operator enters nothing)."""
    from tablecompanion.referee.runner import demo_runner

    mat = _mat()
    ref = _referee(mat)
    runner = demo_runner(ref, mat, realtime=False, max_turns=2)
    runner.run()
    assert runner.pipeline.calibration is not None and runner.pipeline.calibration.source == "markers"
    tally = runner.operator.tally.turns
    assert len(tally) == 2
    assert [(t["roll"], t["play"]) for t in tally] == [("camera", "camera")] * 2
    sources = [h.get("source") for h in ref.snapshot()["history"] if h.get("action") in ("opening_roll", "roll", "play")]
    assert sources == ["camera"] * 4


def test_a_profile_made_on_the_dashboard_replaces_the_calibration_at_the_next_frame():
    """The calibration page hands its profile to the running camera (``use_calibration``): the frame after
    reads with it, and the roll watcher places dice on that board."""
    from tablecompanion.referee.runner import CameraPipeline

    ref = Referee("1", TableSettings(players=("A", "B")))
    pipe = CameraPipeline(ref, None)
    assert pipe.calibration is None and pipe.locator is None
    cal = _calibration()
    pipe.use_calibration(cal)
    assert pipe.calibration is None  # not before a frame: the runner's thread switches, not the caller's
    pipe.feed(_table(), 0.0)
    assert pipe.calibration is cal
    assert pipe.locator is not None and pipe.locator.calibration is cal
    assert getattr(pipe.watcher, "geometry", None) is cal.geometry


def test_serve_finds_a_profile_in_its_data_dir_before_the_default_one(tmp_path, monkeypatch):
    """``serve --camera N --profile NAME --data-dir X`` reads the profile the dashboard saved under X."""
    from tablecompanion.calibration.profiles import save_profile
    from tablecompanion.referee.runner import start_for_serve

    monkeypatch.setenv("TABLECOMPANION_DATA", str(tmp_path / "default"))
    served = tmp_path / "served"
    cal = _calibration()
    save_profile(cal, "table-1", served)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), _table())
    ref = Referee("1", TableSettings(players=("A", "B")))
    runner = start_for_serve(ref, camera=str(frames), calibration="table-1", data_dir=served)
    try:
        assert runner.pipeline.calibration is not None
        assert runner.pipeline.calibration.image_size == cal.image_size
    finally:
        runner.stop()
    with pytest.raises(Exception, match="table-1"):
        start_for_serve(ref, camera=str(frames), calibration="table-1")  # not in the default dir


def test_an_illegal_play_is_flagged_from_a_clear_board_and_its_late_correction_read_by_the_camera():
    """Footage where the first mover misplaces a checker, picks up the dice and the opponent puts it right:
    the board watcher gives the referee the illegal board once the hands are off it (flagged before the next
    roll), then the corrected board, which the referee accepts as the correction — all from the camera."""
    from tablecompanion.referee.runner import demo_runner

    mat = _mat()
    ref = _referee(mat)
    runner = demo_runner(ref, mat, realtime=False, max_turns=2, inject="illegal:1.0,correction:0.0", seed=0)
    runner.run()
    assert runner.pipeline.board_watcher is not None
    kinds = [d.get("decision") for d in runner.stats.log]
    assert "illegal_play_flagged" in kinds, kinds
    assert "correction_accepted" in kinds, kinds
    assert kinds.index("illegal_play_flagged") < kinds.index("correction_accepted")
    # the correction came before the opponent's roll was read, and the camera read the plays
    tally = runner.operator.tally.turns
    assert [t["play"] for t in tally] == ["camera", "camera"], tally


def test_the_play_before_a_throw_that_ran_into_its_pick_up_is_read_before_the_throw_is_called():
    """Turn 2 of the demo match: the pick-up and the next throw run together, and the dice are seen gone
    only on the first quiet frame after that throw. The board watcher had read the board after the play
    while the new dice rolled; that reading is the play's (its frame shows the old dice gone), so the play
    goes to the referee at the pick-up, frames before the throw is called. It was dropped before, and the
    board read again at the call: the demo's operator, who enters a turn once the next roll is down, had
    entered that play by hand by then."""
    from tablecompanion.referee.runner import demo_runner

    mat = _mat()
    ref = _referee(mat)
    runner = demo_runner(ref, mat, realtime=False, max_turns=4)
    seen: list = []
    frames, observe = runner.frames, runner._observe
    count = [0]

    def counted():
        for item in frames:
            count[0] += 1
            yield item

    def observed(obs):
        if isinstance(obs, dict):
            seen.append((count[0], obs.get("type"), obs.get("play")))
        return observe(obs)

    runner.frames, runner._observe = counted(), observed
    runner.run()
    assert [(t["roll"], t["play"]) for t in runner.operator.tally.turns] == [("camera", "camera")] * 4
    plays = [(f, play) for f, typ, play in seen if typ == "board" and play]
    rolls = [f for f, typ, _ in seen if typ == "roll"]
    assert len(plays) == 4
    for f, play in plays[:-1]:
        later = [r for r in rolls if r >= f]
        assert later and later[0] > f, f"the play {play} came on the frame of the next roll's call ({f})"


def test_the_board_a_play_left_has_its_checkers_found_while_the_next_throw_rolls():
    """In the demo's first turns the play, the pick-up and the next throw run together: the board before
    the throw is made at the read-ahead from the last still board and the play's moved checkers, and its
    checkers were searched for there (30-70 ms on the throw's most time-critical frame). The watcher now
    makes that board while the dice roll and the roll reader finds its checkers then; at the read-ahead
    the same board takes them at once. They are the checkers a search at the read-ahead finds, and the
    turns are read as before."""
    from tablecompanion.referee.runner import demo_runner
    from tablecompanion.vision.roll_reader import RollReader

    mat = _mat()
    runner = demo_runner(_referee(mat), mat, realtime=False, max_turns=4)
    taken: list = []
    checkers_on = RollReader._checkers_on

    def spied(self, frame, small):
        ahead = self._ahead
        found = checkers_on(self, frame, small)
        if ahead is not None and self._ahead is None:  # the board learned ahead served this reference
            taken.append((found, self._find_checkers(frame)))
        return found

    RollReader._checkers_on = spied
    try:
        runner.run()
    finally:
        RollReader._checkers_on = checkers_on
    assert [(t["roll"], t["play"]) for t in runner.operator.tally.turns] == [("camera", "camera")] * 4
    assert taken, "no reference took its checkers from a board learned while the dice rolled"
    for learned, searched in taken:
        assert len(learned) == len(searched)
        assert max(min(math.dist(p, q) for q in searched) for p in learned) < 5.0  # Hough steps


def test_a_board_reading_made_before_the_dice_were_seen_gone_is_no_play():
    """At a pick-up the board watcher's stable reading is kept only when the frame it was made on shows the
    settled dice gone; otherwise (a reading from while they still lay) it is dropped, as the pick-up from the
    board's done button drops it, and the board is read afresh."""
    from types import SimpleNamespace

    from tablecompanion.referee.runner import CameraPipeline

    ref = Referee("1", TableSettings())
    pipe = CameraPipeline(ref, None, watch_board=False)
    reading = SimpleNamespace(reading="the board after the play")
    shown = {}
    pipe.board_watcher = SimpleNamespace(current=reading, state=None)
    pipe.locator = SimpleNamespace(gone=lambda frame: shown[id(frame)])
    with_dice, without = np.zeros((4, 4, 3), np.uint8), np.ones((4, 4, 3), np.uint8)
    shown.update({id(with_dice): False, id(without): True})
    pipe._current = (reading, without)
    assert pipe._read_after_pickup()
    pipe.dice_picked_up(without, keep_board=True)
    assert pipe.board_watcher.current is reading
    pipe._current = (reading, with_dice)
    assert not pipe._read_after_pickup()
    pipe.dice_picked_up(with_dice, keep_board=False)
    assert pipe.board_watcher.current is None
    pipe.board_watcher.current = SimpleNamespace(reading="another")  # not the reading whose frame was kept
    pipe._current = (reading, without)
    assert not pipe._read_after_pickup()


def test_an_opening_roll_put_to_the_players_says_whose_die_is_whose():
    """The roll reader proposes an opening roll's dice in the order seen; the pipeline orders them [X's, O's]
    by the half each lies in, and proposes nothing when it cannot tell (no calibration)."""
    from types import SimpleNamespace

    from tablecompanion.referee.runner import CameraPipeline

    cal = _calibration()
    geo = cal.geometry
    ref = Referee("1", TableSettings())
    pipe = CameraPipeline(ref, cal, watch_board=False)
    bottom_player = ref.settings.bottom_player

    def centre(rect):
        return ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)

    top_die = DiceReading(None, centre(geo.right_hand_board("top")), (), 0.0, "unclear")
    bottom_die = DiceReading(4, centre(geo.right_hand_board("bottom")), (), 1.0, "flat")
    ev = SimpleNamespace(verdict="unclear", reason="die 1 unclear (touching a checker: it may lean on it): re-roll",
                         proposal=(6, 4), opening=True, dice=(top_die, bottom_die))
    obs = pipe._roll(ev, None)
    by_player = {bottom_player: 4, ("O" if bottom_player == "X" else "X"): 6}
    assert obs["type"] == "roll_void" and obs["proposal"] == [by_player["X"], by_player["O"]]
    assert "proposal" not in CameraPipeline(ref, None, watch_board=False)._roll(ev, None)
    later = SimpleNamespace(**{**vars(ev), "opening": False})
    assert pipe._roll(later, None)["proposal"] == [6, 4]


def test_a_re_roll_thrown_as_the_void_dice_are_picked_up_is_read_whole():
    """Demo footage with void throws (seed 1): the re-roll after the void throw of turn 6 comes to rest on the
    first still frame after the pick-up. That frame, which shows the new dice, is among the roll reader's
    earlier views of the table, and one new die (which the per-photo reader misses) was skipped as seen
    before: "only 1 of 2 dice seen". Every throw is called, the re-roll with its values (the reader searches
    such changes when a die is short), and no void throw is accepted."""
    from tablecompanion.referee.runner import demo_runner

    mat = _mat()
    runner = demo_runner(_referee(mat), mat, realtime=False, max_turns=6, seed=1, inject="cocked:0.25,misplaced:0.25")
    truths, calls = [], []
    source, observe = runner.frames, runner._observe

    def frames():
        for image, truth in source:
            truths.append(truth)
            yield image, truth

    def observed(obs):
        if isinstance(obs, dict) and obs.get("type") in ("roll", "roll_void"):
            calls.append((len(truths) - 1, obs["type"], obs.get("dice")))
        return observe(obs)

    runner.frames, runner._observe = frames(), observed
    runner.run()
    throws = [(i, e) for i, t in enumerate(truths) for e in t.get("events") or () if e.get("type") == "roll_settled"]
    voids = [k for k, (_, e) in enumerate(throws) if not e.get("valid")]
    assert voids and voids[0] + 1 < len(throws), "the footage has a void throw and its re-roll"
    called = []
    for i, e in throws:
        after = [c for c in calls if i - 1 <= c[0] < i + 30]
        assert after, f"the throw that came to rest at frame {i} was never called"
        called.append(after[0])
    for (_, e), (_, kind, dice) in zip(throws, called):
        if not e.get("valid"):
            assert kind == "roll_void", (e, kind, dice)
    (_, re_roll), (_, kind, dice) = throws[voids[0] + 1], called[voids[0] + 1]
    assert (kind, sorted(dice or ())) == ("roll", sorted(re_roll["dice"]))
