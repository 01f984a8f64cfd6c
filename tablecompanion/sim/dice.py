"""Dice as rigid cubes: which face is up, how each state (flat, cocked, leaning...) poses the cube,
and where the renderer places a die the scene did not pin down.

World frame as in ``camera``: board mm, z into the table, so "up" is (0, 0, -1) and a cube resting on
the surface has its lowest vertex at z = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tablecompanion.geometry import BoardGeometry
from tablecompanion.sim.board import TABLE_DEPTH_MM
from tablecompanion.sim.errors import SimError

# Die frame: the face showing v has outward normal FACE_NORMALS[v]; opposite faces sum to 7 and
# 1-2-3 meet counter-clockwise, as on Western dice.
FACE_NORMALS = {
    1: (1, 0, 0),
    6: (-1, 0, 0),
    2: (0, 1, 0),
    5: (0, -1, 0),
    3: (0, 0, 1),
    4: (0, 0, -1),
}
UP = np.array([0.0, 0.0, -1.0])
NORTH = np.array([0.0, -1.0, 0.0])


@dataclass(frozen=True)
class Pose:
    """A posed cube: rotation (cube frame -> world), centre (mm), edge length (mm)."""

    R: np.ndarray
    centre: np.ndarray
    size: float

    def vertices(self) -> np.ndarray:
        h = self.size / 2
        corners = np.array([[sx, sy, sz] for sx in (-h, h) for sy in (-h, h) for sz in (-h, h)], float)
        return corners @ self.R.T + self.centre

    def faces(self):
        """Per face: (value, world normal, four corners in texture order TL, TR, BR, BL)."""
        normals = _FACE_N @ self.R.T
        corners = (self.size / 2) * _FACE_CORNERS.reshape(-1, 3) @ self.R.T + self.centre
        corners = corners.reshape(6, 4, 3)
        return [(int(v), normals[i], corners[i]) for i, v in enumerate(_FACE_VALUES)]

    def top_value(self) -> int:
        """The face pointing most nearly up: what a player reads."""
        return int(_FACE_VALUES[int(np.argmax((_FACE_N @ self.R.T) @ UP))])


def _face_tables():
    values, normals, corners = [], [], []
    for value, n in FACE_NORMALS.items():
        n = np.array(n, float)
        t1 = np.array([n[1], n[2], n[0]])  # any axis orthogonal to n
        t2 = np.cross(t1, n)  # t1 x t2 = -n: textures read unmirrored from outside
        values.append(value)
        normals.append(n)
        corners.append([n - t1 - t2, n + t1 - t2, n + t1 + t2, n - t1 + t2])
    return np.array(values), np.array(normals), np.array(corners)


_FACE_VALUES, _FACE_N, _FACE_CORNERS = _face_tables()


def rot_axis(axis, angle: float) -> np.ndarray:
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    C = 1 - c
    return np.array(
        [
            [c + x * x * C, x * y * C - z * s, x * z * C + y * s],
            [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
            [z * x * C - y * s, z * y * C + x * s, c + z * z * C],
        ]
    )


def value_up(value: int) -> np.ndarray:
    """A rotation putting ``value`` on top (another face towards the top of the picture)."""
    n_v = np.array(FACE_NORMALS[value], float)
    n_a = np.array(FACE_NORMALS[{1: 2, 6: 2, 2: 3, 5: 3, 3: 1, 4: 1}[value]], float)
    D = np.column_stack([n_v, n_a, np.cross(n_v, n_a)])
    Wm = np.column_stack([UP, NORTH, np.cross(UP, NORTH)])
    return Wm @ D.T


def rest_on(R: np.ndarray, x: float, y: float, size: float, floor: float = 0.0) -> Pose:
    """Put a rotated cube at (x, y) with its lowest vertex on the plane z = floor."""
    pose = Pose(R, np.array([x, y, 0.0]), size)
    lowest = pose.vertices()[:, 2].max()
    return Pose(R, np.array([x, y, floor - lowest]), size)


def tilted(value: int, yaw: float, tilt: float, direction: float) -> np.ndarray:
    """``value`` up, turned by ``yaw``, then tipped by ``tilt`` so the side towards ``direction`` rises."""
    axis = (-math.sin(direction), math.cos(direction), 0.0)
    return rot_axis(axis, tilt) @ rot_axis((0, 0, 1), yaw) @ value_up(value)


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


# --- placement --------------------------------------------------------------------------------------
def free_spot(rect, avoid: list[tuple[float, float, float]], rng: np.random.Generator, inset: float, tries: int = 60):
    """A point of ``rect`` (inset) clear of the circles ``avoid`` (x, y, radius), or the clearest found."""
    x0, y0, x1, y1 = rect
    ix = min(inset, (x1 - x0) / 2)
    iy = min(inset, (y1 - y0) / 2)
    best, best_gap = None, -1e9
    for _ in range(tries):
        x = rng.uniform(x0 + ix, x1 - ix)
        y = rng.uniform(y0 + iy, y1 - iy)
        gap = min((math.hypot(x - ax, y - ay) - ar for ax, ay, ar in avoid), default=1e9)
        if gap > 0:
            return x, y
        if gap > best_gap:
            best, best_gap = (x, y), gap
    return best


def pose_die(die, geo: BoardGeometry, roller: str, checkers, avoid, rng: np.random.Generator) -> tuple[Pose, dict]:
    """Pose one die as its state says. ``checkers``: (x, y, top_z, layer) of every checker on the board.

    Returns the pose and notes for the truth (e.g. which checker it touches).
    """
    s = geo.spec.die_size
    r_check = geo.spec.checker_diameter / 2
    yaw = math.radians(die.yaw) if die.yaw is not None else rng.uniform(0, 2 * math.pi)
    roller = die.thrower or roller
    rh = geo.right_hand_board(roller)
    state = die.state
    notes: dict = {}

    def spot(rect, inset=s):
        if die.x is not None and die.y is not None:
            return die.x, die.y
        return free_spot(rect, avoid, rng, inset)

    if state == "rolling":
        R = np.array(die.rotation, float) if die.rotation is not None else random_rotation(rng)
        x, y = spot(rh)
        pose = rest_on(R, x, y, s, floor=-die.height)
        return pose, notes
    if state in ("flat", "wrong-half", "across-bar", "off-board"):
        if state == "flat":
            rect = rh
        elif state == "wrong-half":
            rect = geo.half("left" if geo.right_hand_side(roller) == "right" else "right")
        elif state == "across-bar":
            bx0, by0, bx1, by1 = geo.bar
            rect = (bx0 - 4, by0 + 30, bx1 + 4, by1 - 30)
        else:
            rect = _off_board_rect(geo, roller, rng)
        x, y = spot(rect, inset=s * 0.75 if state != "across-bar" else 0)
        R = rot_axis((0, 0, 1), yaw) @ value_up(die.value)
        # Beyond the board's outline a die lies on the table, which is lower than the playing surface.
        margin = s * 0.75
        on_table = not (-margin <= x <= geo.spec.width + margin and -margin <= y <= geo.spec.height + margin)
        return rest_on(R, x, y, s, floor=TABLE_DEPTH_MM if on_table else 0.0), notes
    if state == "cocked":
        tilt = math.radians(die.tilt if die.tilt is not None else rng.uniform(18, 32))
        x, y = spot(rh)
        R = tilted(die.value, yaw, tilt, rng.uniform(0, 2 * math.pi))
        return rest_on(R, x, y, s), notes
    if state in ("on-checker", "leaning-on-checker"):
        if not checkers:
            raise SimError(f"a die {state} needs a checker on the board")
        cx, cy, ctop, _ = _nearest_checker(checkers, rh, die, rng)
        notes["checker_mm"] = [round(float(cx), 2), round(float(cy), 2)]
        if state == "on-checker":
            ox, oy = rng.uniform(-6, 6, 2)
            R = rot_axis((0, 0, 1), yaw) @ value_up(die.value)
            return rest_on(R, cx + ox, cy + oy, s, floor=ctop), notes
        tilt = math.radians(die.tilt if die.tilt is not None else rng.uniform(22, 35))
        direction = rng.uniform(0, 2 * math.pi)
        # Stand beside the checker, the side towards it propped on its rim.
        dist = r_check + s * 0.5 * math.cos(tilt) + 1.0
        x, y = cx + dist * math.cos(direction), cy + dist * math.sin(direction)
        return rest_on(_face_towards(direction + math.pi, die.value, tilt), x, y, s), notes
    if state == "against-edge":
        tilt = math.radians(die.tilt if die.tilt is not None else rng.uniform(15, 28))
        x0, y0, x1, y1 = rh
        far_y = y0 if roller == "bottom" else y1
        outer_x = x1 if geo.right_hand_side(roller) == "right" else x0
        if rng.random() < 0.5:  # against the far edge of the board
            direction = -math.pi / 2 if roller == "bottom" else math.pi / 2
            x = rng.uniform(x0 + 2 * s, x1 - 2 * s)
            y = far_y + (s * 0.55 if roller == "bottom" else -s * 0.55)
        else:  # against the side of the board, by the tray
            direction = 0.0 if outer_x == x1 else math.pi
            x = outer_x + (-s * 0.55 if outer_x == x1 else s * 0.55)
            y = rng.uniform(y0 + 60, y1 - 60)
        if die.x is not None and die.y is not None:
            x, y = die.x, die.y
        R = _face_towards(direction, die.value, tilt)
        return rest_on(R, x, y, s), notes
    raise SimError(f"cannot pose a die in state {state!r}")  # pragma: no cover - states are validated


def _face_towards(direction: float, value: int, tilt: float) -> np.ndarray:
    """A die tipped towards ``direction`` with a face square to it, as one propped on an edge rests."""
    return rot_axis((-math.sin(direction), math.cos(direction), 0.0), tilt) @ rot_axis((0, 0, 1), direction) @ value_up(value)


def _nearest_checker(checkers, rect, die, rng):
    x0, y0, x1, y1 = rect
    tops = {}
    for c in checkers:  # the top checker of each stack
        key = (round(c[0] / 5), round(c[1] / 5))
        if key not in tops or c[2] < tops[key][2]:
            tops[key] = c
    cands = list(tops.values())
    inside = [c for c in cands if x0 <= c[0] <= x1 and y0 <= c[1] <= y1]
    pool = inside or cands
    if die.x is not None and die.y is not None:
        return min(pool, key=lambda c: math.hypot(c[0] - die.x, c[1] - die.y))
    return pool[int(rng.integers(len(pool)))]


def _off_board_rect(geo: BoardGeometry, roller: str, rng: np.random.Generator):
    s = geo.spec
    rh_right = geo.right_hand_side(roller) == "right"
    if rng.random() < 0.5:  # on the frame at the roller's right-hand end
        x = s.width - s.frame_width / 2 if rh_right else s.frame_width / 2
        return (x - 1, s.height * 0.3, x + 1, s.height * 0.7)
    # Beyond the board on the table.
    x0 = s.width + 25 if rh_right else -60
    return (x0, s.height * 0.25, x0 + 35, s.height * 0.75)


def in_rect(rect, x: float, y: float) -> bool:
    return rect[0] <= x <= rect[2] and rect[1] <= y <= rect[3]
