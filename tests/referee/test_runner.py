"""Table wiring: observations through a runner thread, the camera pipeline's mapping, LEDs and buttons."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tablecompanion.referee import Referee, RefereeError, TableSettings
from tablecompanion.referee.leds import LedLink, led_state_for
from tablecompanion.referee.runner import CameraPipeline, TableRunner
from tablecompanion.rules import Position


def sides(pos: Position, mover: str) -> dict:
    other = "O" if mover == "X" else "X"
    return {mover: list(pos.on_roll), other: list(pos.opponent)}


class FakeBoard:
    """An LED board that remembers what it was told; ``press`` fires its buttons."""

    def __init__(self) -> None:
        self.shown = []
        self.callbacks = []
        self.closed = False

    def show(self, state) -> None:
        self.shown.append(state)

    def on_event(self, cb) -> None:
        self.callbacks.append(cb)

    def press(self, button: str) -> None:
        for cb in self.callbacks:
            cb(button)

    def close(self) -> None:
        self.closed = True


def test_runner_feeds_observations_in_a_thread_and_counts_refusals():
    ref = Referee("1", TableSettings(players=("A", "B")))
    after = Position.initial().parse_play("8/5 6/5", (3, 1)).result()
    obs = [
        {"type": "roll", "dice": [3, 1]},
        {"type": "roll", "dice": [6, 6]},  # refused: X must play first
        {"type": "dice_picked_up", "board": sides(after, "X")},
        {"type": "roll", "dice": [5, 2]},
    ]
    runner = TableRunner(ref, observations=obs).start()
    runner.join(10)
    assert not runner.running
    assert runner.stats.observations == 4 and runner.stats.refused == 1
    assert runner.stats.log[1]["status"] == 409
    snap = ref.snapshot()
    assert [h["action"] for h in snap["history"]] == ["opening_roll", "play", "roll"]
    assert snap["dice"] == [5, 2] and snap["turn"] == "O"


def test_runner_needs_an_input():
    with pytest.raises(RefereeError):
        TableRunner(Referee("1", TableSettings(players=("A", "B"))))


def test_leds_follow_the_referee_and_buttons_act():
    ref = Referee("1", TableSettings(players=("A", "B"), bottom_player="O"))
    board = FakeBoard()
    link = LedLink(ref, board)
    assert board.shown[-1].status == "waiting"
    ref.act({"action": "roll", "dice": [3, 1]})  # X (top) to play 3-1
    lit = board.shown[-1].lit_points()
    assert board.shown[-1].turn == "top"
    # X's 8/5 6/5 lands on X's 5: physical point 25 - 5 = 20 for the top player
    assert 20 in lit and lit[20].colour == "green"
    ref.act({"action": "play", "play": "8/5 6/5"})
    board.press("double")  # O doubles from the board's button
    assert ref.snapshot()["awaiting"] == "take_or_pass"
    board.press("take")
    assert ref.snapshot()["cube"] == {"value": 2, "owner": "X"}
    assert board.shown[-1].cube_value == 2 and board.shown[-1].cube_owner == "top"
    board.press("pass")  # nothing to pass: refused, logged, LEDs refreshed, nothing raised
    link.close()
    assert board.closed


def test_leds_blink_an_illegal_play_and_show_void_rolls():
    ref = Referee("1", TableSettings(players=("A", "B")))
    board = FakeBoard()
    LedLink(ref, board)
    ref.act({"action": "roll", "dice": [6, 4]})
    ref.act({"action": "play", "play": "24/18 13/10"})
    lit = board.shown[-1].lit_points()
    assert set(lit) == {24, 18, 13, 10} and all(light.mode == "blink" for light in lit.values())
    ref.act({"action": "correct", "play": "24/18 13/9"})
    ref.act({"action": "void", "reason": "cocked"})
    assert board.shown[-1].status == "void_roll"
    assert led_state_for(ref.snapshot()).status == "normal"


def test_emulated_led_board_shows_the_legal_destinations():
    leds = pytest.importorskip("tablecompanion.leds.board")
    board = leds.open_board("emulated")
    try:
        ref = Referee("1", TableSettings(players=("A", "B")))
        LedLink(ref, board)
        ref.act({"action": "roll", "dice": [3, 1]})
        assert board.wait_shown(5.0)
        assert board.state.lit_points() == led_state_for(ref.snapshot()).lit_points()
    finally:
        board.close()


class StubWatcher:
    """Stands in for the vision RollWatcher: replays scripted events, one list per frame."""

    def __init__(self, script):
        self.script = list(script)
        self.opening = False
        self.roller_side = "bottom"
        self.seen = []

    def feed(self, frame, t=None):
        self.seen.append((self.opening, self.roller_side))
        return self.script.pop(0) if self.script else []


def _settled(values, verdict="valid", reason="", centres=None, opening=False):
    from tablecompanion.vision.settle import RollSettled

    centres = centres or [(100.0, 100.0)] * len(values)
    dice = tuple(SimpleNamespace(value=v, centre=c) for v, c in zip(values, centres))
    return RollSettled(dice, ("ok",) * len(values), verdict, reason, 0, 0.0, opening)


def test_camera_pipeline_maps_opening_dice_by_half_and_reads_the_board_on_pickup():
    from tablecompanion.calibration import Calibration
    from tablecompanion.geometry import BoardGeometry
    from tablecompanion.vision.settle import DicePickedUp

    geo = BoardGeometry()
    cal = Calibration(geometry=geo, image_size=(1000, 1000), homography=np.eye(3), bottom_player="O")
    right = geo.half("right")  # the bottom player's (O's) right-hand board
    left = geo.half("left")  # the top player's (X's)
    in_right = ((right[0] + right[2]) / 2, (right[1] + right[3]) / 2)
    in_left = ((left[0] + left[2]) / 2, (left[1] + left[3]) / 2)
    after = Position.initial().parse_play("13/7 8/7", (6, 1)).result()
    ref = Referee("1", TableSettings(players=("A", "B"), bottom_player="O"))

    asked = []

    class Reading:
        def observation(self, colour, at):
            asked.append((colour, at))
            from tablecompanion.vision.identify import BoardObservation

            return BoardObservation.from_position(after)

    watcher = StubWatcher([
        [_settled([6, 1], centres=[in_right, in_left], opening=True)],  # O's die 6 on the right, X's 1
        [],
        [DicePickedUp(2, 0.1)],
    ])
    pipe = CameraPipeline(ref, cal, watcher=watcher, board_reader=lambda image: Reading())
    runner = TableRunner(ref, frames=[np.zeros((8, 8, 3), np.uint8)] * 3, pipeline=pipe)
    runner.run()
    assert watcher.seen[0] == (True, "bottom")
    assert runner.stats.errors == 0, runner.stats.last_error
    snap = ref.snapshot()
    # dice = [X's, O's]: X's 1 (left half, top player's), O's 6 (right half, bottom player's): O starts
    assert snap["history"][0]["player"] == "O" and snap["history"][0]["dice"] == [1, 6]
    # O, the mover, sits at the bottom with the light checkers: the board is read for O
    assert asked == [("light", "bottom")]
    assert snap["history"][1]["player"] == "O" and snap["history"][1]["play"] == "13/7 8/7"
    assert snap["turn"] == "X"


def test_camera_pipeline_void_roll_and_identified_play():
    from tablecompanion.vision.settle import DicePickedUp

    ref = Referee("1", TableSettings(players=("A", "B")))
    ref.act({"action": "roll", "dice": [3, 1]})
    after = Position.initial().parse_play("8/5 6/5", (3, 1)).result()

    class Reading:
        def observation(self, colour, at):
            from tablecompanion.vision.identify import BoardObservation

            mover = list(after.on_roll)
            mover[12] -= 1  # a pile on 13 read one short: the reader says so
            return BoardObservation(tuple(mover), after.opponent, frozenset([13]))

    watcher = StubWatcher([[DicePickedUp(0, 0.0)], [_settled([2, 2], "void", "die 1 cocked")]])
    pipe = CameraPipeline(ref, None, watcher=watcher, board_reader=lambda image: Reading())
    runner = TableRunner(ref, frames=[np.zeros((8, 8, 3), np.uint8)] * 2, pipeline=pipe)
    runner.run()
    snap = ref.snapshot()
    assert [h["action"] for h in snap["history"]] == ["opening_roll", "play", "void"]
    assert snap["history"][1]["play"] == "8/5 6/5" and snap["history"][2]["reason"] == "die 1 cocked"
    assert runner.stats.log[0]["identified_by"] == "vision"


@pytest.mark.slow
def test_demo_runner_plays_simulator_footage_through_the_vision():
    mat = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "matches" / \
        "Llabba_-_Kabrus_7pt_Backgammon_Studio_2023_08_03_08_26_12.mat"
    if not mat.exists():
        pytest.skip(f"match file not found: {mat}")
    from tablecompanion.referee.matplay import settings_for
    from tablecompanion.referee.runner import demo_runner

    ref = Referee("1", settings_for(mat.read_text()))
    runner = demo_runner(ref, mat, realtime=False, max_turns=2)
    t = time.monotonic()
    runner.run()
    assert runner.stats.frames > 30 and runner.stats.errors == 0, runner.stats.last_error
    assert runner.stats.observations >= 1  # the camera decided something about the throws it saw
    assert time.monotonic() - t < float(os.environ.get("DEMO_TIME_LIMIT", "600"))


def test_start_for_serve_with_a_board_only_and_with_nothing():
    from tablecompanion.referee.runner import start_for_serve

    ref = Referee("1", TableSettings(players=("A", "B")))
    assert start_for_serve(ref) is None
    runner = start_for_serve(ref, board="emulated")
    try:
        assert runner.running and runner.led_link is not None
        ref.act({"action": "roll", "dice": [3, 1]})
        assert runner.led_link.shown.lit_points()
        runner.led_link.board.press("done")  # no camera: "done" is a pick-up without a board read
    finally:
        runner.stop()
    assert not runner.running


def test_start_for_serve_demo_without_footage_returns_none(tmp_path, monkeypatch):
    from tablecompanion.referee import runner as runner_mod

    ref = Referee("1", TableSettings(players=("Nobody", "Else")))
    monkeypatch.setattr(runner_mod, "SHARED_MATCHES", tmp_path)
    assert runner_mod.find_match_for(ref, tmp_path) is None
    assert runner_mod.start_for_serve(ref, demo=True, board=None) is None


def test_demo_falls_back_to_the_match_file_when_the_camera_reads_no_roll():
    ref = Referee("1", TableSettings(players=("A", "B"), match_length=1))
    actions = [{"action": "roll", "dice": [3, 1]}, {"action": "play", "play": "8/5 6/5"},
               {"action": "resign", "level": "single", "player": "O"}, {"action": "accept_resign"},
               {"action": "roll", "dice": [6, 6]}]  # never reached: the match is over
    void = [_settled([None, 3], "void", "die 1 cocked")]
    watcher = StubWatcher([void, void, void, void])
    pipe = CameraPipeline(ref, None, watcher=watcher)
    runner = TableRunner(ref, frames=[np.zeros((8, 8, 3), np.uint8)] * 10, pipeline=pipe,
                         fallback_actions=actions, fallback_after_voids=3)
    runner.run()
    assert runner.mode == "replay" and runner.stats.frames == 3
    assert runner.stats.log[3]["decision"] == "camera_off"
    snap = ref.snapshot()
    assert snap["status"] == "match_over" and snap["voids"] == 3
    assert [h["source"] for h in snap["history"]] == ["camera"] * 3 + ["replay"] * 4


def test_no_fallback_once_the_camera_has_read_a_roll():
    ref = Referee("1", TableSettings(players=("A", "B")))
    void = [_settled([None, 3], "void", "die 1 cocked")]
    watcher = StubWatcher([[_settled([3, 1], opening=True)], [], void, void, void, void])
    pipe = CameraPipeline(ref, None, watcher=watcher)
    runner = TableRunner(ref, frames=[np.zeros((8, 8, 3), np.uint8)] * 6, pipeline=pipe,
                         fallback_actions=[{"action": "roll", "dice": [6, 6]}])
    runner.run()
    assert runner.mode == "camera" and runner.stats.frames == 6


class ThrowWatcher(StubWatcher):
    """A roll watcher the test tells whether a throw is being decided and coming to rest."""

    deciding = coming_to_rest = False
    last_motion = 1.0
    config = SimpleNamespace(moving_fraction=0.0015)


class StubLocator:
    """The camera's dice locator as the pipeline asks it: dice down, a read-ahead that found dice."""

    dice_down = roll_ahead = False
    reads = 0

    def gone(self, image):
        return False

    def dice_settled(self, dice, image):
        self.dice_down = True


