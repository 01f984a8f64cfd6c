"""Which WS2812 LED is which indicator, for both board orientations, and a LedState as LED bytes.

The strip is fixed to the board (hardware/README.md): it starts at the controller in the bottom-right
corner, runs right-to-left under the bottom row of points, left-to-right along the top row, then
through the right trays, the bar column (turn, cube, bar lights) and the left trays, and ends at the
status light. Whether the bottom player's point 1 is the rightmost or leftmost bottom point depends
on the orientation (``home`` = "right" or "left", as in ``tablecompanion.geometry``).

>>> point_led(1, "right"), point_led(1, "left"), point_led(24, "left")
(0, 11, 12)
"""

from __future__ import annotations

from tablecompanion.leds.errors import LedError
from tablecompanion.leds.protocol import (
    LED_COUNT, MODE_BLINK, MODE_BLINK_FAST, MODE_OFF, MODE_ON, led_byte,
)
from tablecompanion.leds.state import COLOUR_INDEX, COLOURS, MODES, LedState, Light, Side

# Chain positions of everything that is not a point (points are 0..23).
TRAY_RIGHT_TOP = 24
TRAY_RIGHT_BOTTOM = 25
TURN_BOTTOM = 26
CUBE_OWNER_BOTTOM = 27
BAR_BOTTOM = 28
CUBE_VALUE_FIRST = 29  # 29..34 = cube 2, 4, 8, 16, 32, 64
BAR_TOP = 35
CUBE_OWNER_TOP = 36
TURN_TOP = 37
TRAY_LEFT_TOP = 38
TRAY_LEFT_BOTTOM = 39
STATUS = 40
assert STATUS == LED_COUNT - 1

MODE_CODES = {"off": MODE_OFF, "on": MODE_ON, "blink": MODE_BLINK, "blink_fast": MODE_BLINK_FAST}


def _check_home(home: str) -> None:
    if home not in ("right", "left"):
        raise LedError(f"home must be 'right' or 'left', got {home!r}")


def point_led(point: int, home: str = "right") -> int:
    """Chain index of the bottom player's point ``point`` (physical numbering)."""
    _check_home(home)
    if not 1 <= point <= 24:
        raise LedError(f"point must be 1..24, got {point!r}")
    if home == "right":
        return point - 1
    return 12 - point if point <= 12 else 36 - point


def tray_led(side: Side, home: str = "right") -> int:
    """A player's tray: beside their home board, on their own edge (as geometry.tray)."""
    _check_home(home)
    if home == "right":
        return TRAY_RIGHT_BOTTOM if side == "bottom" else TRAY_RIGHT_TOP
    return TRAY_LEFT_BOTTOM if side == "bottom" else TRAY_LEFT_TOP


def cube_value_led(value: int) -> int | None:
    """The cube ladder light for ``value``: 2 .. 64; larger values use the 64 light (blinking)."""
    if value <= 1:
        return None
    return CUBE_VALUE_FIRST + min(value.bit_length() - 2, 5)


def led_names(home: str = "right") -> list[str]:
    """A name for every chain index, e.g. 'point 7', 'tray bottom', 'cube 16', for this orientation."""
    names = [""] * LED_COUNT
    for p in range(1, 25):
        names[point_led(p, home)] = f"point {p}"
    for side in ("bottom", "top"):
        names[tray_led(side, home)] = f"tray {side}"
    for i in (TRAY_RIGHT_TOP, TRAY_RIGHT_BOTTOM, TRAY_LEFT_TOP, TRAY_LEFT_BOTTOM):
        if not names[i]:
            names[i] = "spare tray " + ("top" if i in (TRAY_RIGHT_TOP, TRAY_LEFT_TOP) else "bottom")
    names[TURN_BOTTOM], names[TURN_TOP] = "turn bottom", "turn top"
    names[CUBE_OWNER_BOTTOM], names[CUBE_OWNER_TOP] = "cube owner bottom", "cube owner top"
    names[BAR_BOTTOM], names[BAR_TOP] = "bar bottom", "bar top"
    for k in range(6):
        names[CUBE_VALUE_FIRST + k] = f"cube {2 << k}"
    names[STATUS] = "status"
    return names


def _code(light: Light) -> int:
    return led_byte(COLOUR_INDEX[light.colour], MODE_CODES[light.mode] if light.colour != "off" else MODE_OFF)


def host_lost_lights() -> list[Light]:
    """What the firmware shows on its own when the host goes quiet: points dim red and the status
    light red, blinking; everything else off."""
    lights = [Light("off", "off")] * LED_COUNT
    for i in range(24):
        lights[i] = Light("dim_red", "blink")
    lights[STATUS] = Light("red", "blink")
    return lights


def render_lights(state: LedState, home: str = "right") -> list[Light]:
    """The light of every chain index for this state (status pattern laid over the game lights)."""
    _check_home(home)
    if state.status == "host_lost":
        return host_lost_lights()
    lights = [Light("off", "off")] * LED_COUNT
    for p, light in enumerate(state.points, start=1):
        lights[point_led(p, home)] = light
    lights[BAR_BOTTOM], lights[BAR_TOP] = state.bar
    for side, light in zip(("bottom", "top"), state.trays):
        lights[tray_led(side, home)] = light
    if state.turn is not None:
        lights[TURN_BOTTOM if state.turn == "bottom" else TURN_TOP] = Light("white", "on")
    value_led = cube_value_led(state.cube_value)
    if value_led is not None:
        lights[value_led] = Light("yellow", "blink" if state.cube_value > 64 else "on")
    if state.cube_owner is not None:
        lights[CUBE_OWNER_BOTTOM if state.cube_owner == "bottom" else CUBE_OWNER_TOP] = Light("yellow", "on")

    status = state.status
    if status == "normal":
        lights[STATUS] = Light("dim_green", "on")
    elif status == "void_roll":
        lights[STATUS] = Light("orange", "blink")
        for i, side in ((TURN_BOTTOM, "bottom"), (TURN_TOP, "top")):
            if state.turn in (None, side):
                lights[i] = Light("orange", "blink_fast")
    elif status == "recalibrate":
        lights[STATUS] = Light("blue", "blink_fast")
        for i in (TRAY_RIGHT_TOP, TRAY_RIGHT_BOTTOM, TRAY_LEFT_TOP, TRAY_LEFT_BOTTOM):
            lights[i] = Light("blue", "blink")
    elif status == "waiting":
        lights[STATUS] = Light("dim_white", "blink")
    elif status == "error":
        lights[STATUS] = Light("red", "on")
    return lights


def render(state: LedState, home: str = "right") -> bytes:
    """The STATE frame's LED bytes (colour | mode << 4) for every chain index."""
    return bytes(_code(light) for light in render_lights(state, home))


def decode_led_bytes(led_bytes: bytes) -> list[Light]:
    """The inverse of ``render``'s encoding, for reports and the emulated board."""
    out = []
    for b in led_bytes:
        colour, mode = b & 0x0F, (b >> 4) & 3
        out.append(Light(COLOURS[colour], MODES[mode]))
    return out
