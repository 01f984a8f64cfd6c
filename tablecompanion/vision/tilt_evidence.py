"""Whether a die the pips call flat lies flat: its body beyond a flat die's outline, and the tilt net.

A die tilted by 18-32 degrees keeps a readable top, but its body lies where a flat die's cannot: beyond the
outline a flat die with that top shows on the top-face plane (its top square and the side faces the camera
sees). :class:`TiltEvidence` measures that body against the reference frame, weighs the body model's share
of what the shadow model calls shade, and asks the tilt net (a second witness) where the body is little or
the die touches something it could lean on. It is a part of :class:`~tablecompanion.vision.roll_reader.RollReader`
and works on its calibration, camera model and reference (``config``, ``spec``, ``reference_full``,
``rectified``, ``flat_silhouette``, ``die_px_at``, ``tilt_net``, ``body_model``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

import cv2
import numpy as np

from tablecompanion.vision.body_model import body_features, die_colour

if TYPE_CHECKING:
    from tablecompanion.vision.roll_verdict import DieSeen

BODY_SHOWS = "tilted (its body shows where a flat die's cannot)"
NET_TILTED = "tilted (the tilt net sees it so)"
NET_UNSURE = "it may be tilted: the camera cannot tell that it lies flat"  # the tilt net is unsure
TILT_PATCH = 48  # the tilt net's input, px square
TILT_SPAN = 2.2  # ... over this many die sides


class TiltEvidence:
    """The tilt test of :class:`~tablecompanion.vision.roll_reader.RollReader` (a mixin: see the module)."""

    def _with_tilt_evidence(self, frame: np.ndarray, d: DieSeen, dice: Sequence[DieSeen]) -> DieSeen:
        """Where a die read flat shows its body beyond a flat die's outline (``beyond_mm2``).

        On the top-face plane a flat die is its top square (known from the pip lattice: centre and turn)
        plus the side faces the camera sees there, all on the camera's side. A die tilted by 18-32 degrees
        shows a side face 5-8 mm wide on the side that rose, and its top face is foreshortened and shifted:
        its body lies where the flat outline has none. Body, not shadow: the change against the reference
        that no darkening of the board explains (a shadow is the board, darker). The other dice are left
        out. The flat hypothesis gets every benefit of the doubt: the face's turn that leaves the least body
        outside (any turn for a 1, whose single pip gives none), a margin for the blurred edge, side faces
        widened for a focal length that may be a prior."""
        f = d.features
        if d.status != "flat" or "g_centre_mm" not in f or self.reference_full is None:
            return d
        area, best_turn, hidden = self._body_beyond(frame, f["g_centre_mm"], f.get("g_value"), f.get("g_turn", 0.0), d,
                                                    dice, hidden=True)
        more = {} if hidden is None else {"hidden_mm2": hidden}
        return replace(d, features={**f, "beyond_mm2": area, "face_turn": best_turn, **more})

    def _tilt_p(self, frame: np.ndarray | None, f: dict) -> float | None:
        """The tilt net's P(tilted) for the die of features ``f`` (its face's centre and turn) in ``frame``,
        asked once and noted in ``f["tilt_p"]`` (6-8 ms a die, so asked only about dice read flat); None
        without a net, a face or a frame."""
        if "tilt_p" not in f:
            if self.tilt_net is None or "g_centre_mm" not in f or frame is None:
                return None
            views = self.tilt_net.p_views(
                self.tilt_patch(frame, f["g_centre_mm"], f.get("face_turn", f.get("g_turn", 0.0))))
            f["tilt_p"], f["tilt_p_median"] = float(np.mean(views)), float(np.median(views))
        return f["tilt_p"]

    def _net_calls_cocked(self, frame: np.ndarray | None, f: dict) -> bool:
        """Whether the tilt net is sure enough that a die every other rule read flat is tilted: the median
        of its four views at ``tilt_net_cocked`` (the mean where ``tilt_net_cocked_median`` is off). On
        12242 dice of renders the shipped net was not trained on (thirty-seventh session), of the 389 tilted
        ones read flat the median catches 340 at 0.95, the mean 326, each voiding 1 of 7558 flat dice. The
        net vouches on the mean (``_net_says_flat``): the median vouched for seed 2's case 108, a die
        leaning 15 degrees on the board's edge (mean 0.0068, median 0.0039)."""
        c = self.config
        if c.tilt_net_cocked > 1.0 or self._tilt_p(frame, f) is None:
            return False
        p = f.get("tilt_p_median", f["tilt_p"]) if c.tilt_net_cocked_median else f["tilt_p"]
        return p >= c.tilt_net_cocked

    def _net_unsure(self, frame: np.ndarray | None, f: dict) -> bool:
        """Whether the tilt net, asked about a die every other rule read flat, is between sure it lies flat
        and sure it is tilted: the median of its four views at ``tilt_net_unsure`` (below ``tilt_net_cocked``,
        where it calls the die cocked). A die tilted about the camera's line of sight keeps a flat die's
        outline, and the net is the only witness: where it hesitates a person looks (the roll to confirm)."""
        c = self.config
        if c.tilt_net_unsure > 1.0 or self._tilt_p(frame, f) is None:
            return False
        return f.get("tilt_p_median", f["tilt_p"]) >= c.tilt_net_unsure

    def _net_clears_body(self, frame: np.ndarray | None, f: dict) -> bool:
        """Whether a die's body beyond its flat outline is little enough for one frame's noise (the second
        look's band, ``second_look_mm2``; a side face read as the top leaves 85-110 mm^2) and the tilt net is
        sure the die lies flat. The body is the tilt test's evidence and the net a second witness: on the
        held-out renders none of the 583 tilted dice called so for their body scored P(tilted) under 0.1, 7
        of the 25 flat ones under 0.025."""
        c = self.config
        little = f.get("beyond_mm2", math.inf) <= c.second_look_mm2 and f.get("hidden_mm2", 0.0) <= c.second_look_mm2
        return little and self._net_says_flat(frame, f)

    def _net_says_flat(self, frame: np.ndarray | None, f: dict, supports: Sequence[str] = ()) -> bool:
        """Whether the tilt net vouches that the die lies flat: at ``tilt_net_flat``, or beside checkers
        alone (``supports``) at ``tilt_net_flat_checker``."""
        p = self._tilt_p(frame, f)
        c = self.config
        only_checkers = bool(supports) and all(s == "a checker" for s in supports)
        return p is not None and p <= (c.tilt_net_flat_checker if only_checkers else c.tilt_net_flat)

    def tilt_patch(self, frame: np.ndarray, centre_mm, turn_deg: float) -> np.ndarray:
        """What the tilt net sees of a die: the frame and the reference on the top-face plane around
        ``centre_mm`` (TILT_PATCH px square over TILT_SPAN die sides), and a flat die's outline there at
        ``turn_deg`` (the camera's view of its sides), as a (TILT_PATCH, TILT_PATCH, 7) uint8 array."""
        die = float(self.spec.die_size)
        k = TILT_PATCH / (TILT_SPAN * die)
        half = 0.5 * TILT_SPAN * die
        cx, cy = centre_mm
        rect = (cx - half, cy - half, cx + half, cy + half)
        now, ref = self.rectified(frame, rect, None, self.reference_full, px_per_mm=k)
        sil = np.zeros(now.shape[:2], np.uint8)
        outline = (self.flat_silhouette((cx, cy), turn_deg) - np.array(rect[:2])) * k
        cv2.fillConvexPoly(sil, np.round(outline * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        return np.dstack([now, ref, sil])

    def _beyond_flat_outline(self, frame: np.ndarray, centre_mm, value: int | None, turn_deg: float, d: DieSeen,
                             dice: Sequence[DieSeen]) -> tuple[float, float]:
        """The die's body (mm^2) beyond the outline of a flat die whose top face is ``value`` at ``centre_mm``
        turned ``turn_deg``, at the face's turn that leaves least (see _with_tilt_evidence), and that turn."""
        area, turn, _ = self._body_beyond(frame, centre_mm, value, turn_deg, d, dice)
        return area, turn

    def _body_beyond(self, frame: np.ndarray, centre_mm, value: int | None, turn_deg: float, d: DieSeen,
                     dice: Sequence[DieSeen], hidden: bool = False) -> tuple[float, float, float | None]:
        """:meth:`_beyond_flat_outline`'s area and turn, and with ``hidden`` (and a body model) the area beyond
        the outline at that turn once the body the shadow model hides is added (None where the first area
        already calls the die tilted)."""
        c = self.config
        die = float(self.spec.die_size)
        k = c.tilt_px_per_mm
        cx, cy = centre_mm
        rect, a, b, margin = self.tilt_crops(frame, centre_mm)
        h, w = a.shape[:2]
        half = 0.5 * (rect[2] - rect[0])
        shade = np.clip((a * b).sum(-1) / np.maximum((b * b).sum(-1), 1.0), 0.2, 1.25)  # a shadow's darkening
        body = np.sqrt(((a - shade[..., None] * b) ** 2).sum(-1)) > c.tilt_residual
        yy, xx = np.ogrid[:h, :w]
        # inside the top square whatever its turn: never beyond
        outside = (xx - half * k) ** 2 + (yy - half * k) ** 2 > (0.5 * die * k + margin) ** 2
        for o in dice:  # the other dice and their side faces are no part of this one
            if o is d:
                continue
            for ox, oy in (o.board_mm, o.features.get("g_centre_mm", o.board_mm)):
                u, v = (ox - rect[0]) * k, (oy - rect[1]) * k
                outside &= (xx - u) ** 2 + (yy - v) ** 2 > (1.3 * die * k) ** 2

        def points(mask: np.ndarray) -> np.ndarray:
            ys, xs = np.nonzero(mask & outside)
            return np.column_stack([xs, ys]).astype(np.float64)

        def area_beyond(pts: np.ndarray, turn: float) -> float:
            if not len(pts):
                return 0.0
            outline = (self.flat_silhouette((cx, cy), float(turn), c.side_face_slack) - np.array(rect[:2])) * k
            beyond = distance_beyond(pts, outline)
            return np.count_nonzero((beyond > margin) & (beyond < c.tilt_reach * die * k)) / (k * k)

        # the face's turn as the flat hypothesis likes it best: near the lattice's (5-degree steps, a pip or two
        # of error); any turn for a 1, whose single pip gives none
        turns = (np.arange(0.0, 90.0, 5.0) if value == 1 else turn_deg + np.arange(-6.0, 6.1, 2.0))
        area, best_turn = math.inf, 0.0
        pts = points(body)
        for turn in turns:
            n = area_beyond(pts, turn)
            if n < area:
                area, best_turn = n, float(turn)
        more = None
        if hidden and self.body_model is not None and area <= c.max_beyond_area:
            # at the turn the shadow model's body chose: the body model only adds what that model hid
            more = area_beyond(points(body | self._body_the_shade_hides(a, b, ~body & outside)), best_turn)
        return area, best_turn, more

    def tilt_crops(self, frame: np.ndarray, centre_mm) -> tuple[tuple[float, float, float, float], np.ndarray,
                                                                 np.ndarray, float]:
        """What the tilt test looks at around a face centred at ``centre_mm``: the square (board mm) it covers,
        the frame and the reference resampled over it on the top-face plane at ``tilt_px_per_mm`` and blurred
        (float32 BGR), and the margin (px) for the die's blurred edge."""
        c = self.config
        die = float(self.spec.die_size)
        k = c.tilt_px_per_mm
        cx, cy = centre_mm
        half = (0.5 + c.tilt_reach + 0.6) * die
        rect = (cx - half, cy - half, cx + half, cy + half)
        now, ref = self.rectified(frame, rect, None, self.reference_full, px_per_mm=k)
        blur = k / 3.0  # a third of a mm
        a = cv2.GaussianBlur(now, (0, 0), blur).astype(np.float32)
        b = cv2.GaussianBlur(ref, (0, 0), blur).astype(np.float32)
        # the die's edge is blurred over a pixel or two of the camera's picture, more top-plane px where the
        # die is small in the picture
        margin = c.tilt_margin * die * k + 1.5 * die * k / max(self.die_px_at(cx, cy), 1.0)
        return rect, a, b, margin

    def body_asked(self, a: np.ndarray, b: np.ndarray, ask: np.ndarray) -> np.ndarray:
        """The pixels of ``ask`` the body model is asked about (``tilt_crops``' ``a`` and ``b``): changed by
        ``body_diff``."""
        return ask & (((a - b) ** 2).sum(-1) > self.config.body_diff ** 2)

    def _body_the_shade_hides(self, a: np.ndarray, b: np.ndarray, ask: np.ndarray) -> np.ndarray:
        """Of the pixels ``ask`` (blurred frame ``a`` against reference ``b`` on the top-face plane, the die's top
        at the centre), those changed by ``body_diff`` that the body model calls the die's body (body_model)."""
        ask = self.body_asked(a, b, ask)
        out = np.zeros(ask.shape, bool)
        if ask.any():
            out[ask] = self.body_model.p_body(self.body_features_of(a, b, ask)) >= self.config.body_p
        return out

    def body_features_of(self, a: np.ndarray, b: np.ndarray, where: np.ndarray) -> np.ndarray:
        """The body model's features of the pixels ``where`` of ``tilt_crops``' ``a`` and ``b``, the die's colour
        taken from its top (0.4 side round the centre)."""
        colour = die_colour(a, 0.4 * self.spec.die_size * self.config.tilt_px_per_mm)
        return body_features(a, b, colour, where)

    def _tilt_reason(self, f: dict, value: int | None, frame: np.ndarray | None = None, body: bool = True) -> str:
        """Why the die read flat is tilted after all ("" for no evidence); ``body``: weigh its body beyond a
        flat outline (off once the net has cleared it, :meth:`_net_clears_body`)."""
        c = self.config
        ratio = f.get("aff_ratio")
        if ratio is not None and ratio > c.max_pattern_ratio:
            return "tilted (its pips are not square)"
        if body and (f.get("beyond_mm2", 0.0) > c.max_beyond_area or f.get("hidden_mm2", 0.0) > c.body_beyond_area):
            return BODY_SHOWS
        if f.get("r_status") == "cocked" and c.trust_reader_cocked:
            return "tilted (side pips seen)"
        if self._net_calls_cocked(frame, f):
            return NET_TILTED
        return ""

    def _surely_flat(self, f: dict, value: int | None) -> bool:
        """Beside something it could lean on, a die counts as flat only when its face proves it: four or
        more pips in a square pattern."""
        ratio = f.get("aff_ratio")
        return ratio is not None and ratio <= self.config.sure_pattern_ratio


def distance_beyond(pts: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """How far each point (n, 2) lies beyond a convex ``outline`` (m, 2), in its units: the largest distance
    beyond one of its edges' lines (exact off an edge, a little less off a corner; negative inside)."""
    edge = np.roll(outline, -1, axis=0) - outline
    normal = np.column_stack([edge[:, 1], -edge[:, 0]]) / np.maximum(np.hypot(edge[:, 0], edge[:, 1]), 1e-9)[:, None]
    inward = ((outline.mean(axis=0) - outline) * normal).sum(axis=1) > 0
    normal[inward] *= -1.0
    return ((pts[:, None, :] - outline[None, :, :]) * normal[None, :, :]).sum(axis=2).max(axis=1)