class RecordingBoardWatcher:
    """Stands in for the vision BoardWatcher: records what the pipeline asked of each frame."""

    state = None
    current = None

    def __init__(self):
        self.deferred, self.held = [], []

    def feed(self, image, defer_read=False, hold_read=False):
        self.deferred.append(defer_read)
        self.held.append(hold_read)
        return None


def test_the_board_watcher_re_read_waits_while_a_throw_is_decided_but_not_for_ever():
    """A stable board's re-read (40-60 ms) in a throw's debounce delayed the roll call by as much: the
    pipeline asks the board watcher to defer it while the roll watcher is deciding, for at most
    BOARD_DEFER_FRAMES frames in a row (motion that never settles must not stop the board being read)."""
    from tablecompanion.referee import runner as runner_mod

    ref = Referee("1", TableSettings(players=("A", "B")))
    watcher = ThrowWatcher([])
    pipe = CameraPipeline(ref, None, watcher=watcher)
    pipe.board_watcher = bw = RecordingBoardWatcher()
    frame = np.zeros((8, 8, 3), np.uint8)
    pipe.feed(frame)
    watcher.deciding = True
    for _ in range(3):
        pipe.feed(frame)
    watcher.deciding = False
    pipe.feed(frame)
    assert bw.deferred == [False, True, True, True, False]
    bw.deferred.clear()
    watcher.deciding = True
    limit = runner_mod.BOARD_DEFER_FRAMES
    for _ in range(limit + 2):
        pipe.feed(frame)
    assert bw.deferred[:limit] == [True] * limit and bw.deferred[limit] is False  # bounded
    assert bw.deferred[limit + 1] is True  # and the bound starts again after the read


