"""Read a roll on a real board: the dice are what changed since the still board, and how they lie.

Reading a whole frame of a full board finds "dice" in checker highlights and misses 17-px dice. A die,
though, is the one thing that *arrives* between the last play and the roll. :class:`RollReader` keeps a
reference frame of the still board (after the last play, before the throw) and, given a frame with the
dice at rest:

1. ``changed_blobs`` (:class:`~tablecompanion.vision.still_board.StillBoard`, the reference and the checkers
   found on it): the colour difference with the reference (brightness-matched, half size) inside the
   board's outline widened by a margin (a die on the frame or beside the board is still seen); blobs
   are measured in board millimetres through the calibration, so "die-sized" means the same on every
   camera. A blob larger than a hand's share of the board is occlusion: nothing is read.
2. each die-sized blob is cropped, enlarged so a die is ~64 px, and read with
   :func:`tablecompanion.vision.dice.read_dice` (the per-photo reader: its improvements flow through);
3. each die is then judged with the board model and a camera model recovered from the homography
   (``camera_from_homography``): its top face mapped onto the plane a flat die's top lies in gives where
   it rests; a die whose footprint is on a checker of the reference is "cocked (resting on a checker)";
   a die whose top face is not the square a flat die shows there (the pip pattern stretched or
   squeezed, a side face showing more than the view explains) is "cocked (tilted)"; unreadable is
   "unclear"; a value is never given for a die that is not flat. The body test and the tilt net are
   :class:`~tablecompanion.vision.tilt_evidence.TiltEvidence`; which face is the top when the pips allow two,
   :class:`~tablecompanion.vision.outline_faces.OutlineFaces` (both parts of :class:`RollReader`);
4. placement (:mod:`tablecompanion.vision.placement`) of where it rests: roller's right-hand board = ok;
   bar, wrong half, off the playing surface = void; the opening roll wants one die in each half.

The verdict: "valid" only when exactly the expected dice are flat, read and placed; otherwise "void" with
the first reason, or "unclear" (re-roll) when the reader is unsure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import cv2
import numpy as np

from tablecompanion.geometry import BoardGeometry, Player
from tablecompanion.vision.body_model import load_body_model
from tablecompanion.vision.camera_model import CameraModel, camera_from_homography
from tablecompanion.vision.dice import DEFAULT_CONFIG, DiceConfig, DiceReading, DiceVisionError, check_frame, read_dice
from tablecompanion.vision.dice_model import load_tilt_net
from tablecompanion.vision.die_face import face_features
from tablecompanion.vision.outline_faces import OutlineFaces
from tablecompanion.vision.pip_grid import GridLook, GridReading, grid_read, grid_reads, inner_box
from tablecompanion.vision.placement import Placement, place_point
from tablecompanion.vision.roll_config import RollReaderConfig
from tablecompanion.vision.roll_verdict import DieSeen, RollReading, judge_dice, propose
from tablecompanion.vision.row_light import RowLight
from tablecompanion.vision.still_board import StillBoard
from tablecompanion.vision.tilt_evidence import BODY_SHOWS, NET_UNSURE, TILT_PATCH, TILT_SPAN, TiltEvidence

# The per-photo reader behind the roll reader: pip counting. On rectified crops of simulator dice (a
# 16 mm die is a 48-px square) it beats the network and its classifier, which were trained on photos
# (100 cases of `roll eval`: good rolls read right 33/51 with 1 wrong value, against 28/51 with 3).
ROLL_DICE_CONFIG = replace(DEFAULT_CONFIG, model="pips")


__all__ = [
    "RollReadError", "RollReaderConfig", "RollReader", "DieSeen", "RollReading", "CameraModel",
    "camera_from_homography", "judge_dice", "TILT_PATCH", "TILT_SPAN",
]


class RollReadError(DiceVisionError):
    """The roll reader cannot work with this input (no calibration, a frame of another size...)."""


# the doubts the tilt net's "flat" answers: a die at the bar's edge may lie across the bar (where it lies,
# not how), and one touching the other die may be on it
_NET_LIFTS = ("a checker", "the board's edge")
_UNEVEN_PIPS = "its pips unlike one face's"


@dataclass(frozen=True)
class _ReadAhead:
    key: tuple
    reference: np.ndarray  # the reference it was read against (the same object, or it is stale)
    small: np.ndarray  # the frame it read, at half size
    reading: "RollReading"
    dice_left: "_LastDice | None"


@dataclass(frozen=True)
class _LastDice:
    dice_mm: tuple[tuple[float, float], ...]  # where the dice of a read lay (top-face plane, board mm)
    board: np.ndarray  # the reference of that read (half size): the board before those dice came
    level: float


class RollReader(StillBoard, TiltEvidence, OutlineFaces):
    """Board-aware roll reading for one calibrated camera. ``set_reference`` with the still board, then
    ``read`` frames with the dice at rest. Also a ``reader`` for ``RollWatcher`` (``__call__``)."""

    def __init__(self, calibration, config: RollReaderConfig | None = None, dice_config: DiceConfig | None = None,
                 reader: Callable[..., list] | None = None) -> None:
        if calibration is None or getattr(calibration, "homography", None) is None:
            raise RollReadError("the roll reader needs a calibration (tablecompanion calibrate)")
        self.calibration = calibration
        self.config = config or RollReaderConfig()
        self.dice_config = dice_config if dice_config is not None else ROLL_DICE_CONFIG
        self.reader = reader or read_dice
        self.tilt_net = load_tilt_net(self.config.tilt_net) if self.config.tilt_net is not None else None
        self.body_model = load_body_model(self.config.body_model) if self.config.body_model is not None else None
        self.geometry: BoardGeometry = calibration.geometry
        self.spec = self.geometry.spec
        w, h = (int(v) for v in calibration.image_size)
        self.image_size = (w, h)
        self.camera = camera_from_homography(calibration.homography, (w, h), getattr(calibration, "camera_matrix", None))
        self.top_from_image = self.camera.plane_homography(self.spec.die_size)
        s = self.config.diff_scale
        self.small_size = (max(1, round(w * s)), max(1, round(h * s)))
        self.search_mask = self._outline_mask(self.config.margin_mm)
        # where the checker search looks (the board warped, a few mm more for its interpolation): a change
        # beyond it (an arm at the table's edge) cannot change the checkers found
        self._checker_area = self._outline_mask(self.config.checker_area_mm)
        self._row_light = RowLight.for_picture(self.small_size[1], self.small_size[0], mask=self.search_mask > 0)
        self.reference: np.ndarray | None = None
        self.reference_full: np.ndarray | None = None
        self._reference_level: float | None = None
        self._gain = 1.0
        self.checkers_mm: np.ndarray = np.zeros((0, 2))
        self.last: RollReading | None = None
        self._checker_boards: list[tuple[np.ndarray, float, np.ndarray]] = []  # (board, level, checkers found)
        self._learned: np.ndarray | None = None  # the last frame given to learn_checkers
        # a board learned ahead (``learn_ahead``): its half-size view, median level and checkers
        self._ahead: tuple[np.ndarray, float, np.ndarray] | None = None
        self.crops_read = 0
        self._pending: _ReadAhead | None = None  # a read done ahead of the watcher's decision
        self._previous: _LastDice | None = None  # the last delivered read's dice and the board before them
        self._views: list[tuple[np.ndarray, float | None]] = []  # references replaced since the last read
        self._rest_frames: tuple[np.ndarray, ...] = ()  # the still frames of the rest the next read decides on
        self._seen: dict[int, np.ndarray] = {}  # during a read: the frame's change mask against each view
        self._skipped: list[dict] = []  # during a read: blobs an earlier view explained (not searched)
        self._small_now: np.ndarray | None = None  # during a read: the frame at half size
        x0, y0, x1, y1 = self.geometry.surface
        self._face_px_small = (self.die_px_at((x0 + x1) / 2, (y0 + y1) / 2) * s) ** 2  # a die face, half-size px

    # -- geometry helpers -----------------------------------------------------------------------------
    def _outline_mask(self, margin_mm: float) -> np.ndarray:
        """The board's outline widened by ``margin_mm`` as a 0/255 mask of the half-size frame."""
        x0, y0, x1, y1 = self.geometry.outline
        poly = self._board_poly((x0 - margin_mm, y0 - margin_mm, x1 + margin_mm, y1 + margin_mm)) * self.config.diff_scale
        mask = np.zeros((self.small_size[1], self.small_size[0]), np.uint8)
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 255)
        return mask

    def _board_poly(self, rect, samples: int = 8) -> np.ndarray:
        x0, y0, x1, y1 = rect
        t = np.linspace(0, 1, samples, endpoint=False)
        pts = np.concatenate([
            np.column_stack([x0 + (x1 - x0) * t, np.full_like(t, y0)]),
            np.column_stack([np.full_like(t, x1), y0 + (y1 - y0) * t]),
            np.column_stack([x1 - (x1 - x0) * t, np.full_like(t, y1)]),
            np.column_stack([np.full_like(t, x0), y1 - (y1 - y0) * t]),
        ])
        return np.asarray(self.calibration.board_to_image(pts), np.float64)

    def to_plane(self, pts, height_mm: float = 0.0) -> np.ndarray:
        """Image px (as captured) -> board mm on the plane ``height_mm`` above the surface."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        cal = self.calibration
        if getattr(cal, "camera_matrix", None) is not None:
            pts = cal._undistort_points(pts)  # noqa: SLF001 - the calibration's own lens model
        H = self.calibration.homography if height_mm == 0 else self.camera.plane_homography(height_mm)
        hp = np.column_stack([pts, np.ones(len(pts))]) @ np.asarray(H).T
        return hp[:, :2] / hp[:, 2:3]

    def die_px_at(self, x_mm: float, y_mm: float) -> float:
        return float(self.spec.die_size) * float(self.calibration.px_per_mm_at((x_mm, y_mm)))

    def _check(self, frame) -> np.ndarray:
        frame = check_frame(frame)
        if (frame.shape[1], frame.shape[0]) != self.image_size:
            raise RollReadError(f"frame is {frame.shape[1]}x{frame.shape[0]} but the calibration was made at "
                                f"{self.image_size[0]}x{self.image_size[1]}: recalibrate")
        return frame

    # -- reading ----------------------------------------------------------------------------------
    def read(self, frame: np.ndarray, roller: Player = "bottom", opening: bool = False,
             expected: int | None = None) -> RollReading:
        """The roll in ``frame`` (dice at rest) against the reference.

        When the same roll was read ahead (:meth:`prefetch`) against this reference and ``frame`` shows
        the same view (nothing moved since, within ``prefetch_tolerance``), that reading is the answer."""
        frame = self._check(frame)
        if self.reference is None:
            raise RollReadError("no reference frame of the still board: call set_reference first")
        key = (roller, opening, expected)
        ahead, self._pending = self._pending, None
        small = self._small(frame)
        if ahead is not None and ahead.key == key and ahead.reference is self.reference and \
                self._same_view(small, ahead.small):
            out, dice_left = ahead.reading, ahead.dice_left
        else:
            out, dice_left = self._read(frame, small, roller, opening, expected)
        rest, self._rest_frames = self._rest_frames, ()
        out = self._second_look(out, frame, small, rest, key)
        self.last = out
        if not out.occluded:
            self._previous = dice_left
            self._views = []
        return out

    def use_rest_frames(self, frames: Sequence[np.ndarray]) -> None:
        """``RollWatcher``'s hook: the still frames of the rest its next decision reads (the frame it reads
        among them), for :meth:`_second_look`."""
        self._rest_frames = tuple(frames)

    def _second_look(self, out: "RollReading", frame: np.ndarray, small: np.ndarray,
                     rest: Sequence[np.ndarray], key: tuple) -> "RollReading":
        """``out`` with each die called tilted only for a little body beyond its flat outline measured again
        on the mean of ``rest`` (the still frames the dice lay in; those that show another view than ``frame``
        are left out, and fewer than two give no second look): one frame's noise
        and a flickering lamp's bands leave up to 8 mm^2 beside a flat die, which a mean of four frames brings
        to about 0; a tilted die's side face is in every frame, and a die is called flat again only when the
        mean shows next to no body (``second_look_flat_mm2``)."""
        c = self.config
        suspects = [i for i, d in enumerate(out.dice) if d.features.get("tilt_why") == BODY_SHOWS
                    and "g_centre_mm" in d.features and d.features.get("read_value") is not None
                    and d.features.get("beyond_mm2", math.inf) <= c.second_look_mm2]
        if not suspects:
            return out
        still = [f for f in rest if f.shape == frame.shape and self._same_view(self._small(f), small)]
        if len(still) < 2:
            return out
        mean = np.mean(np.stack(still), axis=0, dtype=np.float32).round().astype(np.uint8)
        roller, opening, expected = key
        expected = expected if expected is not None else 2
        dice, changed = list(out.dice), False
        for i in suspects:
            d = dice[i]
            f = d.features
            area, turn, hidden = self._body_beyond(mean, f["g_centre_mm"], f.get("g_value"), f.get("g_turn", 0.0), d, dice,
                                                   hidden=True)
            if area > min(c.second_look_flat_mm2, c.max_beyond_area):
                continue
            more = {}
            if hidden is not None:
                if hidden > c.body_beyond_area:
                    continue
                more["hidden_mm2"] = hidden
            if "tilt_p" in f:  # the net is asked again on the mean, as the body is measured again
                more["tilt_p_one_frame"] = f["tilt_p"]
            kept = {k: v for k, v in f.items() if k not in ("tilt_p", "tilt_p_median")}
            flat = replace(d, status="flat", reason="", value=f["read_value"],
                           features={**kept, "beyond_mm2": area, "face_turn": turn, "beyond_one_frame_mm2": f["beyond_mm2"],
                                     "frames_averaged": len(still), **more})
            others = [x for j, x in enumerate(dice) if j != i]  # not its own older self, which lies where it does
            dice[i], changed = self._judge_die(flat, roller, opening, others, mean), True
        if not changed:
            return out
        if opening:
            dice = self._opening_placements(dice)
        return self._reading_of(dice, expected, opening)

    def prefetch(self, frame: np.ndarray, roller: Player = "bottom", opening: bool = False,
                 expected: int | None = None) -> None:
        """Read ``frame`` now, ahead of the decision: ``RollWatcher`` calls this on the first quiet frame
        after a throw, and its call of :meth:`read` some frames later (the dice still) reuses the result
        when nothing moved in between. The read's CPU time then overlaps the watcher's debounce instead
        of following it. Nothing is delivered (``last`` is unchanged) until :meth:`read`."""
        frame = self._check(frame)
        if self.reference is None:
            return
        small = self._small(frame)
        out, dice_left = self._read(frame, small, roller, opening, expected)
        self._pending = _ReadAhead((roller, opening, expected), self.reference, small, out, dice_left)

    @property
    def read_ahead(self) -> RollReading | None:
        """The reading made by :meth:`prefetch` and not yet asked for (None when there is none)."""
        return self._pending.reading if self._pending is not None else None

    def _read(self, frame: np.ndarray, small: np.ndarray, roller: Player, opening: bool,
              expected: int | None) -> tuple[RollReading, "_LastDice | None"]:
        c = self.config
        expected = expected if expected is not None else 2
        blobs, total = self.changed_blobs(frame, small)
        self._small_now, self._seen, self._skipped = small, {}, []
        if total > c.occlusion_area:
            out = RollReading((), "unclear", "a hand or something large over the board", occluded=True, opening=opening)
            return out, None
        dice: list[DieSeen] = []

        def take(found: list[DieSeen]) -> None:
            for d in found:
                if len(dice) < c.max_dice and not any(
                        math.dist(d.board_mm, k.board_mm) < 0.9 * self.spec.die_size for k in dice):
                    dice.append(d)

        unread: list[dict] = []  # die-sized changes no reader saw a die in and no earlier view explains

        def search(blob: dict) -> None:
            skipped = len(self._skipped)
            found = self._read_blob(frame, blob)
            take(found)
            if not found and len(self._skipped) == skipped and self._die_sized(blob):
                unread.append(blob)

        for blob in blobs:
            if self._two_dice_at_most(blob):
                search(blob)
        if 0 < len(dice) < expected and self._skipped:
            # a die short (with none, no throw may be down yet): a change an earlier view already showed may
            # be a die of this throw after all (a view taken once it lay: the runner's pick-up frame, when the
            # pick-up is seen only then)
            for blob in self._skipped:
                take(self._read_blob(frame, blob, skip_explained=False))
        if c.faint_threshold and len(dice) < expected:
            for blob in self._faint_blobs(frame, small):
                if len(dice) < expected:
                    search(blob)
        if c.unread_change_fills and len(dice) < expected:
            take([self._unread_die(tuple(float(v) for v in np.median(self._blob_on_top_plane(b), axis=0)), b)
                  for b in unread[:expected - len(dice)]])
        dice = self._without_side_faces(dice)
        dice = [self._with_tilt_evidence(frame, d, dice) for d in dice]
        dice = [self._face_the_outline_explains(frame, d, dice) for d in dice]
        dice = [self._weak_face_the_outline_explains(frame, d, dice) for d in dice]
        dice = [self._rival_face_the_outline_explains(frame, d, dice) for d in dice]
        dice = [self._top_beyond_its_side_face(frame, d, dice) for d in dice]
        dice = [self._judge_die(d, roller, opening, dice, frame) for d in dice]
        dice.sort(key=lambda d: (d.centre[0], d.centre[1]))
        if opening:
            dice = self._opening_placements(dice)
        out = self._reading_of(dice, expected, opening)
        dice_left = None
        if dice:  # where these dice lie, and the board before they came, for telling their leaving later
            dice_left = _LastDice(tuple(d.board_mm for d in dice), self.reference, self._reference_median())
        return out, dice_left

    @staticmethod
    def _reading_of(dice: Sequence[DieSeen], expected: int, opening: bool) -> "RollReading":
        verdict, reason = judge_dice(dice, expected)
        if opening and verdict == "valid" and dice[0].value == dice[1].value:
            reason += " (opening doubles: roll again)"
        return RollReading(tuple(dice), verdict, reason, opening=opening)

    def rectified(self, frame: np.ndarray, rect_mm, height_mm: float | None = None, *also: np.ndarray,
                  px_per_mm: float | None = None):
        """The frame resampled onto the plane ``height_mm`` above the board (a flat die's top face by
        default) over ``rect_mm`` (x0, y0, x1, y1), ``rect_px_per_mm`` px per mm: perspective removed, so
        a flat die's top is a square of known size wherever it lies and whatever the camera's angle.
        Frames in ``also`` (the reference) are resampled the same way, and a tuple of all is returned."""
        k = self.config.rect_px_per_mm if px_per_mm is None else px_per_mm
        h = self.spec.die_size if height_mm is None else height_mm
        x0, y0, x1, y1 = rect_mm
        nx, ny = max(2, int(round((x1 - x0) * k))), max(2, int(round((y1 - y0) * k)))
        xs = x0 + (np.arange(nx) + 0.5) / k
        ys = y0 + (np.arange(ny) + 0.5) / k
        gx, gy = np.meshgrid(xs, ys)
        pts = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, -h)])
        img = self.camera.project(pts)
        if getattr(self.calibration, "camera_matrix", None) is not None:
            img = self.calibration._distort_points(img)  # noqa: SLF001
        mx = img[:, 0].reshape(ny, nx).astype(np.float32)
        my = img[:, 1].reshape(ny, nx).astype(np.float32)
        out = cv2.remap(frame, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
        if not also:
            return out
        return (out,) + tuple(cv2.remap(f, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE) for f in also)

    def plane_to_image(self, pts_mm, height_mm: float | None = None) -> np.ndarray:
        h = self.spec.die_size if height_mm is None else height_mm
        pts = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        img = self.camera.project(np.column_stack([pts, np.full(len(pts), -h)]))
        if getattr(self.calibration, "camera_matrix", None) is not None:
            img = self.calibration._distort_points(img)  # noqa: SLF001
        return img

    def _read_blob(self, frame: np.ndarray, blob: dict, skip_explained: bool = True) -> list[DieSeen]:
        """Read the dice of one changed blob on the top-face plane (see :meth:`rectified`). ``skip_explained``:
        a blob the per-photo reader sees no die in and an earlier view of the table explains
        (:meth:`_seen_before`) is not searched, only noted in ``_skipped``."""
        c = self.config
        k = c.rect_px_per_mm
        die = float(self.spec.die_size)
        top = self._blob_on_top_plane(blob)
        middle = tuple(float(v) for v in np.median(top, axis=0))
        pad = c.crop_pad * die
        x0, y0 = top.min(axis=0) - pad
        x1, y1 = top.max(axis=0) + pad
        crop = self.rectified(frame, (x0, y0, x1, y1))
        self.crops_read += 1
        try:
            readings = self.reader(crop, self.dice_config)
        except Exception:  # noqa: BLE001 - an unreadable crop is an unclear die, not a crash
            readings = []
        kept = []
        for r in readings:
            side = float(getattr(r, "size", 0.0) or 0.0) / k
            if side and not (c.min_size * die <= side <= c.max_size * die):
                continue  # not die-sized on the top plane (a checker's rim, a cube's digits)
            mm = (r.centre[0] / k + x0, r.centre[1] / k + y0)
            probe = DieSeen(r.value, r.status, "unknown", tuple(self.plane_to_image([mm])[0]), mm, 0.0)
            if self._on_blob(probe, blob):  # on the changed blob: a checker's highlight beside a die is no die
                kept.append((r, mm))
        # one die per die-sized cluster of readings: a side face's pips read as a second "die" beside it
        groups: list[list] = []
        for r, mm in sorted(kept, key=lambda rm: _reading_rank(rm[0])):
            for g in groups:
                if math.dist(g[0][1], mm) < c.same_die * die:
                    g.append((r, mm))
                    break
            else:
                groups.append([(r, mm)])
        hyps = [(g[0][0], g[0][1], len(g) - 1) for g in groups]
        if not hyps and skip_explained and self._seen_before(blob):
            # the per-photo reader saw no die, and an earlier still view shows the same there: of any size
            # (a checker the play moved leaves a blob three sides long, whose search for dice took 60-70 ms)
            self._skipped.append(blob)
            return []
        if not hyps and self._die_sized(blob):
            # something die-sized arrived and the per-photo reader saw no die: the grid reader tries
            hyps = [(None, middle, 0)]
        out: list[DieSeen] = []
        view = self._view_at(middle)
        for r, mm, extra in hyps:
            box = (c.hyp_box if r is not None else c.blob_box) * die * k
            u, v = (mm[0] - x0) * k, (mm[1] - y0) * k
            look = GridLook(centre_box=(u - box, v - box, u + box, v + box), alternatives_within=c.alternatives_within,
                            face_tol=c.loose_face_tol, clear_face_tol=None if c.loose_rivals else c.face_tol, view=view)
            far_box = self._box_away_from_camera(mm, (u, v), box) if r is not None else None
            far = None
            if far_box is None:
                g = grid_reads(crop, die * k, [look])[0]
            else:  # both boxes in one scan, with the first box's pip threshold
                far_look = GridLook(centre_box=far_box, alternatives_within=c.alternatives_within, face_tol=c.face_tol,
                                    view=view)
                g, far = grid_reads(crop, die * k, [look, far_look])
                g = self._top_away_from_camera(g, far, (u, v), box)
            d = self._die_from(r, g, mm, (x0, y0), blob, extra, far=far if far is not g else None)
            if r is None and d.status != "flat" and d.reason != _UNEVEN_PIPS:
                continue  # neither reader sees a die in this change (a checker moved, a die's ghost)
            if self._ghost(g, (x0, y0, x1, y1), box, u, v):
                continue
            if self._on_blob(d, blob) and not any(math.dist(d.board_mm, o.board_mm) < c.same_die * die for o in out):
                out.append(d)
        # a blob of two dice (or one the per-photo reader missed): faces the grid reader finds away from
        # the dice already read, centred within the blob's extent (the pip threshold still the whole crop's)
        within = {}
        if c.second_die_within_blob:
            lo, hi = (top.min(axis=0) - (x0, y0)) * k, (top.max(axis=0) - (x0, y0)) * k
            within = dict(centre_box=(*lo, *hi), tau_box=inner_box(die * k, crop.shape[1], crop.shape[0]))
        while len(out) < 2 and (blob["side_mm"] > c.two_dice_side * die or not out):
            # a side face of a die already read shows pips ~1 side away: look further than that
            excl = [((o.board_mm[0] - x0) * k, (o.board_mm[1] - y0) * k, c.second_die_gap * die * k) for o in out]
            g = grid_read(crop, die * k, exclude=excl, face_tol=c.loose_face_tol,
                          clear_face_tol=None if c.loose_rivals else c.face_tol, view=view, **within)
            if g is None or g.margin < c.second_die_margin or g.pip_contrast < c.second_die_contrast:
                break
            d = self._die_from(None, g, (g.centre[0] / k + x0, g.centre[1] / k + y0), (x0, y0), blob, 0)
            if self._ghost(g, (x0, y0, x1, y1), 0.3 * die * k, g.centre[0], g.centre[1]):
                break
            if c.second_die_on_blob > 0 and self._face_share_on_blob(g, (x0, y0), blob) < c.second_die_on_blob:
                break
            if not self._on_blob(d, blob) or any(math.dist(d.board_mm, o.board_mm) < c.same_die * die for o in out):
                break
            out.append(d)
        if not out and c.unread_blob_is_die and self._die_sized(blob):
            out.append(self._unread_die(middle, blob))
        return out

    def _view_at(self, mm) -> tuple[float, float, float]:
        """:meth:`_camera_view` as the grid reader takes it: (0, 0, 0) without ``view_blur``."""
        return self._camera_view(mm) if self.config.view_blur else (0.0, 0.0, 0.0)

    def _camera_view(self, mm) -> tuple[float, float, float]:
        """The camera's view at ``mm`` on the top plane, as :class:`GridLook` takes it: the unit direction in
        which it sees down a die's sides there (from the bottom's centre seen on the top plane to the top's)
        and how deep (sides per side); (0, 0, 0) straight down."""
        bx, by = self._board_on_top_plane([mm])[0]
        dx, dy = float(mm[0] - bx), float(mm[1] - by)
        n = math.hypot(dx, dy)
        if n < 1e-9:
            return (0.0, 0.0, 0.0)
        return (dx / n, dy / n, n / float(self.spec.die_size))

    def _box_away_from_camera(self, mm, uv, box: float) -> tuple[float, float, float, float] | None:
        """Where :meth:`_top_away_from_camera` looks for a die's top beyond a per-photo reading at ``mm`` (crop
        pixels ``uv``; ``box``: the first look's half side): that box moved away from the camera by
        ``hyp_top_shift`` of what the camera sees down a side there. None where that is under ``hyp_shift_min``
        of a side (the view from above)."""
        c = self.config
        k = c.rect_px_per_mm
        die = float(self.spec.die_size)
        bx, by = self._board_on_top_plane([mm])[0]
        du, dv = (mm[0] - bx) * c.hyp_top_shift, (mm[1] - by) * c.hyp_top_shift
        if c.hyp_top_shift <= 0 or math.hypot(du, dv) < c.hyp_shift_min * die:
            return None
        u, v = uv[0] + du * k, uv[1] + dv * k
        return (u - box, v - box, u + box, v + box)

    def _top_away_from_camera(self, g: "GridReading | None", far: "GridReading | None", uv,
                              box: float) -> "GridReading | None":
        """The grid reader's face ``g`` for a per-photo reading at crop pixels ``uv``, or the face ``far`` found
        beyond it away from the camera (:meth:`_box_away_from_camera`, the first look's pip threshold and a
        clear face's tolerance) when that is sure, clear and scores higher.

        The per-photo reader centres a die on all it sees of it: from a tilted or steep camera its side
        faces too, so the top lies beyond that centre, up to half of what the camera sees down a side. A
        face found there, beyond the first look's box, counts only when it is sure on its own and its blank
        places look alike (a side face and a shadow beyond a die make uneven "faces")."""
        k = self.config.rect_px_per_mm
        die = float(self.spec.die_size)
        if not self._grid_sure(far):
            return g
        if abs(far.centre[0] - uv[0]) <= box and abs(far.centre[1] - uv[1]) <= box:
            return g  # the first look's box: it had that place (a face there it did not take is a side face)
        if g is not None and (far.score <= g.score or math.dist(far.centre, g.centre) < 0.25 * die * k):
            return g
        return far

    def _grid_sure(self, g: "GridReading | None", agree: bool = False, even: bool = True) -> bool:
        """The grid reader's face is sure: its margin over the other faces and its weakest pip's contrast
        (less of both asked when the per-photo reader reads the same value, ``agree``), no pip-like spot
        where the face is blank and, standing alone, pips alike (``grid_even_pips``; not asked: ``even``
        False)."""
        c = self.config
        return g is not None and g.margin >= (c.grid_agree_margin if agree else c.grid_min_margin) and \
            self._clear_pips(g.pip_contrast, g.off_contrast, g.strongest_pip, agree, even)

    def _clear_pips(self, contrast: float, off: float, strongest: float, agree: bool = False, even: bool = True) -> bool:
        """A face's pips are clear (``_grid_sure`` but for the margin): the weakest's contrast, no pip-like spot
        where the face is blank, and, standing alone, pips alike. The features ``g_contrast``, ``g_off`` and
        ``g_strong`` of a die are these three of its grid face."""
        c = self.config
        return contrast >= (c.grid_agree_contrast if agree else c.grid_alone_contrast) and \
            off < c.max_blank_spot * contrast and (agree or not even or contrast >= c.grid_even_pips * strongest)

    def _clear_face(self, face: dict) -> bool:
        """A face found on a die (``_face_features``: a die's own or a rival's) with clear pips and even blank
        places, standing alone (no other reader agreeing)."""
        return face["g_face"] <= self.config.face_tol and \
            self._clear_pips(face["g_contrast"], face["g_off"], face["g_strong"])

    def _face_share_on_blob(self, g: "GridReading", origin, blob: dict) -> float:
        """The share of the face ``g`` found (a die's top square at the lattice's centre and turn, on the
        top plane) that lies within the changed blob's outline."""
        k = self.config.rect_px_per_mm
        s = self.config.diff_scale
        square = self._top_square((g.centre[0] / k + origin[0], g.centre[1] / k + origin[1]), g.turn_deg)
        mx, my = blob["mask_at"]
        face = (self.plane_to_image(square) * s - np.array([mx, my])).astype(np.float32)
        area = abs(cv2.contourArea(face))
        if area <= 0:
            return 0.0
        inside, _ = cv2.intersectConvexConvex(face, _blob_hull(blob).reshape(-1, 2).astype(np.float32))
        return float(inside) / area

    def _without_side_faces(self, dice: list[DieSeen]) -> list[DieSeen]:
        """Without the "dice" that lie where a die read flat beside them shows its side faces.

        Seen from a steep camera a die's side face, stretched onto the top-face plane, lies more than a
        side from its top's centre; the per-photo reader can take it for a die, and on a dark point a black
        die's top and side face change the board as two blobs. Within the flat outline of a die read (its
        top square and the side faces the camera sees, all on the camera's side) no other die can rest (one
        stacked on it shows its top on the side away from the camera), so a reading there that the grid
        reader scores lower than that die's face is a side face of it."""
        if not self.config.drop_side_faces:
            return dice
        read = [d for d in dice if d.status == "flat" and d.value is not None and "g_centre_mm" in d.features]
        outlines = [(d, self.flat_silhouette(d.features["g_centre_mm"], d.features.get("g_turn", 0.0),
                                             self.config.side_face_slack)) for d in read]

        def side_face(d: DieSeen) -> bool:
            score = d.features.get("g_score", -math.inf) if d.value is not None else -math.inf
            return any(e is not d and e.features.get("g_score", 0.0) > score and
                       cv2.pointPolygonTest(o, (float(d.board_mm[0]), float(d.board_mm[1])), False) >= 0
                       for e, o in outlines)

        return [d for d in dice if not side_face(d)]

    def _ghost(self, g: "GridReading | None", rect_mm, box: float, u: float, v: float) -> bool:
        """The reference shows a die face here at least as clearly: the last throw's die, picked up since
        (a re-throw starts before the table is still, so its reference may still hold the old dice)."""
        if g is None or self.reference_full is None:
            return False
        ref_crop = self.rectified(self.reference_full, rect_mm)
        contrast = max(self.config.grid_min_contrast, 0.8 * g.pip_contrast)
        k = self.config.rect_px_per_mm
        gr = grid_read(ref_crop, self.spec.die_size * k, centre_box=(u - box, v - box, u + box, v + box),
                       min_pip_contrast=contrast, view=self._view_at((rect_mm[0] + u / k, rect_mm[1] + v / k)))
        return gr is not None and gr.margin >= self.config.grid_agree_margin and gr.pip_contrast >= contrast

    def _on_blob(self, d: DieSeen, blob: dict) -> bool:
        """The die's top face lies on this changed blob's outline (a face found beside it belongs to another
        blob; a white face on a cream point changes only at its edges, so the outline, not the pixels)."""
        s = self.config.diff_scale
        mx, my = blob["mask_at"]
        hull = _blob_hull(blob)
        tol = 0.25 * self.die_px_at(*d.board_mm) * s + 1.0
        pt = (float(d.centre[0] * s - mx), float(d.centre[1] * s - my))
        return cv2.pointPolygonTest(hull, pt, True) >= -tol

    def _die_from(self, r: DiceReading | None, g: "GridReading | None", mm, origin, blob: dict, extra: int = 0,
                  far: "GridReading | None" = None) -> DieSeen:
        """One die from the per-photo reader's reading and the grid reader's, on the top-plane crop. ``far``:
        the faces found beyond it away from the camera and not taken (:meth:`_top_away_from_camera`), kept
        for :meth:`_rival_face_the_outline_explains`."""
        c = self.config
        k = c.rect_px_per_mm
        die = float(self.spec.die_size)
        feats: dict = {"blob_area": blob["area_mm"] / die ** 2, "blob_side": blob["side_mm"] / die, "extra": extra,
                       "r_status": r.status if r is not None else None, "r_value": r.value if r is not None else None,
                       "r_conf": float(r.confidence) if r is not None else None}
        r_flat = r is not None and r.status == "flat" and r.value is not None
        agree = g is not None and r_flat and r.value == g.value  # two readers, one value: less margin needed
        g_ok = self._grid_sure(g, agree)
        if g is not None:
            feats.update(face_features(g, origin, k, die))
            if g_ok:  # the lattice's centre is the face's centre
                mm = feats["g_centre_mm"]
                if g.margin_all is not None and g.margin_all < (c.grid_agree_margin if agree else c.grid_min_margin):
                    feats["loose_rival"] = g.margin_all  # sure only because an uneven face was no rival
            # every other face found on this die, for a face whose margin its rivals took
            # (_weak_face_the_outline_explains)
            feats["g_rivals"] = [face_features(a, origin, k, die) for a in g.alternatives if a.value != g.value]
            if r_flat and g.value != r.value:
                # the per-photo reader's face, as the grid reader found it on this die too: the die's outline
                # may say it is the top (see _face_the_outline_explains)
                for a in g.alternatives:
                    if a.value == r.value and a.pip_contrast >= c.grid_min_contrast and \
                            a.off_contrast < c.max_blank_spot * a.pip_contrast:
                        feats["g_alt"] = face_features(a, origin, k, die)
                        break
        if far is not None:
            feats["g_far"] = [face_features(a, origin, k, die) for a in (far, *far.alternatives)]
        if g_ok and (not r_flat or r.value == g.value or g.margin >= c.grid_overrules):
            value, status, reason = g.value, "flat", ""
            conf = min(1.0, 0.5 + g.margin / 100.0) if not (r_flat and r.value == g.value) else max(float(r.confidence), 0.9)
        elif g_ok and r_flat:
            value, status, reason, conf = None, "unclear", f"read as {r.value} and as {g.value}", 0.3
        elif r_flat and c.trust_reader_alone:
            value, status, reason, conf = r.value, "flat", "", float(r.confidence)
        elif not g_ok and self._grid_sure(g, agree, even=False):
            # a clear face but for its pips, unlike one face's (a top pip and a side face's): a die whose
            # value is not that face's, kept as a die even where the per-photo reader saw none
            value, status, reason, conf = None, "unclear", _UNEVEN_PIPS, 0.0
        else:
            value, status, reason, conf = None, "unclear", "unreadable", 0.0
        centre = tuple(float(v) for v in self.plane_to_image([mm])[0])
        reading = DiceReading(value, centre, (), conf, status, die * float(self.calibration.px_per_mm_at(mm)))
        return DieSeen(value, status, "unknown", centre, (float(mm[0]), float(mm[1])), conf, reason, reading, feats)

    def _unread_die(self, centre_mm, blob: dict) -> DieSeen:
        feats = {"blob_area": blob["area_mm"] / self.spec.die_size ** 2, "blob_side": blob["side_mm"] / self.spec.die_size}
        centre = tuple(float(v) for v in self.plane_to_image([centre_mm])[0])
        return DieSeen(None, "unclear", "unknown", centre, centre_mm, 0.0, "unreadable", None, feats)

    def flat_silhouette(self, centre_mm, yaw_deg: float, slack: float = 1.0) -> np.ndarray:
        """A flat die's outline on the top-face plane (board mm, convex): its top square at ``centre_mm``
        turned by ``yaw_deg``, and the side faces the camera sees, i.e. the bottom square seen through the
        camera onto that plane (``slack`` widens them: the focal length may be a prior)."""
        top = self._top_square(centre_mm, yaw_deg)
        bottom = self._board_on_top_plane(top)
        pts = np.vstack([top, bottom, top + slack * (bottom - top)])
        return cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)

    def _top_square(self, centre_mm, yaw_deg: float) -> np.ndarray:
        """A flat die's top face on the top-face plane: the square (board mm, 4 x 2) at ``centre_mm`` turned
        by ``yaw_deg``."""
        die = float(self.spec.die_size)
        t = math.radians(yaw_deg)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        return np.array([(-.5, -.5), (.5, -.5), (.5, .5), (-.5, .5)]) @ rot.T * die + np.asarray(centre_mm, np.float64)

    def _board_on_top_plane(self, pts_mm) -> np.ndarray:
        """Points on the board (mm) where the camera sees them on the top-face plane: a die's bottom edge
        lands there beyond its top, away from the camera, by as much of its side as the camera sees."""
        pts = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        px = self.camera.project(np.column_stack([pts, np.zeros(len(pts))]))
        hp = np.column_stack([px, np.ones(len(pts))]) @ self.top_from_image.T
        return hp[:, :2] / hp[:, 2:3]

    def _judge_die(self, d: DieSeen, roller: Player, opening: bool, others: Sequence[DieSeen] = (),
                   frame: np.ndarray | None = None) -> DieSeen:
        """The die's verdict: cocked, unclear or flat, and where it lies. ``frame``: the picture it was read in,
        for the tilt net (None: the net is not asked)."""
        c = self.config
        die = float(self.spec.die_size)
        x, y = d.board_mm
        placement = place_point(x, y, self.geometry, roller)
        if opening:
            other = "top" if roller == "bottom" else "bottom"
            if placement != "ok" and place_point(x, y, self.geometry, other) == "ok":
                placement = "ok"
        status, reason = d.status, d.reason
        # a die held back only by what it touches or by the tilt net's doubt: a person who sees it lie flat
        # may take its value (``proposed``); every other doubt (an uneven face, a body beyond the outline) is not theirs
        confirmable = False
        f = dict(d.features)
        f.setdefault("read_value", d.value)  # the value read, before the verdict (a second look may need it)
        supports = []  # what a die could lean on: a checker, the rail, the bar, the other die
        if len(self.checkers_mm):
            dist = float(np.min(np.hypot(self.checkers_mm[:, 0] - x, self.checkers_mm[:, 1] - y)))
            f["checker_dist"] = dist / die
            reach = c.touch_mm  # a little further when the per-photo reader is sure the die is cocked
            if f.get("r_status") == "cocked" and (f.get("r_conf") or 0.0) >= c.reader_cocked_conf:
                reach += c.reader_cocked_reach
            if dist < c.on_checker_mm:
                status, reason = "cocked", "resting on a checker"
            elif dist < self.spec.checker_diameter / 2 + reach * die:
                supports.append("a checker")
        sx0, sy0, sx1, sy1 = self.geometry.surface
        rail = min(x - sx0, sx1 - x, y - sy0, sy1 - y)
        f["rail_dist"] = rail / die
        if -die < rail < c.rail_touch_mm * die:
            supports.append("the board's edge")
        bx0, _, bx1, _ = self.geometry.bar
        if min(abs(x - bx0), abs(x - bx1)) < c.bar_touch * die:
            supports.append("the bar's edge")
        for o in others:
            if o is not d and math.dist(o.board_mm, d.board_mm) < c.die_touch * die:
                supports.append("the other die")
                break
        f["support"] = supports[0] if supports else ""
        if status == "flat":
            f.pop("tilt_why", None)  # judged again (the second look): the last verdict's evidence goes
            why = self._tilt_reason(f, d.value, frame)
            fits = self._other_face_that_fits(frame, d, others) if why == BODY_SHOWS else None
            if why == BODY_SHOWS and fits is None and self._net_clears_body(frame, f):
                f["body_cleared"] = True
                why = self._tilt_reason(f, d.value, frame, body=False)
            if why:
                f["tilt_why"] = why
                status, reason = ("cocked", why) if fits is None else \
                    ("unclear", f"its body lies beyond a flat {d.value}'s outline, not a {fits}'s: it may be flat")
            elif (f.get("g_face", 0.0) > c.face_tol or "loose_rival" in f) and f.get("beyond_mm2", 0.0) > c.loose_face_beyond:
                why = "uneven face" if f.get("g_face", 0.0) > c.face_tol else "another face read beside it"
                status, reason = "unclear", f"{why} and not quite a flat die's outline: it may be tilted"
            elif supports and not (self.config.pattern_proves_flat and self._surely_flat(f, d.value)):
                # the net answers how a die lies, not where: a die beside a checker and the bar's edge may
                # lie across the bar however flat (seed 15's case 109 was accepted so)
                doubts = [s for s in supports if s not in _NET_LIFTS]
                if not doubts and not self._net_says_flat(frame, f, supports):
                    doubts = supports
                if doubts:
                    status, reason, confirmable = "unclear", f"touching {doubts[0]}: it may lean on it", True
            elif self._net_unsure(frame, f):
                status, reason, confirmable = "unclear", NET_UNSURE, True
        elif status == "cocked" and not reason:
            reason = "tilted"
        value = d.value if status == "flat" else None
        proposed = d.value if status == "unclear" and confirmable else None
        reading = d.reading
        if reading is not None:
            reading = replace(reading, value=value, status=status)
        return replace(d, value=value, status=status, placement=placement, reason=reason, features=f, reading=reading,
                       proposed=proposed)

    def _opening_placements(self, dice: list[DieSeen]) -> list[DieSeen]:
        if len(dice) == 2 and all(d.placement == "ok" for d in dice):
            sides = [place_point(*d.board_mm, self.geometry, "bottom") == "ok" for d in dice]
            if sides[0] == sides[1]:
                dice = [dice[0], replace(dice[1], placement="wrong half")]
        return dice

    # -- RollWatcher reader protocol -----------------------------------------------------------------
    def use_reference(self, frame: np.ndarray) -> None:
        """``RollWatcher``'s hook: the last still frame before the throw began is this roll's reference."""
        self.set_reference(frame)

    def verdict_for(self, readings: Sequence[DiceReading], roller: Player = "bottom", opening: bool = False,
                    expected: int = 2) -> tuple[list[Placement], str, str]:
        """Placements and the verdict ("valid"/"void") of readings this reader returned, for ``roller``:
        what ``RollWatcher`` asks its reader when it can answer. An unclear roll is void ("re-roll")."""
        dice = self._judged(readings, roller, opening)
        verdict, reason = judge_dice(dice, expected)
        if verdict == "unclear":
            verdict = "void"
        return [d.placement for d in dice], verdict, reason

    def proposal_for(self, readings: Sequence[DiceReading], roller: Player = "bottom", opening: bool = False,
                     expected: int = 2) -> tuple[int, ...] | None:
        """The roll these readings show if the dice left unclear only for what they touch lie flat: every
        die read, placed right and otherwise flat. A die beside a checker or the rail may lean on it, and at
        webcam resolution a lean of 20-30 degrees does not show, so the reader cannot accept the roll; a
        person at the table can see it, as a floor referee would. None when there is nothing to propose."""
        return propose(self._judged(readings, roller, opening), expected, opening)

    def _judged(self, readings: Sequence[DiceReading], roller: Player, opening: bool) -> list[DieSeen]:
        """The dice of the last read behind ``readings`` (a die this reader did not read is taken as it
        comes), placed for ``roller``."""
        known = list(self.last.dice) if self.last is not None else []
        dice = []
        for r in readings:
            match = next((d for d in known if math.dist(d.centre, r.centre) < 1.0), None)
            if match is None:
                mm = self.to_plane([r.centre], self.spec.die_size)[0]
                match = DieSeen(r.value, r.status, "unknown", tuple(r.centre), (float(mm[0]), float(mm[1])),
                                float(r.confidence), "", r, {})
            dice.append(match)
        dice = [self._place(d, roller, opening) for d in dice]
        if opening:
            dice = self._opening_placements(dice)
        return dice

    def _place(self, d: DieSeen, roller: Player, opening: bool) -> DieSeen:
        x, y = d.board_mm
        placement = place_point(x, y, self.geometry, roller)
        if opening:
            other = "top" if roller == "bottom" else "bottom"
            if placement != "ok" and place_point(x, y, self.geometry, other) == "ok":
                placement = "ok"
        return replace(d, placement=placement)

    def __call__(self, frame, config=None) -> list[DiceReading]:
        """Readings for ``RollWatcher(reader=...)``: each die with the verdict's status (cocked/unclear)."""
        if self.reference is None:
            self.set_reference(frame)
            return []
        rr = self.read(frame)
        return [d.as_reading() for d in rr.dice]


def _blob_hull(blob: dict) -> np.ndarray:
    """A changed blob's outline (convex hull, mask px), worked out once and kept in the blob."""
    if blob.get("hull") is None:
        ys, xs = np.nonzero(blob["mask"])
        blob["hull"] = cv2.convexHull(np.column_stack([xs, ys]).astype(np.float32))
    return blob["hull"]


def _reading_rank(r) -> tuple:
    """Best first: flat before cocked/unclear, then the more confident."""
    return ({"flat": 0, "cocked": 1}.get(r.status, 2), -float(r.confidence))


def _shifted(r, dx: float, dy: float, scale: float = 1.0):
    """A reading from a (scaled) crop, in the whole frame's pixels."""
    def at(p):
        return (p[0] * scale + dx, p[1] * scale + dy)

    return replace(r, centre=at(r.centre), outline=tuple(at(p) for p in r.outline),
                   pips=tuple(at(p) for p in getattr(r, "pips", ())),
                   size=float(getattr(r, "size", 0.0) or 0.0) * scale)
