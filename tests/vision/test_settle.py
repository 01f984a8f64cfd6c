"""Roll-settled detection on drawn frame sequences: one event per roll, hands are not rolls."""

from __future__ import annotations


import math

import cv2
import numpy as np

from tablecompanion.geometry import BoardGeometry
from tablecompanion.vision.dice import DiceConfig, DiceReading, read_dice
from tablecompanion.vision.dice_synth import DieSpec, draw_die, table
from tablecompanion.vision.settle import DicePickedUp, Occluded, RollSettled, RollWatcher, SettleConfig, judge_roll

# the watcher's logic is tested with the pip-counting reader (the network reader is the dice area's own)
PIPS = DiceConfig(model="pips")

FPS = 30.0
BG = table(seed=3)


def _frame(dice=(), hand=None):
    img = BG.copy()
    for d in dice:
        draw_die(img, d)
    if hand is not None:
        x, y = hand
        cv2.ellipse(img, (int(x), int(y)), (170, 110), 20, 0, 360, (120, 160, 215), -1)
    return img


def _roll_dice(values=(6, 3), steps=10, start=(200, 150), end=((700, 400), (800, 450)), size=44):
    """The dice of each frame of two dice tumbling from ``start`` to ``end``, then the resting frame's dice."""
    moving = []
    for k in range(steps):
        t = (k + 1) / steps
        moving.append([
            DieSpec(values[i], start[0] + (end[i][0] - start[0]) * t, start[1] + (end[i][1] - start[1]) * t,
                    size, 37 * k + 50 * i)
            for i in range(2)
        ])
    rest = [DieSpec(values[i], end[i][0], end[i][1], size, 37 * (steps - 1) + 50 * i) for i in range(2)]
    return moving, rest


def _roll(values=(6, 3), steps=10, start=(200, 150), end=((700, 400), (800, 450))):
    """Frames of two dice tumbling from ``start`` to ``end``, then the resting frame's dice."""
    moving, rest = _roll_dice(values, steps, start, end)
    return [_frame(dice) for dice in moving], rest


def _run(watcher, frames, start=0):
    events = []
    for i, f in enumerate(frames, start=start):
        events += watcher.feed(f, i / FPS, i)
    return events


def test_one_roll_event_soon_after_the_dice_stop():
    w = RollWatcher(dice_config=PIPS)
    moving, rest = _roll()
    frames = [_frame()] * 10 + moving + [_frame(rest)] * 20
    events = _run(w, frames)
    rolls = [e for e in events if isinstance(e, RollSettled)]
    assert len(rolls) == 1
    roll = rolls[0]
    assert sorted(roll.values) == [3, 6] and roll.verdict == "valid" and roll.reason == "6-3"
    last_moving = 10 + len(moving) - 1
    latency = roll.time - last_moving / FPS
    assert 0 < latency <= 0.25


def test_a_live_camera_that_dropped_frames_is_called_on_the_time_the_dice_stood_still():
    """A live camera hands over only its newest frame: after a slow read the frames in between are gone.
    Counting four quiet frames then waited for frames yet to come (on the demo footage 40 ms more at the
    median); two quiet frames spanning as long since the last motion call the roll at once. One quiet
    frame is never enough, however long since the motion."""
    moving, rest = _roll()
    frames = [_frame()] * 10 + moving
    last_moving = len(frames) - 1
    still = _frame(rest)

    def called_at(quiet_frames: list[int]) -> int | None:
        w = RollWatcher(dice_config=PIPS)
        _run(w, frames)
        for i in quiet_frames:  # frame numbers of the quiet frames the camera handed over
            if any(isinstance(e, RollSettled) for e in w.feed(still, i / FPS, i)):
                return i
        return None

    # every frame: the fourth quiet one, as before
    assert called_at(list(range(last_moving + 1, last_moving + 10))) == last_moving + 4
    # the frames after the first quiet one were dropped while it was read: the next one handed over calls it
    assert called_at([last_moving + 1, last_moving + 7, last_moving + 8]) == last_moving + 7
    # two quiet frames, but too soon after the motion: the debounce goes on by the frames' times
    assert called_at([last_moving + 1, last_moving + 2, last_moving + 3, last_moving + 4]) == last_moving + 4
    # one quiet frame long after the motion is not enough alone
    assert called_at([last_moving + 9, last_moving + 10]) == last_moving + 10