def test_no_board_is_read_from_a_throw_read_ahead_to_its_call():
    """Rolling dice are no motion to the board watcher, which read the board (30-60 ms) on the very frames
    where the roll is read ahead and called; the roll call waited behind it (up to 280 ms). The pipeline now
    holds the board watcher from the frame whose read-ahead shows dice to the frame of the call; not when the
    read-ahead shows none (a hand leaving after a correction: its board is wanted at once), nor with dice
    down (nothing is read then)."""
    ref = Referee("1", TableSettings(players=("A", "B")))
    frame = np.zeros((8, 8, 3), np.uint8)
    for dice_found, down in ((True, False), (False, False), (True, True)):
        call = [_settled([3, 1], opening=True)] if dice_found and not down else []  # else: nothing to call
        watcher = ThrowWatcher([[], [], [], [], call, []])
        pipe = CameraPipeline(ref, None, watcher=watcher)
        pipe.board_watcher = bw = RecordingBoardWatcher()
        pipe.locator = loc = StubLocator()
        loc.dice_down = down
        pipe.feed(frame)  # the dice in the air
        watcher.deciding = watcher.coming_to_rest = True
        loc.roll_ahead = dice_found
        for _ in range(3):  # the read-ahead and the debounce
            pipe.feed(frame)
        watcher.coming_to_rest = loc.roll_ahead = False
        pipe.feed(frame)  # the call
        watcher.deciding = False
        pipe.feed(frame)
        expected = [False, True, True, True, True, False] if dice_found and not down else [False] * 6
        assert bw.held == expected, (dice_found, down)


