"""The static board: painted once in board millimetres, then warped into each camera's picture.

Everything on the board lies in the plane of the playing surface (the frame is painted with its bevels and
the shadows it would cast, not raised), so the calibration markers on the frame sit exactly where
``geometry.marker_corners`` says and one homography maps the whole board. The board has a thickness all
the same: the table it stands on lies ``TABLE_DEPTH_MM`` below that plane (``paint_table``), and the
renderer draws the board's outer side walls between the two, so the board throws its shadow on the table
and its near side shows under a tilted camera, all outside the board's outline.
"""

from __future__ import annotations

import cv2
import numpy as np

from tablecompanion.geometry import MARKER_IDS, BoardGeometry
from tablecompanion.sim import textures
from tablecompanion.sim.style import BoardStyle

SHIFT = 4  # fixed-point bits for sub-pixel polygon drawing
TEXTURE_SEED = 20240517  # the same physical board in every frame, whatever the frame seed
TABLE_DEPTH_MM = 40.0  # the board's thickness: the table top lies this far below the playing surface
LAMP_RADIUS_MM = 90.0  # the lamp's shade: how soft the board's shadow on the table is
RIM_HEIGHT_MM = 6.0  # how far the frame and bar would stand above the playing surface (painted, not raised)


def paint_board(geo: BoardGeometry, style: BoardStyle, markers: bool, scale: float, margin: float,
                table: bool = True, view=None, light_mm=None) -> np.ndarray:
    """The board and the table around it, seen from straight above, ``scale`` px/mm, as uint8 BGR.

    Pixel (0, 0) is board mm (-margin, -margin). ``table=False`` leaves the table out (a flat colour):
    the renderer takes the table from ``paint_table``, which lies lower. ``view`` (the camera's centre,
    world mm) paints the inner faces of the frame and bar that camera would see (``_inner_faces``), lit
    by the lamp at ``light_mm``.
    """
    rng = np.random.default_rng(TEXTURE_SEED)
    s = geo.spec
    W, H = int(round((s.width + 2 * margin) * scale)), int(round((s.height + 2 * margin) * scale))

    def px(x: float, y: float) -> tuple[float, float]:
        return ((x + margin) * scale, (y + margin) * scale)

    def rect_px(r) -> tuple[int, int, int, int]:
        x0, y0 = px(r[0], r[1])
        x1, y1 = px(r[2], r[3])
        return int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))

    # The table: planks from their own generator; the draws the board's textures follow are kept as they
    # were, so the board itself looks the same whatever the table does.
    _skip_table_draws(rng, (H, W), scale * 1.3)
    if table:
        img = textures.table_top((H, W), style.table_colour, np.random.default_rng(TEXTURE_SEED + 1), scale)
    else:
        img = np.empty((H, W, 3), np.float32)
        img[:] = style.table_colour
    raised = np.zeros((H, W), np.float32)

    # Frame: the whole board outline in darker wood, grain along the long side.
    bx0, by0, bx1, by1 = rect_px(geo.outline)
    frame = textures.wood((by1 - by0, bx1 - bx0), style.frame_colour, rng, along_x=True, scale=scale)
    img[by0:by1, bx0:bx1] = frame
    raised[by0:by1, bx0:bx1] = 1.0

    # Trays on both sides (the home-side pair holds borne-off checkers, the other the cube).
    f = s.frame_width
    for tx in (f, s.width - f - s.tray_width):
        for ty0, ty1 in ((f, f + s.surface_height / 2), (f + s.surface_height / 2, f + s.surface_height)):
            inset = 2.0
            x0, y0, x1, y1 = rect_px((tx, ty0 + (inset if ty0 > f else 0), tx + s.tray_width, ty1 - (inset if ty1 < f + s.surface_height else 0)))
            img[y0:y1, x0:x1] = textures.felt((y1 - y0, x1 - x0), style.tray_colour, rng, scale=scale)
            raised[y0:y1, x0:x1] = 0.0

    # Playing surface halves.
    for side in ("left", "right"):
        x0, y0, x1, y1 = rect_px(geo.half(side))
        shape = (y1 - y0, x1 - x0)
        if style.surface == "felt":
            surf = textures.felt(shape, style.surface_colour, rng, scale=scale)
            shade_src = textures.felt(shape, (255, 255, 255), rng, scale=scale) / 255.0
        else:
            surf = textures.wood(shape, style.surface_colour, rng, along_x=False, scale=scale)
            shade_src = textures.wood(shape, (255, 255, 255), rng, along_x=False, scale=scale) / 255.0
        # Points: triangles painted on the surface, colour alternating from point 1.
        tri_masks = [np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)]
        trim = np.zeros(shape, np.uint8)
        for point in range(1, 25):
            if geo.point_half(point) != side:
                continue
            poly = np.array([px(*p) for p in geo.point_triangle(point)]) - (x0, y0)
            pts = np.round(poly * (1 << SHIFT)).astype(np.int32)
            cv2.fillConvexPoly(tri_masks[(point + 1) % 2], pts, 255, cv2.LINE_AA, SHIFT)
            cv2.polylines(trim, [pts], True, 255, max(1, int(scale * 0.8)), cv2.LINE_AA, SHIFT)
        for k in (0, 1):
            m = (tri_masks[k].astype(np.float32) / 255.0)[..., None]
            colour = np.array(style.point_colours[k], np.float32)
            surf = surf * (1 - m) + m * colour * shade_src * 1.02
        if style.trim_colour is not None:
            m = (trim.astype(np.float32) / 255.0)[..., None] * 0.7
            surf = surf * (1 - m) + m * np.array(style.trim_colour, np.float32) * shade_src
        img[y0:y1, x0:x1] = surf
        raised[y0:y1, x0:x1] = 0.0

    # Bar: wood, raised, with two brass hinges.
    x0, y0, x1, y1 = rect_px(geo.bar)
    img[y0:y1, x0:x1] = textures.wood((y1 - y0, x1 - x0), style.bar_colour, rng, along_x=False, scale=scale)
    raised[y0:y1, x0:x1] = 1.0
    cxp = (x0 + x1) / 2
    cv2.line(img, (int(cxp), y0), (int(cxp), y1), tuple(0.5 * c for c in style.bar_colour), max(1, int(scale * 0.6)), cv2.LINE_AA)
    for hy in (s.height * 0.22, s.height * 0.78):
        hx0, hy0 = px(s.width / 2 - 9, hy - 28)
        hx1, hy1 = px(s.width / 2 + 9, hy + 28)
        cv2.rectangle(img, (int(hx0), int(hy0)), (int(hx1), int(hy1)), (70, 150, 190), -1, cv2.LINE_AA)
        cv2.rectangle(img, (int(hx0), int(hy0)), (int(hx1), int(hy1)), (40, 90, 120), max(1, int(scale * 0.5)), cv2.LINE_AA)

    # Relief only matters on and next to the board: keep the (large) table margin out of it.
    pad = int(30 * scale)
    ry0, ry1, rx0, rx1 = max(0, by0 - pad), min(H, by1 + pad), max(0, bx0 - pad), min(W, bx1 + pad)
    img[ry0:ry1, rx0:rx1] = _relief(img[ry0:ry1, rx0:rx1], raised[ry0:ry1, rx0:rx1], scale)
    # The board's own shadow on the table.
    edge = np.zeros((H, W), np.float32)
    edge[by0:by1, bx0:bx1] = 1
    edge = cv2.GaussianBlur(edge[ry0:ry1, rx0:rx1], (0, 0), 5 * scale)
    outside = 1 - raised[ry0:ry1, rx0:rx1]
    outside[by0 - ry0:by1 - ry0, bx0 - rx0:bx1 - rx0] = 0
    img[ry0:ry1, rx0:rx1] *= (1 - 0.45 * edge * outside)[..., None]

    if view is not None:
        _inner_faces(img, geo, style, scale, margin, view, light_mm)
    if markers:
        _paint_markers(img, geo, px, scale)
    return np.clip(img, 0, 255).astype(np.uint8)


