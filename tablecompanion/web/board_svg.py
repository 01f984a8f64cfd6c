"""The board drawn as SVG from the rules state (never a photo), seated like the real table.

Points carry ``data-x`` (X's point number) and the drawing carries where the next checker of each point
would go, so the page script can show hover hints and click-to-move without knowing the layout.
The bottom player's points run 1-12 along the bottom edge; ``home="left"`` mirrors the board.
"""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from .presenter import BoardModel

PW = 44.0  # point width
PH = 196.0  # point length
GAP = 44.0  # middle gap between the two rows
BAR = 52.0
TRAY = 58.0
FR = 24.0  # frame above and below (holds the point numbers)
SIDE = 14.0  # frame at the left and right ends
R = 19.5  # checker radius
STACK = 5  # checkers drawn per point before a count is shown

LEFT_X0 = SIDE
BAR_X0 = LEFT_X0 + 6 * PW
RIGHT_X0 = BAR_X0 + BAR
TRAY_X0 = RIGHT_X0 + 6 * PW + SIDE
W = TRAY_X0 + TRAY + SIDE
TOP_Y0 = FR
BOTTOM_Y1 = FR + 2 * PH + GAP
H = BOTTOM_Y1 + FR
MID_Y = FR + PH + GAP / 2

PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


class _Layout:
    """Where things are for one seating: which player is at the bottom, which side home is on."""

    def __init__(self, bottom: str, home: str) -> None:
        self.bottom = bottom if bottom in ("X", "O") else "X"
        self.top = "O" if self.bottom == "X" else "X"
        self.mirror = home == "left"

    def mx(self, x: float, w: float = 0.0) -> float:
        """Left edge of a box ``w`` wide drawn at ``x`` in the home-right layout."""
        return W - x - w if self.mirror else x

    def bottom_point(self, xp: int) -> int:
        """The bottom player's number for X's point ``xp``."""
        return xp if self.bottom == "X" else 25 - xp

    def point_box(self, xp: int) -> tuple[float, bool]:
        """(left x, is_bottom_row) of X's point ``xp``."""
        b = self.bottom_point(xp)
        if b <= 6:
            x = RIGHT_X0 + (6 - b) * PW
        elif b <= 12:
            x = LEFT_X0 + (12 - b) * PW
        elif b <= 18:
            x = LEFT_X0 + (b - 13) * PW
        else:
            x = RIGHT_X0 + (b - 19) * PW
        return self.mx(x, PW), b <= 12


def _checker(cx: float, cy: float, player: str, label: str = "", extra: str = "") -> str:
    out = (f'<circle class="ck ck-{player}" cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(R)}"{extra}/>'
           f'<circle class="ck-ring" cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(R * 0.62)}"/>')
    if label:
        out += f'<text class="ck-n ck-n-{player}" x="{_f(cx)}" y="{_f(cy + 6)}">{escape(label)}</text>'
    return out


def _die(x: float, y: float, value: int, player: str, size: float = 34.0, cls: str = "") -> str:
    out = [f'<g class="die die-{player} {cls}" data-value="{value}">',
           f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(size)}" height="{_f(size)}" rx="6"/>']
    q = size * 0.27
    for dx, dy in PIPS.get(value, []):
        out.append(f'<circle class="pip" cx="{_f(x + size / 2 + dx * q)}" cy="{_f(y + size / 2 + dy * q)}" '
                   f'r="{_f(size * 0.09)}"/>')
    out.append("</g>")
    return "".join(out)