def test_a_throw_in_the_air_reads_no_board_the_referee_already_has():
    """After the dice are picked up and the board after the play handed over, the arm that throws breaks the
    board watcher's still stretch, and it read the board again on every frame the dice rolled (six reads of
    30-70 ms) only to agree on what the referee had: the read-ahead and the call queued behind them. The
    pipeline holds the board watcher while a throw is decided once the board is known; not before a first
    stable reading, not with the last roll's dice down (the play is yet to be read), not while a pick-up
    waits for its board, not while a flag waits for a correction, and not for ever."""
    from tablecompanion.referee import runner as runner_mod

    frame = np.zeros((8, 8, 3), np.uint8)

    def held(stable=True, down=False, wanted=None, flag=None, frames=4):
        ref = Referee("1", TableSettings(players=("A", "B")))
        ref.state.flag = flag
        watcher = ThrowWatcher([])
        pipe = CameraPipeline(ref, None, watcher=watcher)
        pipe.board_watcher = bw = RecordingBoardWatcher()
        pipe.locator = loc = StubLocator()
        loc.dice_down = down
        pipe._stable_reading = object() if stable else None
        pipe._board_wanted = wanted
        pipe.feed(frame)  # nothing moving: the board watcher reads as it likes
        watcher.deciding = True  # an arm, then dice in the air
        for _ in range(frames):
            pipe.feed(frame)
        return bw.held

    assert held() == [False, True, True, True, True]
    assert held(stable=False) == [False] * 5
    assert held(down=True) == [False] * 5
    assert held(wanted=3) == [False] * 5
    assert held(flag=SimpleNamespace(provisional=False)) == [False] * 5
    limit = runner_mod.BOARD_DEFER_FRAMES
    assert held(frames=limit + 1)[1:] == [True] * limit + [False]  # bounded as the deferred re-read is