def test_hand_over_the_dice_is_occlusion_and_picking_up_is_an_event():
    w = RollWatcher(dice_config=PIPS)
    moving, rest = _roll((5, 2))
    frames = [_frame()] * 8 + moving + [_frame(rest)] * 10
    # a hand comes in over the dice, rests there, and goes away without touching them
    frames += [_frame(rest, hand=(300 + 60 * k, 300)) for k in range(8)]
    frames += [_frame(rest, hand=(750, 420))] * 12
    frames += [_frame(rest, hand=(750 + 90 * k, 420 - 40 * k)) for k in range(8)]
    frames += [_frame(rest)] * 10
    n_before_pickup = len(frames)
    frames += [_frame()] * 10
    events = _run(w, frames)
    rolls = [e for e in events if isinstance(e, RollSettled)]
    assert len(rolls) == 1 and sorted(rolls[0].values) == [2, 5]
    assert any(isinstance(e, Occluded) for e in events)
    picked = [e for e in events if isinstance(e, DicePickedUp)]
    assert len(picked) == 1 and picked[0].frame_index >= n_before_pickup


def test_second_roll_after_pickup_is_a_new_event():
    w = RollWatcher(dice_config=PIPS)
    m1, r1 = _roll((4, 4))
    m2, r2 = _roll((1, 2), end=((500, 300), (900, 500)))
    frames = [_frame()] * 5 + m1 + [_frame(r1)] * 8 + [_frame()] * 8 + m2 + [_frame(r2)] * 8
    events = _run(w, frames)
    kinds = [type(e).__name__ for e in events if not isinstance(e, Occluded)]
    assert kinds == ["RollSettled", "DicePickedUp", "RollSettled"]
    assert sorted(events[-1].values) == [1, 2]


def test_placement_voids_a_die_in_the_wrong_half():
    geo = BoardGeometry()
    # map the whole 1280x720 frame onto the board: x mm = x px * width / 1280
    sx, sy = geo.spec.width / 1280, geo.spec.height / 720
    h = np.diag([sx, sy, 1.0])
    w = RollWatcher(board_from_image=h, geometry=geo, roller_side="bottom", dice_config=PIPS)
    x_right = (geo.half("right")[0] + 80) / sx
    x_left = (geo.half("left")[0] + 80) / sx
    moving, rest = _roll((6, 5), end=((x_right, 300), (x_left, 400)))
    events = _run(w, [_frame()] * 5 + moving + [_frame(rest)] * 8)
    (roll,) = [e for e in events if isinstance(e, RollSettled)]
    assert roll.verdict == "void" and "wrong half" in roll.reason


def test_bad_frames_are_ignored():
    w = RollWatcher(dice_config=PIPS)
    assert w.feed(None) == [] and w.feed(np.zeros((0, 0, 3), np.uint8)) == []
    assert w.bad_frames == 2


def _r(value, status="flat"):
    return DiceReading(value if status == "flat" else None, (0.0, 0.0), (), 0.9, status, 10.0)


def test_judge_roll_reasons():
    assert judge_roll([_r(6), _r(3)], ["ok", "ok"]) == ("valid", "6-3")
    assert judge_roll([_r(6), _r(3)], ["unknown", "unknown"])[0] == "valid"
    assert judge_roll([_r(6), _r(3, "cocked")], ["ok", "ok"]) == ("void", "die 2 cocked")
    assert judge_roll([_r(6), _r(3, "unclear")], ["ok", "ok"])[1].startswith("die 2 unclear")
    assert judge_roll([_r(6), _r(3)], ["ok", "across the bar"]) == ("void", "die 2 across the bar")
    assert judge_roll([_r(6)], ["ok"])[0] == "void"
    assert judge_roll([_r(6), _r(3), _r(1)], ["ok"] * 3)[0] == "void"


def test_debounce_is_configurable():
    w = RollWatcher(config=SettleConfig(still_frames=8), dice_config=PIPS)
    moving, rest = _roll()
    frames = [_frame()] * 5 + moving + [_frame(rest)] * 20
    (roll,) = [e for e in _run(w, frames) if isinstance(e, RollSettled)]
    assert roll.frame_index == 5 + len(moving) - 1 + 8


class _AheadReader:
    """A reader that can read ahead: records which frames it was given (by their index in the footage)."""

    def __init__(self, frames):
        self.index = {id(f): i for i, f in enumerate(frames)}
        self.ahead, self.read, self.references = [], [], []

    def prefetch(self, frame):
        self.ahead.append(self.index[id(frame)])

    def use_reference(self, frame):
        self.references.append(self.index[id(frame)])

    def __call__(self, frame, config=None):
        self.read.append(self.index[id(frame)])
        return read_dice(frame, PIPS)


