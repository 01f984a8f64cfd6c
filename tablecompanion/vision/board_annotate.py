"""Drawing a board reading over the photo it came from, so a person can check it at a glance.

Every checker found is circled in its side's colour (filled-in ones, found by the row completion
rather than the circle finder, dashed-thin), each point gets its count, and uncertain points are boxed red.
"""

from __future__ import annotations

import cv2
import numpy as np

from tablecompanion.vision.board_reader import BoardReading

SIDE_COLOURS = {"light": (255, 255, 0), "dark": (255, 0, 255)}
UNCERTAIN = (0, 0, 255)
TEXT_BG = (0, 0, 0)


def annotate_reading(frame: np.ndarray, reading: BoardReading) -> np.ndarray:
    """A copy of ``frame`` with the checkers, per-point counts and uncertain points drawn."""
    img = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    cal = reading.calibration
    geo = cal.geometry
    centre = ((geo.surface[0] + geo.surface[2]) / 2, (geo.surface[1] + geo.surface[3]) / 2)
    scale = cal.px_per_mm_at(centre)
    thick = max(1, int(round(scale * 1.2)))
    font = max(0.35, scale * geo.spec.point_width / 110)
    outline = cal.rect_polygon_image(geo.surface, 12 if cal.has_lens else 1)
    if np.all(np.isfinite(outline)):
        cv2.polylines(img, [np.round(outline).astype(np.int32)], True, (0, 255, 255), thick, cv2.LINE_AA)
    for disc in reading.checkers.discs:
        ring = np.array([[disc.x + disc.r * np.cos(a), disc.y + disc.r * np.sin(a)] for a in np.linspace(0, 2 * np.pi, 24)])
        pts = cal.board_to_image(ring)
        if not np.all(np.isfinite(pts)):
            continue
        colour = SIDE_COLOURS.get(disc.side, (0, 255, 0))
        cv2.polylines(img, [np.round(pts).astype(np.int32)], True, colour, thick if disc.found else 1, cv2.LINE_AA)
    for point in range(1, 25):
        side, n = reading.checkers.points[point]
        x0, y0, x1, y1 = geo.point_rect(point)
        top_row = y0 <= geo.surface[1] + 1
        at_mm = ((x0 + x1) / 2, y1 + 10 if top_row else y0 - 10)
        at = cal.board_to_image([at_mm])[0]
        text = f"{point}:{n}{side[0].upper() if side else ''}" if n else f"{point}:-"
        if point in reading.checkers.uncertain:
            text += "?"
            box = cal.rect_polygon_image((x0 + 2, y0 + 2, x1 - 2, y1 - 2))
            if np.all(np.isfinite(box)):
                cv2.polylines(img, [np.round(box).astype(np.int32)], True, UNCERTAIN, thick + 1, cv2.LINE_AA)
        _label(img, text, at, (255, 255, 255) if point not in reading.checkers.uncertain else UNCERTAIN, font)
    bar = reading.checkers.bar
    bx = (geo.bar[0] + geo.bar[2]) / 2
    _label(img, f"bar L{bar.get('light', 0)} D{bar.get('dark', 0)}", cal.board_to_image([(bx, centre[1])])[0], (0, 255, 255), font)
    return img


def _label(img: np.ndarray, text: str, at: np.ndarray, colour, scale: float) -> None:
    if not np.all(np.isfinite(at)):
        return
    f = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, int(round(scale * 2)))
    (tw, th), _ = cv2.getTextSize(text, f, scale, thick)
    org = (int(at[0] - tw / 2), int(at[1] + th / 2))
    cv2.putText(img, text, org, f, scale, TEXT_BG, thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, f, scale, colour, thick, cv2.LINE_AA)