def test_a_throw_after_a_play_the_camera_could_not_tell_is_judged_in_the_opponent_s_half():
    """The mover picked up the dice, the board could not be read, and the record still waits for the play
    (a person will enter it, often after the next throw): that throw is the opponent's, so its dice must be
    judged in the opponent's right-hand half. They were judged in the mover's, and a good roll was void
    ("wrong half") whenever the call came before the person's entry."""
    from tablecompanion.calibration import Calibration
    from tablecompanion.geometry import BoardGeometry
    from tablecompanion.vision.settle import DicePickedUp

    cal = Calibration(geometry=BoardGeometry(), image_size=(1000, 1000), homography=np.eye(3), bottom_player="O")
    ref = Referee("1", TableSettings(players=("A", "B"), bottom_player="O"))
    ref.act({"action": "roll", "dice": [3, 1]})  # the opening roll: X (at the top) plays 3-1
    assert ref.state.game.awaiting == "play" and ref.state.game.turn == "X"

    def unreadable(image):
        raise RuntimeError("no board in this picture")

    watcher = StubWatcher([[], [DicePickedUp(1, 0.03)], [], []])
    pipe = CameraPipeline(ref, cal, watcher=watcher, board_reader=unreadable)
    frame = np.zeros((8, 8, 3), np.uint8)
    for _ in range(3):
        for obs in pipe.feed(frame):
            ref.observe(obs)
    assert ref.state.game.awaiting == "play"  # the play is still to be entered
    assert watcher.seen == [(False, "top"), (False, "top"), (False, "bottom")]
    ref.act({"action": "play", "play": "8/5 6/5"})  # a person enters it: O's turn on the record too
    pipe.feed(frame)
    assert watcher.seen[-1] == (False, "bottom") and ref.state.game.turn == "O"