def _footage():
    moving, rest = _roll()
    return [_frame() for _ in range(6)] + moving + [_frame(rest) for _ in range(12)], 6 + len(moving) - 1


def test_the_read_ahead_starts_on_the_first_quiet_frame_and_the_decision_waits_the_debounce():
    frames, last_moving = _footage()
    plain = RollWatcher(config=SettleConfig(read_ahead=0), dice_config=PIPS)
    (expected,) = [e for e in _run(plain, frames) if isinstance(e, RollSettled)]
    reader = _AheadReader(frames)
    w = RollWatcher(dice_config=PIPS, reader=reader)
    (roll,) = [e for e in _run(w, frames) if isinstance(e, RollSettled)]
    assert (roll.frame_index, roll.values, roll.verdict) == (expected.frame_index, expected.values, expected.verdict)
    assert roll.frame_index == last_moving + w.config.still_frames
    assert last_moving + 1 in reader.ahead and roll.frame_index in reader.read
    # the reference the read-ahead used is the board before the throw, as at the decision
    assert reader.references and max(reader.references) < 6
    off = _AheadReader(frames)
    _run(RollWatcher(config=SettleConfig(read_ahead=0), dice_config=PIPS, reader=off), frames)
    assert off.ahead == []


class _RestReader(_AheadReader):
    """Also records the still frames it is handed before each decision (compared by their pixels: the
    watcher keeps copies, since a camera may reuse its buffer)."""

    def __init__(self, frames):
        super().__init__(frames)
        self.frames, self.rests = frames, []

    def use_rest_frames(self, rest):
        self.rests.append([next(i for i, f in enumerate(self.frames) if f.shape == r.shape and np.array_equal(f, r))
                           for r in rest])


def test_the_decision_hands_the_reader_the_still_frames_of_the_rest_it_decides_on():
    frames, last_moving = _footage()
    reader = _RestReader(frames)
    w = RollWatcher(dice_config=PIPS, reader=reader)
    (roll,) = [e for e in _run(w, frames) if isinstance(e, RollSettled)]
    rest = reader.rests[-1]  # the dice's still frames are alike (and like the last moving one, which ends
    assert len(rest) == w.config.still_frames  # where they lie): each is found as the first of them
    assert all(i >= last_moving for i in rest)  # no frame of the dice on their way


class _NotYetReader(_AheadReader):
    """Cannot read ahead before frame ``ready`` (the last roll's dice not yet seen picked up)."""

    def __init__(self, frames, ready):
        super().__init__(frames)
        self.ready = ready

    def prefetch(self, frame):
        super().prefetch(frame)
        return self.ahead[-1] >= self.ready


def test_a_read_ahead_that_could_not_read_is_asked_again_on_the_next_quiet_frame_only():
    frames, last_moving = _footage()
    reader = _NotYetReader(frames, ready=last_moving + 2)
    w = RollWatcher(dice_config=PIPS, reader=reader)
    (roll,) = [e for e in _run(w, frames) if isinstance(e, RollSettled)]
    assert roll.frame_index == last_moving + w.config.still_frames
    # refused on the first quiet frame, read on the second, not asked again before the decision
    assert [i for i in reader.ahead if i > last_moving] == [last_moving + 1, last_moving + 2]


def test_dice_that_move_after_the_read_ahead_are_read_on_the_decision_frame(monkeypatch):
    """The read-ahead is only a head start: a die that rolls on after it is read where it comes to rest."""
    from dataclasses import replace

    from tablecompanion.calibration import calibrate_from_markers
    from tablecompanion.rules.position import Position
    from tablecompanion.sim import Camera, Die, Scene
    from tablecompanion.sim.render import renderer_for
    from tablecompanion.vision.roll_eval import checker_centres
    from tablecompanion.vision.roll_reader import RollReader

    base = Scene.from_position(Position.initial(), dice=())
    r = renderer_for(Camera.preset("default"), base)
    empty, _ = r.render(base, seed=1)
    air = [r.render(replace(base, dice=(Die(5, pose_seed=80 + k), Die(2, pose_seed=90 + k))), seed=2 + k)[0]
           for k in range(2)]
    paused, _ = r.render(replace(base, dice=(Die(5, pose_seed=81), Die(2, pose_seed=82))), seed=5)
    rest, truth = r.render(replace(base, dice=(Die(4, pose_seed=83), Die(2, pose_seed=82))), seed=6)
    reader = RollReader(calibrate_from_markers(empty))
    reader.set_reference(empty, checker_centres(base))
    reads: list = []
    real = reader._read
    monkeypatch.setattr(reader, "_read", lambda frame, *a, **k: reads.append(frame) or real(frame, *a, **k))
    w = RollWatcher(config=SettleConfig(motion_width=640, moving_fraction=0.0001), reader=reader)
    frames = [empty] * 6 + air + [paused] * 2 + [rest] * 6
    (roll,) = [e for e in _run(w, frames) if isinstance(e, RollSettled)]
    assert roll.frame_index == 6 + len(air) + 2 + w.config.still_frames  # the first frame at rest moved
    assert sorted(roll.values) == sorted(d["top_value"] for d in truth["dice"]) == [2, 4]
    # (the first quiet frames of the empty board were read ahead too: nothing there)
    assert [id(f) for f in reads if f is not empty] == [id(paused), id(rest)]  # the decision reused the last


