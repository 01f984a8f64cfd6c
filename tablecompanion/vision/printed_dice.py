"""Printed dice: an icon of a die on a score sheet, a box or a screen is no die on the table."""

from __future__ import annotations

import math

import cv2
import numpy as np

from tablecompanion.vision.dice_reading import DEFAULT_CONFIG, DiceConfig, DiceReading


def is_line_drawing(frame: np.ndarray, reading: DiceReading, config: DiceConfig = DEFAULT_CONFIG) -> bool:
    """Is this "die" a printed one: a line drawing whose outline closes off paper of the colour around it?

    A die is a solid: its top face differs in colour from what it lies on, or, where it does not (a white
    die on a white table), its edge is shading and shadow, not a closed line. An icon of a die (printed on
    a score sheet, a box, a screen) is the one thing the networks cannot tell from a die seen from above,
    and they read most of them (2216 of 2430 drawn icons of 18-70 px). Dark lines and dots are found by a
    black-hat of half the die's side; the light region around the centre must be closed off by them
    within 1.1 sides, at least ``drawing_min_side`` of a side across (not the gap between a 6's pips), and
    of the colour outside it (``drawing_max_step``). Light lines on dark paper (``drawing_light_ink``) are
    the same drawing with lightness turned over."""
    side = float(reading.size) if reading.size > 0 else float(np.ptp(np.asarray(reading.outline)[:, 0]))
    if side < 4:
        return False
    r = int(math.ceil(1.1 * side)) + 2
    # whole-pixel centre: a copy of the frame's pixels, edges replicated (as crop_for_classifier cuts)
    crop = cv2.getRectSubPix(frame, (2 * r + 1, 2 * r + 1), tuple(float(int(c)) for c in reading.centre))
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    if _drawn_in_dark_ink(lab, r, side, config):
        return True
    if not config.drawing_light_ink:
        return False
    lab[..., 0] = 255.0 - lab[..., 0]
    return _drawn_in_dark_ink(lab, r, side, config)


def _drawn_in_dark_ink(lab: np.ndarray, r: int, side: float, config: DiceConfig) -> bool:
    """:func:`is_line_drawing` for dark lines on light paper, on the Lab crop ``lab`` (float) centred at
    (``r``, ``r``)."""
    k = max(3, int(round(0.5 * side)) | 1)
    ink = cv2.morphologyEx(lab[..., 0], cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    paper = (ink <= max(15.0, 0.2 * float(ink.max()))).astype(np.uint8)
    _, regions = cv2.connectedComponents(paper, connectivity=4)
    yy, xx = np.mgrid[:lab.shape[0], :lab.shape[1]]
    dist = np.hypot(xx - r, yy - r)
    labels, counts = np.unique(regions[(dist < 0.3 * side) & (paper > 0)], return_counts=True)
    if not len(labels):
        return False
    face = (regions == labels[np.argmax(counts)]).astype(np.uint8)
    ys, xs = np.nonzero(face)
    if xs.min() == 0 or ys.min() == 0 or xs.max() == lab.shape[1] - 1 or ys.max() == lab.shape[0] - 1:
        return False  # not closed off within 1.1 sides
    contours, _ = cv2.findContours(face, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    if math.sqrt(cv2.contourArea(outline)) < config.drawing_min_side * side:
        return False
    inside = np.zeros_like(face)
    cv2.drawContours(inside, [outline], -1, 1, -1)
    around = (dist > 0.9 * side) & (paper > 0) & (inside == 0)
    if around.sum() < 10:
        return False
    # ink: the dark line around the face, well darker than the paper (a black die on a black point is
    # closed off by its own dim edges, 10-20 darker than its face)
    reach = max(3, int(round(0.15 * side)) | 1)
    band = (cv2.dilate(inside, np.ones((reach, reach), np.uint8)) > 0) & (inside == 0) & (paper == 0)
    if band.sum() < 4:
        return False
    face_lab = np.median(lab[face > 0], axis=0)
    if face_lab[0] - float(np.median(lab[..., 0][band])) < config.drawing_min_ink:
        return False
    step = np.linalg.norm(face_lab - np.median(lab[around], axis=0))
    return bool(step < config.drawing_max_step)
