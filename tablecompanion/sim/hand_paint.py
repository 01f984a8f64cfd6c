"""Painting a hand over the board: its shadows, its skin and sleeve shaded as one rounded body.

The geometry of a hand (its capsules, outline field and mask) is :mod:`tablecompanion.sim.hands`; this is how
it looks to the camera: the lamp's shadow and the room's light kept off the board under it, skin with its
creases, nails and redder knuckles, a sleeve with folds and a ribbed cuff, motion blur when it moves.
:class:`HandPainter` is a part of :class:`~tablecompanion.sim.render.Renderer` and paints with its camera,
lamp and light maps (``spec``, ``camera``, ``model``, ``px_per_mm``, ``air_light``, ``light_pos``,
``_shadow``, ``_cylinder``, ``_draw_checker_lit``, ``_note_dirty``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from tablecompanion.sim import textures
from tablecompanion.sim.compose import LAMP_COLOUR, blend, line_kernel
from tablecompanion.sim.hands import (
    SLEEVE, field_block, hand_alpha, hand_bbox, hand_capsules, hand_field, hand_points, project_capsules, sleeve_folds,
)
from tablecompanion.sim.scene import Hand


class HandPainter:
    """The hands of :class:`~tablecompanion.sim.render.Renderer` (a mixin: see the module)."""

    def _draw_hand(self, img: np.ndarray, hand: Hand, mask_out: np.ndarray) -> None:
        """A hand: its shadows on the board, then its pieces shaded as one rounded body (``_shade_hand``),
        whose outline (``hands.hand_field``, the same the truth's mask is rebuilt from) is antialiased at
        full resolution while the shading is worked out on blocks of a few pixels."""
        caps = hand_capsules(hand, self.spec)
        kinds, offsets, pts = hand_points(hand, self.spec, caps)
        if hand.holding is not None:
            t = self.spec.checker_thickness
            held_z = -max(hand.height - 12.0, t)  # top of the held checker, just under the fingertips
            self._shadow(img, [self._cylinder(hand.x, hand.y, -held_z - t, t)], floor_z=0.0, strength=0.3,
                         softness=1.6, contact=False)
            self._draw_checker_lit(img, hand.x, hand.y, held_z + t, hand.holding)
        # For its shadows the hand is a few convex lumps (each finger's bones, the thumb, the back of the
        # hand, the forearm, the sleeve): the shadows are soft, and each lump costs a hull and a fill.
        n = len(kinds)
        forearm = kinds.index(SLEEVE) - 1  # the bare forearm comes just before the sleeve's pieces
        group = [f"d{caps.digit[i]}" if caps.digit[i] >= 0 and caps.joint[i] >= 1 else
                 (f"sleeve{i}" if kinds[i] == SLEEVE else "arm" if i == forearm else "back") for i in range(n)]
        pieces = [np.vstack([pts[offsets[i]:offsets[i + 1]] for i in range(n) if group[i] == g]) for g in dict.fromkeys(group)]
        # The lamp's shadow (it falls mostly under the arm), and the room's light kept off the board
        # under the hand: a soft dark pool, darker the lower the hand.
        low = [p for p in pieces if -p[:, 2].mean() < hand.height + 60.0]
        pool = self.camera.ambient * float(np.clip(80.0 / (hand.height + 55.0), 0.25, 0.8))
        self._shadow(img, pieces, floor_z=0.0, strength=0.45, softness=4.5, contact=False, under=(low, pool))
        ph = project_capsules(caps, self.model.K, self.model.dist, self.model.R, self.model.t)
        h, w = img.shape[:2]
        x0, y0, x1, y1 = hand_bbox(ph, w, h)
        if x1 <= x0 or y1 <= y0:
            return
        self._note_dirty(x0, y0, x1, y1)
        k = field_block(ph)
        gw, gh = -(-(x1 - x0) // k), -(-(y1 - y0) // k)
        field = hand_field(ph, x0, y0, gw, gh, k, shading=True)
        rgb = self._shade_hand(field, ph, hand, k, x0, y0)
        mx, my = hand.motion_mm if self.camera.motion_blur else (0.0, 0.0)
        motion = (mx * self.px_per_mm, my * self.px_per_mm)
        fw, fh = x1 - x0, y1 - y0
        if abs(motion[0]) + abs(motion[1]) > 1.5 * k:
            # Smeared anyway: blur the coverage and colour at the shading's resolution, then scale up.
            a = np.clip(0.5 - field.sdf / k, 0.0, 1.0)
            kern = line_kernel((motion[0] / k, motion[1] / k))
            premul = cv2.filter2D(rgb * a[..., None], -1, kern)
            a = cv2.filter2D(a, -1, kern)
            blur = (self.camera.focus_blur + 0.3) / k
            premul = cv2.GaussianBlur(premul, (0, 0), blur)
            a = cv2.GaussianBlur(a, (0, 0), blur)
            rgb = premul / np.maximum(a, 1e-3)[..., None]
            if k > 1:
                rgb = cv2.resize(rgb, (gw * k, gh * k), interpolation=cv2.INTER_LINEAR)[:fh, :fw]
                a = cv2.resize(a, (gw * k, gh * k), interpolation=cv2.INTER_LINEAR)[:fh, :fw]
        else:
            if k > 1:
                rgb = cv2.resize(rgb, (gw * k, gh * k), interpolation=cv2.INTER_LINEAR)[:fh, :fw]
            a = hand_alpha(field.sdf, k, fw, fh)
            if self.camera.focus_blur > 0:
                a = cv2.GaussianBlur(a, (0, 0), self.camera.focus_blur)
        rgb *= self.air_light[y0:y1, x0:x1]
        blend(img, x0, y0, rgb, a)
        if mask_out is not None:
            roi = mask_out[y0:y1, x0:x1]
            np.maximum(roi, (a * 255).astype(np.uint8), out=roi)

    def _shade_hand(self, field, ph, hand: Hand, k: int, x0: int, y0: int) -> np.ndarray:
        """The hand's colour (before the light map of where it is) on the field's grid: skin and sleeve
        lit from the lamp with the normals of its pieces, occlusion in its creases, knuckle creases,
        nails, redder tips and knuckles, the skin's sheen and its red-going shadows."""
        caps = ph.caps
        top = field.top
        inside = top >= 0
        gh, gw = top.shape
        m = inside.astype(np.float32)
        npc = len(caps)
        # What each pixel's piece is, in one gather: sleeve, finger bone (1-3), distal bone, the knuckle
        # end of a metacarpal, bone length (mm), radius at each end (mm), dorsal vector (camera axes).
        table = np.zeros((npc + 1, 12), np.float32)
        table[:npc, 0] = [kd == SLEEVE for kd in caps.kind]
        table[:npc, 1] = (caps.digit >= 0) & (caps.joint >= 2)
        table[:npc, 2] = (caps.digit >= 0) & (caps.joint == 3)
        table[:npc, 3] = (caps.digit >= 0) & (caps.digit < 4) & (caps.joint == 0)
        table[:npc, 4] = np.linalg.norm(caps.b - caps.a, axis=1)
        table[:npc, 5] = caps.ra
        table[:npc, 6] = caps.rb
        table[:npc, 7:10] = ph.dorsal
        axis2 = ph.b - ph.a
        table[:npc, 10:12] = axis2 / np.maximum(np.linalg.norm(axis2, axis=1, keepdims=True), 1e-6)
        table[npc, 4:7] = 1.0
        attr = table[np.where(inside, top, npc)]
        sleeve, joint2, distal, meta = attr[..., 0], attr[..., 1], attr[..., 2], attr[..., 3]
        if sleeve.any():
            # The cuff crosses the grid's cells at a slant: a cell-wide blend (normalised within the hand,
            # so the sleeve's own outline keeps its colour) instead of the cells' staircase
            s = max(0.6, 1.2 / k)
            sleeve = cv2.GaussianBlur(sleeve * m, (0, 0), s) / np.maximum(cv2.GaussianBlur(m, (0, 0), s), 1e-3) * m
        length, r_start, r_end = attr[..., 4], attr[..., 5], attr[..., 6]
        # Normals: from the slopes of the blended height field (smooth where pieces melt together), but
        # each piece's own on the outline and at steps where one piece lies over another.
        H = field.height
        if min(H.shape) >= 2:
            gy, gx = np.gradient(H * (1.0 / k))
        else:  # a sliver at the picture's edge
            gy = gx = np.zeros_like(H)
        g2 = gx * gx + gy * gy
        inv = 1.0 / np.sqrt(g2 + 1.0)
        n = cv2.merge([-gx * inv, -gy * inv, inv])
        steep = ((g2 > 6.0) | ~inside)[..., None]
        n = np.where(steep, field.normal, n) * m[..., None]
        n = cv2.GaussianBlur(n, (0, 0), max(0.5, 2.5 / k))  # a few px: joins round off
        n[..., 2] += 1.0 - m
        if meta.any():
            # The extensor tendons stand out along the back of the hand, one down each metacarpal, from
            # the wrist to its knuckle: a low ridge (about a millimetre high, a few wide) that tilts the
            # normals across it, so one flank catches the lamp.
            u = field.across
            rise = meta * np.clip((field.along - 0.15) * 2.0, 0.0, 1.0) * np.clip((0.97 - field.along) * 8.0, 0.0, 1.0)
            radius_mm = np.maximum(0.5 * (attr[..., 5] + attr[..., 6]), 1.0)
            dh = rise * (-2.0 * u / 0.22 ** 2) * np.exp(-(u / 0.22) ** 2) * (0.8 / radius_mm)  # slope across
            n[..., 0] -= dh * -attr[..., 11]
            n[..., 1] -= dh * attr[..., 10]
        cloth = self._cloth(ph, field.top, x0, y0, gh, gw, k) if sleeve.any() else None
        if cloth is not None:
            # Folds are shapes, not stripes of paint: they tilt the sleeve's normals, so the lamp lights
            # one flank of each and leaves the other in shade, and the creases between them go dark.
            n[..., 0] -= cloth.slope_x * sleeve
            n[..., 1] -= cloth.slope_y * sleeve
        n *= (1.0 / np.maximum(np.sqrt(np.einsum("...i,...i->...", n, n)), 1e-4))[..., None]
        nx, ny, nz = cv2.split(n)
        # The lamp as seen from the hand, in camera axes (z towards the camera, as the normals).
        tip = np.array([hand.x, hand.y, -hand.height])
        to_lamp = self.light_pos - tip
        to_lamp /= np.linalg.norm(to_lamp)
        lc = self.model.R @ to_lamp
        lx, ly, lz = float(lc[0]), float(lc[1]), float(-lc[2])
        ndl = nx * lx + ny * ly + nz * lz
        wrap = 0.4 - 0.25 * sleeve  # light bleeds round the terminator under skin; cloth is opaque
        lam = np.maximum(ndl + wrap, 0.0) / np.maximum(lz + wrap, 0.2)
        amb = self.camera.ambient
        # Occlusion: where the surface lies below its neighbourhood (between fingers, along a finger over
        # the palm), the room's light reaches less of it.
        mm = ph.px_per_mm / k  # grid cells per mm
        floor_h = float(H[inside].min()) - 12.0 * mm * k if inside.any() else 0.0
        Hx = np.where(inside, H, np.float32(floor_h)) * (1.0 / k)
        cav = np.clip((cv2.GaussianBlur(Hx, (0, 0), max(1.0, 4.0 * mm)) - Hx) * (1.0 / max(1.0, 3.0 * mm)), 0.0, 1.0)
        cav = cv2.GaussianBlur(cav, (0, 0), 0.8)  # no steps of the grid along a finger's edge
        ao = 1.0 - 0.6 * cav
        light = ao * (amb * (0.75 + 0.25 * nz) + (1.0 - amb) * 0.45 * lam) + (1.0 - amb) * 0.55 * lam
        bare = m - sleeve
        along = field.along * length
        back = np.clip((nx * attr[..., 7] + ny * attr[..., 8] + nz * attr[..., 9] - 0.2) * 1.6, 0.0, 1.0)
        # Creases across the back of each finger joint (the proximal ends of the middle and distal bones
        # and the thumb's last), a few lines each; a darker band where the picture cannot resolve them.
        near_joint = np.clip(1.0 - along / (0.9 * r_start), 0.0, 1.0) * joint2
        resolved = float(np.clip(0.16 * 8.0 * mm - 1.2, 0.0, 1.0))
        if resolved > 0:
            lines = 0.5 + 0.5 * np.cos(along * (2 * np.pi) / (0.16 * r_start))
            lines = lines * lines
            lines = resolved * lines * lines + (1.0 - resolved) * 0.15
            crease = lines * near_joint * back
        else:
            crease = 0.15 * near_joint * back
        # Nails on the back of the last bone, their free edge paler.
        from_tip = length - along
        rq = 0.12 * r_end
        nail = distal * np.clip((from_tip - rq) / (rq + 0.5), 0, 1) * np.clip((1.25 * r_end - from_tip) / (0.2 * r_end + 0.5), 0, 1) \
            * np.clip((back - 0.35) * 3.0, 0, 1)
        free_edge = nail * np.clip(1.0 - (from_tip - rq) / (0.3 * r_end + 0.5), 0, 1)
        # Fingertips and knuckles are redder than the back of the hand.
        tipness = distal * np.clip(1.0 - from_tip / (2.2 * r_end), 0, 1)
        knuckle = meta * np.clip(1.0 - from_tip / (1.4 * r_end), 0, 1) + near_joint * 0.6
        tex = self._skin_texture(gh, gw, hand)
        skin = np.array(hand.skin, np.float32)
        redness = np.clip(0.8 * tipness + 0.7 * knuckle, 0, 1) + np.clip(tex[..., 1] + 0.6 * cav, -1, 1)
        shade = tex[..., 0] * (1.0 - 0.22 * crease) * (1.0 + 0.06 * knuckle * back)
        colour = skin * (shade[..., None] * (1.0 - (redness * bare)[..., None] * np.float32([0.1, 0.08, -0.025])))
        if meta.any():
            # Veins on the back of the hand: meandering down the hollows between the tendons towards the
            # wrist, a bluish shade under the skin that shows more on lighter skin.
            wander = 0.45 + 0.25 * np.sin(field.along * 7.0 + 2.0 * attr[..., 10] + 3.0 * attr[..., 11])
            vein = meta * np.exp(-((field.across - wander) / 0.16) ** 2) * np.clip((0.9 - field.along) * 4.0, 0.0, 1.0)
            vein = cv2.GaussianBlur(vein.astype(np.float32), (0, 0), max(0.6, 1.2 / k))  # under the skin: soft
            show = float(np.clip((skin.mean() - 60.0) / 120.0, 0.15, 1.0))
            colour *= 1.0 - (0.08 * show * vein)[..., None] * np.float32([-0.2, 0.6, 1.0])
        if cloth is not None:
            # Knitted cloth: yarn of slightly different tones (heather), the cuff's ribbing a shade darker
            # and packed tighter, dark in the creases, and the fuzz of its fibres catching the light where
            # the sleeve turns away (a rim a little brighter, not a plastic-like highlight).
            weave = cloth.heather * (1.0 - 0.07 * cloth.cuff) * (1.0 - 0.35 * cloth.crease)
            colour += (sleeve * shade)[..., None] * (np.array(hand.sleeve, np.float32) * weave[..., None] - skin)
            light *= 1.0 + sleeve * (0.22 * (1.0 - nz) ** 2)
        nail_colour = np.clip(skin * np.float32([1.12, 1.1, 1.04]) + np.float32([14, 10, 6]), 0, 255)
        colour += (nail * 0.85)[..., None] * (nail_colour - colour)
        colour += (free_edge * 0.8)[..., None] * (np.float32([215, 225, 235]) - colour)
        # Sheen: skin is a little oily (broad), nails glossy (tight).
        hx, hy, hz = lx, ly, lz + 1.0
        hn = 1.0 / math.sqrt(hx * hx + hy * hy + hz * hz)
        ndh = np.maximum((nx * hx + ny * hy + nz * hz) * hn, 0.0)
        s4 = ndh * ndh
        s4 *= s4
        s16 = s4 * s4
        s16 *= s16
        sheen = bare * (0.09 * s4 + (0.14 + 0.12 * knuckle) * s16) + nail * 0.45 * (s16 * s16 * s4)
        # Light scattered under the skin: its shadows go redder, not grey.
        under = ((light - 1.0) * bare)[..., None] * np.float32([0.3, 0.12, -0.08])
        rgb = colour * (light[..., None] * (1.0 + under))
        rgb += (sheen * (255.0 * (1.0 - amb)))[..., None] * np.float32(LAMP_COLOUR)
        # Edge pixels outside the pieces get their neighbours' colour (the outline is antialiased), and
        # the lens softens the steps where one piece passes over another.
        rgb *= m[..., None]
        soft = cv2.GaussianBlur(cv2.merge([rgb, m]), (0, 0), max(0.3, 1.5 / k))  # a pixel or two
        filled = cv2.GaussianBlur(soft, (0, 0), 1.2)
        out = np.where(inside[..., None], soft[..., :3] / np.maximum(soft[..., 3:], 1e-3),
                       filled[..., :3] / np.maximum(filled[..., 3:], 1e-3))
        return out.astype(np.float32)

    def _cloth(self, ph, top: np.ndarray, x0: int, y0: int, gh: int, gw: int, k: int) -> "_Cloth":
        """The sleeve's cloth on the field's grid: the slopes its folds give the surface, the creases
        between them, the ribbed cuff and the yarn's tones.

        Folds run round the arm, irregular (incommensurate waves along it, bent across it), bunched
        and deeper near the cuff where a pushed-back sleeve gathers; the yarn from a bank drawn once. The
        sleeve bends at the elbow: each cell takes its along and across from the sleeve's piece on top there,
        the upper arm's along counted on from the forearm's."""
        pieces = [i for i, kind in enumerate(ph.caps.kind) if kind == SLEEVE]
        i = pieces[0]
        a0 = (ph.a[i] - np.float32([x0, y0])) / k
        if float(np.linalg.norm(ph.b[i] - ph.a[i])) < 1e-3 * k:
            zero = np.zeros((gh, gw), np.float32)
            return _Cloth(zero, zero, zero, zero, np.ones((gh, gw), np.float32))
        mm = ph.px_per_mm / k  # grid cells per mm
        # Every cell of the field's grid (until the twentieth session a grid three times coarser, scaled
        # up: its samples caught the narrow creases only here and there, and the lamp drew a lattice of
        # dimples over the whole sleeve instead of folds round it).
        yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
        t = s_ = None
        start = 0.0  # mm along the sleeve from its cuff to this piece's end a
        for j in pieces:
            aj = (ph.a[j] - np.float32([x0, y0])) / k
            d = (ph.b[j] - ph.a[j]) / k
            n = float(np.linalg.norm(d))
            d = d / max(n, 1e-6)
            tj = start + ((xx - aj[0]) * d[0] + (yy - aj[1]) * d[1]) / mm
            sj = ((xx - aj[0]) * -d[1] + (yy - aj[1]) * d[0]) / mm
            if t is None:
                t, s_ = tj, sj
            else:
                t, s_ = np.where(top == j, tj, t), np.where(top == j, sj, s_)
            start += float(np.linalg.norm(ph.caps.b[j] - ph.caps.a[j]))
        rise, depth = sleeve_folds(t, s_)
        F = rise / depth
        if min(gh, gw) >= 2:
            sy, sx = np.gradient(rise.astype(np.float32))  # mm of height per grid cell; times cells per mm, the slope
        else:  # a sliver at the picture's edge
            sy = sx = np.zeros((gh, gw), np.float32)
        crease = (np.clip(-F - 0.55, 0.0, 1.0) / 0.45 * np.clip(depth / 2.5, 0.0, 1.0)).astype(np.float32)
        cuff = (np.clip((22.0 - t) / 2.0, 0.0, 1.0) * (t > -1.0)).astype(np.float32)
        heather = self._yarn(gh, gw, -float(a0[0]), -float(a0[1]))
        # The ribs run along the arm, about 2.5 mm apart: seen only where the picture resolves them.
        if mm >= 1.2:  # three grid cells a rib or more
            heather = heather * (1.0 - 0.1 * cuff * (0.5 + 0.5 * np.cos(s_ * (2 * np.pi / 2.5))))
        return _Cloth(sx * mm, sy * mm, crease, cuff, heather)

    def _yarn(self, h: int, w: int, ox: float, oy: float) -> np.ndarray:
        """The cloth's tone (about 1) for a patch: yarn-scale speckle and broader mottling, from a bank
        drawn once; ``ox, oy`` the patch's corner from the cuff (grid cells), so the yarn moves with the arm."""
        if getattr(self, "_yarn_bank", None) is None:
            rng = np.random.default_rng(31)
            size = 512
            speck = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), 0.7) * 0.06
            mottle = textures.value_noise((size, size), 9, rng) * 0.03 + textures.value_noise((size, size), 35, rng) * 0.03
            self._yarn_bank = np.tile((1.0 + speck + mottle).astype(np.float32), (2, 2))
        return _bank_window(self._yarn_bank, h, w, int(oy), int(ox))

    def _skin_texture(self, h: int, w: int, hand: Hand) -> np.ndarray:
        """Skin's unevenness for a hand patch, from a bank drawn once: (h, w, 2), a tone (about 1) and a
        redness (about 0: blotches where blood shows through, on top of the grain)."""
        if getattr(self, "_skin_bank", None) is None:
            rng = np.random.default_rng(23)
            size = 512
            blotch = textures.value_noise((size, size), 40, rng) * 0.06 + textures.value_noise((size, size), 12, rng) * 0.035
            grain = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), 0.8) * 0.035
            red = textures.value_noise((size, size), 22, rng) * 0.6 + textures.value_noise((size, size), 7, rng) * 0.25
            self._skin_bank = np.dstack([1.0 + blotch + grain, red]).astype(np.float32)
            self._skin_bank = np.tile(self._skin_bank, (2, 2, 1))  # any window of up to 512 x 512 is one slice
        # Fixed to the hand: offset by where the fingertips are, so it moves with the hand.
        return _bank_window(self._skin_bank, h, w, int(hand.y * 0.5), int(hand.x * 0.5))


def _bank_window(bank: np.ndarray, h: int, w: int, oy: int, ox: int) -> np.ndarray:
    """An h x w window of a texture bank tiled 2 x 2 (so any window up to the tile's size is one slice),
    starting (oy, ox) into the tile, wrapping round; larger windows tile the bank further."""
    size = bank.shape[0] // 2
    if h > size or w > size:
        reps = (-(-h // size) + 1, -(-w // size) + 1) + (1,) * (bank.ndim - 2)
        bank = np.tile(bank[:size, :size], reps)
    oy, ox = oy % size, ox % size
    return bank[oy:oy + h, ox:ox + w]


@dataclass
class _Cloth:
    """A sleeve's cloth on a hand's shading grid (see ``Renderer._cloth``)."""

    slope_x: np.ndarray  # the folds' slope (mm of rise per mm) along the picture's x
    slope_y: np.ndarray
    crease: np.ndarray  # 0..1, the valleys between folds
    cuff: np.ndarray  # 0..1, the ribbed band at the sleeve's end
    heather: np.ndarray  # the yarn's tone, about 1