class _ReferenceReader:
    """Reads with the pip counter and keeps each board handed over as the board before the throw."""

    def __init__(self):
        self.references = []

    def use_reference(self, frame):
        self.references.append(frame)

    def __call__(self, frame, config=None):
        return read_dice(frame, PIPS)


def _checker(img, centre):
    cv2.circle(img, centre, 52, (40, 40, 150), -1)
    cv2.circle(img, centre, 52, (20, 20, 90), 3)
    return img


def _play_pickup_and_throw_with_no_still_moment(w, second_roll_end=((760, 430), (900, 480)),
                                                second_roll_start=None, die_px=44):
    """A roll, then a play (a checker from A to B), the pick-up and the next throw with a hand moving all
    the while: the watcher's board before the motion is the board before the play, with the old dice.
    ``second_roll_start``: where the next throw's dice come from (drawn over the checkers, ``die_px`` across;
    by default from the far corner, drawn under them)."""
    a, b = (300, 560), (560, 560)
    hand_path = [(1100 - 35 * k, 120 + 25 * (k % 3)) for k in range(40)]  # never still, never over A or B
    m1, r1 = _roll((4, 4), end=((700, 250), (820, 300)))
    if second_roll_start is None:
        m2, r2 = _roll((5, 1), end=second_roll_end)
        m2 = [_checker(f, b) for f in m2]
    else:
        dice, r2 = _roll_dice((5, 1), start=second_roll_start, end=second_roll_end, size=die_px)
        m2 = []
        for ds in dice:
            m2.append(_checker(_frame(), b))
            for d in ds:
                draw_die(m2[-1], d)
    frames = [_checker(_frame(), a)] * 8 + [_checker(f, a) for f in m1] + [_checker(_frame(r1), a)] * 10
    picked_up = len(frames) + 12
    for k, hand in enumerate(hand_path[:30]):
        board = _checker(_frame(r1 if len(frames) < picked_up else (), hand), a if k < 4 else b)
        if k < 4:
            cv2.ellipse(board, (a[0] + 40 * k, a[1] - 60), (150, 90), 20, 0, 360, (120, 160, 215), -1)
        frames.append(board)
    frames += m2 + [_checker(_frame(r2), b)] * 10
    events = []
    for i, f in enumerate(frames):
        events += w.feed(f, i / FPS, i)
        if i == picked_up:
            w.dice_gone()  # the camera pipeline's locator saw the dice's places empty
    return events, a, b, r2


def test_a_throw_right_after_a_play_is_compared_with_the_board_after_the_play():
    geo = BoardGeometry()
    h = np.diag([geo.spec.width / 1280, geo.spec.height / 720, 1.0])
    reader = _ReferenceReader()
    w = RollWatcher(board_from_image=h, geometry=geo, reader=reader, dice_config=PIPS,
                    config=SettleConfig(motion_width=640, moving_fraction=0.0001))
    events, a, b, r2 = _play_pickup_and_throw_with_no_still_moment(w)
    rolls = [e for e in events if isinstance(e, RollSettled)]
    assert [sorted(r.values) for r in rolls] == [[4, 4], [1, 5]]
    board = reader.references[-1]
    empty, checker = _frame(), _checker(_frame(), (0, 0))[0, 0]

    def looks_like(px, colour):
        return float(np.abs(board[px[1], px[0]].astype(int) - colour.astype(int)).sum()) < 40

    # the moved checker stands where the play put it, and not where it was
    assert looks_like(b, checker) and looks_like(a, empty[a[1], a[0]])
    # the dice of this throw are no part of it
    for d in r2:
        x, y = int(d.x), int(d.y)
        assert looks_like((x, y), empty[y, x])


