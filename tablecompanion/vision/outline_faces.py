"""Which face is a die's top when the pip grid finds more than one on it: the one whose flat outline holds
the die's body.

Seen at an angle a die shows its top and a side face, and a pip of each can make a face that outscores the
top's own (a "2" beside a 1), or a steep camera sees a side face nearly as large as the top. The body the
reference frame shows settles it: with the true top, a flat die's outline holds the whole body; with any
other face read as the top, part of the body lies beyond it. A tilted die leaves body beyond every flat
outline, so it is never made flat here. :class:`OutlineFaces` is a part of
:class:`~tablecompanion.vision.roll_reader.RollReader` and uses its tilt test
(:class:`~tablecompanion.vision.tilt_evidence.TiltEvidence`) and camera model.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

import cv2
import numpy as np

from tablecompanion.vision.dice import DiceReading
from tablecompanion.vision.die_face import face_features, own_face
from tablecompanion.vision.pip_grid import grid_read
from tablecompanion.vision.roll_verdict import value_unread

if TYPE_CHECKING:
    from tablecompanion.vision.roll_verdict import DieSeen


class OutlineFaces:
    """The outline checks of :class:`~tablecompanion.vision.roll_reader.RollReader` (a mixin: see the module)."""

    def _face_the_outline_explains(self, frame: np.ndarray, d: DieSeen, dice: Sequence[DieSeen]) -> DieSeen:
        """Of two faces read on one die, the one a flat die's outline explains.

        A pip of a side face and a pip of the top can make a face (a "2" beside a 1) that outscores the top's
        own: the readers then disagree, or the die is called tilted because its top lies beyond that face's
        outline. When the per-photo reader's face was found by the grid reader too, and the die's body lies
        all within a flat die's outline with that face on top while the other face leaves body beyond it,
        the die is flat and shows the per-photo reader's face. A tilted die leaves body beyond every flat
        outline, so it stays tilted or unclear."""
        c = self.config
        f = d.features
        alt = f.get("g_alt")
        if alt is None or "g_centre_mm" not in f or self.reference_full is None or d.status not in ("flat", "unclear"):
            return d
        if d.status == "unclear" and not value_unread(d):
            return d
        best = f.get("beyond_mm2")
        if best is None:
            best, _ = self._beyond_flat_outline(frame, f["g_centre_mm"], f.get("g_value"), f.get("g_turn", 0.0), d, dice)
        if best <= c.max_beyond_area:
            return d  # the grid reader's face is a flat die's as well: the disagreement stands
        area, turn = self._beyond_flat_outline(frame, alt["g_centre_mm"], alt["g_value"], alt["g_turn"], d, dice)
        if area > c.outline_explains:
            return d
        conf = max(float(f["r_conf"]), 0.9)  # the per-photo reader's face (the only alternative _die_from keeps)
        return self._showing(d, alt, area, turn, conf, outline_over=(f.get("g_value"), best))

    def _weak_face_the_outline_explains(self, frame: np.ndarray, d: DieSeen, dice: Sequence[DieSeen]) -> DieSeen:
        """The grid reader's first face on a die left unread because rivals came close to it, when the die's
        outline says the rivals are no top.

        Seen at an angle, a 1's pip and a side face's pips make a "2" or "3" on the same die that scores
        nearly as well as the 1 (the single pip scores little), so the 1 lacks its margin and the die is
        "unreadable" though the outline tells the faces apart: with the 1 on top a flat die's outline holds
        the whole body, with the rival's lattice on top the body lies beyond it. A tilted die leaves body
        beyond every flat outline, so it stays unread; a face with a blank spot, weak pips or uneven blank
        places is not taken, and each rival must leave clearly more body than the tilt test's limit
        (``weak_rival_beyond``: the rule overrules the margin)."""
        c = self.config
        f = d.features
        if not c.weak_face_outline or d.status != "unclear" or self.reference_full is None or \
                not value_unread(d):
            return d
        rivals = f.get("g_rivals") or ()
        if "g_centre_mm" not in f or not rivals or f.get("r_status") == "cocked" or f["g_margin"] <= 0 or \
                not self._clear_face(f):
            return d
        area, turn = self._beyond_flat_outline(frame, f["g_centre_mm"], f["g_value"], f["g_turn"], d, dice)
        if area > c.outline_explains:
            return d
        over = []
        for a in rivals:
            beyond, _ = self._beyond_flat_outline(frame, a["g_centre_mm"], a["g_value"], a["g_turn"], d, dice)
            if beyond <= c.weak_rival_beyond:
                return d  # a rival may be a flat die's face as well: the die stays unread
            over.append((a["g_value"], beyond))
        return self._showing(d, own_face(f), area, turn, min(0.9, 0.5 + f["g_margin"] / 100.0),
                             weak_face_over=tuple(over))

    def _rival_face_the_outline_explains(self, frame: np.ndarray, d: DieSeen, dice: Sequence[DieSeen]) -> DieSeen:
        """A die left unread whose top is not the grid reader's first face but another it found on the die,
        the only one whose flat outline holds the die's body.

        From a steep camera a 1's pip and a side face's pip make a "2" that outscores the 1 by more than the
        margin :meth:`_weak_face_the_outline_explains` asks of a first face, and the 1 may be found only in
        the look beyond, away from the camera. Every face found on the die (the first, its rivals, the far
        look's) is put on top in turn: one clear face whose outline leaves at most ``outline_explains`` mm^2 of
        body beyond it is the top when each other face that may be a top (clear, even blank places or the
        per-photo reader's value) leaves more than ``weak_rival_beyond`` and each of the rest (a lattice on
        the top and a side face: uneven blank places, where the camera sees a side's pips) more than the
        tilt test's ``max_beyond_area``; a face with a pip missing is none. A tilted die leaves body beyond
        every flat outline, so it stays unread; so does a die two faces explain."""
        c = self.config
        f = d.features
        if not c.rival_face_outline or d.status != "unclear" or self.reference_full is None or \
                not value_unread(d):
            return d
        faces: list[dict] = []
        own = own_face(f)
        die = float(self.spec.die_size)
        for a in ([own] if "g_centre_mm" in own else []) + list(f.get("g_rivals") or ()) + list(f.get("g_far") or ()):
            if not any(b["g_value"] == a["g_value"] and math.dist(b["g_centre_mm"], a["g_centre_mm"]) < 0.1 * die
                       for b in faces):
                faces.append(a)
        if len(faces) < 2:
            return d
        depth = self._camera_view(d.board_mm)[2]
        measured = []
        for a in faces:
            if a["g_contrast"] < c.grid_alone_contrast:
                continue  # a pip missing: no face
            area, turn = self._beyond_flat_outline(frame, a["g_centre_mm"], a["g_value"], a["g_turn"], d, dice)
            measured.append((a, area, turn))
        fitting = [m for m in measured if m[1] <= c.outline_explains and self._clear_face(m[0])]
        if not fitting or len({m[0]["g_value"] for m in fitting}) > 1:
            return d
        fits = min(fitting, key=lambda m: m[1])
        value = fits[0]["g_value"]
        over = []
        for a, area, _ in measured:
            if a["g_value"] == value:
                continue  # the same face found twice (a 1's pip from two looks)
            # a face that may be the top: clear, or even blank places (uneven pips: a true face's pip can be
            # dim), or the per-photo reader's; one whose blank places differ (a lattice on the top and a
            # side face) need only leave more than the tilt test allows a flat die, where the camera sees
            # a flat die's side deep enough for its pips (``side_pip_depth``): from nearer straight down, a
            # side face's pip beside the top is a tilted die's
            rival = self._clear_face(a) or a["g_face"] <= c.rival_even_face or \
                a["g_value"] == f.get("r_value") or depth < c.side_pip_depth
            if area <= (c.weak_rival_beyond if rival else c.max_beyond_area):
                return d  # two faces may be a flat die's top: the die stays unread
            over.append((a["g_value"], area))
        a, area, turn = fits
        # and the body the shade hides, as for a die read flat (_with_tilt_evidence): the tilt test asks both
        _, _, hidden = self._body_beyond(frame, a["g_centre_mm"], a["g_value"], a["g_turn"], d, dice, hidden=True)
        more = {} if hidden is None else {"hidden_mm2": hidden}
        return self._showing(d, a, area, turn, 0.6, rival_face_over=tuple(over), **more)

    def _top_beyond_its_side_face(self, frame: np.ndarray, d: DieSeen, dice: Sequence[DieSeen]) -> DieSeen:
        """The top of a die both readers read by a side face.

        From a steep camera a flat die's side face is nearly as large as its top and both readers can read
        it (a 6's side 3): its outline then leaves the die's top beyond it, and the die would be "tilted".
        When a clear face lies beyond it, on the side away from the camera, whose flat die's outline holds
        the side face read and the die's body whole (at most ``top_beyond_explains`` mm^2 beyond), that face is
        the top. A tilted die leaves body beyond every flat outline."""
        c = self.config
        f = d.features
        if not c.top_beyond_side or d.status != "flat" or self.reference_full is None or \
                f.get("beyond_mm2", 0.0) <= c.max_beyond_area or "g_centre_mm" not in f:
            return d
        die = float(self.spec.die_size)
        k = c.rect_px_per_mm
        cx, cy = f["g_centre_mm"]
        # how far the camera sees down a die's side here (the bottom's centre on the top plane, in sides):
        # a side face seen much less deep than a side is no face the readers take for a top
        if self._camera_view((cx, cy))[2] < c.side_face_depth:
            return d
        half = 2.2 * die
        x0, y0 = cx - half, cy - half
        crop = self.rectified(frame, (x0, y0, cx + half, cy + half))
        excl = [((cx - x0) * k, (cy - y0) * k, 0.78 * die * k)]  # the face read and its neighbourhood
        excl += [((o.board_mm[0] - x0) * k, (o.board_mm[1] - y0) * k, c.second_die_gap * die * k) for o in dice if o is not d]
        m = 0.6 * die * k
        g = grid_read(crop, die * k, centre_box=(m, m, crop.shape[1] - m, crop.shape[0] - m), exclude=excl,
                      face_tol=c.face_tol, view=self._view_at((cx, cy)))
        if not self._grid_sure(g):
            return d
        top = face_features(g, (x0, y0), k, die)
        outline = self.flat_silhouette(top["g_centre_mm"], g.turn_deg, c.side_face_slack)
        if cv2.pointPolygonTest(outline.astype(np.float32), (float(cx), float(cy)), False) < 0:
            return d  # the face read is no side face of this one
        area, turn = self._beyond_flat_outline(frame, top["g_centre_mm"], g.value, g.turn_deg, d, dice)
        if area > c.top_beyond_explains:
            return d
        return self._showing(d, top, area, turn, min(1.0, 0.5 + g.margin / 100.0),
                             side_face_read=(f.get("g_value"), f.get("beyond_mm2")))

    def _showing(self, d: DieSeen, face: dict, beyond_mm2: float, face_turn: float, confidence: float,
                 **why) -> DieSeen:
        """``d`` as a flat die showing another face the grid reader found (``face``: face_features), whose
        flat outline leaves ``beyond_mm2`` of the body at ``face_turn``; the face read before is noted in
        ``why``. The features of that face's pips and rivals go with it."""
        mm = face["g_centre_mm"]
        centre = tuple(float(v) for v in self.plane_to_image([mm])[0])
        feats = {k: v for k, v in d.features.items()
                 if not k.startswith("aff_") and k not in ("spread", "g_alt", "loose_rival")}
        feats.update(face, beyond_mm2=beyond_mm2, face_turn=face_turn, **why)
        reading = DiceReading(face["g_value"], centre, (), confidence, "flat",
                              float(self.spec.die_size) * float(self.calibration.px_per_mm_at(mm)))
        return replace(d, value=face["g_value"], status="flat", reason="", centre=centre,
                       board_mm=(float(mm[0]), float(mm[1])), confidence=confidence, reading=reading, features=feats)

    def _other_face_that_fits(self, frame: np.ndarray | None, d: DieSeen, dice: Sequence[DieSeen]) -> int | None:
        """Another face the grid reader found on ``d`` (clear pips, even blank places) whose flat outline holds
        the body that lies beyond the outline of the face read: its value, or None.

        A die's body beyond its flat outline is the proof of tilt only when the face read is its top. Seen at
        an angle a 1's pip and a side face's pips make a "2" or "3" that the readers may take, and the side
        face then lies beyond that face's outline, not beyond the 1's. Which face is the top the reader cannot
        tell (a tilted die shows both as well: taking the other face accepted tilted dice), so the die is
        unclear, a re-roll, not a ruling that it is cocked."""
        c = self.config
        f = d.features
        if not c.other_face_unclear or frame is None or self.reference_full is None:
            return None
        for a in list(f.get("g_rivals") or ()) + ([f["g_alt"]] if "g_alt" in f else []):
            if a["g_value"] == d.value or not self._clear_face(a):
                continue
            area, _ = self._beyond_flat_outline(frame, a["g_centre_mm"], a["g_value"], a["g_turn"], d, dice)
            if area <= c.outline_explains:
                return int(a["g_value"])
        return None
