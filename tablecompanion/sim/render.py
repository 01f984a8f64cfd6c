"""Compositing a scene into a webcam frame, fast enough for whole matches.

A ``Renderer`` belongs to one camera, board style, orientation and marker setting. It paints the board
once, keeps the lit picture of the board with its checkers and cube (the "static layer") until the
checkers move, and per frame only draws the dice and hands in small regions, then adds sensor noise
(from a pre-drawn bank) and the JPEG round trip. How a hand looks is :mod:`tablecompanion.sim.hand_paint`
(a part of the ``Renderer``); the light's colour and pasting patches, :mod:`tablecompanion.sim.compose`.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import cv2
import numpy as np

from tablecompanion.geometry import MARKER_IDS, BoardGeometry, BoardSpec
from tablecompanion.sim import board as board_paint
from tablecompanion.sim import textures
from tablecompanion.sim.camera import Camera, CameraModel
from tablecompanion.sim.dice import FACE_NORMALS, Pose, in_rect, pose_die, rest_on, rot_axis, value_up
from tablecompanion.sim.compose import AMBIENT_COLOUR, LAMP_COLOUR, blend, line_kernel
from tablecompanion.sim.errors import SimError
from tablecompanion.sim.hand_paint import HandPainter
from tablecompanion.sim.scene import COLOURS, Die, Scene
from tablecompanion.sim.style import DIE_STYLES, style_named

SHIFT = 4
ONE = 1 << SHIFT
CIRCLE_N = 40
CUBE_SIZE_MM = 26.0
CUBE_VALUES = (2, 4, 8, 16, 32, 64)
SHADOW_STRENGTH = 0.42
NOISE_PAD = 96
# The webcam's processing (see Renderer._develop, _chromatic and the noise bank).
WEBCAM_SATURATION = 0.8
WEBCAM_SHARPEN = 0.7
WEBCAM_SHARPEN_SIGMA = 1.2
BLACK_LEVEL = 0.025
CHROMATIC = 0.0012
# How bright the lamp's arc on a checker's rounded rim is (times 0.75 dark, 0.5 light). Off: with it (even
# at 0.25) the board reader counts a pile of two leather checkers over the far frame of a steep view as one
# (tests/vision/test_board_watch.py, far frame, leather); a vision finding, the look waits for the reader.
RIM_GLINT = 0.0
# A translucent die: the board seen through its body is tinted by the body's colour (its BGR / 255 times
# this, clipped: red acrylic passes red, little else), and the far faces' pips show through at this share
TRANSLUCENT_TINT = 1.25
SEE_THROUGH_PIPS = 0.55
# The varnish on a board's top mirrors the lamp blurred by this much (radians of the half vector): a
# hand-finished surface, not a mirror (the checkers' tops: 0.022).
VARNISH_ROUGHNESS = 0.06
# A window in the wall beyond the top player's edge (board mm: the wall's y, the window's span along x,
# its sill and head above the table), with a cross of glazing bars: glossy tops mirror it only when the
# camera looks along the board steeply enough (a steep view's far checkers; never from straight above).
WINDOW = dict(wall_y=-1900.0, x=(-350.0, 1150.0), height=(850.0, 2050.0), bar=45.0)
GLINT_GRID = 4  # the checkers' glint map is worked out on 4 x 4 pixel blocks (it is smooth)


def _cube_edges():
    """A cube's 12 edges as (corner indices in ``Pose.vertices`` order, the two faces' normals there)."""
    idx = [(ix, iy, iz) for ix in (0, 1) for iy in (0, 1) for iz in (0, 1)]
    ev, n1, n2 = [], [], []
    for a in range(8):
        for b in range(a + 1, 8):
            diff = [k for k in range(3) if idx[a][k] != idx[b][k]]
            if len(diff) != 1:
                continue
            fixed = [k for k in range(3) if k != diff[0]]
            ev.append((a, b))
            for k, out in zip(fixed, (n1, n2)):
                n = np.zeros(3)
                n[k] = 1.0 if idx[a][k] else -1.0
                out.append(n)
    return ev, np.array(n1), np.array(n2)


_EDGE_V, _EDGE_N1, _EDGE_N2 = _cube_edges()


def _fp(pts: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(pts) * ONE).astype(np.int32)


class Renderer(HandPainter):
    """Renders scenes for one camera, board style, orientation and marker setting."""

    def __init__(self, camera: Camera | None = None, style: str = "tournament", home: str = "right",
                 markers: bool = True, spec: BoardSpec | None = None) -> None:
        self.camera = camera or Camera()
        self.spec = spec or BoardSpec()
        self.geo = BoardGeometry(self.spec, home)
        self.style = style_named(style)
        self.markers = markers
        self.model: CameraModel = self.camera.model(self.spec)
        w, h = self.camera.width, self.camera.height
        rays = self.model.pixel_rays()
        self._rays_small = rays[GLINT_GRID // 2::GLINT_GRID, GLINT_GRID // 2::GLINT_GRID].copy()  # for the glint map
        X, Y = self.model.rays_to_plane(rays, 0.0)
        self.px_per_mm = 1.0 / self.model.mm_per_pixel_at_centre(self.spec)
        scale = float(np.clip(1.6 * self.px_per_mm, 0.8, 4.0))
        # light: what falls on the surface each pixel sees; air_light: on something above the board there
        # (dice, hands, a held checker), which the walls' and the table's shading must not mark.
        self.albedo, self.light, self.air_light = self._paint_scene(rays, X, Y, scale)
        self.light_pos = np.array([self.camera.light_mm[0], self.camera.light_mm[1], -self.camera.light_mm[2]])
        self._varnish = self._varnish_map(X, Y)
        noise_rng = np.random.default_rng(7)
        bank = noise_rng.normal(0, self.camera.noise, (h + NOISE_PAD, w + NOISE_PAD, 3)).astype(np.float32)
        bank = cv2.GaussianBlur(bank, (0, 0), 0.5) * 1.6  # demosaicing correlates neighbouring pixels
        # Chroma noise: blotches of colour a few pixels across (the denoiser smooths grain, not colour).
        chroma = noise_rng.normal(0, self.camera.noise * 1.3, (h + NOISE_PAD, w + NOISE_PAD, 3)).astype(np.float32)
        chroma = cv2.GaussianBlur(chroma, (0, 0), 1.6) * 2.2
        chroma -= chroma.mean(axis=2, keepdims=True)
        bank += chroma
        if WEBCAM_SHARPEN > 0:  # the noise goes through the sharpening too
            bank = bank * (1 + WEBCAM_SHARPEN) - cv2.GaussianBlur(bank, (5, 5), WEBCAM_SHARPEN_SIGMA) * WEBCAM_SHARPEN
        self.noise_pos = np.clip(bank, 0, 255).astype(np.uint8)
        self.noise_neg = np.clip(-bank, 0, 255).astype(np.uint8)
        sprite_px = int(max(24, round(self.spec.checker_diameter * self.px_per_mm * 2)))
        srng = np.random.default_rng(11)
        self.sprites = {
            "light": textures.checker_sprite(self.style.light_checker, sprite_px, srng),
            "dark": textures.checker_sprite(self.style.dark_checker, sprite_px, srng),
        }
        self.checker_colour = {"light": np.array(self.style.light_checker, np.float32),
                               "dark": np.array(self.style.dark_checker, np.float32)}
        self._faces: dict = {}
        self._pose_cache: dict = {}
        self._layer_key = None
        self._layer: np.ndarray | None = None
        self._layer_raw: np.ndarray | None = None  # the same before the camera's processing
        self._dirty: list | None = None  # per frame: the picture rectangles drawn over the static layer
        self._restore: list = []  # and the rectangles of the undeveloped layer to put back after the frame
        self._layer_clean: np.ndarray | None = None
        sat = WEBCAM_SATURATION
        luma = np.array([[0.114, 0.587, 0.299]], np.float32)
        matrix = (sat * np.eye(3, dtype=np.float32) + (1 - sat) * np.repeat(luma, 3, axis=0)) * (1 - BLACK_LEVEL)
        self._colour_matrix = np.hstack([matrix, np.full((3, 1), BLACK_LEVEL * 255, np.float32)]).astype(np.float32)
        self._layer_checkers: list = []
        self._layer_truth: dict = {}
        self.static_renders = 0  # how often the static layer was rebuilt (benchmarks read it)

    # --- lighting -----------------------------------------------------------------------------
    def _paint_scene(self, rays: np.ndarray, X: np.ndarray, Y: np.ndarray, scale: float):
        """The albedo (uint8) and light (float32, 3 channels) each pixel sees: the board's top (the plane
        z = 0, painted in board mm), the table ``TABLE_DEPTH_MM`` lower with the board's shadow on it, and
        between them the board's outer side walls that face the camera."""
        sw, sh = self.spec.width, self.spec.height
        depth = board_paint.TABLE_DEPTH_MM
        c = self.model.centre
        # The board's top: painted over the outline and a few mm more (the table comes from below).
        texture = board_paint.paint_board(self.geo, self.style, self.markers, scale, 12.0, table=False,
                                          view=self.model.centre, light_mm=self.camera.light_mm)
        board = board_paint.warp_to_camera(texture, X, Y, scale, 12.0).astype(np.float32)
        inside_mm = np.minimum(np.minimum(X, sw - X), np.minimum(Y, sh - Y))
        cover = np.clip(inside_mm * self.px_per_mm + 0.5, 0, 1)
        # The table.
        TX, TY = self.model.rays_to_plane(rays, depth)
        tmargin = float(np.clip(max(-TX.min(), -TY.min(), TX.max() - sw, TY.max() - sh), 40, 900)) + 10
        tscale = float(np.clip(1.3 * self.px_per_mm, 0.8, 3.0))
        table_tex = np.clip(board_paint.paint_table(self.geo, self.style, tscale, tmargin, self.camera.light_mm, depth), 0, 255)
        albedo = board_paint.warp_to_camera(table_tex.astype(np.uint8), TX, TY, tscale, tmargin).astype(np.float32)
        light = self._irradiance(TX, TY, np.full_like(TX, depth), (0.0, 0.0, -1.0))
        # The side walls facing the camera.
        walls = None
        for name, axis, plane, normal, visible in (
            ("top", 1, 0.0, (0, -1, 0), c[1] < 0), ("bottom", 1, sh, (0, 1, 0), c[1] > sh),
            ("left", 0, 0.0, (-1, 0, 0), c[0] < 0), ("right", 0, sw, (1, 0, 0), c[0] > sw),
        ):
            if not visible:
                continue
            walls = walls or board_paint.paint_walls(self.geo, self.style, scale, depth)
            t = (plane - c[axis]) / rays[..., axis]
            z = (c[2] + t * rays[..., 2]).astype(np.float32)
            u = (c[1 - axis] + t * rays[..., 1 - axis]).astype(np.float32)
            length = sw if axis == 1 else sh
            alpha = np.clip((depth - z) * self.px_per_mm + 0.5, 0, 1) * np.clip(z * self.px_per_mm + 0.5, 0, 1)
            alpha *= (t > 0) & (u >= 0) & (u <= length)
            if not alpha.any():
                continue
            strip = np.clip(walls[name], 0, 255).astype(np.uint8)
            wall = cv2.remap(strip, u * scale - 0.5, z * scale - 0.5, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            px = (c[0] + t * rays[..., 0]).astype(np.float32)
            py = (c[1] + t * rays[..., 1]).astype(np.float32)
            wl = self._irradiance(px, py, z, normal, ambient_share=0.7)
            a = alpha[..., None]
            albedo = albedo * (1 - a) + wall.astype(np.float32) * a
            light = light * (1 - a) + wl * a
        top_light = self._irradiance(X, Y, np.zeros_like(X), (0.0, 0.0, -1.0))
        a = cover[..., None]
        albedo = albedo * (1 - a) + board * a
        light = light * (1 - a) + top_light * a
        cam = self.camera
        hh, ww = X.shape
        yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
        r2 = ((xx - ww / 2) ** 2 + (yy - hh / 2) ** 2) / ((ww / 2) ** 2 + (hh / 2) ** 2)
        vig = (1 - cam.vignette * r2)[..., None]
        gain = np.array(cam.white_balance, np.float32) * cam.exposure * 1.18
        return (np.clip(albedo, 0, 255).astype(np.uint8), (light * vig * gain).astype(np.float32),
                (top_light * vig * gain).astype(np.float32))

    def _irradiance(self, x: np.ndarray, y: np.ndarray, z: np.ndarray, normal, ambient_share: float = 1.0) -> np.ndarray:
        """Light falling on surface points (mm, z down) with one normal: the lamp (a warm point light whose
        light falls off with distance and angle, 1 straight under it on the playing surface) plus the room's
        cooler ambient light. (h, w, 3) BGR factors."""
        cam = self.camera
        lx, ly, lh = cam.light_mm
        dx, dy, dz = lx - x, ly - y, -lh - z
        d2 = dx * dx + dy * dy + dz * dz
        nx, ny, nz = normal
        facing = np.maximum(nx * dx + ny * dy + nz * dz, 0)
        irr = (facing * (lh * lh) / (d2 * np.sqrt(d2))).astype(np.float32)
        warm = np.array(LAMP_COLOUR, np.float32)
        cool = np.array(AMBIENT_COLOUR, np.float32)
        return cam.ambient * ambient_share * cool + (1 - cam.ambient) * irr[..., None] * warm

    def _before_camera(self, shadow: np.ndarray) -> np.ndarray:
        """Shadow points (N, 3) with those behind or just before the camera (an arm reaching from under a
        steep camera throws the shadow of its far end there) pulled back along their ray from the lamp to
        a third of the camera's distance in front of it: out of the picture still, but projectable (behind
        the camera a point has no image, and the lens polynomial of its clamped depth overflows)."""
        near_mm = self.camera.distance_mm / 3
        depth = self.model.depth(shadow)
        lamp = float(self.model.depth(self.light_pos[None])[0])
        behind = depth < near_mm
        if not behind.any() or lamp <= near_mm:
            return shadow
        out = shadow.copy()
        u = (near_mm - lamp) / (depth[behind] - lamp)
        out[behind] = self.light_pos + (shadow[behind] - self.light_pos) * u[:, None]
        return out

    def shadow_point(self, pts: np.ndarray, floor_z: float = 0.0) -> np.ndarray:
        """Where points (N, 3) throw their shadow on the plane z = floor_z, from the point light."""
        L = self.light_pos
        s = (floor_z - L[2]) / (pts[:, 2] - L[2])
        out = L + (pts - L) * s[:, None]
        out[:, 2] = floor_z
        return out

    # --- static layer: board, checkers, cube ------------------------------------------------------
    def checker_places(self, scene: Scene) -> list[tuple[float, float, int, str, str]]:
        """Every checker on the board: (x, y, layer, colour, where) in mm, with the small offsets
        people leave (stable per point and slot, so checkers do not twitch between frames)."""
        out = []
        for p in range(1, 25):
            colour, count = scene.points[p - 1]
            if not count:
                continue
            slots = self.geo.checker_slots(p, count)
            centre_y = self.spec.height / 2
            for i, slot in enumerate(slots):
                jr = np.random.default_rng((scene.jitter_seed, p, i))
                jx, jy = jr.normal(0, 0.9, 2)
                if slot.layer:
                    # Piled checkers sit a little off the one below, towards the middle: a pile reads as one.
                    jy += math.copysign(3.5 * slot.layer, centre_y - slot.y)
                    jx += 2.0 * slot.layer * (1 if i % 2 else -1)
                out.append((slot.x + jx, slot.y + jy, slot.layer, colour, f"point:{p}"))
        for colour in COLOURS:
            n = scene.bar_count(colour)
            for i, slot in enumerate(self.geo.bar_slots(scene.side_of(colour), n)):
                jr = np.random.default_rng((scene.jitter_seed, 25, COLOURS.index(colour), i))
                jx, jy = jr.normal(0, 0.8, 2)
                if slot.layer:
                    jy += 3.5 * slot.layer
                out.append((slot.x + jx, slot.y + jy, slot.layer, colour, "bar"))
        return out

    def static_layer(self, scene: Scene) -> np.ndarray:
        """The board with its checkers and cube, lit, as the camera delivers it (developed, no noise)."""
        key = scene.checkers_key()
        if key != self._layer_key:
            raw, self._layer_checkers, self._layer_truth = self._build_static(scene)
            self._layer_raw = self._chromatic(raw)  # the lens, then the processor
            self._layer_clean = self._layer_raw.copy()
            self._layer = self._develop(self._layer_raw)
            self._layer_key = key
            self.static_renders += 1
        return self._layer

    def _build_static(self, scene: Scene):
        img = self.albedo.copy()
        checkers = self.checker_places(scene)
        t = self.spec.checker_thickness
        max_layer = max((c[2] for c in checkers), default=0)
        # Borne-off checkers stand on edge in the trays; the cube sits in its tray or on the bar.
        self._draw_trays(img, scene)
        cube_truth = None
        cube_pose = self._cube_pose(scene) if scene.cube is not None else None
        if cube_pose is not None:
            self._shadow(img, [cube_pose.vertices()], floor_z=0.0)
            cube_truth = self._draw_cube(img, cube_pose, scene)
        # Glints: the lamp mirrored in each checker's glossy top and rounded rim, added after the light
        # (a highlight is brighter than any albedo); each checker first hides the glints it covers.
        self._glints = np.zeros(img.shape[:2], np.float32)
        self._tops = np.zeros(img.shape[:2], np.float32)
        for layer in range(max_layer + 1):
            group = [c for c in checkers if c[2] == layer]
            self._shadow(img, [self._cylinder(c[0], c[1], layer * t, t) for c in group], floor_z=-layer * t)
            group.sort(key=lambda c: -float(self.model.depth(np.array([[c[0], c[1], -layer * t]]))[0]))
            for c in group:
                self._draw_checker(img, c[0], c[1], -layer * t, c[3])
        glints, self._glints = self._glints, None
        glints += self._tops * self._glint_map()
        if self._varnish.any():
            # the board mirrors the lamp where nothing stands on it and nothing keeps the lamp off it
            glints += self._varnish * np.all(img == self.albedo, axis=2)
        self._tops = None
        lit = cv2.multiply(img.astype(np.float32), self.light)
        if glints.any():
            glints = cv2.GaussianBlur(glints, (0, 0), max(0.8, 0.5 * self.px_per_mm))
            lit += glints[..., None] * (self.light * np.float32(255.0 * (1.0 - self.camera.ambient)))
        if self.camera.focus_blur > 0:
            lit = cv2.GaussianBlur(lit, (0, 0), self.camera.focus_blur)
        out = np.clip(lit, 0, 255).astype(np.uint8)
        tops = [(c[0], c[1], -(c[2] + 1) * t, c[2]) for c in checkers]
        return out, tops, {"cube": cube_truth}

    def _cylinder(self, x: float, y: float, z0: float, height: float, r: float | None = None) -> np.ndarray:
        r = r if r is not None else self.spec.checker_diameter / 2
        a = np.linspace(0, 2 * math.pi, CIRCLE_N, endpoint=False)
        ring = np.stack([x + r * np.cos(a), y + r * np.sin(a)], axis=1)
        bottom = np.column_stack([ring, np.full(CIRCLE_N, -z0)])
        top = np.column_stack([ring, np.full(CIRCLE_N, -z0 - height)])
        return np.vstack([bottom, top])

    def _shadow(self, img: np.ndarray, solids: list[np.ndarray], floor_z: float, strength: float = SHADOW_STRENGTH,
                softness: float = 1.0, contact: bool = True, under: tuple[list[np.ndarray], float] | None = None) -> None:
        """Darken ``img`` under the soft shadows of convex solids (their vertices, world mm). ``under`` =
        (solids, strength): also darken straight under those (the room's light they keep off), in the
        same pass."""
        if not solids:
            return
        sizes = np.cumsum([0] + [len(p) for p in solids])
        allpts = np.vstack(solids)
        h, w = img.shape[:2]
        reach = 8.0 * max(w, h)  # off the picture by this much is as good as anywhere off it (and fits int32)
        shadow_px = np.clip(self.model.project(self._before_camera(self.shadow_point(allpts, floor_z))),
                            -reach, reach).astype(np.float32)
        polys = [cv2.convexHull(shadow_px[sizes[i]:sizes[i + 1]]).reshape(-1, 2) for i in range(len(solids))]
        below = []
        if under is not None and under[0]:
            usizes = np.cumsum([0] + [len(p) for p in under[0]])
            flat = np.vstack(under[0]).copy()
            flat[:, 2] = floor_z
            upx = self.model.project(flat).astype(np.float32)
            below = [cv2.convexHull(upx[usizes[i]:usizes[i + 1]]).reshape(-1, 2) for i in range(len(under[0]))]
        contacts = []
        if contact:
            lows = [p[p[:, 2] >= p[:, 2].max() - 0.5] for p in solids]
            lsizes = np.cumsum([0] + [len(p) for p in lows])
            low_px = self.model.project(np.vstack(lows)).astype(np.float32)
            contacts = [cv2.convexHull(low_px[lsizes[i]:lsizes[i + 1]]).reshape(-1, 2) for i in range(len(lows))]
        every = np.vstack(polys + contacts + below)
        pad = int(12 * softness * max(1.0, self.px_per_mm)) + 4
        x0 = max(0, int(every[:, 0].min()) - pad)
        y0 = max(0, int(every[:, 1].min()) - pad)
        x1 = min(w, int(every[:, 0].max()) + pad)
        y1 = min(h, int(every[:, 1].max()) + pad)
        if x1 <= x0 or y1 <= y0:
            return
        self._note_dirty(x0, y0, x1, y1)
        off = np.float32([x0, y0])
        soft = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for poly in polys:
            cv2.fillConvexPoly(soft, _fp(poly - off), 255, cv2.LINE_AA, SHIFT)
        if below:
            pool = np.zeros_like(soft)
            level = int(round(255 * min(1.0, under[1] / strength)))
            for poly in below:
                cv2.fillConvexPoly(pool, _fp(poly - off), level, cv2.LINE_AA, SHIFT)
            np.maximum(soft, pool, out=soft)
        sigma = 2.2 * softness * max(1.0, self.px_per_mm)
        m = _soft_blur(soft, sigma) * (strength / 255.0)
        if contacts:
            tight = np.zeros_like(soft)
            for poly in contacts:
                cv2.fillConvexPoly(tight, _fp(poly - off), 255, cv2.LINE_AA, SHIFT)
            m += _soft_blur(tight, sigma * 0.35) * (0.35 / 255.0)
        keep = cv2.cvtColor(((1.0 - np.minimum(m, 0.8)) * 255.0).astype(np.uint8), cv2.COLOR_GRAY2BGR)
        roi = img[y0:y1, x0:x1]
        cv2.multiply(roi, keep, dst=roi, scale=1.0 / 255.0)

    def _draw_checker(self, img: np.ndarray, x: float, y: float, z0: float, colour: str, origin=(0.0, 0.0)) -> None:
        """A checker standing at height -z0 (mm): its darker side band, then its textured top face.
        ``origin``: picture coordinates of img's top-left pixel (when img is a patch)."""
        r = self.spec.checker_diameter / 2
        t = self.spec.checker_thickness
        o = np.float32(origin)
        pts = self.model.project(self._cylinder(x, y, -z0, t)) - o
        # No two checkers quite alike: a stable tone of its own (from where it lies), as wear and batches give.
        k = math.sin(x * 12.9898 + y * 78.233 + z0 * 3.1) * 43758.5453
        k = k - math.floor(k)
        tint = np.float32([1.0 + 0.05 * (k - 0.5), 1.0 + 0.035 * (k - 0.5), 1.0 + 0.025 * (0.5 - k)]) * (0.97 + 0.06 * k)
        base = self.checker_colour[colour] * tint
        hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(img, _fp(hull), tuple(float(v) for v in base * 0.58), cv2.LINE_AA, SHIFT)
        # A darker seam where the checker meets what it stands on.
        cv2.polylines(img, [_fp(pts[:CIRCLE_N])], True, tuple(float(v) for v in base * 0.35), 1, cv2.LINE_AA, SHIFT)
        ztop = z0 - t
        dst = (self.model.project(np.array([[x, y, ztop], [x + r, y, ztop], [x, y + r, ztop]])) - o).astype(np.float32)
        sprite = self.sprites[colour]
        n = sprite.shape[0]
        c = (n - 1) / 2
        self._paste_affine(img, sprite, np.float32([[c, c], [n - 1, c], [c, n - 1]]), dst, pts[CIRCLE_N:], tint)
        if getattr(self, "_glints", None) is not None and origin == (0.0, 0.0):
            self._checker_glint(x, y, ztop, hull, pts[CIRCLE_N:], colour)

    def _checker_glint(self, x: float, y: float, ztop: float, hull: np.ndarray, top_ring: np.ndarray, colour: str) -> None:
        """The lamp's reflection on one checker (into ``self._glints``): a thin bright arc on the rounded
        rim where its normal turns to the half vector between lamp and camera, and a soft sheen on the
        flat top, strong only near the board's mirror point of the lamp."""
        g = self._glints
        cv2.fillConvexPoly(g, _fp(hull), 0.0, cv2.LINE_AA, SHIFT)  # this checker hides what is under it
        r = self.spec.checker_diameter / 2
        p = np.array([x, y, ztop])
        lv = self.light_pos - p
        cv = self.model.centre - p
        hv = lv / np.linalg.norm(lv) + cv / np.linalg.norm(cv)
        hv /= np.linalg.norm(hv)
        up = float(-hv[2])  # cos of the half vector's angle from the vertical
        tilt = math.acos(min(1.0, up))
        phi = math.atan2(hv[1], hv[0])
        # The rim rounds off from 0.86 r outwards: the normal tilted by ``tilt`` lies at about this radius.
        rr = r * (0.86 + 0.13 * min(1.0, tilt / 1.0))
        arc = np.linspace(phi - 0.45, phi + 0.45, 5)
        ring = np.column_stack([x + rr * np.cos(arc), y + rr * np.sin(arc), np.full(5, ztop)])
        px = self.model.project(ring)
        shiny = 0.75 if colour == "dark" else 0.5  # the light checkers' white is nearly at the top already
        if RIM_GLINT > 0:
            cv2.polylines(g, [_fp(px)], False, shiny * RIM_GLINT, max(1, int(round(0.06 * r * self.px_per_mm))), cv2.LINE_AA, SHIFT)
        # The flat top mirrors the lamp where the half vector is nearly vertical: marked here, lit from
        # the board's glint map (``_glint_map``) once all checkers are drawn.
        top = top_ring.mean(axis=0)
        inner = top + 0.84 * (top_ring - top)
        cv2.fillConvexPoly(self._tops, _fp(hull), 0.0, cv2.LINE_AA, SHIFT)
        cv2.fillConvexPoly(self._tops, _fp(inner), shiny, cv2.LINE_AA, SHIFT)

    def _glint_map(self) -> np.ndarray:
        """How strongly a glossy horizontal surface a checker's height up mirrors the lamp into each
        pixel (0..1): the lamp's image (about 1.3 degrees: a shade some 6 cm across 1.5 m up) round the
        mirror point, with a faint halo from the surface's unevenness."""
        if getattr(self, "_glint_lobe", None) is None:
            w, h = self.camera.width, self.camera.height
            rays = self._rays_small
            z = -self.spec.checker_thickness
            X, Y = self.model.rays_to_plane(rays, z)
            P = np.stack([X, Y, np.full_like(X, z)], axis=-1).astype(np.float64)
            ang = self._mirror_angle(P)
            lobe = np.exp(-((ang / 0.022) ** 2)) + 0.08 * np.exp(-((ang / 0.09) ** 2))  # the lamp's image, a halo
            lobe = lobe + self._window_image(P, 0.02)
            self._glint_lobe = cv2.resize(lobe.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        return self._glint_lobe

    def _mirror_angle(self, P: np.ndarray) -> np.ndarray:
        """How far (radians) a horizontal mirror at points P (..., 3) is from reflecting the lamp into the
        camera: the half vector between lamp and camera against the vertical."""
        lv = self.light_pos - P
        cv = self.model.centre - P
        hv = lv / np.linalg.norm(lv, axis=-1, keepdims=True) + cv / np.linalg.norm(cv, axis=-1, keepdims=True)
        hv /= np.linalg.norm(hv, axis=-1, keepdims=True)
        return np.arccos(np.clip(-hv[..., 2], -1, 1))

    def _window_image(self, P: np.ndarray, roughness: float) -> np.ndarray:
        """How much of the window a horizontal glossy surface at points P (..., 3; world mm) mirrors into
        the camera, against the lamp's image (0..``Camera.window_glint``): the ray from the camera bounced off
        the surface, where it meets the wall, inside the window's panes; edges blurred by the finish's
        ``roughness`` (radians) at that distance. The window's light is the room's, not the lamp's, so
        it is weighed by the room's share of the light."""
        amb = self.camera.ambient
        weight = self.camera.window_glint * min(2.0, amb / max(1.0 - amb, 0.2))
        if weight <= 0:  # off (the default): nothing to work out
            return np.zeros(P.shape[:-1], np.float32)
        v = P - self.model.centre
        rx, ry, rz = v[..., 0], v[..., 1], -v[..., 2]  # bounced: it now rises (z up is negative)
        wall = WINDOW["wall_y"]
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.where((ry < 0) & (rz < 0), (wall - P[..., 1]) / ry, np.nan)
        hx = P[..., 0] + s * rx
        up = -(P[..., 2] + s * rz)  # height of the hit above the table
        reach = np.sqrt(rx * rx + ry * ry + rz * rz) * s  # how far the bounced ray travels to the wall
        soft = np.maximum(roughness * reach, 5.0)

        def inside(q, lo, hi):
            return np.clip(0.5 + (q - lo) / soft, 0, 1) * np.clip(0.5 + (hi - q) / soft, 0, 1)

        (x0, x1), (z0, z1), bar = WINDOW["x"], WINDOW["height"], WINDOW["bar"]
        pane = inside(hx, x0, x1) * inside(up, z0, z1)
        # the glazing bars: a mullion down the middle, a transom across at two thirds up
        xm, zm = (x0 + x1) / 2, z0 + 2 * (z1 - z0) / 3
        pane *= 1.0 - 0.85 * inside(hx, xm - bar / 2, xm + bar / 2)
        pane *= 1.0 - 0.85 * inside(up, zm - bar / 2, zm + bar / 2)
        return np.nan_to_num(pane * weight, nan=0.0).astype(np.float32)

    def _varnish_map(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """How much of the lamp the board's varnished top mirrors into each pixel (float32, image size; 0
        off the board and on the paper markers): the lamp's image blurred by the finish's unevenness
        (a few degrees) with a broad halo, times the style's gloss of the surface or the frame there.
        A webcam under a lamp sees this as a pale patch that washes out the points under it."""
        st = self.style
        if st.surface_gloss <= 0 and st.frame_gloss <= 0:
            return np.zeros(X.shape, np.float32)
        sw, sh = self.spec.width, self.spec.height
        x0, y0, x1, y1 = self.geo.surface
        on_board = (X >= 0) & (X <= sw) & (Y >= 0) & (Y <= sh)
        on_surface = (X >= x0) & (X <= x1) & (Y >= y0) & (Y <= y1)
        gloss = np.where(on_surface, st.surface_gloss, np.where(on_board, st.frame_gloss, 0.0)).astype(np.float32)
        if self.markers:
            for marker_id in MARKER_IDS.values():
                corners = np.array(self.geo.marker_corners(marker_id))
                (mx0, my0), (mx1, my1) = corners.min(axis=0) - 1.0, corners.max(axis=0) + 1.0
                gloss[(X >= mx0) & (X <= mx1) & (Y >= my0) & (Y <= my1)] = 0.0
        P = np.stack([X, Y, np.zeros_like(X)], axis=-1)[GLINT_GRID // 2::GLINT_GRID, GLINT_GRID // 2::GLINT_GRID]
        ang = self._mirror_angle(P)
        lobe = np.exp(-((ang / VARNISH_ROUGHNESS) ** 2)) + 0.12 * np.exp(-((ang / (4 * VARNISH_ROUGHNESS)) ** 2))
        lobe = lobe + self._window_image(P.astype(np.float64), VARNISH_ROUGHNESS)
        lobe = cv2.resize(lobe.astype(np.float32), (X.shape[1], X.shape[0]), interpolation=cv2.INTER_LINEAR)
        return lobe * gloss

    def _paste_affine(self, img: np.ndarray, sprite: np.ndarray, src: np.ndarray, dst: np.ndarray, outline: np.ndarray,
                      tint: np.ndarray | None = None) -> None:
        h, w = img.shape[:2]
        x0 = max(0, int(math.floor(outline[:, 0].min())) - 2)
        y0 = max(0, int(math.floor(outline[:, 1].min())) - 2)
        x1 = min(w, int(math.ceil(outline[:, 0].max())) + 3)
        y1 = min(h, int(math.ceil(outline[:, 1].max())) + 3)
        if x1 <= x0 or y1 <= y0:
            return
        A = cv2.getAffineTransform(src.astype(np.float32), (dst - np.float32([x0, y0])).astype(np.float32))
        patch = cv2.warpAffine(sprite, A, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        if tint is not None:
            patch[..., :3] *= tint
        blend(img, x0, y0, patch)

    def _draw_trays(self, img: np.ndarray, scene: Scene) -> None:
        d = self.spec.checker_diameter
        t = self.spec.checker_thickness
        for colour in COLOURS:
            side = scene.side_of(colour)
            n = scene.off_count(colour)
            if not n:
                continue
            spots = self.geo.tray_slots(side, n)
            base = self.checker_colour[colour]
            discs = []
            for (x, y) in spots:
                a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
                ring = np.stack([x + d / 2 * np.cos(a), np.full(24, y), -(d / 2 + d / 2 * np.sin(a))], axis=1)
                # centred on the slot (the board model's place for it), a little thinner than the pitch
                ring2 = ring + np.array([0, t * 0.45, 0])
                ring3 = ring - np.array([0, t * 0.45, 0])
                discs.append(np.vstack([ring2, ring3]))
            self._shadow(img, discs, floor_z=0.0, strength=0.3)
            # Far discs first: the near ones hide them.
            order = sorted(range(len(discs)), key=lambda i: -float(self.model.depth(discs[i].mean(axis=0, keepdims=True))[0]))
            for i in order:
                pts = self.model.project(discs[i])
                hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
                shade = 0.75 + 0.1 * ((i * 7) % 3)
                cv2.fillConvexPoly(img, _fp(hull), tuple(float(v) for v in base * shade), cv2.LINE_AA, SHIFT)
                cv2.polylines(img, [_fp(hull)], True, tuple(float(v) for v in base * 0.4), 1, cv2.LINE_AA, SHIFT)

    # --- cube -------------------------------------------------------------------------------------
    def cube_position_mm(self, scene: Scene) -> tuple[float, float]:
        cube = scene.cube
        s = self.spec
        if cube.x is not None and cube.y is not None:
            return cube.x, cube.y
        # The side column away from the home trays holds the cube: middle when centred, the owner's end.
        x = s.frame_width + s.tray_width / 2 if self.geo.home == "right" else s.width - s.frame_width - s.tray_width / 2
        if cube.position == "middle":
            return x, s.height / 2
        if cube.position == "offered":
            return s.width / 2, s.height / 2
        y = s.height - s.frame_width - 45 if cube.position == "bottom" else s.frame_width + 45
        return x, y

    def _cube_pose(self, scene: Scene) -> Pose:
        x, y = self.cube_position_mm(scene)
        # Upright for whoever it faces: the value reads from the owner's seat.
        yaw = 0.0 if scene.cube.position == "top" else math.pi
        R = rot_axis((0, 0, 1), yaw + 0.08) @ value_up(1)
        return rest_on(R, x, y, CUBE_SIZE_MM)

    def _draw_cube(self, img: np.ndarray, pose: Pose, scene: Scene) -> dict:
        top = scene.cube.face
        others = [v for v in CUBE_VALUES if v != top]
        mapping = {1: top, 6: others[0], 2: others[1], 5: others[2], 3: others[3], 4: others[4]}
        key = ("cube", top)
        if key not in self._faces:
            self._faces[key] = {k: textures.cube_face(v, 96) for k, v in mapping.items()}
        outline, _ = self._draw_solid(img, pose, self._faces[key], (205, 220, 228), 1.0, lit=False)
        return {"value": scene.cube.value, "position": scene.cube.position, "centre_px": _r(outline.mean(axis=0)),
                "board_mm": _r(self.cube_position_mm(scene))}

    # --- dice -------------------------------------------------------------------------------------
    def _die_faces(self, style_name: str):
        key = ("die", style_name)
        if key not in self._faces:
            st = DIE_STYLES[style_name]
            self._faces[key] = {v: textures.die_face(v, st.body, st.pip, 64) for v in range(1, 7)}
        return self._faces[key]

    def _die_pips(self) -> dict:
        if "pips" not in self._faces:
            self._faces["pips"] = {v: textures.die_pips(v, 64) for v in range(1, 7)}
        return self._faces["pips"]

    def _draw_solid(self, img: np.ndarray, pose: Pose, faces_tex: dict, body, alpha: float, lit: bool,
                    motion_px=(0.0, 0.0), pips: dict | None = None,
                    pip_colour=(245, 245, 245)) -> tuple[np.ndarray, list[int]]:
        """Draw a cube with textured faces; returns its outline (convex hull) in the picture.

        ``lit``: img is already lit (per-frame drawing), so the cube's colours get the light map too.
        ``alpha`` < 1 with ``pips`` (each face's pip cover, ``textures.die_pips``): a translucent die. Its pips
        are paint, opaque; through its body the board shows tinted by the body's colour, and so do the pips of
        the faces turned away from the camera (a casino die's bottom pips show through its top).
        """
        faces = pose.faces()
        corners_all = np.vstack([f[2] for f in faces])
        projected = self.model.project(np.vstack([corners_all, pose.vertices()]))
        pv = projected[24:]
        face_px = projected[:24].reshape(6, 4, 2)
        hull = cv2.convexHull(pv.astype(np.float32)).reshape(-1, 2)
        h, w = img.shape[:2]
        mx, my = abs(motion_px[0]), abs(motion_px[1])
        x0 = max(0, int(hull[:, 0].min() - 3 - mx))
        y0 = max(0, int(hull[:, 1].min() - 3 - my))
        x1 = min(w, int(hull[:, 0].max() + 4 + mx))
        y1 = min(h, int(hull[:, 1].max() + 4 + my))
        visible = []
        if x1 <= x0 or y1 <= y0:
            return hull, visible
        self._note_dirty(x0, y0, x1, y1)
        pw, ph = x1 - x0, y1 - y0
        off = np.float32([x0, y0])
        body_mask = np.zeros((ph, pw), np.uint8)
        cv2.fillConvexPoly(body_mask, _fp(hull - off), 255, cv2.LINE_AA, SHIFT)
        a = body_mask.astype(np.float32) * (1.0 / 255.0)
        rgb = a[..., None] * (np.array(body, np.float32) * 0.55)
        cam = self.model.centre
        lightdir = self.light_pos - pose.centre
        lightdir /= np.linalg.norm(lightdir)
        see_through = alpha < 1.0 and pips is not None
        if see_through:
            front = np.zeros((ph, pw), np.float32)  # paint of the pips the camera sees
            behind = np.zeros((ph, pw), np.float32)  # paint of the far faces' pips, seen through the body
        for i, (value, normal, corners) in enumerate(faces):
            facing = float(normal @ (cam - corners.mean(axis=0))) > 0
            if not facing and not see_through:
                continue
            tex = faces_tex[value]
            n = tex.shape[0]
            dst = face_px[i].astype(np.float32) - off
            src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
            M = cv2.getPerspectiveTransform(src, dst)
            if see_through:
                cover = cv2.warpPerspective(pips[value], M, (pw, ph), flags=cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
                if not facing:
                    np.maximum(behind, cover, out=behind)
                    continue
                np.maximum(front, cover, out=front)
            visible.append(value)
            warped = cv2.warpPerspective(tex, M, (pw, ph), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                         borderValue=(0, 0, 0, 0))
            shade = 0.5 + 0.62 * max(0.0, float(normal @ lightdir))
            wa = warped[..., 3:4] * (1.0 / 255.0)
            rgb = rgb * (1 - wa) + warped[..., :3] * (shade * wa)
        if see_through:
            front *= a
            through = a * (1.0 - front)  # where the body lets the board through
            behind *= through * SEE_THROUGH_PIPS
            a = a * (alpha + (1.0 - alpha) * front)
        elif alpha < 1.0:
            a = a * alpha
        if lit:
            rgb *= self.air_light[y0:y1, x0:x1]
            rgb += self._die_glint(pose, faces, face_px, off, (ph, pw))[..., None] * self.air_light[y0:y1, x0:x1] * np.float32(
                255.0 * (1.0 - self.camera.ambient))
        blurs = []
        if mx > 0.5 or my > 0.5:
            kern = line_kernel(motion_px)
            blurs.append(lambda m: cv2.filter2D(m, -1, kern))
        if lit and self.camera.focus_blur > 0:
            blurs.append(lambda m: cv2.GaussianBlur(m, (0, 0), self.camera.focus_blur))
        for blur in blurs:
            rgb = blur(rgb * a[..., None])
            a = blur(a)
            rgb = rgb / np.maximum(a, 1e-3)[..., None]
            if see_through:
                through, behind = blur(through), blur(behind)
        if see_through:
            # the light that comes through the body: the board's (or a far pip's paint) tinted by the body
            tint = np.clip(np.array(body, np.float32) / 255.0 * TRANSLUCENT_TINT, 0.0, 1.0)
            region = img[y0:y1, x0:x1].astype(np.float32)
            paint = np.array(pip_colour, np.float32) * 0.8
            if lit:
                paint = paint * self.air_light[y0:y1, x0:x1]
            seen = (region * (1.0 - behind[..., None]) + paint * behind[..., None]) * tint
            region += (seen - region) * through[..., None]
            img[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(img.dtype)
        blend(img, x0, y0, rgb, a)
        return hull, visible

    def _die_glint(self, pose: Pose, faces, face_px: np.ndarray, off: np.ndarray, shape) -> np.ndarray:
        """The lamp's reflection on a glossy die (0..1 on its patch): a thin line along the rounded edge
        whose normal lies nearest the half vector between lamp and camera, a spot on the corner nearest
        it, and a sheen over a face that almost mirrors the lamp."""
        key = (pose.centre.tobytes(), pose.R.tobytes(), float(off[0]), float(off[1]), shape)
        cache = self.__dict__.setdefault("_die_glints", {})
        if key in cache:  # a settled die: the same glint frame after frame
            return cache[key]
        if len(cache) > 32:
            cache.clear()
        cache[key] = out = self._die_glint_new(pose, faces, face_px, off, shape)
        return out

    def _die_glint_new(self, pose: Pose, faces, face_px: np.ndarray, off: np.ndarray, shape) -> np.ndarray:
        out = np.zeros(shape, np.float32)
        lv = self.light_pos - pose.centre
        cv = self.model.centre - pose.centre
        hv = lv / np.linalg.norm(lv) + cv / np.linalg.norm(cv)
        hv /= np.linalg.norm(hv)
        cv /= np.linalg.norm(cv)
        # The cube's 12 edges: two corners (pose.vertices order) and the axes of the two faces meeting there.
        R = pose.R
        n1 = (_EDGE_N1 @ R.T)  # (12, 3) world normals of the faces either side
        n2 = (_EDGE_N2 @ R.T)
        seen = ((n1 @ cv) > 0) | ((n2 @ cv) > 0)
        axis = np.cross(n1, n2)
        offs = axis @ hv
        inplane = hv[None, :] - offs[:, None] * axis
        between = ((inplane * n1).sum(1) > 0) & ((inplane * n2).sum(1) > 0)
        score = np.where(between, np.sqrt(np.maximum(0.0, 1.0 - offs * offs)), np.maximum(n1 @ hv, n2 @ hv))
        score = np.where(seen, score, -1.0)
        e = int(np.argmax(score))
        v = float(max(score[e], 0.0) ** 60) * 0.8
        if v > 0.02:
            # The rounded edge's normals sweep the arc from one face's normal to the other's: the glint is
            # as bright as the half vector lies near that arc; the corners are rounded off.
            ends = self.model.project(pose.vertices()[list(_EDGE_V[e])]) - off
            p, q = ends[0] + 0.18 * (ends[1] - ends[0]), ends[1] - 0.18 * (ends[1] - ends[0])
            thick = max(1, int(round(0.05 * self.spec.die_size * self.px_per_mm)))
            cv2.line(out, _fp(p), _fp(q), v, thick, cv2.LINE_AA, SHIFT)
        normals = np.array([f[1] for f in faces])
        sheen = np.maximum(normals @ hv, 0.0) ** 300 * 0.5
        for i in np.nonzero((sheen > 0.02) & (normals @ cv > 0))[0]:
            cv2.fillConvexPoly(out, _fp(face_px[i] - off), float(sheen[i]), cv2.LINE_AA, SHIFT)
        return cv2.GaussianBlur(out, (0, 0), max(0.7, 0.35 * self.px_per_mm))

    # --- per frame ----------------------------------------------------------------------------
    def render(self, scene: Scene, seed: int = 0, encode: bool = True, gain: float = 1.0,
               shade: tuple[float, float, float, float] | None = None,
               rows: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
        """One frame: the image (BGR uint8, JPEG round trip if the camera has a quality) and its truth.

        ``gain`` scales the exposure of this frame only (auto-exposure drift, daylight), one factor or
        three (B, G, R: the white balance drifting with it); ``shade`` =
        (x_mm, y_mm, radius_mm, strength) darkens a soft disc of the table (someone leaning over the
        light, a passing cloud); ``rows`` (one factor per picture row) the light each row saw: a
        rolling shutter under lamps that flicker with the mains (``footage_light.MainsFlicker``).
        """
        if scene.home != self.geo.home or scene.style != self.style.name or scene.markers != self.markers:
            raise SimError("scene does not match this renderer's board (home/style/markers): use renderer_for()")
        rng = np.random.default_rng(seed)
        self.static_layer(scene)
        # Dice and hands are drawn straight onto the undeveloped layer; what they touched is developed into
        # the frame and then put back from the clean copy (cheaper than copying the whole layer per frame).
        img = self._layer_raw
        self._dirty = []
        try:
            return self._render_over(scene, img, rng, seed, encode, gain, shade, rows)
        finally:
            for x0, y0, x1, y1 in self._restore:
                img[y0:y1, x0:x1] = self._layer_clean[y0:y1, x0:x1]
            self._restore = []
            self._dirty = None

    def _render_over(self, scene: Scene, img: np.ndarray, rng: np.random.Generator, seed: int, encode: bool,
                     gain: float, shade, rows: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
        truth = self._base_truth(scene)
        poses = self.pose_dice(scene, rng)
        hand_mask = np.zeros(img.shape[:2], np.uint8) if scene.hands else None
        for floor in sorted({self._floor_under(p) for _, p, _ in poses}):
            self._shadow(img, [p.vertices() for _, p, _ in poses if self._floor_under(p) == floor], floor_z=floor,
                         strength=0.45, softness=0.8)
        drawn: dict[int, tuple] = {}
        far_first = sorted(range(len(poses)), key=lambda i: -float(self.model.depth(poses[i][1].centre[None])[0]))
        for i in far_first:
            die, pose, notes = scene.dice[i], poses[i][1], poses[i][2]
            st = DIE_STYLES[die.style]
            motion = die.motion_px if self.camera.motion_blur else (0.0, 0.0)
            outline, visible = self._draw_solid(img, pose, self._die_faces(die.style), st.body, st.alpha, lit=True,
                                                motion_px=motion, pips=self._die_pips() if st.alpha < 1.0 else None,
                                                pip_colour=st.pip)
            drawn[i] = (die, pose, dict(notes, visible_faces=visible), outline)
        for hand in scene.hands:
            self._draw_hand(img, hand, hand_mask)
        truth["dice"] = [self._die_truth(scene, *drawn[i]) for i in range(len(poses))]
        if hand_mask is not None:
            truth["hand_mask"] = hand_mask > 127
            truth["hands"] = [{"player": h.player, "tip_mm": _r((h.x, h.y)), "height_mm": round(h.height, 2),
                               "spread": h.spread, "holding": h.holding, "elbow_mm": _r(h.elbow_mm),
                               "hand": "left" if h.left else "right", "fingers": [round(float(f), 2) for f in h.fingers]}
                              for h in scene.hands]
        else:
            truth["hand_mask"] = None
            truth["hands"] = []
        img = self._develop_dirty(img)
        if shade is not None:
            truth["shade"] = self._apply_shade(img, *shade)
        img = self.finish(img, rng, encode=encode, gain=gain, rows=rows)
        truth["seed"] = seed
        return img, truth

    def _floor_under(self, pose: Pose) -> float:
        """The surface a die's shadow falls on: the playing surface (0) or, beyond the board, the table."""
        x, y = float(pose.centre[0]), float(pose.centre[1])
        inside = 0 <= x <= self.spec.width and 0 <= y <= self.spec.height
        return 0.0 if inside else board_paint.TABLE_DEPTH_MM

    def _apply_shade(self, img: np.ndarray, x: float, y: float, radius: float, strength: float) -> dict:
        """A soft shadow over part of the table (Gaussian falloff), as from a body between light and board."""
        c = self.model.project(np.array([[x, y, 0.0]]))[0]
        r = radius * self.px_per_mm
        h, w = img.shape[:2]
        x0, x1 = max(0, int(c[0] - 2 * r)), min(w, int(c[0] + 2 * r))
        y0, y1 = max(0, int(c[1] - 2 * r)), min(h, int(c[1] + 2 * r))
        if x1 > x0 and y1 > y0:
            yy, xx = np.ogrid[y0:y1, x0:x1]
            d2 = ((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (r * r)
            keep = ((1.0 - strength * np.exp(-d2)) * 255.0).astype(np.uint8)
            roi = img[y0:y1, x0:x1]
            cv2.multiply(roi, cv2.cvtColor(keep, cv2.COLOR_GRAY2BGR), dst=roi, scale=1.0 / 255.0)
        return {"centre_px": _r(c), "radius_px": round(float(r), 1), "strength": round(float(strength), 3)}

    def pose_dice(self, scene: Scene, rng: np.random.Generator | None = None) -> list[tuple[Die, Pose, dict]]:
        """Where each die of the scene lies (the pose the frame will show), clear of checkers and each other.

        Dice whose placement is pinned (``pose_seed`` or position given) are cached: footage shows the
        same settled dice for many frames.
        """
        self.static_layer(scene)
        pinned = all(d.pose_seed is not None or (d.x is not None and d.y is not None and d.yaw is not None)
                     for d in scene.dice)
        key = (self._layer_key, scene.dice, scene.roller) if pinned else None
        if key is not None and key in self._pose_cache:
            return self._pose_cache[key]
        poses = self._pose_dice(scene, rng)
        if key is not None:
            if len(self._pose_cache) > 64:
                self._pose_cache.clear()
            self._pose_cache[key] = poses
        return poses

    def _pose_dice(self, scene: Scene, rng: np.random.Generator | None) -> list[tuple[Die, Pose, dict]]:
        rng = rng if rng is not None else np.random.default_rng(0)
        avoid = [(c[0], c[1], self.spec.checker_diameter / 2 + self.spec.die_size * 0.75) for c in self._layer_checkers]
        poses = []
        for die in scene.dice:
            die_rng = np.random.default_rng(die.pose_seed) if die.pose_seed is not None else rng
            pose, notes = pose_die(die, self.geo, scene.roller, self._layer_checkers, avoid, die_rng)
            poses.append((die, pose, notes))
            avoid.append((pose.centre[0], pose.centre[1], self.spec.die_size * 1.3))
        return poses

    # --- the webcam's processing ------------------------------------------------------------------
    def _develop(self, img: np.ndarray) -> np.ndarray:
        """What a webcam's processor does to a (noise-free) picture: colours pulled towards grey (cheap
        sensors and their colour matrices), then sharpening, which leaves light and dark halos along edges."""
        out = cv2.transform(img, self._colour_matrix)  # with the lifted black level
        if WEBCAM_SHARPEN > 0:
            blur = cv2.GaussianBlur(out, (5, 5), WEBCAM_SHARPEN_SIGMA)
            out = cv2.addWeighted(out, 1.0 + WEBCAM_SHARPEN, blur, -WEBCAM_SHARPEN, 0)
        return out

    def _develop_dirty(self, raw: np.ndarray) -> np.ndarray:
        """The developed static layer with the rectangles drawn this frame (dice, hands, their shadows)
        developed from ``raw``: one frame costs only its changed region."""
        dirty, self._dirty = self._dirty, None
        img = self._layer.copy()
        if not dirty:
            return img
        h, w = raw.shape[:2]
        pad = 4  # the sharpening's reach (a 5x5 kernel) and a little more
        for x0, y0, x1, y1 in _merge_rects(dirty, pad):
            x0, y0, x1, y1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
            if x1 <= x0 or y1 <= y0:
                continue
            X0, Y0, X1, Y1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
            dev = self._develop(raw[Y0:Y1, X0:X1])
            img[y0:y1, x0:x1] = dev[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0]
        return img

    def _note_dirty(self, x0: int, y0: int, x1: int, y1: int) -> None:
        if self._dirty is not None and x1 > x0 and y1 > y0:
            self._dirty.append((int(x0), int(y0), int(x1), int(y1)))
            self._restore.append((int(x0), int(y0), int(x1), int(y1)))

    def _chromatic(self, img: np.ndarray) -> np.ndarray:
        """Lateral chromatic aberration of a cheap lens: red a little larger than green, blue a little
        smaller, so edges towards the corners get colour fringes."""
        if CHROMATIC <= 0:
            return img
        h, w = img.shape[:2]
        cx, cy = (w - 1) / 2, (h - 1) / 2
        out = img.copy()
        for ch, k in ((2, 1.0 + CHROMATIC), (0, 1.0 - CHROMATIC)):
            M = np.float32([[1 / k, 0, cx - cx / k], [0, 1 / k, cy - cy / k]])
            out[..., ch] = cv2.warpAffine(img[..., ch], M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out

    def finish(self, img: np.ndarray, rng: np.random.Generator, encode: bool = True, gain: float = 1.0,
               rows: np.ndarray | None = None) -> np.ndarray:
        """Sensor noise (grain and colour blotches, sharpened with the picture), this frame's exposure
        ``gain`` (highlights clip) times each row's light ``rows``, and the JPEG round trip."""
        h, w = img.shape[:2]
        if self.camera.noise > 0:
            ox, oy = (int(v) for v in rng.integers(0, NOISE_PAD, 2))
            img = cv2.add(img, self.noise_pos[oy:oy + h, ox:ox + w])
            img = cv2.subtract(img, self.noise_neg[oy:oy + h, ox:ox + w])
        if rows is not None:
            g = np.broadcast_to(np.asarray(gain, np.float32).reshape(-1)[:3], (3,))
            scale = np.asarray(rows, np.float32).reshape(-1, 1, 1) * g.reshape(1, 1, 3)
            img = np.clip(img.astype(np.float32) * scale + 0.5, 0, 255).astype(np.uint8)
        elif isinstance(gain, (tuple, list, np.ndarray)):  # per channel (B, G, R): white balance drifting too
            if max(abs(float(g) - 1.0) for g in gain) > 1e-3:
                img = cv2.transform(img, np.diag(np.asarray(gain, np.float32)[:3]))  # saturates at white
        elif abs(gain - 1.0) > 1e-3:
            img = cv2.convertScaleAbs(img, alpha=gain)
        if encode and self.camera.jpeg_quality is not None:
            _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(self.camera.jpeg_quality)])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img

    def _draw_checker_lit(self, img: np.ndarray, x: float, y: float, z0: float, colour: str) -> None:
        """A checker drawn on an already lit picture (held in a hand): unlight the patch, draw, relight."""
        pts = self.model.project(self._cylinder(x, y, -z0, self.spec.checker_thickness))
        h, w = img.shape[:2]
        x0 = max(0, int(pts[:, 0].min()) - 3)
        y0 = max(0, int(pts[:, 1].min()) - 3)
        x1 = min(w, int(pts[:, 0].max()) + 4)
        y1 = min(h, int(pts[:, 1].max()) + 4)
        if x1 <= x0 or y1 <= y0:
            return
        self._note_dirty(x0, y0, x1, y1)
        light = self.air_light[y0:y1, x0:x1]
        roi = img[y0:y1, x0:x1]
        sub = np.clip(roi.astype(np.float32) / np.maximum(light, 1e-3), 0, 255).astype(np.uint8)
        self._draw_checker(sub, x, y, z0, colour, origin=(x0, y0))
        roi[:] = np.clip(sub.astype(np.float32) * light, 0, 255).astype(np.uint8)

    # --- truth --------------------------------------------------------------------------------
    def _base_truth(self, scene: Scene) -> dict:
        bottom_board, top_board = scene.boards()
        fixed = self._fixed_truth()
        truth = {
            "image_size": [self.camera.width, self.camera.height],
            "camera": _copy_nested(fixed["camera"]),
            "homography_image_to_board": _copy_nested(fixed["homography"]),
            "home": scene.home,
            "bottom": scene.bottom,
            "roller": scene.roller,
            "points": [[c, n] if n else [None, 0] for c, n in scene.points],
            "boards": {"bottom": list(bottom_board), "top": list(top_board)},
            "bar": {c: scene.bar_count(c) for c in COLOURS},
            "off": {c: scene.off_count(c) for c in COLOURS},
            "cube": self._layer_truth.get("cube"),
            "markers": None,
        }
        if scene.markers:
            truth["markers"] = _copy_nested(fixed["markers"])
        return truth

    def _fixed_truth(self) -> dict:
        """The parts of the truth that never change for this renderer (worked out once)."""
        if getattr(self, "_fixed", None) is None:
            self._fixed = {
                "camera": self.model.to_truth(),
                "homography": self.model.homography_image_to_board().round(9).tolist(),
                "markers": {
                    str(mid): _r(self.model.project(np.array([[x, y, 0.0] for x, y in self.geo.marker_corners(mid)])))
                    for mid in MARKER_IDS.values()
                },
            }
        return self._fixed

    def _die_truth(self, scene: Scene, die: Die, pose: Pose, notes: dict, outline: np.ndarray) -> dict:
        x, y = float(pose.centre[0]), float(pose.centre[1])
        top_centre = self.model.project((pose.centre + np.array([0, 0, -self.spec.die_size / 2]))[None])[0]
        flat = die.state == "flat"
        footprint = pose.vertices()[:, :2]
        rh = self.geo.right_hand_board(die.thrower or scene.roller)
        inside = all(in_rect(rh, px, py) for px, py in footprint)
        up = np.array([0.0, 0.0, -1.0])
        top_normal = pose.R @ np.array(FACE_NORMALS[pose.top_value()], float)
        tilt = math.degrees(math.acos(float(np.clip(top_normal @ up, -1, 1))))
        return {
            "value": die.value if die.state != "rolling" else None,
            "tilt_deg": round(tilt, 2),
            "top_value": pose.top_value(),
            "state": die.state,
            "valid": bool(flat and inside),
            "style": die.style,
            "thrower": die.thrower or scene.roller,
            "centre_px": _r(outline.mean(axis=0)),
            "top_centre_px": _r(top_centre),
            "outline_px": _r(outline),
            "board_mm": _r((x, y)),
            "height_mm": round(max(0.0, float(-pose.vertices()[:, 2].max())), 2) + 0.0,
            **notes,
        }


def _merge_rects(rects: list, gap: int) -> list:
    """Rectangles (x0, y0, x1, y1) merged wherever they come within ``gap`` of each other, so a die far from
    the hand is developed on its own rather than with everything between them."""
    out = [list(r) for r in rects]
    merged = True
    while merged and len(out) > 1:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] <= b[2] + gap and b[0] <= a[2] + gap and a[1] <= b[3] + gap and b[1] <= a[3] + gap:
                    out[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return [tuple(r) for r in out]


def _soft_blur(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur as float32; wide blurs run on a shrunken copy (shadows are smooth anyway)."""
    k = int(sigma // 3)
    if k >= 2 and min(mask.shape) > 4 * k:
        h, w = mask.shape
        small = cv2.resize(mask, (max(1, w // k), max(1, h // k)), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small.astype(np.float32), (0, 0), sigma / k)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.GaussianBlur(mask, (0, 0), sigma).astype(np.float32)


def _copy_nested(v):
    """A copy of nested lists and dicts of numbers (the truth's fixed parts, so no frame's truth shares them)."""
    if isinstance(v, list):
        return [_copy_nested(x) for x in v]
    if isinstance(v, dict):
        return {k: _copy_nested(x) for k, x in v.items()}
    return v


def _r(a) -> list:
    return np.round(np.asarray(a, dtype=float), 2).tolist()


# --- module-level convenience with a small cache of renderers ------------------------------------
_CACHE: "OrderedDict[tuple, Renderer]" = OrderedDict()
_CACHE_SIZE = 4


def renderer_for(camera: Camera, scene: Scene, spec: BoardSpec | None = None) -> Renderer:
    key = (camera, scene.style, scene.home, scene.markers, spec)
    r = _CACHE.get(key)
    if r is None:
        r = Renderer(camera, scene.style, scene.home, scene.markers, spec)
        _CACHE[key] = r
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return r


def render_frame(scene: Scene, camera: Camera | None = None, seed: int = 0) -> tuple[np.ndarray, dict]:
    """A webcam frame of ``scene`` and its ground truth (see docs/sim.md for the truth's fields)."""
    camera = camera or Camera()
    return renderer_for(camera, scene).render(scene, seed)