def paint_table(geo: BoardGeometry, style: BoardStyle, scale: float, margin: float, light_mm,
                depth: float = TABLE_DEPTH_MM) -> np.ndarray:
    """The table top the board stands on (the plane ``depth`` mm below the playing surface), seen from
    above at ``scale`` px/mm, pixel (0, 0) at mm (-margin, -margin), as float32 BGR: planks, the board's
    soft shadow from the lamp at ``light_mm`` (x, y, height above the playing surface), and the dark
    contact line and occlusion where the board stands."""
    s = geo.spec
    W, H = int(round((s.width + 2 * margin) * scale)), int(round((s.height + 2 * margin) * scale))
    img = textures.table_top((H, W), style.table_colour, np.random.default_rng(TEXTURE_SEED + 1), scale)
    lx, ly, lh = (float(v) for v in light_mm)
    k = 1.0 + depth / max(lh, depth + 1.0)  # the top edge's shadow: from the lamp through the edge down to the table
    top = [(lx + (x - lx) * k, ly + (y - ly) * k) for x, y in ((0, 0), (s.width, 0), (s.width, s.height), (0, s.height))]
    base = [(0.0, 0.0), (s.width, 0.0), (s.width, s.height), (0.0, s.height)]
    hull = cv2.convexHull(np.float32([((x + margin) * scale, (y + margin) * scale) for x, y in top + base]))
    # Work on a shrunken copy: the shadow is smooth and the table canvas large.
    f = max(1, int(scale * 2))
    sh, sw = max(2, H // f), max(2, W // f)
    shadow = np.zeros((sh, sw), np.float32)
    cv2.fillConvexPoly(shadow, np.round(hull.reshape(-1, 2) / f * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    penumbra = LAMP_RADIUS_MM * depth / max(lh, 1.0)  # mm
    cast = cv2.GaussianBlur(shadow, (0, 0), max(0.7, penumbra * scale / f))
    footprint = np.zeros((sh, sw), np.float32)
    x0, y0 = margin * scale / f, margin * scale / f
    x1, y1 = (s.width + margin) * scale / f, (s.height + margin) * scale / f
    cv2.rectangle(footprint, (int(x0), int(y0)), (int(x1), int(y1)), 1.0, -1)
    room = cv2.GaussianBlur(footprint, (0, 0), max(1.0, 45 * scale / f))  # the room's light, blocked near the board
    contact = cv2.GaussianBlur(footprint, (0, 0), max(0.6, 3.0 * scale / f))
    darken = 1.0 - np.clip(0.55 * cast + 0.22 * room + 0.35 * contact, 0, 0.85)
    darken = cv2.resize(darken, (W, H), interpolation=cv2.INTER_LINEAR)
    return img * darken[..., None]


def paint_walls(geo: BoardGeometry, style: BoardStyle, scale: float, depth: float = TABLE_DEPTH_MM) -> dict[str, np.ndarray]:
    """The board's four outer side walls as float32 BGR strips, ``depth`` mm tall (row 0 = the top edge)
    and as long as the side, at ``scale`` px/mm: the frame's wood with its grain along the side, a rounded
    lip catching light at the top and a darker foot."""
    s = geo.spec
    rng = np.random.default_rng(TEXTURE_SEED + 2)
    out = {}
    for name, length in (("top", s.width), ("bottom", s.width), ("left", s.height), ("right", s.height)):
        h, w = max(2, int(round(depth * scale))), max(2, int(round(length * scale)))
        strip = textures.wood((h, w), style.frame_colour, rng, along_x=True, scale=scale)
        z = (np.arange(h, dtype=np.float32) + 0.5) / h
        lip = np.exp(-((z * depth) / 2.5) ** 2) * 0.35  # the rounded top edge
        foot = np.clip((z - 0.75) / 0.25, 0, 1) ** 2 * 0.3
        out[name] = strip * (1.0 + lip - foot)[:, None, None] * 0.92
    return out


def _skip_table_draws(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> None:
    """Advance ``rng`` past the draws the table's texture took before it had its own generator (the
    small grids of ``textures.wood``), so the board painted after it stays pixel for pixel the same."""
    h, w = shape

    def grid(cell: float) -> None:
        rng.uniform(-1, 1, (max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)))

    grid(80 * scale)
    grid(400 * scale)
    grid(50 * scale)
    rng.uniform(-1, 1, (max(2, h // max(1, int(2 * scale))), max(2, w // max(1, int(40 * scale)))))
    grid(300 * scale)


def _inner_faces(img: np.ndarray, geo: BoardGeometry, style: BoardStyle, scale: float, margin: float, view,
                 light_mm, rim: float | None = None) -> None:
    """Paint, over the playing surface, the inner faces of the frame and the bar that the camera at
    ``view`` would see if they stood ``rim`` mm above the surface (they do not: everything stays in the
    plane z = 0 for the calibration). A face is where the camera's rays through the rim's top edge and
    its foot meet that plane; it is the frame's wood, darker towards its foot, lit by how it faces the
    lamp, with a dark seam where it meets the surface."""
    s = geo.spec
    rim = RIM_HEIGHT_MM if rim is None else rim
    cx, cy, cz = (float(v) for v in view)
    depth = -cz  # the camera's height above the board
    if depth <= rim:
        return
    lx, ly, lh = (float(v) for v in (light_mm if light_mm is not None else (s.width / 2, s.height / 2, 1200.0)))
    f = s.frame_width
    bx0, _, bx1, _ = geo.bar
    # (edge start, edge end, normal pointing from the raised wood into the low surface)
    edges = [((f, f), (bx0, f), (0.0, 1.0)), ((bx1, f), (s.width - f, f), (0.0, 1.0)),  # the far frame's face
             ((f, s.height - f), (bx0, s.height - f), (0.0, -1.0)),  # (the bar is as high as the frame)
             ((bx1, s.height - f), (s.width - f, s.height - f), (0.0, -1.0)),
             ((f, f), (f, s.height - f), (1.0, 0.0)),
             ((s.width - f, f), (s.width - f, s.height - f), (-1.0, 0.0)),
             ((bx0, f), (bx0, s.height - f), (-1.0, 0.0)),  # the bar's sides
             ((bx1, f), (bx1, s.height - f), (1.0, 0.0))]
    rng = np.random.default_rng(TEXTURE_SEED + 3)
    H, W = img.shape[:2]
    k = rim / (depth + rim)  # a point at the rim's foot appears this share of the way towards the camera

    def foot(x: float, y: float) -> tuple[float, float]:
        return x + (cx - x) * k, y + (cy - y) * k

    for a, b, (nx, ny) in edges:
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        if (cx - mid[0]) * nx + (cy - mid[1]) * ny <= 0:
            continue  # faces away from the camera
        fa, fb = foot(*a), foot(*b)
        # only the part that shows beyond the edge, towards the low surface
        quad = np.float32([a, b, fb, fa])
        qpx = (quad + margin) * scale
        x0, y0 = np.floor(qpx.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(qpx.max(axis=0)).astype(int) + 3
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillConvexPoly(mask, np.round((qpx - (x0, y0)) * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
        # t: 0 at the top edge, 1 at the foot
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        X, Y = xx / scale - margin, yy / scale - margin
        if nx == 0:  # a horizontal edge: its foot's offset changes along x
            off = (cy - Y * 0 - a[1]) * k
            t = np.clip((Y - a[1]) / np.where(np.abs(off) < 1e-3, 1e-3, off), 0, 1)
        else:
            off = (cx - a[0]) * k
            t = np.clip((X - a[0]) / (off if abs(off) > 1e-3 else 1e-3), 0, 1)
        along_x = nx == 0
        wood = textures.wood(mask.shape, style.frame_colour, rng, along_x=along_x, scale=scale)
        # Lambert from the lamp, through the middle of the face
        px_, py_, pz_ = mid[0], mid[1], rim / 2
        dx, dy, dz = lx - px_, ly - py_, lh + pz_
        facing = max(0.0, (nx * dx + ny * dy) / float(np.sqrt(dx * dx + dy * dy + dz * dz)))
        lit = 0.55 + 0.9 * facing
        shade = lit * (1.0 - 0.35 * t ** 1.5) * (1.0 + 0.18 * np.exp(-(t / 0.12) ** 2))  # lip at the top
        face = wood * shade[..., None]
        seam = np.exp(-((1.0 - t) * max(1.0, float(np.abs(off).mean()) * scale) / 1.2) ** 2) * mask
        roi = img[y0:y1, x0:x1]
        m = mask[..., None]
        roi[:] = roi * (1 - m) + face * m
        roi *= (1.0 - 0.4 * seam)[..., None]


def _relief(img: np.ndarray, raised: np.ndarray, scale: float) -> np.ndarray:
    """Bevels on raised wood and the soft shadow it throws on the felt below, lit from the top left."""
    soft = cv2.GaussianBlur(raised, (0, 0), 1.8 * scale)
    gy, gx = np.gradient(soft)
    bevel = np.clip((-gx - gy) * 6.0 / max(scale, 0.5), -0.5, 0.5)  # facing the light: brighter
    img = img * (1 + 0.45 * bevel)[..., None]
    shift = int(round(3 * scale))
    cast = np.zeros_like(raised)
    cast[shift:, shift:] = raised[:-shift, :-shift]
    cast = cv2.GaussianBlur(cast, (0, 0), 3.0 * scale)
    low = 1.0 - raised
    occl = cv2.GaussianBlur(raised, (0, 0), 6.0 * scale)
    darken = 1.0 - low * (0.30 * cast + 0.18 * occl)
    return img * darken[..., None]


def _paint_markers(img: np.ndarray, geo: BoardGeometry, px, scale: float) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for marker_id in MARKER_IDS.values():
        corners = geo.marker_corners(marker_id)
        (x0, y0), (x1, y1) = px(*corners[0]), px(*corners[2])
        side = x1 - x0
        pad = 0.12 * side  # white quiet zone of the printed sticker
        cv2.rectangle(img, (int(round(x0 - pad)), int(round(y0 - pad))), (int(round(x1 + pad)), int(round(y1 + pad))),
                      (236, 240, 240), -1, cv2.LINE_AA)
        n = max(6, int(round(side)))
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * 16)
        marker = cv2.resize(marker, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32)
        ix0, iy0 = int(round(x0)), int(round(y0))
        tint = marker[..., None] / 255.0 * np.array([236, 240, 240], np.float32) + (1 - marker[..., None] / 255.0) * 22
        img[iy0:iy0 + n, ix0:ix0 + n] = tint


def warp_to_camera(texture: np.ndarray, X: np.ndarray, Y: np.ndarray, scale: float, margin: float) -> np.ndarray:
    """Sample the painted texture at the board points each camera pixel sees."""
    mx = (X + margin) * scale - 0.5
    my = (Y + margin) * scale - 0.5
    return cv2.remap(texture, mx.astype(np.float32), my.astype(np.float32), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
