"""Drawing a calibration over the frame it came from, so a person can see at a glance if it is right.

Points are outlined and numbered for the bottom player (the top player's number is smaller, beside it),
the bar, the two halves, both trays and the markers are drawn in their own colours.
"""

from __future__ import annotations

import cv2
import numpy as np

from tablecompanion.calibration.model import Calibration, rect_corners

COLOURS = {
    "outline": (0, 255, 255),
    "point_odd": (0, 200, 255),
    "point_even": (255, 200, 0),
    "number": (255, 255, 255),
    "number_top": (200, 200, 200),
    "bar": (255, 0, 255),
    "half": (0, 255, 0),
    "tray": (0, 128, 255),
    "marker": (0, 0, 255),
    "text_bg": (0, 0, 0),
}


def _poly(img: np.ndarray, pts: np.ndarray, colour, thickness: int) -> None:
    if not np.all(np.isfinite(pts)):
        return
    cv2.polylines(img, [np.round(pts).astype(np.int32)], True, colour, thickness, cv2.LINE_AA)


def _label(img: np.ndarray, text: str, at: np.ndarray, colour, scale: float) -> None:
    if not np.all(np.isfinite(at)):
        return
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, int(round(scale * 2)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = (int(at[0] - tw / 2), int(at[1] + th / 2))
    # a dark box, not an outline: with OpenCV 5's fonts a thicker stroke also spaces the letters wider
    pad = max(1, th // 5)
    x0, y0, x1, y1 = org[0] - pad, org[1] - th - pad, org[0] + tw + pad, org[1] + pad
    h, w = img.shape[:2]
    if x1 > 0 and y1 > 0 and x0 < w and y0 < h:
        x0, y0 = max(x0, 0), max(y0, 0)
        box = img[y0:y1, x0:x1]
        box[:] = (box * 0.35).astype(img.dtype)
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def annotate(frame: np.ndarray, calibration: Calibration, title: str | None = None) -> np.ndarray:
    """A copy of the frame with the board's regions drawn as this calibration places them."""
    img = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    geo = calibration.geometry
    scale_px = calibration.px_per_mm_at(((geo.surface[0] + geo.surface[2]) / 2, (geo.surface[1] + geo.surface[3]) / 2))
    thick = max(1, int(round(scale_px * 1.2)))
    font_scale = max(0.35, scale_px * geo.spec.point_width / 90)
    samples = 12 if calibration.has_lens else 1

    _poly(img, calibration.rect_polygon_image(geo.outline, samples), COLOURS["outline"], thick + 1)
    for side in ("left", "right"):
        x0, y0, x1, y1 = geo.half(side)
        _poly(img, calibration.rect_polygon_image((x0 + 2, y0 + 2, x1 - 2, y1 - 2), samples), COLOURS["half"], thick)
    _poly(img, calibration.rect_polygon_image(geo.bar, samples), COLOURS["bar"], thick + 1)
    _label(img, "BAR", calibration.board_to_image([((geo.bar[0] + geo.bar[2]) / 2, (geo.bar[1] + geo.bar[3]) / 2)])[0], COLOURS["bar"], font_scale * 0.8)
    for player in ("bottom", "top"):
        tray = geo.tray(player)
        _poly(img, calibration.rect_polygon_image(tray, samples), COLOURS["tray"], thick)
        centre = calibration.board_to_image([((tray[0] + tray[2]) / 2, (tray[1] + tray[3]) / 2)])[0]
        _label(img, "tray", centre, COLOURS["tray"], font_scale * 0.7)
    for point in range(1, 25):
        colour = COLOURS["point_odd"] if point % 2 else COLOURS["point_even"]
        tri = calibration.board_to_image(np.array(geo.point_triangle(point)))
        _poly(img, tri, colour, thick)
        x0, y0, x1, y1 = geo.point_rect(point)
        top_row = y0 <= geo.surface[1] + 1
        base_y = y0 + 0.12 * (y1 - y0) if top_row else y1 - 0.12 * (y1 - y0)
        other_y = y0 + 0.26 * (y1 - y0) if top_row else y1 - 0.26 * (y1 - y0)
        xm = (x0 + x1) / 2
        _label(img, str(point), calibration.board_to_image([(xm, base_y)])[0], COLOURS["number"], font_scale)
        _label(img, str(25 - point), calibration.board_to_image([(xm, other_y)])[0], COLOURS["number_top"], font_scale * 0.55)
    for marker_id in range(4):
        expected = calibration.board_to_image(np.array(geo.marker_corners(marker_id)))
        _poly(img, expected, COLOURS["marker"], thick)
        seen = calibration.marker_image_corners.get(marker_id)
        if seen is not None:
            for p in seen:
                cv2.circle(img, (int(round(p[0])), int(round(p[1]))), thick + 2, COLOURS["marker"], -1, cv2.LINE_AA)
    mid_bottom = calibration.board_to_image([((geo.outline[0] + geo.outline[2]) / 2, geo.outline[3] - geo.spec.frame_width / 2)])[0]
    who = f"bottom: {calibration.bottom_player}" if calibration.bottom_player else "bottom player"
    _label(img, f"{who}, home {geo.home}", mid_bottom, COLOURS["number"], font_scale * 0.6)
    lines = [
        title or f"profile {calibration.name or '(unsaved)'} from {calibration.source}",
        # four given corners always fit exactly: a 0.00 mm there would only reassure wrongly
        "4 corners given: check the drawn points and bar by eye" if calibration.source == "corners"
        else f"reprojection error {calibration.reprojection_error_mm:.2f} mm",
    ]
    header = max(0.5, img.shape[1] / 1600)
    line_h = int(30 * header)
    cv2.rectangle(img, (0, 0), (int(img.shape[1] * 0.45), line_h * len(lines) + 8), COLOURS["text_bg"], -1)
    for i, text in enumerate(lines):
        org = (8, line_h * (i + 1) - 4)
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, header, COLOURS["number"], max(1, int(header * 2)), cv2.LINE_AA)
    return img


def warped_with_grid(frame: np.ndarray, calibration: Calibration, px_per_mm: float = 1.0) -> np.ndarray:
    """The top-down warp with the model's lines on it: misalignment shows as lines off the triangles."""
    top = calibration.warp(frame, px_per_mm)
    geo = calibration.geometry
    for point in range(1, 25):
        tri = np.array(geo.point_triangle(point)) * px_per_mm
        cv2.polylines(top, [np.round(tri).astype(np.int32)], True, (0, 255, 255), 1, cv2.LINE_AA)
    for rect, colour in ((geo.bar, COLOURS["bar"]), (geo.surface, COLOURS["outline"])):
        cv2.polylines(top, [np.round(rect_corners(rect) * px_per_mm).astype(np.int32)], True, colour, 1, cv2.LINE_AA)
    return top