def render_board(snapshot: dict, model: BoardModel, *, bottom: str = "X", home: str = "right",
                 labels_for: str | None = None, title: str = "") -> Markup:
    """The whole board as an ``<svg>`` element.

    ``labels_for`` numbers the points for that player (the one on roll, so typed notation matches);
    by default the bottom player.
    """
    lay = _Layout(bottom, home)
    labels_for = labels_for if labels_for in ("X", "O") else lay.bottom
    parts = [f'<svg class="board" viewBox="0 0 {_f(W)} {_f(H)}" xmlns="http://www.w3.org/2000/svg" '
             f'role="img" aria-label="{escape(title or "backgammon board")}" data-bottom="{lay.bottom}" '
             f'data-mirror="{int(lay.mirror)}">']
    parts.append(f'<rect class="frame" x="0" y="0" width="{_f(W)}" height="{_f(H)}" rx="10"/>')
    for x0 in (LEFT_X0, RIGHT_X0):
        parts.append(f'<rect class="felt" x="{_f(lay.mx(x0, 6 * PW))}" y="{_f(TOP_Y0)}" '
                     f'width="{_f(6 * PW)}" height="{_f(2 * PH + GAP)}"/>')
    parts.append(f'<rect class="bar" x="{_f(lay.mx(BAR_X0, BAR))}" y="{_f(TOP_Y0)}" width="{_f(BAR)}" '
                 f'height="{_f(2 * PH + GAP)}"/>')
    parts.append(f'<rect class="tray" x="{_f(lay.mx(TRAY_X0, TRAY))}" y="{_f(TOP_Y0)}" width="{_f(TRAY)}" '
                 f'height="{_f(2 * PH + GAP)}" rx="4"/>')
    parts.append(f'<line class="tray-split" x1="{_f(lay.mx(TRAY_X0))}" x2="{_f(lay.mx(TRAY_X0 + TRAY))}" '
                 f'y1="{_f(MID_Y)}" y2="{_f(MID_Y)}"/>')

    for xp in range(1, 25):
        parts.append(_point(lay, model, xp, labels_for))
    parts.append(_bar(lay, model))
    parts.append(_trays(lay, model))
    parts.append(_cube(lay, snapshot))
    parts.append(_dice(lay, snapshot))
    parts.append("</svg>")
    return Markup("".join(parts))


def _point(lay: _Layout, model: BoardModel, xp: int, labels_for: str) -> str:
    x, bottom_row = lay.point_box(xp)
    b = lay.bottom_point(xp)
    colour = "a" if b % 2 else "b"
    if bottom_row:
        tri = f"{_f(x)},{_f(BOTTOM_Y1)} {_f(x + PW)},{_f(BOTTOM_Y1)} {_f(x + PW / 2)},{_f(BOTTOM_Y1 - PH + 8)}"
        base_y, dy, label_y = BOTTOM_Y1 - R - 1, -2 * R, BOTTOM_Y1 + 17
        hit_y = BOTTOM_Y1 - PH
    else:
        tri = f"{_f(x)},{_f(TOP_Y0)} {_f(x + PW)},{_f(TOP_Y0)} {_f(x + PW / 2)},{_f(TOP_Y0 + PH - 8)}"
        base_y, dy, label_y = TOP_Y0 + R + 1, 2 * R, TOP_Y0 - 7
        hit_y = TOP_Y0
    held = model.at_x_point(xp)
    who, n = held if held else ("", 0)
    number = xp if labels_for == "X" else 25 - xp
    cx = x + PW / 2
    out = [f'<g class="pt" data-x="{xp}" data-owner="{who}" data-n="{n}" data-ax="{_f(cx)}" '
           f'data-ay="{_f(base_y)}" data-dy="{_f(dy)}">',
           f'<polygon class="tri tri-{colour}" points="{tri}"/>',
           f'<rect class="pt-hit" x="{_f(x)}" y="{_f(hit_y)}" width="{_f(PW)}" height="{_f(PH)}"/>']
    for i in range(min(n, STACK)):
        label = str(n) if i == STACK - 1 and n > STACK else ""
        out.append(_checker(cx, base_y + i * dy, who, label))
    out.append(f'<text class="pt-num" x="{_f(cx)}" y="{_f(label_y)}">{number}</text>')
    out.append("</g>")
    return "".join(out)


def _bar(lay: _Layout, model: BoardModel) -> str:
    """Checkers on the bar: the bottom player's above the middle (they enter at the top), the top
    player's below."""
    cx = lay.mx(BAR_X0, BAR) + BAR / 2
    out = []
    for player, sign in ((lay.bottom, -1), (lay.top, 1)):
        n = model.side(player)[24]
        base = MID_Y + sign * (GAP / 2 + R + 4)
        dy = sign * 2 * R
        out.append(f'<g class="barzone" data-side="{player}" data-n="{n}" data-ax="{_f(cx)}" '
                   f'data-ay="{_f(base)}" data-dy="{_f(dy)}">')
        y0 = MID_Y + sign * GAP / 2
        y1 = MID_Y + sign * (GAP / 2 + 4 * R + 10)
        out.append(f'<rect class="pt-hit" x="{_f(cx - BAR / 2)}" y="{_f(min(y0, y1))}" width="{_f(BAR)}" '
                   f'height="{_f(abs(y1 - y0))}"/>')
        for i in range(min(n, 3)):
            label = str(n) if i == 2 and n > 3 else ("" if n < 2 or i < min(n, 3) - 1 else str(n))
            out.append(_checker(cx, base + i * dy, player, label))
        out.append("</g>")
    return "".join(out)


