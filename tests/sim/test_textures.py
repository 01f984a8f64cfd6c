"""The table top is planks, not a repeating stripe, and the board is painted the same whatever the table."""

from __future__ import annotations

import numpy as np

from tablecompanion.geometry import BoardGeometry
from tablecompanion.sim import board as board_paint
from tablecompanion.sim import textures
from tablecompanion.sim.style import STYLES


def test_table_top_has_plank_seams_and_irregular_grain():
    px_per_mm = 1.0
    img = textures.table_top((600, 900), (150, 160, 168), np.random.default_rng(3), px_per_mm).mean(axis=2)
    rows = img.mean(axis=1)
    # seams: a few rows much darker than the wood on either side (planks are 95-150 mm wide)
    local = np.array([np.median(rows[max(0, i - 15):i + 16]) for i in range(len(rows))])
    seams = np.flatnonzero(rows < 0.8 * local)
    groups = np.split(seams, np.flatnonzero(np.diff(seams) > 3) + 1) if seams.size else []
    assert 3 <= len(groups) <= 7
    gaps = np.diff([g.mean() for g in groups])
    assert np.all(gaps > 90) and np.all(gaps < 155)
    # grain: brightness across a plank does not repeat at one spacing (the old sine grain correlated
    # 0.7 with itself one period on; rings of random widths stay low)
    plank = img[int(groups[0].max()) + 5:int(groups[1].min()) - 5]
    peaks = []
    for x in range(100, 900, 100):
        c = plank[:, x] - plank[:, x].mean()
        peaks.append(max(np.dot(c[:-lag], c[lag:]) / np.dot(c, c) for lag in range(3, 41)))
    assert np.median(peaks) < 0.45
    # the same generator state gives the same table
    again = textures.table_top((600, 900), (150, 160, 168), np.random.default_rng(3), px_per_mm).mean(axis=2)
    assert np.array_equal(img, again)


def test_board_pixels_do_not_depend_on_the_table(monkeypatch):
    geo = BoardGeometry()
    style = STYLES["classic"]
    scale, margin = 1.0, 60.0
    first = board_paint.paint_board(geo, style, True, scale, margin)
    monkeypatch.setattr(textures, "table_top", lambda shape, colour, rng, px: np.full(shape + (3,), 90.0, np.float32))
    other = board_paint.paint_board(geo, style, True, scale, margin)
    x0, y0, x1, y1 = geo.outline
    inner = (slice(int((y0 + margin + 8) * scale), int((y1 + margin - 8) * scale)),
             slice(int((x0 + margin + 8) * scale), int((x1 + margin - 8) * scale)))
    assert np.array_equal(first[inner], other[inner])
    assert not np.array_equal(first, other)  # the table itself did change
