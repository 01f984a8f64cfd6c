"""Draws hardware/wiring.svg: the board from above (home board on the right), every WS2812 LED at
its place with its chain index, the data line in chain order, the Arduino Nano, buttons and power.

    python hardware/tools/wiring_diagram.py            # rewrites hardware/wiring.svg

LED positions come from tablecompanion.geometry and the addressing from tablecompanion.leds.layout,
so the picture cannot disagree with the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tablecompanion.geometry import BoardGeometry  # noqa: E402
from tablecompanion.leds import layout  # noqa: E402


def led_positions(geo: BoardGeometry) -> dict[int, tuple[float, float]]:
    """Chain index -> (x, y) in mm, for a board built as documented (orientation home right)."""
    s = geo.spec
    pos: dict[int, tuple[float, float]] = {}
    for p in range(1, 25):
        x, _ = geo.point_centre(p)
        y = s.height - s.frame_width / 2 if p <= 12 else s.frame_width / 2
        pos[layout.point_led(p, "right")] = (x, y)
    bx0, by0, bx1, by1 = geo.bar
    bx, ym = (bx0 + bx1) / 2, (by0 + by1) / 2
    right_tray_x = s.width - s.frame_width - s.tray_width / 2
    left_tray_x = s.frame_width + s.tray_width / 2
    pos[layout.TRAY_RIGHT_TOP] = (right_tray_x, s.frame_width + s.surface_height / 4)
    pos[layout.TRAY_RIGHT_BOTTOM] = (right_tray_x, s.frame_width + 3 * s.surface_height / 4)
    pos[layout.TRAY_LEFT_TOP] = (left_tray_x, s.frame_width + s.surface_height / 4)
    pos[layout.TRAY_LEFT_BOTTOM] = (left_tray_x, s.frame_width + 3 * s.surface_height / 4)
    pos[layout.TURN_BOTTOM] = (bx, s.height - s.frame_width / 2)
    pos[layout.TURN_TOP] = (bx, s.frame_width / 2)
    pos[layout.CUBE_OWNER_BOTTOM] = (bx, by1 - 20)
    pos[layout.CUBE_OWNER_TOP] = (bx, by0 + 20)
    pos[layout.BAR_BOTTOM] = (bx, ym + 70)
    pos[layout.BAR_TOP] = (bx, ym - 70)
    for k in range(6):
        pos[layout.CUBE_VALUE_FIRST + k] = (bx, ym + 25 - 10 * k)
    pos[layout.STATUS] = (left_tray_x, s.height - s.frame_width / 2)
    return pos


def svg(geo: BoardGeometry) -> str:
    s = geo.spec
    pad_bottom = 150
    W, H = s.width + 140, s.height + pad_bottom
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-10 -40 {W} {H + 40}" '
           f'width="{W * 1.2:.0f}" height="{(H + 40) * 1.2:.0f}" font-family="sans-serif">',
           '<rect x="-10" y="-40" width="100%" height="100%" fill="white"/>',
           '<text x="0" y="-22" font-size="14" font-weight="bold">TableCompanion LED board: wiring '
           '(seen from above, home board right; chain index in each LED)</text>',
           f'<rect x="0" y="0" width="{s.width}" height="{s.height}" fill="#8b5a2b" stroke="black"/>']
    x0, y0, x1, y1 = geo.surface
    out.append(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" fill="#e8d8b0"/>')
    bx0, by0, bx1, by1 = geo.bar
    out.append(f'<rect x="{bx0}" y="{by0}" width="{bx1 - bx0}" height="{by1 - by0}" fill="#6b3e1b"/>')
    for side in ("bottom", "top"):
        tx0, ty0, tx1, ty1 = geo.tray(side)
        out.append(f'<rect x="{tx0}" y="{ty0}" width="{tx1 - tx0}" height="{ty1 - ty0}" fill="#a0703a" '
                   'stroke="black" stroke-width="0.5"/>')
    lx0 = s.frame_width
    for ty in (s.frame_width, s.frame_width + s.surface_height / 2):
        out.append(f'<rect x="{lx0}" y="{ty}" width="{s.tray_width}" height="{s.surface_height / 2}" '
                   'fill="#a0703a" stroke="black" stroke-width="0.5"/>')
    for p in range(1, 25):
        tri = geo.point_triangle(p)
        fill = "#7a1f1f" if p % 2 else "#2f2f2f"
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in tri)
        out.append(f'<polygon points="{pts}" fill="{fill}" opacity="0.55"/>')
        cx, cy = geo.point_centre(p)
        out.append(f'<text x="{cx}" y="{cy + 4}" font-size="11" text-anchor="middle" fill="black">{p}</text>')

    pos = led_positions(geo)
    chain = [pos[i] for i in range(len(pos))]
    nano = (s.width - 100, s.height + 40)
    path = [(nano[0] + 20, nano[1] - 18)] + chain
    frame_rows = (s.frame_width / 2, s.height - s.frame_width / 2)
    routed = [path[0]]
    for (xa, ya), (xb, yb) in zip(path, path[1:]):
        if abs(xa - xb) > 1 and abs(ya - yb) > 1:  # wires run along the frame and the bar: L-shaped
            corner = (xa, yb) if min(abs(yb - r) for r in frame_rows) < 1 else (xb, ya)
            routed.append(corner)
        routed.append((xb, yb))
    d = " ".join(("M" if i == 0 else "L") + f"{x:.1f},{y:.1f}" for i, (x, y) in enumerate(routed))
    out.append(f'<path d="{d}" fill="none" stroke="#0a7d2c" stroke-width="1.6" stroke-dasharray="5,3"/>')
    names = layout.led_names("right")
    for i, (x, y) in enumerate(chain):
        colour = "#ffd54a" if i < 24 else "#6fd3ff" if "tray" in names[i] else "#ffffff"
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="{colour}" stroke="black" stroke-width="0.8">'
                   f'<title>{i}: {names[i]}</title></circle>')
        out.append(f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="8" text-anchor="middle">{i}</text>')

    # controller, power, buttons
    nx, ny = nano
    out.append(f'<rect x="{nx}" y="{ny - 18}" width="110" height="44" rx="4" fill="#1d5fa8" stroke="black"/>')
    out.append(f'<text x="{nx + 55}" y="{ny - 4}" font-size="10" fill="white" text-anchor="middle">Arduino Nano</text>')
    out.append(f'<text x="{nx + 55}" y="{ny + 9}" font-size="8" fill="white" text-anchor="middle">ATmega328P 16 MHz</text>')
    out.append(f'<text x="{nx + 55}" y="{ny + 20}" font-size="8" fill="white" text-anchor="middle">USB to host (250000 baud)</text>')
    out.append(f'<text x="{nx + 22}" y="{ny - 24}" font-size="8">D6 - 330 R - DIN of LED 0</text>')
    px, py = s.width - 320, s.height + 70
    out.append(f'<rect x="{px}" y="{py - 14}" width="150" height="40" rx="4" fill="#444" stroke="black"/>')
    out.append(f'<text x="{px + 75}" y="{py}" font-size="10" fill="white" text-anchor="middle">5 V / 3 A supply</text>')
    out.append(f'<text x="{px + 75}" y="{py + 13}" font-size="8" fill="white" text-anchor="middle">'
               '1000 uF across +5V/GND at the strip</text>')
    out.append(f'<path d="M{px + 150},{py} L{nx},{ny + 10}" stroke="red" stroke-width="2"/>')
    out.append(f'<text x="{px + 152}" y="{py + 22}" font-size="8">+5V to Nano 5V pin and strip +5V, common GND</text>')
    buttons = [("done", "D2"), ("double", "D3"), ("take", "D4"), ("pass", "D5")]
    for k, (name, pin) in enumerate(buttons):
        bx = 60 + k * 110
        by = s.height + 70
        out.append(f'<circle cx="{bx}" cy="{by}" r="12" fill="#ddd" stroke="black"/>')
        out.append(f'<text x="{bx}" y="{by + 3}" font-size="8" text-anchor="middle">{name}</text>')
        out.append(f'<text x="{bx}" y="{by + 26}" font-size="8" text-anchor="middle">{pin} to GND</text>')
    out.append(f'<text x="0" y="{s.height + 120}" font-size="9">Buttons: momentary, pin to GND, internal '
               'pull-ups, 20 ms debounce. Status LED 40 sits in the bottom-left frame. Data line (green, dashed) '
               'runs in chain order.</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> int:
    target = REPO / "hardware" / "wiring.svg"
    target.write_text(svg(BoardGeometry(home="right")))
    print(f"wrote {target.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
