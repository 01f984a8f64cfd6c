"""Light that differs by picture rows between two frames, matched before they are compared for motion.

Lamps on 50 Hz mains (LED, fluorescent) pulse at 100 Hz; a webcam's rolling shutter reads its rows one
after another, so each row catches the pulse at another phase and the picture carries soft bright and dark
bands across it. At 30 frames/s they roll a third of a band every frame: two frames of a still board then
differ everywhere by up to twice the bands' depth (3 % bands: a mean grey change of 4, the board watcher's
whole motion threshold). A camera's exposure stepping (a light switched on) is the same with one band.

``RowLight`` takes a band of rows at a time, finds by how much its light changed between the frames (the
median ratio over its pixels: a hand or a rolling die covers a few of them and moves it little), and
scales the earlier frame's rows to the later light. When every band's light is within ``STEADY`` of the
same the earlier frame is returned as it was, so steady light compares exactly as without it.
"""

from __future__ import annotations

import numpy as np

STEADY = 0.01  # bands whose light changed less than this are left alone
MIN_PIXELS = 24  # a band with fewer pixels (mostly outside the board) takes its neighbours' light
SAMPLES = 192  # pixels of each band the median is taken over


class RowLight:
    """Match an earlier frame's light to a later one's, band of picture rows by band.

    ``rows`` gives, for each pixel of the pictures to be compared, the picture row (0 top .. 1 bottom) it
    was read from; ``offset`` is added before taking ratios: 0 for grey levels and colour (a light change
    scales them), about 41 for OpenCV's 8-bit Lab lightness (it scales L + 16 on the 0-100 scale). Colour
    pictures are matched on their channels' sum, every channel by the same gain."""

    def __init__(self, rows: np.ndarray, mask: np.ndarray | None = None, bands: int = 24, offset: float = 0.0) -> None:
        rows = np.asarray(rows, np.float32)
        self.shape = rows.shape
        self.bands = int(bands)
        self.offset = float(offset)
        self.rows = np.clip(rows, 0.0, 1.0)
        band = np.minimum((self.rows * self.bands).astype(np.int32), self.bands - 1).ravel()
        use = np.ones(self.shape, bool) if mask is None else np.asarray(mask, bool)
        flat = np.flatnonzero(use.ravel())
        # SAMPLES pixels spread over each band that has enough (a median of a few hundred is as good as
        # one of all, and one call takes them all)
        self._known = []
        samples = []
        for i in range(self.bands):
            pixels = flat[band[flat] == i]
            if len(pixels) >= MIN_PIXELS:
                self._known.append(i)
                samples.append(pixels[np.linspace(0, len(pixels) - 1, SAMPLES).astype(np.int64)])
        self._samples = np.array(samples, np.int64).reshape(len(samples), SAMPLES)
        self._centres = (np.arange(self.bands, dtype=np.float32) + 0.5) / self.bands
        # a picture scaled from the camera's has one source row per row: the scale is then worked out per
        # row and broadcast, not per pixel (the same values: ``np.interp`` of the same rows)
        self._row_of_row = self.rows[:, 0].copy() if self.rows.ndim == 2 and self.rows.size \
            and bool(np.all(self.rows == self.rows[:, :1])) else None
        self._out: np.ndarray | None = None  # the float64 work picture, kept: a fresh 5 MB one each call
        # page-faulted in 5-45 ms on a loaded machine

    @classmethod
    def for_picture(cls, height: int, width: int, mask: np.ndarray | None = None) -> "RowLight":
        """For pictures that are the camera's picture scaled (each pixel's row is its own row)."""
        rows = np.repeat(((np.arange(height, dtype=np.float32) + 0.5) / height)[:, None], width, axis=1)
        return cls(rows, mask=mask)

    def gains(self, earlier: np.ndarray, later: np.ndarray) -> np.ndarray | None:
        """Per band, how much brighter the later frame is (the median ratio), or None when too few bands
        can say."""
        if len(self._known) < 2:
            return None
        a = self._values(earlier)
        b = self._values(later)
        known = np.median(b / np.maximum(a, 1.0), axis=1)
        return np.interp(self._centres, self._centres[self._known], known).astype(np.float32)

    def _values(self, img: np.ndarray) -> np.ndarray:
        """The sampled pixels (bands x SAMPLES), a colour picture's channels summed, plus the offset."""
        flat = img.reshape(-1, img.shape[2] if img.ndim == 3 else 1)
        channels = flat.shape[1]
        return flat[self._samples].astype(np.float32).sum(axis=-1) + self.offset * channels

    def match(self, earlier: np.ndarray, later: np.ndarray) -> np.ndarray:
        """``earlier`` with its rows' light scaled to ``later``'s (uint8), or ``earlier`` itself when the
        light is steady."""
        if earlier.shape[:2] != self.shape or later.shape[:2] != self.shape:
            raise ValueError(f"RowLight was built for {self.shape} pictures, got {earlier.shape[:2]} and {later.shape[:2]}")
        gains = self.gains(earlier, later)
        if gains is None or float(np.max(np.abs(gains - 1.0))) < STEADY:
            return earlier
        if self._row_of_row is not None:
            scale = np.interp(self._row_of_row, self._centres, gains)[:, None]
        else:
            scale = np.interp(self.rows.ravel(), self._centres, gains).reshape(self.shape)
        if earlier.ndim == 3:
            scale = scale[..., None]
        # ((earlier + offset) * scale - offset + 0.5) in float64, clipped and truncated to uint8, in place
        if self._out is None or self._out.shape != earlier.shape:
            self._out = np.empty(earlier.shape, np.float64)
        out = self._out
        np.add(earlier, self.offset, out=out)
        out *= scale
        if self.offset:
            out -= self.offset
        out += 0.5
        np.clip(out, 0, 255, out=out)
        return out.astype(np.uint8)
