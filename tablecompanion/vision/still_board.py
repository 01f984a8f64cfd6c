"""The still board before a throw, and what changed on it since: where a roll reader looks for dice.

A die is the one thing that *arrives* between the last play and the roll, so the roll reader compares each
frame with a reference frame of the still board instead of searching the whole picture. :class:`StillBoard`
keeps that reference (and the earlier still views a change may already have shown), finds the checkers on
it once per board (the on-checker test needs them; finding them costs 30 ms, so it is done ahead of the
read where it can be), and turns the difference with a frame into die-sized blobs measured in board
millimetres. It is a part of :class:`~tablecompanion.vision.roll_reader.RollReader` and works on its
calibration and settings (``config``, ``calibration``, ``geometry``, ``spec``, ``image_size``, ``small_size``,
``search_mask``, ``_checker_area``, ``_check``, ``_row_light``, ``_face_px_small``, ``to_plane``, ``plane_to_image``).
"""

from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np


class StillBoard:
    """The reference and the change since it for :class:`~tablecompanion.vision.roll_reader.RollReader`
    (a mixin: see the module)."""

    def set_reference(self, frame: np.ndarray, checkers_mm: Sequence[tuple[float, float]] | None = None) -> None:
        """The still board before the throw. ``checkers_mm``: where checkers stand (board mm), when the
        caller knows the position; otherwise they are found in the reference (checker discs), once per
        board (:meth:`_checkers_on`)."""
        frame = self._check(frame)
        small = self._small(frame)
        if checkers_mm is None and self.reference is not None and np.array_equal(small, self.reference):
            return  # the same view again (the watcher's hook at read-ahead and at the decision): keep what was found
        if self.reference is not None:  # another still view of the table before this throw
            self._keep_view(self.reference, self._reference_level)
        self.reference = small
        self.reference_full = frame.copy()
        self._reference_level = None  # its median green level in the search area, once needed
        self._pending = None
        if checkers_mm is not None:
            self.checkers_mm = np.asarray(list(checkers_mm), np.float64).reshape(-1, 2)
        else:
            self.checkers_mm = self._checkers_on(frame, small)

    def add_view(self, frame: np.ndarray) -> None:
        """Another still view of the table, kept as a replaced reference is (:meth:`_seen_before`) without
        becoming the reference or having its checkers found: the runner's empty-table view after a pick-up
        seen only once the next throw has come to rest. The watcher hands the reader the board before the
        throw itself; this view shows the checkers the play moved just before."""
        self._keep_view(self._small(self._check(frame)), None)

    def _keep_view(self, small: np.ndarray, level: float | None) -> None:
        """An earlier still view (at half size, with its search area's median level when known) for
        :meth:`_seen_before`; the last ``max_views`` are kept."""
        self._views = (self._views + [(small, level)])[-self.config.max_views:]

    def learn_checkers(self, frame: np.ndarray) -> None:
        """Find the checkers of a still view of the table now, without making it the reference: a reference
        of the same board given later (the board before a throw, once the last dice are seen picked up)
        then finds them at once. The camera pipeline calls this when a hand or a throw starts while the
        last dice still lie, so that the search (30 ms) falls on a frame in motion, not on the roll's read.
        The same frame again (the watcher hands the board before the motion over at its start and at each
        decision) is not compared with the boards known a second time."""
        if frame is self._learned:
            return
        checked = self._check(frame)
        self._checkers_on(checked, self._small(checked))
        self._learned = frame

    def learn_ahead(self, frame: np.ndarray) -> None:
        """Find the checkers of a board the next reference will likely be, kept apart from the boards
        known (one at a time, each replacing the last): the board the last play left, made while the dice
        of a throw that ran into it still roll. Kept apart, a board made too early never pushes out the
        board before the throw's motion, which the watcher hands over again on every quiet frame while
        the last dice lie."""
        checked = self._check(frame)
        small = self._small(checked)
        if self._known_checkers(small) is not None or self._shows_ahead(small):
            return
        found = self._find_checkers(checked)
        self._ahead = (small, _masked_median(small, self.search_mask), found)

    def _known_checkers(self, small: np.ndarray) -> np.ndarray | None:
        """The checkers found on a known board that ``small`` shows too (:meth:`_same_board`), else None."""
        for board, level, found in self._checker_boards:
            if self._same_board(small, board, level):
                return found
        return None

    def _shows_ahead(self, small: np.ndarray) -> bool:
        """``small`` shows the board learned ahead (:meth:`learn_ahead`)."""
        return self._ahead is not None and self._same_board(small, self._ahead[0], self._ahead[1])

    def _checkers_on(self, frame: np.ndarray, small: np.ndarray) -> np.ndarray:
        """The checkers of ``frame`` (``small``: it at half size): those found on an earlier view of the same
        board (only the last throw's dice may differ, :meth:`_same_board`), else found now. References come
        far more often than the board changes (the runner refreshes its empty-table view every few quiet
        frames), so finding them here, once per board, keeps the search off the roll's read."""
        found = self._known_checkers(small)
        if found is not None:
            return found
        if self._shows_ahead(small):
            found, self._ahead = self._ahead[2], None  # the board learned ahead: now one of the known
        else:
            found = self._find_checkers(frame)
        level = _masked_median(small, self.search_mask)
        self._checker_boards = ([(small, level, found)] + self._checker_boards)[:3]
        return found

    def _same_board(self, small: np.ndarray, board: np.ndarray, level: float) -> bool:
        """``small`` shows the checkers as ``board`` does: what differs on the board (where the checkers are
        searched) is at most ``same_board`` die faces of change, besides die-sized changes where the last
        read's dice lay (old dice on one of them)."""
        c, s = self.config, self.config.diff_scale
        mask, _ = self._changed(small, board, level)
        mask &= self._checker_area
        face = self._face_px_small
        if cv2.countNonZero(mask) <= c.same_board * face:
            return True  # all of the change is within the bound: no need to tell the old dice apart (2 ms)
        n, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
        dice_px = []
        if self._previous is not None and n > 1:
            dice_px = [tuple(p * s) for p in self.plane_to_image(self._previous.dice_mm)]
        near = 1.5 * math.sqrt(face)  # 1.5 die sides, in half-size px
        other = 0
        for i in range(1, n):
            area = int(stats[i, cv2.CC_STAT_AREA])
            if area <= 3 * face and any(math.dist(centres[i], d) < near for d in dice_px):
                continue  # the last throw's die (and shadow), on one board and not the other
            other += area
        return other <= c.same_board * face

    def _find_checkers(self, frame: np.ndarray) -> np.ndarray:
        """The checkers' centres found in ``frame`` (board mm, shape (n, 2))."""
        from tablecompanion.vision.board_reader import warp_board
        from tablecompanion.vision.checkers import CheckerConfig, find_discs

        cfg = CheckerConfig()
        try:
            warped = warp_board(frame, self.calibration, cfg.px_per_mm)
            found = [(d.x, d.y) for d in find_discs(warped, self.geometry, cfg)]
        except Exception:  # noqa: BLE001 - no checkers known: the on-checker test is then skipped
            found = []
        return np.asarray(found, np.float64).reshape(-1, 2)

    def _small(self, frame: np.ndarray) -> np.ndarray:
        small = cv2.resize(frame, self.small_size, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def _reference_median(self) -> float:
        """The reference's median green level in the search area: worked out once a reference, when first
        needed (brightness matching, and the board a read's dice are told to have left)."""
        if self._reference_level is None:
            self._reference_level = _masked_median(self.reference, self.search_mask)
        return self._reference_level

    def _changed(self, small: np.ndarray, ref: np.ndarray, ref_level: float | None = None,
                 threshold: int | None = None) -> tuple[np.ndarray, float]:
        """Where ``small`` differs from ``ref`` (both half size) in the search area by more than ``threshold``
        (None: ``diff_threshold``), brightness-matched: a 0/255 mask, and the gain applied to ``ref``."""
        a = _masked_median(small, self.search_mask)
        b = _masked_median(ref, self.search_mask) if ref_level is None else ref_level
        gain = a / b if b > 1 else 1.0
        refg = cv2.convertScaleAbs(ref, alpha=gain) if abs(gain - 1) > 0.01 else ref
        # and band of picture rows by band: lamps on 50 Hz mains roll a rolling shutter's bands through
        # the picture (row_light), which summed over B, G, R read as change on every light point
        refg = self._row_light.match(refg, small)
        # sum over B, G, R of |small - reference| (cv2.add into 16 bits: a tenth of numpy's int16 sum)
        ch = cv2.split(cv2.absdiff(small, refg))
        diff = cv2.add(cv2.add(ch[0], ch[1], dtype=cv2.CV_16U), ch[2], dtype=cv2.CV_16U)
        threshold = self.config.diff_threshold if threshold is None else threshold
        return ((diff > threshold).astype(np.uint8) * 255) & self.search_mask, gain

    def changed_blobs(self, frame: np.ndarray, small: np.ndarray | None = None,
                      threshold: int | None = None) -> tuple[list[dict], float]:
        """Die-sized blobs of change vs the reference (frame px boxes, mm measures) and the changed area
        in die faces (large = a hand). ``small``: the frame at half size when already made; ``threshold``:
        what counts as change (None: ``diff_threshold``)."""
        c = self.config
        small = self._small(frame) if small is None else small
        # brightness drift (auto exposure, light) between the reference and now
        mask, self._gain = self._changed(small, self.reference, self._reference_median(), threshold)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        s = c.diff_scale
        face = float(self.spec.die_size) ** 2
        blobs, total = [], 0.0
        for i in range(1, n):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            ys, xs = np.nonzero(labels[y:y + bh, x:x + bw] == i)
            pts = np.column_stack([xs + x + 0.5, ys + y + 0.5]) / s
            mm = self.to_plane(pts)
            if not np.isfinite(mm).all():
                continue
            # pixel area on the board: each small pixel covers (1/s)^2 frame px
            cx, cy = np.median(mm, axis=0)
            ppm = float(self.calibration.px_per_mm_at((float(cx), float(cy))))
            area_mm = area / (s * s) / max(ppm * ppm, 1e-9)
            total += area_mm / face
            if area_mm < c.min_blob_area * face:
                continue
            rect = cv2.minAreaRect(mm.astype(np.float32))
            side = max(rect[1])
            blobs.append({"box": (x / s, y / s, (x + bw) / s, (y + bh) / s), "area_mm": area_mm,
                          "side_mm": float(side), "short_mm": float(min(rect[1])), "centre_mm": (float(cx), float(cy)), "label": i,
                          "mask": labels[y:y + bh, x:x + bw] == i, "mask_at": (x, y)})
        blobs.sort(key=lambda b: -b["area_mm"])
        return blobs, total

    def _same_view(self, small: np.ndarray, other: np.ndarray) -> bool:
        mask, _ = self._changed(small, other)
        return cv2.countNonZero(mask) <= self.config.prefetch_tolerance * self._face_px_small

    def _seen_before(self, blob: dict) -> bool:
        """This change is no arrival of this throw: the frame shows the blob's place as another still view
        of the table taken before the throw does, i.e.

        * the board before the last read's dice came, where one of them lay (it was picked up after the
          reference was taken: a re-throw often starts before the table is still again), or
        * a reference given since the last read and replaced (the runner's empty-table view after the
          pick-up, fresher than the board before the throw's motion when the play and the throw ran
          into each other: checkers moved by the play).

        Only asked for blobs the per-photo reader finds no die in (the grid reader's search of them is
        the read's most costly part)."""
        c, small = self.config, self._small_now
        if small is None:
            return False
        views = list(self._views)
        prev = self._previous
        if prev is not None and any(math.dist(blob["centre_mm"], p) < c.departed_near * self.spec.die_size
                                    for p in prev.dice_mm):
            views.append((prev.board, prev.level))
        x, y = blob["mask_at"]
        h, w = blob["mask"].shape
        pixels = np.count_nonzero(blob["mask"])
        for board, level in views:
            changed = self._seen.get(id(board))
            if changed is None:
                changed = self._seen[id(board)] = self._changed(small, board, level)[0]
            if np.count_nonzero(changed[y:y + h, x:x + w][blob["mask"]]) <= c.departed_share * pixels:
                return True
        return False

    def _two_dice_at_most(self, blob: dict) -> bool:
        """No larger than two dice with their shadows (a moved checker or a sleeve is)."""
        c = self.config
        die = float(self.spec.die_size)
        return blob["side_mm"] <= c.max_blob_side * die and blob["short_mm"] <= c.max_blob_short * die and \
            blob["area_mm"] <= c.max_blob_area * die ** 2

    def _faint_blobs(self, frame: np.ndarray, small: np.ndarray) -> list[dict]:
        """Blobs of change over ``faint_threshold`` that lie mostly (all but ``faint_overlap``) where nothing
        changed by ``diff_threshold``: a die the first search could not see, not the halo of one it saw."""
        c = self.config
        strong, _ = self._changed(small, self.reference, self._reference_median())
        out = []
        for blob in self.changed_blobs(frame, small, c.faint_threshold)[0]:
            if not self._two_dice_at_most(blob):
                continue
            mx, my = blob["mask_at"]
            m = blob["mask"]
            inside = np.count_nonzero(strong[my:my + m.shape[0], mx:mx + m.shape[1]][m])
            if inside <= c.faint_overlap * np.count_nonzero(m):
                out.append(blob)
        return out

    def _die_sized(self, blob: dict) -> bool:
        """A change the size of a die with its shadow (at most three sides long, half a face or more)."""
        die = float(self.spec.die_size)
        return blob["side_mm"] <= 3.0 * die and blob["area_mm"] >= 0.5 * die ** 2

    def _blob_on_top_plane(self, blob: dict) -> np.ndarray:
        """The changed blob's pixels (their centres) mapped onto the top-face plane (mm)."""
        mx, my = blob["mask_at"]
        ys, xs = np.nonzero(blob["mask"])
        pts = np.column_stack([xs + mx + 0.5, ys + my + 0.5]) / self.config.diff_scale
        return self.to_plane(pts, float(self.spec.die_size))


def _masked_median(img: np.ndarray, mask: np.ndarray) -> float:
    """``np.median`` of the green channel where ``mask`` is set (1.0 when empty), from a histogram."""
    hist = cv2.calcHist([img], [1], mask, [256], [0, 256]).ravel()
    n = int(hist.sum())
    if n == 0:
        return 1.0
    cum = np.cumsum(hist)
    lo = int(np.searchsorted(cum, (n - 1) // 2 + 1))
    hi = int(np.searchsorted(cum, n // 2 + 1))
    return (lo + hi) / 2.0
