"""Waiting for a clear board: hands and arms over it are occlusion, and nothing is decided through them.

A ``BoardWatcher`` is fed camera frames and emits a board reading only when the board has been clear and
still for a while (debounced), and the reading has stayed the same over those frames:

* motion: a small grey top-down view is compared with the previous frame's; a hand moving, a checker
  being carried, dice rolling all change it;
* an arm: people reach over the board from their own edge, so a change since the last clear board
  over the frame band around the playing surface that runs in from the board's outer edge is an arm,
  even when it holds still (a die or the cube put down on the frame does not reach the outer edge); once
  seen, it stays an arm while a blob half its size, and at least a hand and forearm's, lies where it was
  near the edge (a black sleeve over a dark frame differs from the frame by about the threshold, so its
  link to the edge comes and goes);
* agreement: the checker counts must be the same in ``settle_frames`` consecutive clear frames.

Only then is the reading passed on (``WatchEvent``), once per change of the board. A change of a tray alone
(a checker borne off from a pile over its row, which reads the same with one checker fewer) is a change:
the trays are not in the agreement (their row's front moves a mm between frames) but a tray whose front
stands, in every frame of the clear stretch, more than half a checker's thickness from where the last
emitted reading saw it gives a new reading. So is a point whose picture was touched (``vision.changes``)
when the board is still again after a hand: a checker put on a pile, or moved from one pile to the next,
leaves every count as it was (a pile reads as its row), and without it the last reading of a turn could be
one from halfway through the play, and a correction made on the piles would never be offered.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from tablecompanion.calibration import CalibrationError
from tablecompanion.calibration.model import Calibration
from tablecompanion.vision.board_reader import BoardReadError, BoardReading, read_board, warp_board
from tablecompanion.vision.checkers import DEFAULT_CONFIG, CheckerConfig
from tablecompanion.vision.row_light import RowLight

SMALL_PX_PER_MM = 0.25
# the board's outer edge that an arm crosses: narrower than the frame less the reach of a checker's top seen
# by a steep camera (a checker against the far frame shows over 12-14 mm of a 25 mm frame), which is no arm
EDGE_MM = 8.0
# an arm already seen keeps being one while a blob at least half its size lies over where it was and comes
# this close to the board's outer edge: a black sleeve over a dark frame differs from it by about the pixel
# threshold, so the arm's link to the edge comes and goes from frame to frame
ARM_NEAR_EDGE_MM = 30.0
# and is at least a hand's size: the checkers one turn moves, put down or taken up side by side, are less
# (four checkers with their shadows about 9000 mm^2; a mid-board reach's arm 36000, one by its own edge 12000)
ARM_KEPT_MM2 = 12000.0
TRAY_MARGIN_MM = 12.0  # around a tray: a tray checker's side seen by a camera off the vertical
TRAY_FRAME_MM = 40.0  # a tray this close to the board's outer edge has only the frame between them
LAB_L_OFFSET = 41.0  # a light change scales 8-bit Lab lightness plus this (L* + 16, times 2.55)
TRAY_MOVE = 0.5  # a tray's row front this share of a checker's thickness away from the last reading's is a change


@dataclass(frozen=True)
class WatchConfig:
    """How clear and still the board must be, and for how long, before a reading counts."""

    settle_frames: int = 6  # consecutive clear frames with the same reading
    motion_level: float = 4.0  # mean |grey difference| (0..255) between frames above which the board is moving
    motion_share: float = 0.004  # share of board pixels changed by more than ``pixel_change`` that is motion
    pixel_change: float = 28.0  # grey change of one pixel that counts as a change
    blob_mm2: float = 600.0  # changes smaller than this (a die and its shadow) are not an arm
    learn_rate: float = 0.1  # how fast the frame band's picture follows slow light changes where it matches
    # follow the light only in clear, still frames: a hand's soft shadow and a sleeve's fringe each differ from
    # the bare frame by less than ``pixel_change``, and following them step by step carried the picture away
    # from the bare frame, which then read as an arm for good (match 43 of the footage, a bear-off)
    learn_while_busy: bool = False
    absorb_frames: int = 150  # a still change of the band lasting this long is the table, not an arm (5 s at 30 fps)
    flicker_places: int = 2  # at most this many places whose count flickers over a clear, still stretch are marked uncertain
    idle_every: int = 1  # once the reading is stable and the board still, read only every this many frames (CPU)
    # a clear, still stretch whose reads give the board last passed on (the arm that broke the last stretch
    # moved nothing: it threw the dice, took them up) is stable after this many agreeing reads (None: as
    # ``settle_frames``). Agreement guards against a passing misread, and a misread that is the very board
    # read and agreed on before is none; a new board still needs ``settle_frames`` (CPU: each read is 30-70 ms)
    confirm_frames: int | None = None
    # reads on either side of an arm's visit or a moment's motion that give the same board count together
    # towards ``settle_frames``: the arm that reaches for the dice just after a play broke the stretch, and
    # the board after the play was read six times more while the next throw rolled. A read that differs
    # (a hand half in view, the board changed under the arm) starts the count again, as before
    agree_across_arms: bool = False


@dataclass
class WatchEvent:
    """A stable reading of a clear board, with the frame index at which it became stable."""

    frame_index: int
    reading: BoardReading
    frames_clear: int


@dataclass
class WatchState:
    """What the watcher thinks of the current frame (for dashboards and tests)."""

    frame_index: int
    clear: bool
    moving: bool
    arm: bool
    reason: str = ""


@dataclass
class BoardWatcher:
    """Feed frames with :meth:`feed`; it returns a ``WatchEvent`` when a new stable reading appears."""

    calibration: Calibration
    config: WatchConfig = field(default_factory=WatchConfig)
    checker_config: CheckerConfig = DEFAULT_CONFIG

    def __post_init__(self) -> None:
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None  # the frame band as it looks with no arm over it (float)
        self._stale: np.ndarray | None = None  # frames each band pixel has differed from the reference while still
        self._candidate: tuple | None = None
        self._count = 0
        self._window: list[BoardReading] = []  # the readings of the current clear, still stretch (latest last)
        self._clear = 0  # frames in that stretch
        self._emitted: tuple | None = None
        self._index = -1
        self.state: WatchState | None = None
        self.last: WatchEvent | None = None
        self.current: WatchEvent | None = None  # the stable reading of the board as it is now; None while it is not
        self._idle = 0
        self._masks = _region_masks(self.calibration, SMALL_PX_PER_MM)
        self._row_light = _row_light(self.calibration, self._masks["board"])
        self._arm_seen: np.ndarray | None = None  # where the arm was in the last frame it was seen (small view)
        self._arm_px = 0  # its size when it last reached the edge
        # arms are this watcher's own business (over time, against the bare board): no single-picture check
        self._read_config = replace(self.checker_config, check_arms=False)

    def reset(self) -> None:
        """Forget the board (a new game set up, the camera moved): the next stable reading is emitted."""
        self._previous = self._reference = self._candidate = self._emitted = None
        self._stale = self._arm_seen = None
        self._arm_px = 0
        self._count = 0
        self._window, self._clear = [], 0
        self.current = None

    def feed(self, frame: np.ndarray, defer_read: bool = False, hold_read: bool = False) -> WatchEvent | None:
        """``defer_read``: a stable, still board is not re-read this frame even when its now-and-then read
        (``idle_every``) is due; it is read on the next frame that does not defer. The camera pipeline
        defers while a throw is being decided, so that the roll call does not wait behind a re-read of a
        board nothing has touched. A board not yet stable is read whatever this says.

        ``hold_read``: no board is read this frame, stable or not; motion and arms are still watched, and
        the clear, still stretch goes on where it was (its readings are kept, none is added). The camera
        pipeline holds while a throw with no dice down comes to rest: rolling dice are no motion to this
        watcher, so it read the board (30-60 ms) on the very frames the roll is read ahead and decided."""
        self._index += 1
        if frame is None or not hasattr(frame, "shape") or frame.size == 0:
            self.state = WatchState(self._index, False, False, False, "empty frame")
            self._count = 0
            self._window, self._clear = [], 0
            self.current = None
            return None
        try:
            colour = _small_lab(frame, self.calibration)
            small = colour[:, :, 0]
        except (BoardReadError, CalibrationError) as exc:
            self.state = WatchState(self._index, False, False, False, str(exc))
            self._count = 0
            self.current = None
            return None
        moving = self._moving(small)
        band = self._band_change(colour)
        arm = self._arm(band)
        self._learn_band(band, moving, arm)
        self._previous = small
        if moving or arm:
            self.state = WatchState(self._index, False, moving, arm, "arm over the board" if arm else "moving")
            if not self.config.agree_across_arms:
                self._count = 0
                self._candidate = None
            self._window, self._clear = [], 0
            self.current = None
            return None
        if hold_read:
            self.state = WatchState(self._index, True, False, False, "read held: a throw comes to rest")
            return None
        if self.current is not None and self.config.idle_every > 1:
            # stable and still: nothing has touched the board since, so read it only now and then
            self._idle += 1
            if self._idle < self.config.idle_every or defer_read:
                self._count += 1
                self._clear += 1
                self.state = WatchState(self._index, True, False, False, f"clear for {self._count} frames")
                return None
        self._idle = 0
        try:
            reading = read_board(frame, self.calibration, self._read_config)
        except BoardReadError as exc:
            self.state = WatchState(self._index, False, False, False, str(exc))
            self._count = 0
            self.current = None
            return None
        key = _reading_key(reading)
        if key == self._candidate:
            self._count += 1
        else:
            self._candidate, self._count = key, 1
        self._window = (self._window + [reading])[-self.config.settle_frames:]
        self._clear += 1
        self.state = WatchState(self._index, True, False, False, f"clear for {self._count} frames")
        needed = self.config.settle_frames
        if self.config.confirm_frames is not None and key == self._emitted:
            needed = min(needed, self.config.confirm_frames)
        ready = self._count >= needed
        if not ready and self._clear >= self.config.settle_frames:
            # clear and still all along, but a count flickers (a pile over a row, a checker on the edge of
            # being found): those places are uncertain, the rest of the board is stable
            steady = _steady_reading(self._window, self.config.flicker_places)
            if steady is not None:
                (reading, key), ready = steady, True
        if not ready:
            self.current = None
            return None
        # the points read as emitted: a tray may still have changed (only then is it worth measuring), or, the
        # first time the board is still again after a hand, a pile (its count is its row's: the key misses it)
        tray_moved = key == self._emitted and self.last is not None and \
            _tray_moved(self.last.reading, self._window, TRAY_MOVE * self.calibration.spec.checker_thickness)
        if key == self._emitted and self.current is not None and not tray_moved:
            return None
        touched = key == self._emitted and not tray_moved and self.last is not None and \
            _picture_moved(self.last.reading, reading)
        self.current = WatchEvent(self._index, reading, self._count)
        if key != self._emitted or tray_moved or touched:
            self._emitted = key
            self.last = self.current
            return self.last
        return None

    def _moving(self, small: np.ndarray) -> bool:
        if self._previous is None:
            return False
        # the previous frame in this one's light first: mains flicker rolls bands through the picture's rows
        diff = cv2.absdiff(small, self._row_light.match(self._previous, small))
        board = self._masks["board"]
        changed = float(np.mean(diff[board] > self.config.pixel_change))
        return float(np.mean(diff[board])) > self.config.motion_level or changed > self.config.motion_share

    def _band_change(self, colour: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The frame against the picture of the bare band, once for :meth:`_arm` and :meth:`_learn_band`: the
        frame as float, its difference, and the summed absolute difference per pixel (None before the first
        frame, which seeds the picture)."""
        now = colour.astype(np.float32)
        if self._reference is None:
            self._reference = now
            self._stale = np.zeros(colour.shape[:2], np.int32)
            return None
        delta = now - self._reference
        size = np.abs(delta)
        # the channels added in the order .sum(axis=2) adds them, ten times faster over so short an axis
        summed = size[:, :, 0] + size[:, :, 1] + size[:, :, 2]
        return now, delta, summed

    def _learn_band(self, band: tuple[np.ndarray, np.ndarray, np.ndarray] | None, moving: bool,
                    arm: bool = False) -> None:
        """Keep the picture of the bare frame band: it follows slow light changes where the frame matches it,
        in clear, still frames only, never takes in an arm (which differs), and takes in a still change only
        after ``absorb_frames`` (a cube put down on the frame, a lamp switched on). The first frame seeds it
        (:meth:`_band_change`)."""
        if band is None:
            return
        now, delta, summed = band
        differs = summed > self.config.pixel_change
        if self.config.learn_while_busy or not (moving or arm):
            # in place where the band matches (a masked add: 2-3 ms less a frame than gathering those pixels)
            step = np.multiply(delta, np.float32(self.config.learn_rate))
            np.add(self._reference, step, out=self._reference, where=~differs[:, :, None])
        if moving:
            return
        self._stale += 1
        self._stale *= differs
        absorb = self._stale >= self.config.absorb_frames
        if absorb.any():
            self._reference[absorb] = now[absorb]
            self._stale[absorb] = 0

    def _arm(self, band: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> bool:
        """A change from the board's outer edge inwards that the bare board does not have: an arm reaching
        in. Colour counts as well as lightness (a dark sleeve over a dark frame); checkers moved, dice and
        a cube put down change the board too, but not from its outer edge. ``band``: :meth:`_band_change`."""
        if band is None:
            return False
        watch = self._masks["watch"]
        changed = ((band[2] > self.config.pixel_change) & watch).astype(np.uint8)
        if not changed.any():
            self._arm_seen = None
            return False
        n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        min_px = self.config.blob_mm2 * SMALL_PX_PER_MM**2
        edge_labels = _labels_in(labels, self._masks["edge"], n) - {0}
        # a change that lies wholly in a tray and the frame beyond it is a checker borne off (it lies against
        # the frame by the player's edge), not an arm: an arm over the trays only covers no point either
        tray_only = (_labels_in(labels, self._masks["tray_zone"], n) - {0}) \
            - _labels_in(labels, ~self._masks["tray_zone"], n)
        arm = [i for i in edge_labels - tray_only if stats[i, cv2.CC_STAT_AREA] >= min_px]
        size = sum(int(stats[i, cv2.CC_STAT_AREA]) for i in arm)
        if size >= min_px:
            self._arm_px = size
        else:
            arm = self._same_arm(labels, stats, tray_only, n)
        if arm:
            chosen = np.zeros(n, bool)
            chosen[arm] = True
            self._arm_seen = chosen[labels]
        else:
            self._arm_seen = None
        return bool(arm)

    def _same_arm(self, labels: np.ndarray, stats: np.ndarray, tray_only: set[int], n: int) -> list[int]:
        """The blobs that are still the arm seen in the last frame though none reaches the board's edge now:
        each at least half as large as the arm when it last reached the edge and at least a hand's size,
        lying for the most part where the arm was, and coming within ``ARM_NEAR_EDGE_MM`` of the edge (a
        sleeve whose colour is the frame's loses the link to the edge now and then; checkers moved and left
        behind are smaller than the arm that moved them). Blobs in ``tray_only`` (wholly in a tray) are none."""
        if self._arm_seen is None:
            return []
        before = int(self._arm_seen.sum())
        least = max(0.5 * self._arm_px, ARM_KEPT_MM2 * SMALL_PX_PER_MM**2)
        near = _labels_in(labels, self._masks["near_edge"], n) - {0} - tray_only
        out = []
        for i in near:
            area = int(stats[i, cv2.CC_STAT_AREA])
            if area < least:
                continue
            if int((self._arm_seen & (labels == i)).sum()) >= 0.5 * min(area, before):
                out.append(i)
        return out


def _labels_in(labels: np.ndarray, mask: np.ndarray, n: int) -> set[int]:
    """The labels (of ``n``) found where ``mask`` is set: counted, not sorted (np.unique sorted them)."""
    return set(np.flatnonzero(np.bincount(labels[mask], minlength=n)).tolist())


def _row_light(calibration: Calibration, board: np.ndarray) -> RowLight:
    """Light matching by picture rows on the small view: each of its pixels' row in the camera's picture."""
    h, w = board.shape
    us, vs = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    image = calibration.board_to_image(np.stack([us.ravel(), vs.ravel()], axis=1) / SMALL_PX_PER_MM)
    rows = (image[:, 1] / float(calibration.image_size[1])).reshape(h, w)
    return RowLight(rows, mask=board, offset=LAB_L_OFFSET)


def _small_lab(frame: np.ndarray, calibration: Calibration) -> np.ndarray:
    """The board top-down at ``SMALL_PX_PER_MM``, in Lab, lightly smoothed."""
    warped = warp_board(frame, calibration, SMALL_PX_PER_MM)
    if warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    return cv2.GaussianBlur(cv2.cvtColor(warped, cv2.COLOR_BGR2LAB), (3, 3), 0.8)


def _small_grey(frame: np.ndarray, calibration: Calibration) -> np.ndarray:
    return _small_lab(frame, calibration)[:, :, 0]


def _region_masks(calibration: Calibration, px_per_mm: float) -> dict[str, np.ndarray]:
    """Boolean masks on the small view: the whole board, the band's outer edge that an arm crosses and the
    wider strip an arm once seen may keep to, and the trays with what lies round them."""
    geo = calibration.geometry
    spec = geo.spec
    w, h = int(np.ceil(spec.width * px_per_mm)), int(np.ceil(spec.height * px_per_mm))

    def rect_mask(rect) -> np.ndarray:
        m = np.zeros((h, w), bool)
        x0, y0, x1, y1 = (int(round(v * px_per_mm)) for v in rect)
        m[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = True
        return m

    board = rect_mask(geo.outline)
    e = EDGE_MM
    edge = board & ~rect_mask((e, e, spec.width - e, spec.height - e))
    n = ARM_NEAR_EDGE_MM
    near_edge = board & ~rect_mask((n, n, spec.width - n, spec.height - n))
    tray_zone = np.zeros_like(board)
    x0o, y0o, x1o, y1o = geo.outline
    for who in ("bottom", "top"):
        x0, y0, x1, y1 = geo.tray(who)
        # the tray, a checker's height around it (a camera off the vertical sees a tray checker's side), and
        # the frame between it and the board's outer edge, where its outermost checker overhangs
        m = TRAY_MARGIN_MM
        x0 = x0o if x0 - x0o <= TRAY_FRAME_MM else x0 - m
        y0 = y0o if y0 - y0o <= TRAY_FRAME_MM else y0 - m
        x1 = x1o if x1o - x1 <= TRAY_FRAME_MM else x1 + m
        y1 = y1o if y1o - y1 <= TRAY_FRAME_MM else y1 + m
        tray_zone |= rect_mask((x0, y0, x1, y1))
    return {"board": board, "watch": board, "edge": edge, "near_edge": near_edge, "tray_zone": tray_zone & board}


def _steady_reading(window: list[BoardReading], most: int) -> tuple[BoardReading, tuple] | None:
    """The latest reading with the points (or the bar, 25) whose count changed over ``window`` marked
    uncertain, when at most ``most`` places changed, and its key (the flickering counts left out); else None.

    A count flickers when its value comes back: the latest reading must have been read before in the window.
    A board that was the same for a while and reads differently only in the latest frame has just changed (a
    hand coming in over a point before the arm test sees it): that waits for the next frames."""
    if [_reading_key(r) for r in window].count(_reading_key(window[-1])) < 2:
        return None
    latest = window[-1].checkers
    flicker: set[int] = set()
    for r in window[:-1]:
        c = r.checkers
        flicker |= {p for p in latest.points if c.points.get(p) != latest.points[p]}
        if dict(c.bar) != dict(latest.bar):
            flicker.add(25)
    if not flicker or len(flicker) > most:
        return None
    checkers = replace(latest, uncertain=sorted(set(latest.uncertain) | flicker))
    key = (tuple(sorted((p, None if p in flicker else v) for p, v in latest.points.items())),
           None if 25 in flicker else tuple(sorted(latest.bar.items())), tuple(sorted(flicker)))
    return replace(window[-1], checkers=checkers), key


def _tray_moved(emitted: BoardReading, window: list[BoardReading], move_mm: float) -> bool:
    """Whether a tray's row front stands more than ``move_mm`` from where the ``emitted`` reading saw it, on the
    same side, in every reading of ``window`` (the clear, still stretch): a checker borne off (or taken back)
    where the points read the same. A tray out of the picture in any of them is no change."""
    for player, seen in emitted.trays.items():
        if seen.front_mm is None:
            continue
        moves = [r.trays[player].front_mm - seen.front_mm for r in window
                 if player in r.trays and r.trays[player].front_mm is not None]
        if window and len(moves) == len(window) and (min(moves) > move_mm or max(moves) < -move_mm):
            return True
    return False


def _picture_moved(emitted: BoardReading, reading: BoardReading) -> bool:
    """Whether a point of ``reading``'s picture was touched since the ``emitted`` one's: a checker put on a pile
    or taken off it, or moved from one pile to the next, leaves the counts as they were."""
    _, changed = reading.changes_since(emitted)
    return bool(changed)


def _reading_key(reading: BoardReading) -> tuple:
    c = reading.checkers
    return (tuple(sorted(c.points.items())), tuple(sorted(c.bar.items())))