def _trays(lay: _Layout, model: BoardModel) -> str:
    """Borne-off checkers as slabs: the bottom player's in the lower tray, the top player's upper."""
    x = lay.mx(TRAY_X0, TRAY)
    out = []
    slab = 11.0
    for player, is_bottom in ((lay.bottom, True), (lay.top, False)):
        n = model.off(player)
        y_edge = BOTTOM_Y1 - 6 if is_bottom else TOP_Y0 + 6
        sign = -1 if is_bottom else 1
        out.append(f'<g class="offzone" data-side="{player}" data-n="{n}" data-ax="{_f(x + TRAY / 2)}" '
                   f'data-ay="{_f(y_edge + sign * (n * slab + slab / 2))}" data-dy="{_f(sign * slab)}">')
        hy = MID_Y if is_bottom else TOP_Y0
        out.append(f'<rect class="pt-hit" x="{_f(x)}" y="{_f(hy)}" width="{_f(TRAY)}" '
                   f'height="{_f(PH + GAP / 2)}"/>')
        for i in range(n):
            y = y_edge + sign * (i + 1) * slab
            top = min(y, y - sign * slab)
            out.append(f'<rect class="slab ck-{player}" x="{_f(x + 7)}" y="{_f(top + 1)}" width="{_f(TRAY - 14)}" '
                       f'height="{_f(slab - 2)}" rx="3"/>')
        if n:
            ty = y_edge + sign * (n * slab + 16) + (4 if sign > 0 else 0)
            out.append(f'<text class="off-n" x="{_f(x + TRAY / 2)}" y="{_f(ty)}">{n}</text>')
        out.append("</g>")
    return "".join(out)


def _cube(lay: _Layout, snapshot: dict) -> str:
    cube = snapshot.get("cube") or {}
    value = cube.get("value") or 1
    owner = cube.get("owner")
    size = 38.0
    cx = lay.mx(BAR_X0, BAR) + BAR / 2
    if owner == lay.bottom:
        y = BOTTOM_Y1 - size - 6
    elif owner == lay.top:
        y = TOP_Y0 + 6
    else:
        y = MID_Y - size / 2
    shown = 64 if value == 1 and owner is None else value
    return (f'<g class="cube" data-value="{value}" data-owner="{owner or ""}">'
            f'<rect x="{_f(cx - size / 2)}" y="{_f(y)}" width="{_f(size)}" height="{_f(size)}" rx="6"/>'
            f'<text x="{_f(cx)}" y="{_f(y + size / 2 + 7)}">{shown}</text></g>')


def _dice(lay: _Layout, snapshot: dict) -> str:
    """The dice in the roller's right-hand half: the right half for the bottom player, the left half
    for the top player (whatever the orientation); an opening roll shows one die per player."""
    dice = snapshot.get("dice")
    if not (isinstance(dice, (list, tuple)) and len(dice) == 2):
        return ""
    turn = snapshot.get("turn")
    size = 40.0
    y = MID_Y - size / 2
    if turn not in ("X", "O"):
        # the opening roll: X's die and O's die, each in its roller's right-hand half
        out = []
        for player, value in zip(("X", "O"), dice):
            x0 = RIGHT_X0 if player == lay.bottom else LEFT_X0
            out.append(_die(x0 + 3 * PW - size / 2, y, int(value), player, size, "opening"))
        return "".join(out)
    x0 = RIGHT_X0 if turn == lay.bottom else LEFT_X0
    cx = x0 + 3 * PW
    return (_die(cx - size - 6, y, int(dice[0]), turn, size)
            + _die(cx + 6, y, int(dice[1]), turn, size))
