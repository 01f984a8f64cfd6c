"""What the camera pipeline needs around the dice reader to follow a real table: calibration from the
first frame, and a dice reader that only looks where something new came to rest.

Reading a whole 1280x720 frame finds "dice" everywhere a board has round bright spots: checker rims and
highlights, the corner ArUco markers, the doubling cube's digits. A die, though, is the one thing that
*arrives* on the board between two quiet moments. :class:`DiceLocator` keeps a reference view of the
table taken while no dice lie on it (after the dice were picked up, before the next throw) and, when the
roll watcher asks for a reading:

* with no dice down: compares the frame with that reference (colour difference at half size), keeps the
  changed blobs inside the playing surface (trays, frame, markers and the cube's resting place are
  masked out), and runs the real dice reader only on a crop around each blob; readings are kept when
  their centre lies on the playing surface and their side fits a die at the calibration's scale
  (``BoardSpec.die_size`` mm through the homography);
* with dice down (a settled roll): checks whether each settled die is still where it came to rest (the
  patch around it matches the patch at settle time); when they are gone, the dice were picked up.

Only crops are read, so the per-frame cost stays small (the roll watcher's motion measure on a
160-px copy, plus a few die-sized crops when something settles).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["DiceLocator", "LocatorConfig", "calibrate_first_frame"]

log = logging.getLogger(__name__)


def calibrate_first_frame(image, *, home: str = "right", bottom_player: str | None = None, fallback=None):
    """A calibration from one frame: the corner markers, else the board's own look, else ``fallback``."""
    from tablecompanion.calibration import calibrate_from_markers

    try:
        return calibrate_from_markers(image, home=home, bottom_player=bottom_player)
    except Exception as exc:  # noqa: BLE001 - no markers in view: try the board's look
        log.info("no calibration from markers (%s); looking for the board itself", exc)
    try:
        from tablecompanion.calibration import find_board

        cal = find_board(image, home=home, bottom_player=bottom_player)
        if cal is not None:
            return cal
    except Exception as exc:  # noqa: BLE001
        log.info("board not found in the first frame: %s", exc)
    return fallback


@dataclass(frozen=True)
class LocatorConfig:
    """Thresholds of :class:`DiceLocator` (sizes relative to a die's side at the calibration's scale)."""

    diff_scale: float = 0.5  # the change mask is computed at this fraction of the frame size
    diff_threshold: int = 70  # sum over B, G, R of |frame - reference| that counts as changed
    min_blob_frac: float = 0.25  # a changed blob must cover this much of a die's area
    max_blob_side: float = 6.0  # blobs larger than this many die sides (a hand, an arm) are not read
    crop_pad: float = 1.2  # die sides of margin around a blob when cropping for the dice reader
    max_crops: int = 6
    die_px_for_reader: float = 64.0  # crops are enlarged so a die is about this wide (its pips a few px)
    min_size: float = 0.6  # a reading's side must be within [min_size, max_size] x the expected side
    max_size: float = 1.45
    still_corr: float = 0.55  # a settled die is still there when its patch correlates this well
    gone_diff: float = 12.0  # ... and gone when its patch looks like the empty table again (mean |diff|)
    gone_level: float = 25.0  # ... at about the same brightness (light drifts a few %; a hand is brighter)
    picked_up_radius: float = 1.0  # die sides around a picked-up die taken from the empty view (with its shadow)
    # read new dice with the board-aware roll reader (vision.roll_reader: top-face plane, checkers and rails
    # as supports, placement where the die rests); False = the older crop-and-size filter below
    board_aware: bool = True
    hand_side: float = 6.0  # a changed blob longer than this many die sides is a hand or an arm