def test_without_the_catch_up_the_board_before_the_throw_is_the_board_before_the_play():
    """The same footage with the catch-up off (a piece would have to cover a thousand die faces): the
    reference shows the checker before the play, which the test above would catch."""
    geo = BoardGeometry()
    h = np.diag([geo.spec.width / 1280, geo.spec.height / 720, 1.0])
    reader = _ReferenceReader()
    w = RollWatcher(board_from_image=h, geometry=geo, reader=reader, dice_config=PIPS,
                    config=SettleConfig(motion_width=640, moving_fraction=0.0001, stale_min_faces=1000.0))
    _, a, b, _ = _play_pickup_and_throw_with_no_still_moment(w)
    board = reader.references[-1]
    checker = _checker(_frame(), (0, 0))[0, 0]
    assert float(np.abs(board[a[1], a[0]].astype(int) - checker.astype(int)).sum()) < 40


def test_a_die_that_lands_where_the_play_took_a_checker_from_has_the_table_round_it():
    """The new die lies where the moved checker stood: neither the old board (the checker) nor the frame (the
    die) is the board before the throw there. The hole is filled from around it, so the reference round the
    die shows the table, not a ring of checker that would read as a tilted die's body."""
    geo = BoardGeometry()
    h = np.diag([geo.spec.width / 1280, geo.spec.height / 720, 1.0])
    reader = _ReferenceReader()
    w = RollWatcher(board_from_image=h, geometry=geo, reader=reader, dice_config=PIPS,
                    config=SettleConfig(motion_width=640, moving_fraction=0.0001))
    events, a, b, r2 = _play_pickup_and_throw_with_no_still_moment(w, ((300, 560), (900, 480)))
    rolls = [e for e in events if isinstance(e, RollSettled)]
    assert [sorted(r.values) for r in rolls] == [[4, 4], [1, 5]]
    board, empty = reader.references[-1], _frame()
    # the checker's place less the die (and a margin): it shows the table
    die = (np.abs(_frame(r2).astype(int) - empty).sum(axis=2) > 60).astype(np.uint8)
    die = cv2.dilate(die, np.ones((5, 5), np.uint8)).astype(bool)
    yy, xx = np.mgrid[:empty.shape[0], :empty.shape[1]]
    place = ((xx - a[0]) ** 2 + (yy - a[1]) ** 2 <= 48 ** 2) & ~die
    checker_left = np.abs(board.astype(int) - empty).sum(axis=2) > 60
    assert place.sum() > 3000 and int((place & checker_left).sum()) < 20


class _LearningReader(_ReferenceReader):
    """Also takes the boards a watcher hands over while the dice roll (``learn_board``), with the frame count
    of the references at that moment."""

    def __init__(self):
        super().__init__()
        self.learned = []

    def learn_board(self, board):
        self.learned.append((len(self.references), board.copy()))


def _learning_watcher(**config):
    geo = BoardGeometry()
    h = np.diag([geo.spec.width / 1280, geo.spec.height / 720, 1.0])
    reader = _LearningReader()
    w = RollWatcher(board_from_image=h, geometry=geo, reader=reader, dice_config=PIPS,
                    config=SettleConfig(motion_width=640, moving_fraction=0.0001, **config))
    return w, reader


def test_a_die_coming_to_rest_against_a_moved_checker_lets_the_board_be_learned_while_it_rolls():
    """The second throw's die comes to rest against the checker the play put down: the board before the throw
    has that checker's rim where they touch filled from around it, at the read-ahead as on the last rolling
    frames. Such a board, with at most ``learn_hole_faces`` die faces covered, is handed to the reader while
    the dice roll, and it is the board the read-ahead hands over (so its checkers are found ahead)."""
    w, reader = _learning_watcher()
    events, a, b, r2 = _play_pickup_and_throw_with_no_still_moment(w, ((636, 560), (900, 480)))
    assert [sorted(r.values) for r in events if isinstance(r, RollSettled)] == [[4, 4], [1, 5]]
    assert reader.learned, "no board handed over while the second throw rolled"
    before_roll, learned = reader.learned[-1]
    reference = reader.references[before_roll]  # the first board handed over after it: the read-ahead's
    assert reference is not learned
    dice = np.zeros(learned.shape[:2], np.uint8)
    for d in r2:
        cv2.circle(dice, (int(d.x), int(d.y)), 40, 1, -1)
    differs = (np.abs(learned.astype(int) - reference).sum(axis=2) > 60) & (dice == 0)
    die_face = (16.0 * 1280 / BoardGeometry().spec.width) ** 2
    assert int(differs.sum()) < die_face
    checker, empty = _checker(_frame(), (0, 0))[0, 0], _frame()
    assert np.abs(learned[b[1], b[0]].astype(int) - checker).sum() < 40  # the moved checker where it went
    assert np.abs(learned[a[1], a[0]].astype(int) - empty[a[1], a[0]]).sum() < 40  # and gone from where it was


