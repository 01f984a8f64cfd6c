"""Know when a roll has come to rest, and when the dice are picked up, from a stream of frames.

A cheap motion measure runs on every frame (a small blurred grey copy compared with the previous one).
Dice moving → still for ``still_frames`` frames → the dice are read once → one ``RollSettled``. A reader
that can read ahead (``prefetch``, the roll reader) starts that read on the first quiet frame, so its CPU
time overlaps the debounce; the decision still waits for ``still_frames`` quiet frames and takes the read
only when the view has not changed since. A live camera hands over only its newest frame, so the frames
that came during a slow read are gone: two quiet frames (``still_min_frames``) then decide once as long
as ``still_frames`` take has passed since the last motion, by the frames' times. The
still frame is also compared with the last quiet view of the table: when a large part of it differs
(a hand or an arm is over the board) the watcher waits instead of reading. When the dice of a settled
roll are gone, ``DicePickedUp``.

A reader that compares with the board before the throw (``use_reference``) is handed the last still view
before the motion; when that view still showed the last roll's dice (play, pick-up and throw with no still
moment between), it is first brought up to date with what has stood still since (``_caught_up_board``).

A reader that knows the board (``vision.roll_reader.RollReader``, or the camera's ``DiceLocator`` with it
behind) answers ``verdict_for(readings, roller, opening, expected)``; the watcher then takes its
placements and reason (a die resting on a checker, touching the rail...) instead of judging the
readings' centres itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Literal, Sequence

import cv2
import numpy as np

from tablecompanion.geometry import BoardGeometry, Player
from tablecompanion.vision.dice import DiceConfig, DiceReading, DiceVisionError, check_frame, read_dice
from tablecompanion.vision.placement import Placement, place_dice, place_opening_roll
from tablecompanion.vision.row_light import RowLight

FPS = 30.0  # the camera's rate that frame counts assume, and frames without a time are given

Verdict = Literal["valid", "void"]


@dataclass(frozen=True)
class SettleConfig:
    """Thresholds of the motion detector and the debounce (frame counts are at the camera's rate)."""

    motion_width: int = 160  # width of the grey copy used for motion
    motion_blur: int = 5
    pixel_threshold: int = 18  # grey-level change that counts as motion
    moving_fraction: float = 0.0015  # fraction of pixels changed: something moves
    still_frames: int = 4  # consecutive quiet frames before deciding (4 at 30 fps = 133 ms)
    # ... or this many, once as long as ``still_frames`` take at 30 fps has passed since the last motion by
    # the frames' times: a live camera hands over only its newest frame, so after a slow read the frames in
    # between are gone and counting frames alone made the call wait for frames yet to come
    still_min_frames: int = 2
    # a reader that can read ahead (``prefetch``) is given the frame after this many quiet frames: the read
    # runs while the debounce goes on, and the decision reuses it when nothing moved since (0 = off)
    read_ahead: int = 1
    occlusion_fraction: float = 0.06  # changed area vs. the quiet table that means a hand is in view
    expected_dice: int = 2
    # a die that moved less than this (fraction of its size) is the same die as before
    same_die_tolerance: float = 0.5
    # when the board before the motion still showed the last roll's dice (play, pick-up and throw ran
    # together with no still moment between), what has since changed and then stood still this many frames,
    # in pieces of at least ``stale_min_faces`` die faces (moved checkers, an arm gone; not a die), is no
    # part of this throw
    stale_still_frames: int = 20
    stale_min_faces: float = 3.0
    # the board made so is kept while nothing larger than dice moves (so the read ahead and the decision
    # read against the same board); motion over this fraction of the picture (a hand) makes it anew
    stale_refresh_fraction: float = 0.01
    # while dice roll after such a play, the board it left is looked for on every this many frames (made as
    # it will be at the read-ahead, and handed to the reader to find its checkers ahead) ...
    learn_every: int = 3
    # ... once no covered piece of its moved pieces is larger than this many die faces (a die coming to rest
    # against a moved checker covers its rim where they touch, filled from around it; a hand covers more)
    learn_hole_faces: float = 1.5
    # ... and handed over again when it has changed by more than this many die faces since (half a checker:
    # a checker put down still for ``stale_still_frames`` only now; under lamp flicker a board's pieces come
    # still a few pixels at a time, and handing over each step searched checkers on frames the board
    # watcher read the board on)
    learn_again_faces: float = 3.0
    # ... on a frame with at most this fraction of the picture moving (dice coming to rest: the board the
    # read-ahead will see; over the roll the looks found a board a step further on every few frames)
    learn_again_motion: float = 0.001


@dataclass(frozen=True)
class RollSettled:
    dice: tuple[DiceReading, ...]
    placements: tuple[Placement, ...]
    verdict: Verdict
    reason: str
    frame_index: int
    time: float
    opening: bool = False
    # a void roll that is unclear only for what a die touches: the values read, for a person to take if
    # they see the die lie flat (None otherwise; ``RollReader.proposal_for``)
    proposal: tuple[int, ...] | None = None

    @property
    def values(self) -> tuple[int | None, ...]:
        return tuple(d.value for d in self.dice)


@dataclass(frozen=True)
class DicePickedUp:
    frame_index: int
    time: float


@dataclass(frozen=True)
class Occluded:
    """Something large (a hand) is over the board; nothing is read until it goes."""

    frame_index: int
    time: float


Event = RollSettled | DicePickedUp | Occluded


def judge_roll(
    readings: Sequence[DiceReading],
    placements: Sequence[Placement],
    expected: int = 2,
) -> tuple[Verdict, str]:
    """Valid only when exactly ``expected`` dice lie flat, each read, each in the right place.

    Unknown placement (no calibration) is accepted; the first problem found is the reason for a void.
    """
    if len(readings) < expected:
        return "void", f"only {len(readings)} of {expected} dice seen (off the board or hidden?)"
    if len(readings) > expected:
        return "void", f"{len(readings)} dice seen, expected {expected}"
    for i, (r, p) in enumerate(zip(readings, placements), start=1):
        if r.status == "cocked":
            return "void", f"die {i} cocked"
        if r.status != "flat" or r.value is None:
            return "void", f"die {i} unclear: re-roll"
        if p not in ("ok", "unknown"):
            return "void", f"die {i} {p}"
    return "valid", "-".join(str(r.value) for r in sorted(readings, key=lambda r: -(r.value or 0)))


@dataclass
class RollWatcher:
    """Feed frames in order; get events. One instance per camera."""

    config: SettleConfig = field(default_factory=SettleConfig)
    dice_config: DiceConfig | None = None
    board_from_image: np.ndarray | None = None
    geometry: BoardGeometry | None = None
    roller_side: Player = "bottom"
    opening: bool = False  # the next roll is the opening roll (one die in each half)
    reader: Callable[..., list[DiceReading]] = read_dice

    def __post_init__(self) -> None:
        self._prev: np.ndarray | None = None
        self._row_light: RowLight | None = None
        self._quiet: np.ndarray | None = None  # the last quiet view of the table
        self._still = 0
        self._rest_frames: list[np.ndarray] = []  # the quiet frames since the last motion (at most still_frames)
        self._motion_t: float | None = None  # the time of the last frame with motion
        self._quiet_t: float | None = None  # ... and of the last quiet one
        self._moved = False  # motion since the last decision
        self._ahead_read = False  # the reader read ahead during this debounce
        self._settled: tuple[DiceReading, ...] | None = None
        self._occluded = False
        self.last_motion = 0.0
        self._quiet_frame: np.ndarray | None = None  # the latest frame after still_frames quiet ones
        self._quiet_small: np.ndarray | None = None  # ... its motion copy
        self._quiet_down = False  # ... taken while the last roll's dice lay on the board
        self.before_motion: np.ndarray | None = None  # the still board just before the latest motion
        self._before_small: np.ndarray | None = None
        self._before_down = False
        self._last_change: np.ndarray | None = None  # per motion pixel: the index of the last frame it moved
        self._settled_view: np.ndarray | None = None  # per motion pixel: its latest value held stale_still_frames
        self._small_now: np.ndarray | None = None
        self._index_now = 0
        self._caught_up: np.ndarray | None = None  # that board, made once after each hand's motion
        self._caught_up_view: np.ndarray | None = None  # the last one made, in the motion copy's pixels
        self._learned: np.ndarray | None = None  # ... and the last handed to the reader while the dice rolled
        self._learn_wait = 0  # frames until the next look for that board
        self.frames_seen = 0
        self.bad_frames = 0

    @property
    def deciding(self) -> bool:
        """Something has moved since the last decision: a throw may be in the air or coming to rest, and
        the next quiet frames read it ahead and decide (callers keep other reads out of their way)."""
        return self._moved

    @property
    def coming_to_rest(self) -> bool:
        """The latest frame was quiet after motion, and no decision has come yet: dice may be at rest and
        are being read ahead and debounced (the time-critical frames of a throw)."""
        return self._moved and self._still > 0

    def dice_gone(self) -> None:
        """The last roll's dice were seen picked up by someone else (the camera pipeline's locator, which
        looks at their places on every quiet frame, or the operator moving the table on): the next dice
        seen are a new roll, and the board before this motion, taken while they lay, is out of date."""
        self._settled = None

    def _give_reference(self, frame: np.ndarray | None = None) -> None:
        """A board-aware reader (``use_reference``) compares with the board before the throw: hand it over.
        ``frame``: the dice may be at rest in it; when the board before the motion is older than the last
        pick-up, what has stood still since is taken from it (:meth:`_caught_up_board`)."""
        use_reference = getattr(self.reader, "use_reference", None)
        if not callable(use_reference) or self.before_motion is None:
            return
        board = self.before_motion
        if frame is not None and self._before_down and self._settled is None:
            board = self._caught_up_board(frame)
        use_reference(board)

    def _caught_up_board(self, frame: np.ndarray) -> np.ndarray:
        """The board before the throw when the watcher saw no still moment after the last play: the still
        board before the motion (which still shows the last dice, and the checkers before the play), with the
        pieces of it that have changed since and then stood still for ``stale_still_frames`` frames, each
        covering ``stale_min_faces`` die faces, taken from ``frame`` where it still shows them. Those are the
        checkers the play moved, an arm that has gone; the dice of this throw came to rest a few frames ago
        and are left out, and so is a lone die (too small). Without it the roll reader takes the moved
        checkers for a hand over the board and reads no dice."""
        if self._caught_up is not None:
            return self._caught_up
        board, state = self._catch_up(frame)
        if state != "unknown":
            self._caught_up = board
        return board

    def _catch_up(self, frame: np.ndarray, max_hole: float | None = None,
                  unless: np.ndarray | None = None) -> tuple[np.ndarray, str]:
        """The board :meth:`_caught_up_board` makes of ``frame``, and how: "unknown" (no motion copies or
        calibration: the board before the motion as it was), "unchanged" (no piece has changed and stood
        still since), "whole" (every such piece taken from ``frame``) or "filled" (part of one was covered in
        ``frame``, by a die or a hand, and filled from around it). ``max_hole``: with a covered piece of more
        than this many die faces the board is not made ("covered": the board before the motion is returned).
        ``self._caught_up_view`` keeps the board in the motion copy's pixels (its holes left as the board
        before the motion), and with ``unless`` the board is not made when that view shows what ``unless``
        does, up to ``learn_again_faces`` die faces and the light ("known")."""
        board = self.before_motion
        small, before, settled = self._small_now, self._before_small, self._settled_view
        die = self._die_px(frame)
        if small is None or before is None or settled is None or die is None or before.shape != small.shape \
                or frame.shape != board.shape:
            return board, "unknown"
        face = (die * (small.shape[1] / frame.shape[1])) ** 2  # a die face in motion-copy pixels
        threshold = self.config.pixel_threshold
        moved = (cv2.absdiff(settled, self._row_light.match(before, settled)) > threshold).astype(np.uint8)
        # a checker as grey as the point under it changes only at its rim: the piece is the rim filled
        outlines, _ = cv2.findContours(moved, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(moved, outlines, -1, 1, cv2.FILLED)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(moved, connectivity=8)
        min_px = self.config.stale_min_faces * face
        big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= min_px]
        if not big:
            return board, "unchanged"
        square = np.ones((3, 3), np.uint8)
        is_big = np.zeros(n, np.uint8)
        is_big[big] = 1
        pieces = cv2.dilate(is_big[labels], square)  # a moved checker's blurred rim (a table lookup: np.isin sorts)
        # what lies there now and has not stood still long (a die of this throw where a checker left) is no
        # part of the board before the throw, and neither is what the old board showed there (the checker):
        # that hole is filled from around it. Where the frame shows what the old board showed, nothing lies
        # there (an arm that rested there still long and has gone since): the frame is the board
        new = (cv2.absdiff(small, settled) > threshold).astype(np.uint8)
        new &= (cv2.absdiff(small, self._row_light.match(before, small)) > threshold).astype(np.uint8)
        new = cv2.dilate(new, square)
        covered = pieces & new
        if max_hole is not None and covered.any():
            _, _, holes, _ = cv2.connectedComponentsWithStats(covered, connectivity=8)
            if holes[1:, cv2.CC_STAT_AREA].max() > max_hole * face:
                return board, "covered"
        taken = pieces & (1 - new)  # from the frame
        view = before.copy()
        np.copyto(view, small, where=taken.astype(bool))
        self._caught_up_view = view
        if unless is not None and unless.shape == view.shape:
            differs = cv2.absdiff(view, self._row_light.match(unless, view)) > threshold
            if np.count_nonzero(differs) <= self.config.learn_again_faces * face:
                return board, "known"
        size = (frame.shape[1], frame.shape[0])
        keep = cv2.resize(taken, size, interpolation=cv2.INTER_NEAREST)
        out = board.copy()
        out = cv2.copyTo(frame, keep, out)  # np.copyto with a broadcast mask took 11 ms of a 1280x720 frame, this 1
        hole = cv2.resize(covered, size, interpolation=cv2.INTER_NEAREST)
        if hole.any():
            x, y, w, h = cv2.boundingRect(hole)
            x0, y0 = max(0, x - 8), max(0, y - 8)
            x1, y1 = min(size[0], x + w + 8), min(size[1], y + h + 8)
            out[y0:y1, x0:x1] = cv2.inpaint(out[y0:y1, x0:x1], hole[y0:y1, x0:x1], 3, cv2.INPAINT_TELEA)
            return out, "filled"
        return out, "whole"

    def _learn_ahead(self, frame: np.ndarray) -> None:
        """While the dice roll after a play that ran into the throw, the board that play left (caught up as
        :meth:`_caught_up_board` will make it at the read-ahead) is handed to a reader that finds checkers
        ahead (``learn_board``): the search (30-70 ms on a board the play changed) then falls on a frame in
        motion instead of the read-ahead. It is looked for on every ``learn_every``-th frame (4 ms a look)
        and handed over once its moved pieces are in view but for holes of at most ``learn_hole_faces`` die
        faces each (a die coming to rest against a moved checker covers its rim, as it will at the
        read-ahead; a hole that size cannot take a checker, 5.9 faces, out of the board). After that it is
        looked for only on frames with at most ``learn_again_motion`` of the picture moving (the dice coming
        to rest) and handed over again when it has changed by more than ``learn_again_faces`` die faces, in
        the frame's light (a checker still for ``stale_still_frames`` only now). The reader reuses what it
        found only for a reference that shows the same board (``RollReader._same_board``: at most a die face
        of change), so a board made too early, or with its hole elsewhere, costs a search at the read-ahead
        as before and nothing else."""
        learn = getattr(self.reader, "learn_board", None)
        if not self._before_down or not callable(learn):
            return
        self._learn_wait -= 1
        if self._learn_wait > 0:
            return
        self._learn_wait = self.config.learn_every
        if self._learned is not None and self.last_motion > self.config.learn_again_motion:
            return  # handed over once; again only as the dice come to rest
        board, state = self._catch_up(frame, max_hole=self.config.learn_hole_faces, unless=self._learned)
        if state in ("whole", "filled"):  # not "known": the board handed over already
            self._learned = self._caught_up_view
            learn(board)

    def _die_px(self, frame: np.ndarray) -> float | None:
        """A die's side in frame pixels at the middle of the playing surface (None without a calibration)."""
        if self.board_from_image is None or self.geometry is None:
            return None
        try:
            x0, y0, x1, y1 = self.geometry.surface
            die = float(self.geometry.spec.die_size)
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            image_from_board = np.linalg.inv(np.asarray(self.board_from_image, np.float64))
            pts = cv2.perspectiveTransform(np.array([[[cx, cy], [cx + die, cy]]], np.float64), image_from_board)[0]
        except (np.linalg.LinAlgError, cv2.error, AttributeError, TypeError, ValueError):
            return None
        side = float(np.hypot(*(pts[1] - pts[0])))
        return side if math.isfinite(side) and side > 0 else None

    # --- per-frame motion --------------------------------------------------------------------
    def _small(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        mw = min(self.config.motion_width, w)
        mh = max(1, round(h * mw / w))
        grey = cv2.cvtColor(cv2.resize(frame, (mw, mh), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        k = self.config.motion_blur | 1
        return cv2.GaussianBlur(grey, (k, k), 0) if k > 1 else grey

    def _changed_mask(self, small: np.ndarray, earlier: np.ndarray) -> np.ndarray:
        """Where ``small`` differs from an earlier view, its rows first brought to this frame's light: mains
        flicker rolls bands through a rolling shutter's rows from frame to frame (``row_light``), a lamp
        switched steps them all."""
        if self._row_light is None or self._row_light.shape != small.shape:
            self._row_light = RowLight.for_picture(*small.shape[:2])
        return cv2.absdiff(small, self._row_light.match(earlier, small)) > self.config.pixel_threshold

    def _change_since(self, small: np.ndarray, earlier: np.ndarray) -> float:
        """The fraction of the picture changed since an earlier view (see :meth:`_changed_mask`)."""
        return float(np.count_nonzero(self._changed_mask(small, earlier))) / small.size

    def feed(self, frame: np.ndarray, time: float | None = None, index: int | None = None) -> list[Event]:
        """One frame in; zero or more events out. A bad frame is counted and ignored."""
        idx = self.frames_seen if index is None else index
        self.frames_seen += 1
        t = idx / FPS if time is None else float(time)
        try:
            frame = check_frame(frame)
        except DiceVisionError:
            self.bad_frames += 1
            return []
        small = self._small(frame)
        self._small_now, self._index_now = small, idx
        if self._prev is None or self._prev.shape != small.shape:
            self._prev = small
            self._quiet = small
            self._last_change = np.full(small.shape, idx, np.int32)
            self._settled_view = small.copy()
            self._moved = True  # read the first quiet view once
            return []
        moving = self._changed_mask(small, self._prev)
        self._last_change[moving] = idx
        np.copyto(self._settled_view, small, where=self._last_change <= idx - self.config.stale_still_frames)
        motion = float(np.count_nonzero(moving)) / small.size
        self._prev = small
        self.last_motion = motion
        if motion > self.config.moving_fraction:
            if motion > self.config.stale_refresh_fraction:
                self._caught_up = None  # a hand or an arm moved since it was made: make it again when asked
                self._learned = None
                self._learn_wait = 0  # the first frame the hand has gone looks at once
            if self._rested(self._quiet_t) and self._quiet_frame is not None:
                self.before_motion = self._quiet_frame  # the board as it stood before this throw or hand
                self._before_small, self._before_down = self._quiet_small, self._quiet_down
                # a board-aware reader takes it in now, while the dice are in the air (cheap frames): finding
                # its checkers (30 ms on a board changed by the last play) then stays off the read-ahead
                self._give_reference()
            self._still = 0
            self._rest_frames = []
            self._motion_t = t
            self._moved = True
            self._ahead_read = False
            if motion <= self.config.stale_refresh_fraction:  # dice rolling, no hand: a frame to spare
                self._learn_ahead(frame)
            return []
        self._still += 1
        self._quiet_t = t
        if self._moved and callable(getattr(self.reader, "use_rest_frames", None)):
            # a rest that may end in a decision: the reader looks at all its frames (copies: a camera may
            # reuse its buffer; about 1 ms a frame at 1280x720, only on quiet frames after motion)
            self._rest_frames = (self._rest_frames + [frame.copy()])[-self.config.still_frames:]
        rested = self._rested(t)
        if rested:
            self._quiet_frame, self._quiet_small = frame, small
            self._quiet_down = self._settled is not None
        if not rested or not self._moved:
            if self._moved and self.config.read_ahead and self._still >= self.config.read_ahead \
                    and not self._ahead_read:
                self._read_ahead(frame)
            return []
        # quiet long enough after some motion: decide once
        events: list[Event] = []
        occlusion = self._change_since(small, self._quiet) if self._quiet is not None else 0.0
        if occlusion > self.config.occlusion_fraction and self._settled is not None:
            if not self._occluded:
                events.append(Occluded(idx, t))
            self._occluded = True
            return events
        self._give_reference(frame)
        rest = getattr(self.reader, "use_rest_frames", None)
        if callable(rest):
            rest(tuple(self._rest_frames))
        readings = tuple(self.reader(frame, self.dice_config))
        if occlusion > self.config.occlusion_fraction and not readings:
            # large change and no dice: most likely a hand at rest, wait for it to go
            if not self._occluded:
                events.append(Occluded(idx, t))
            self._occluded = True
            return events
        self._occluded = False
        self._moved = False
        self._quiet = small
        if not readings:
            if self._settled:
                events.append(DicePickedUp(idx, t))
            self._settled = None
            return events
        if self._settled is not None and self._same_dice(readings, self._settled):
            return events  # a hand passed over; the dice did not move
        self._settled = readings
        events.append(self._decide(readings, idx, t))
        return events

    def _rested(self, t: float | None) -> bool:
        """Quiet long enough to decide, as of the quiet frame at time ``t``: ``still_frames`` quiet frames in a
        row, or ``still_min_frames`` of them spanning as long since the last motion (frames were dropped)."""
        c = self.config
        if self._still >= c.still_frames:
            return True
        return t is not None and self._motion_t is not None and self._still >= c.still_min_frames and \
            t - self._motion_t >= c.still_frames / FPS - 1e-6

    def _read_ahead(self, frame: np.ndarray) -> None:
        """Start the read of a roll that may be at rest: a reader with ``prefetch`` (the roll reader) reads
        this frame now and answers the decision ``still_frames`` frames later from it, when the view has
        not changed since; the decision itself still waits for the whole debounce. A prefetch that answers
        False could not read yet (the last roll's dice not yet seen picked up: pick-up and throw ran
        together) and is asked again on the next quiet frame."""
        prefetch = getattr(self.reader, "prefetch", None)
        self._ahead_read = True
        if not callable(prefetch):
            return
        self._give_reference(frame)
        try:
            self._ahead_read = prefetch(frame) is not False
        except DiceVisionError:
            pass  # the decision reads the frame itself

    def _same_dice(self, a: Sequence[DiceReading], b: Sequence[DiceReading]) -> bool:
        if len(a) != len(b):
            return False
        left = list(b)
        for r in a:
            tol = self.config.same_die_tolerance * max(r.size, 4.0)
            near = [s for s in left if math.dist(s.centre, r.centre) <= tol and s.value == r.value]
            if not near:
                return False
            left.remove(near[0])
        return True

    def _decide(self, readings: tuple[DiceReading, ...], idx: int, t: float) -> RollSettled:
        judge = getattr(self.reader, "verdict_for", None)
        if callable(judge):  # a board-aware reader (vision.roll_reader) places and judges its own dice
            placements, verdict, reason = judge(readings, self.roller_side, self.opening, self.config.expected_dice)
            if self.opening and verdict == "valid" and readings[0].value == readings[1].value \
                    and "opening doubles" not in reason:
                reason += " (opening doubles: roll again)"
            propose = getattr(self.reader, "proposal_for", None)
            proposal = propose(readings, self.roller_side, self.opening, self.config.expected_dice) \
                if verdict != "valid" and callable(propose) else None
            return RollSettled(readings, tuple(placements), verdict, reason, idx, t, self.opening, proposal)
        if self.opening:
            placements = place_opening_roll(list(readings), self.board_from_image, self.geometry)
        else:
            placements = place_dice(readings, self.board_from_image, self.geometry, self.roller_side)
        verdict, reason = judge_roll(readings, placements, self.config.expected_dice)
        if self.opening and verdict == "valid" and readings[0].value == readings[1].value:
            reason += " (opening doubles: roll again)"
        return RollSettled(readings, tuple(placements), verdict, reason, idx, t, self.opening)