@dataclass
class DiceLocator:
    """A dice reader for ``RollWatcher(reader=...)`` that reads only what is new on the playing surface."""

    calibration: Any
    config: LocatorConfig = field(default_factory=LocatorConfig)
    reader: Callable[..., list] | None = None

    def __post_init__(self) -> None:
        import cv2

        from tablecompanion.vision.dice import read_dice

        self.reader = self.reader or read_dice
        cal = self.calibration
        geo = cal.geometry
        w, h = cal.image_size
        self.image_size = (int(w), int(h))
        self.reference: np.ndarray | None = None
        self.reference_grey: np.ndarray | None = None
        self.settled: list[tuple[Any, np.ndarray]] = []  # (reading, grey patch at settle time)
        self.reads = 0
        self.crops_read = 0
        self.rejected = {"outside": 0, "size": 0}
        # the playing surface (both halves and the bar) in the half-size change mask
        s = self.config.diff_scale
        poly = np.asarray(cal.rect_polygon_image(geo.surface, samples_per_side=8), dtype=np.float64) * s
        self.surface_mask = np.zeros((max(1, round(h * s)), max(1, round(w * s))), np.uint8)
        cv2.fillPoly(self.surface_mask, [np.round(poly).astype(np.int32)], 255)
        x0, y0, x1, y1 = geo.surface
        self.die_px = float(geo.spec.die_size) * float(cal.px_per_mm_at(((x0 + x1) / 2, (y0 + y1) / 2)))
        self.roll_reader = None
        self._frame = None
        self._covered_dice: set = set()
        self._picked_up: list[tuple[float, float]] = []  # where the last dice lay, until the next roll settles
        self._empty_full: np.ndarray | None = None  # the runner's latest empty-table view (full size)
        self._board_under: np.ndarray | None = None  # the board the settled dice were read against (full size)
        if self.config.board_aware:
            from tablecompanion.vision.roll_reader import RollReader

            self.roll_reader = RollReader(cal, reader=self.reader)

    # -- state the pipeline keeps up to date ------------------------------------------------------------
    def set_reference(self, image, resting: bool = False) -> None:
        """The table with no dice on it (the pipeline calls this on quiet frames between turns).
        ``resting``: a throw is coming to rest in ``image`` (the last dice were seen picked up only now): the
        roll reader keeps its reference, which the watcher hands it (the board before the throw), and takes
        ``image`` as a view only, without finding its checkers again (40 ms off the throw's call)."""
        self.reference = self._half(image)
        self.reference_grey = self._grey(image)
        self._empty_full = image.copy()  # a frame source may reuse its buffer
        if self.roll_reader is not None and resting:
            try:
                self.roll_reader.add_view(image)
            except Exception as exc:  # noqa: BLE001 - a frame of another size: no view
                log.debug("roll reader view refused: %s", exc)
        elif self.roll_reader is not None:
            try:
                self.roll_reader.set_reference(image)
            except Exception as exc:  # noqa: BLE001 - a frame of another size: keep the old reference
                log.debug("roll reader reference refused: %s", exc)

    def dice_settled(self, readings: Sequence, image) -> None:
        grey = self._grey(image)
        board = self.roll_reader.reference_full if self.roll_reader is not None else None
        self._board_under = None
        if board is not None and board.shape == image.shape:
            # the table these dice are seen leaving is the board the roll was read against: the runner's
            # empty-table view may be newer than the throw (a pick-up seen only once the next dice lay)
            self.reference_grey = self._grey(board)
            self._board_under = board
        self.settled = [(r, self._patch(grey, r.centre)) for r in readings]
        self._picked_up = []

    def dice_gone(self) -> None:
        self._picked_up = [tuple(r.centre) for r, _ in self.settled]
        self.settled = []
        self._covered_dice = set()

    @property
    def dice_down(self) -> bool:
        return bool(self.settled)

    # -- the reader ---------------------------------------------------------------------------------
    def __call__(self, frame, config=None) -> list:
        self.reads += 1
        if self.settled:
            return self._still_there(frame)
        if self.reference is None:
            self.set_reference(frame)
            return []
        if self.roll_reader is not None:
            return self._new_dice_board_aware(frame)
        return self._new_dice(frame, config)

    def _new_dice_board_aware(self, frame) -> list:
        """The roll reader's dice (status already cocked/unclear where it must be); [] while a hand is over
        the board (the watcher then waits)."""
        try:
            rr = self.roll_reader.read(frame)
        except Exception as exc:  # noqa: BLE001 - bad frame: no dice, never a crash
            log.debug("roll reader failed: %s", exc)
            return []
        self.crops_read = self.roll_reader.crops_read
        if rr.occluded:
            return []
        return [d.as_reading() for d in rr.dice]

    @property
    def use_reference(self):
        """``RollWatcher``'s hook: the still board just before the throw, for the roll reader only (the
        empty-table view that pick-ups are judged against stays the runner's)."""
        return self._roll_reference if self.roll_reader is not None else None

    @property
    def learn_board(self):
        """``RollWatcher``'s hook: the board the next throw will likely be read against (the last play caught
        up while the dice roll), for the roll reader to find its checkers on a frame in motion."""
        return self._learn_board if self.roll_reader is not None else None

    def _learn_board(self, board) -> None:
        try:
            self.roll_reader.learn_ahead(board)
        except Exception as exc:  # noqa: BLE001 - a frame of another size: the read-ahead searches itself
            log.debug("roll reader could not learn a board ahead: %s", exc)

    def _roll_reference(self, frame) -> None:
        try:
            if self.settled:  # dice down: nothing is read, the settled dice are only followed ...
                self.roll_reader.learn_checkers(frame)  # ... but this board's checkers are found ahead
                return
            self.roll_reader.set_reference(self._without_last_dice(frame))
        except Exception as exc:  # noqa: BLE001 - a frame of another size: keep the old reference
            log.debug("roll reader reference refused: %s", exc)

    def _without_last_dice(self, frame: np.ndarray) -> np.ndarray:
        """``frame`` with the places of the dice picked up since the last roll taken from the empty-table
        view of the pick-up. The watcher's board before the throw is the last *still* view, and when the
        pick-up and the next throw run together (no still moment between) it still shows the old dice: a
        new die landing where an old one lay would then differ from it only in its pips (a 1 on a red
        point read as no die). Only those places are taken: the rest of the pick-up frame may hold a hand.

        The pick-up itself may be seen only on the first still frame after the next throw, with a new die
        beside the old one's place. So a pixel is taken only where ``frame`` differs from the pick-up frame
        (a moved checker both show stays), and where the pick-up frame also differs from the board the old
        dice were read against (which showed the table there), from that board instead."""
        import cv2

        empty = self._empty_full
        if not self._picked_up or empty is None or empty is frame or empty.shape != frame.shape:
            return frame
        under = self._board_under if self._board_under is not None and self._board_under.shape == frame.shape \
            else None
        out = frame.copy()
        h, w = frame.shape[:2]
        r = max(3, int(round(self.die_px * self.config.picked_up_radius)))
        square = np.ones((5, 5), np.uint8)
        for cx, cy in self._picked_up:
            x, y = int(round(cx)), int(round(cy))
            x0, y0, x1, y1 = max(0, x - r), max(0, y - r), min(w, x + r + 1), min(h, y + r + 1)
            place = empty[y0:y1, x0:x1]
            if under is None or frame.ndim != 3:
                out[y0:y1, x0:x1] = place
                continue
            before, now = under[y0:y1, x0:x1], frame[y0:y1, x0:x1]
            new = cv2.dilate(self._differs(place, before).astype(np.uint8), square).astype(bool)
            take = cv2.dilate(self._differs(place, now).astype(np.uint8), square).astype(bool)
            out[y0:y1, x0:x1] = np.where(take[..., None], np.where(new[..., None], before, place), now)
        return out

    @property
    def use_rest_frames(self):
        """``RollWatcher``'s hook: the still frames of the rest it decides on, for the roll reader's second look."""
        return self.roll_reader.use_rest_frames if self.roll_reader is not None else None

    @property
    def prefetch(self):
        """``RollWatcher``'s read-ahead hook: the roll reader reads a frame that may show the roll at rest
        (nothing while dice are down or before a reference exists)."""
        return self._prefetch if self.roll_reader is not None else None

    def _prefetch(self, frame) -> bool:
        """False when nothing could be read yet (the watcher asks again on its next quiet frame)."""
        if self.settled or self.reference is None:
            return False
        try:
            self.roll_reader.prefetch(frame)
        except Exception as exc:  # noqa: BLE001 - the decision reads the frame itself
            log.debug("roll reader read-ahead failed: %s", exc)
        return True

    @property
    def roll_ahead(self) -> bool:
        """The frame read ahead shows dice: a throw is about to be called (the pipeline keeps other reads
        off the frames until the call)."""
        ahead = self.roll_reader.read_ahead if self.roll_reader is not None else None
        return ahead is not None and bool(ahead.dice)

    @property
    def verdict_for(self):
        """The roll reader's placements and verdict (``RollWatcher`` asks its reader), or None without it."""
        return self.roll_reader.verdict_for if self.roll_reader is not None else None

    @property
    def proposal_for(self):
        """The roll reader's proposal for a roll unclear only for what a die touches, or None without it."""
        return self.roll_reader.proposal_for if self.roll_reader is not None else None

    def gone(self, frame) -> bool:
        """Every settled die has left its place, and the table shows there as it did before the throw."""
        if not self.settled or self.reference_grey is None:
            return False
        grey = self._grey(frame)
        self._frame = frame
        try:
            return all(self._die_gone(grey, reading, before) for reading, before in self.settled)
        finally:
            self._frame = None

    def _die_gone(self, grey, reading, before) -> bool:
        """Gone: the patch no longer shows the die *and* shows the table as it was before the throw (a hand
        or a checker pushed beside the die is not a pick-up)."""
        import cv2

        now = self._patch(grey, reading.centre)
        empty = self._patch(self.reference_grey, reading.centre)
        if now.shape != before.shape or now.shape != empty.shape or now.size == 0:
            return False
        corr = float(cv2.matchTemplate(now, before, cv2.TM_CCOEFF_NORMED)[0, 0])
        if math.isfinite(corr) and corr >= self.config.still_corr:
            return False
        if abs(float(now.mean()) - float(empty.mean())) <= self.config.gone_level and \
                float(np.mean(np.abs((now - now.mean()) - (empty - empty.mean())))) <= self.config.gone_diff:
            return True
        # something else lies there: a hand (not a pick-up), or a checker the play put over the die
        return self._covered(reading)

    def _covered(self, reading) -> bool:
        """A settled die's place shows no die face any more and no hand is over the board: a checker of
        the play was put on or over it (the simulator's plays ignore the dice; players push them aside).
        Needs the roll reader (top-face plane, grid reader); remembered once true."""
        rr = self.roll_reader
        if rr is None or self._frame is None:
            return False
        key = (round(reading.centre[0]), round(reading.centre[1]))
        if key in self._covered_dice:
            return True
        try:
            blobs, _ = rr.changed_blobs(self._frame)
            die = float(rr.spec.die_size)
            if any(b["side_mm"] > self.config.hand_side * die for b in blobs):
                return False  # a hand or an arm is over the board
            from tablecompanion.vision.pip_grid import grid_read

            x, y = rr.to_plane([reading.centre], die)[0]
            k = rr.config.rect_px_per_mm
            crop = rr.rectified(self._frame, (x - 1.5 * die, y - 1.5 * die, x + 1.5 * die, y + 1.5 * die))
            c = 1.5 * die * k
            g = grid_read(crop, die * k, centre_box=(c - 0.6 * die * k, c - 0.6 * die * k, c + 0.6 * die * k, c + 0.6 * die * k))
        except Exception as exc:  # noqa: BLE001 - cannot tell: not gone
            log.debug("covered-die check failed: %s", exc)
            return False
        if g is not None and g.pip_contrast >= rr.config.grid_min_contrast and g.margin >= rr.config.grid_agree_margin:
            return False  # a die face still shows there
        self._covered_dice.add(key)
        return True

    def _still_there(self, frame) -> list:
        """The settled dice until all of them are gone (see :meth:`gone`); then [] (picked up)."""
        return [] if self.gone(frame) else [r for r, _ in self.settled]

    def _new_dice(self, frame, config) -> list:
        import cv2

        c = self.config
        small = self._half(frame)
        if small.shape != self.reference.shape:
            self.reference = small
            return []
        mask = (self._differs(small, self.reference).astype(np.uint8) * 255) & self.surface_mask
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        die = self.die_px * c.diff_scale
        blobs = []
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            if area < c.min_blob_frac * die * die or max(bw, bh) > c.max_blob_side * die:
                continue
            blobs.append((area, x, y, bw, bh))
        blobs.sort(reverse=True)
        out: list = []
        H, W = frame.shape[:2]
        # a 17-px die has 2-px pips, below what the pip finder sees: read crops enlarged
        up = int(min(4, max(1, round(c.die_px_for_reader / max(self.die_px, 1.0)))))
        # the die's size is known from the calibration, so the reader does not size the crops again; and
        # the crops hold only what changed since the board was last seen, so a weak find called cocked is
        # not a stack of checkers (net_weak_heat is for whole photos of a board)
        from tablecompanion.vision.dice import DEFAULT_CONFIG

        config = replace(config or DEFAULT_CONFIG, big_die=0.0, small_die=0.0, net_weak_heat=0.0,
                         net_weak_cocked_heat=0.0)
        for _, x, y, bw, bh in blobs[: c.max_crops]:
            pad = c.crop_pad * die
            x0 = int(max(0, (x - pad) / c.diff_scale))
            y0 = int(max(0, (y - pad) / c.diff_scale))
            x1 = int(min(W, (x + bw + pad) / c.diff_scale))
            y1 = int(min(H, (y + bh + pad) / c.diff_scale))
            self.crops_read += 1
            crop = np.ascontiguousarray(frame[y0:y1, x0:x1])
            if up > 1:
                crop = cv2.resize(crop, None, fx=up, fy=up, interpolation=cv2.INTER_CUBIC)
            try:
                found = self.reader(crop, config)
            except Exception as exc:  # noqa: BLE001 - an unreadable crop is no die
                log.debug("dice reader failed on a crop: %s", exc)
                continue
            for r in found:
                r = _shifted(r, x0, y0, 1.0 / up)
                if self._keep(r) and not any(math.dist(r.centre, k.centre) < 0.6 * self.die_px for k in out):
                    out.append(r)
        out.sort(key=lambda r: (r.centre[0], r.centre[1]))
        return out

    def _keep(self, r) -> bool:
        geo = self.calibration.geometry
        x, y = (float(v) for v in self.calibration.image_to_board([r.centre])[0])
        sx0, sy0, sx1, sy1 = geo.surface
        tol = geo.spec.die_size / 2
        if not (sx0 - tol <= x <= sx1 + tol and sy0 - tol <= y <= sy1 + tol):
            self.rejected["outside"] += 1
            return False
        expected = float(geo.spec.die_size) * float(self.calibration.px_per_mm_at((x, y)))
        size = float(getattr(r, "size", 0.0) or 0.0)
        if size and not (self.config.min_size * expected <= size <= self.config.max_size * expected):
            self.rejected["size"] += 1
            return False
        return True

    # -- images -------------------------------------------------------------------------------------
    def _half(self, image) -> np.ndarray:
        import cv2

        s = self.config.diff_scale
        h, w = self.surface_mask.shape
        small = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA) if s != 1 else image
        return cv2.GaussianBlur(small, (3, 3), 0)

    @staticmethod
    def _grey(image) -> np.ndarray:
        import cv2

        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image

    def _differs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Where two colour pictures differ: |B| + |G| + |R| over ``diff_threshold`` (a bool mask)."""
        import cv2

        return np.sum(cv2.absdiff(a, b), axis=2, dtype=np.int32) > self.config.diff_threshold

    def _patch(self, grey: np.ndarray, centre) -> np.ndarray:
        r = max(3, int(round(self.die_px * 0.65)))  # the die and little around it
        x, y = int(round(centre[0])), int(round(centre[1]))
        h, w = grey.shape[:2]
        x0, y0, x1, y1 = max(0, x - r), max(0, y - r), min(w, x + r + 1), min(h, y + r + 1)
        return np.ascontiguousarray(grey[y0:y1, x0:x1]).astype(np.float32)


def _shifted(r, dx: float, dy: float, scale: float = 1.0):
    """A reading from a (scaled) crop, in the whole frame's pixels."""
    def at(p):
        return (p[0] * scale + dx, p[1] * scale + dy)

    try:
        return replace(r, centre=at(r.centre), outline=tuple(at(p) for p in r.outline),
                       pips=tuple(at(p) for p in getattr(r, "pips", ())),
                       size=float(getattr(r, "size", 0.0) or 0.0) * scale)
    except TypeError:  # not a dataclass: move the centre only
        r.centre = at(r.centre)
        return r