def test_a_die_rolling_over_a_moved_checker_leaves_the_checker_whole_in_a_board_made_then():
    """The second throw's dice (the calibration's size, 26 px) roll right across the checker the play put
    down, looked for on every frame (and handed over again at any motion). A board made while one lies
    within that checker has the die's place filled from around it, which is the checker, so the checker
    stands whole in it; made here with room for 3 die faces, since drawn with its shadow and grown by the
    masks' margin this die covers 2-3. At the default ``learn_hole_faces`` (1.5, a die against a checker's
    rim) no board is made on those frames, nor with no hole allowed; every board handed over shows the
    checker whole."""
    w, reader = _learning_watcher(learn_every=1, learn_again_motion=1.0)
    made = []
    catch_up = w._catch_up

    def recorded(frame, max_hole=None, unless=None):
        board, state = catch_up(frame, max_hole, unless)
        made.append((w._index_now, *catch_up(frame, 3.0), catch_up(frame, 0.0)[1], max_hole, state))
        return board, state

    w._catch_up = recorded
    # the pip counter reads no dice so small: no call is made for this throw, and none is needed
    _play_pickup_and_throw_with_no_still_moment(w, ((636, 560), (900, 480)), (408, 560), die_px=26)
    b = (560, 560)
    # the last 10 rolling frames and 10 at rest end the footage; a die 26 px across lies within the checker
    # (52 px round its centre) when its centre is under 34 px from the checker's
    first = w.frames_seen - 20
    over = {first + k for k in range(10) if math.dist((408 + 228 * (k + 1) / 10, 560), b) < 34}
    assert len(over) >= 2, "the footage's die never lies over the moved checker"
    checker = _checker(_frame(), (0, 0))[0, 0].astype(int)
    yy, xx = np.mgrid[:720, :1280]
    disc = (xx - b[0]) ** 2 + (yy - b[1]) ** 2 <= 45 ** 2

    def whole(board):
        return (np.abs(board[disc].astype(int) - checker).sum(axis=1) < 60).mean() > 0.95

    on_die = [m for m in made if m[0] in over]
    assert len(on_die) >= 2 and all(state == "filled" and whole(board) for _, board, state, *_ in on_die)
    assert all(strict == "covered" for _, _, _, strict, _, _ in on_die)
    looks = [state for _, _, _, _, limit, state in on_die if limit == w.config.learn_hole_faces]
    assert len(looks) >= 2 and set(looks) == {"covered"}
    assert reader.learned and all(whole(board) for _, board in reader.learned)


def test_where_an_arm_rested_and_has_gone_the_caught_up_board_is_the_frame():
    """An arm rested over a checker long enough to stand in the watcher's settled view, and has gone: the
    frame there shows the board as it was before the motion, so the board before the throw takes it from the
    frame. Counted as covered (changed lately, unlike the settled view), it was filled from around, and a
    stretch of 19 die faces went so in the void-throw footage, the checker under it with it."""
    geo = BoardGeometry()
    h = np.diag([geo.spec.width / 1280, geo.spec.height / 720, 1.0])
    w = RollWatcher(board_from_image=h, geometry=geo, reader=_ReferenceReader(), dice_config=PIPS,
                    config=SettleConfig(motion_width=640, moving_fraction=0.0001))
    c = (560, 400)
    board = _checker(_frame(), c)
    arm = board.copy()
    cv2.ellipse(arm, c, (170, 110), 20, 0, 360, (120, 160, 215), -1)
    w.feed(board, 0.0, 0)  # the motion copies ...
    w.feed(board, 1 / FPS, 1)  # ... and their light matching
    w.before_motion, w._before_small = board, w._small(board)
    w._settled_view, w._small_now = w._small(arm), w._small(board)
    caught_up, state = w._catch_up(board)
    assert state == "whole"
    assert np.abs(caught_up[c[1], c[0]].astype(int) - board[c[1], c[0]]).sum() < 20  # the checker stands
