"""LED addressing for both orientations, checked against the shared board geometry."""

from __future__ import annotations

import pytest

from tablecompanion.geometry import BoardGeometry
from tablecompanion.leds import layout
from tablecompanion.leds.protocol import LED_COUNT
from tablecompanion.leds.state import LedState, Light


@pytest.mark.parametrize("home", ["right", "left"])
def test_points_use_24_distinct_leds_along_the_strip_path(home):
    geo = BoardGeometry(home=home)
    by_led = {layout.point_led(p, home): p for p in range(1, 25)}
    assert sorted(by_led) == list(range(24))
    xs = [geo.point_centre(by_led[i])[0] for i in range(24)]
    ys = [geo.point_centre(by_led[i])[1] for i in range(24)]
    # LEDs 0..11 run right-to-left along the bottom row, 12..23 left-to-right along the top row
    assert all(a > b for a, b in zip(xs[:12], xs[1:12]))
    assert all(a < b for a, b in zip(xs[12:], xs[13:]))
    assert min(ys[:12]) > max(ys[12:])


@pytest.mark.parametrize("home", ["right", "left"])
def test_tray_leds_sit_in_the_player_tray(home):
    geo = BoardGeometry(home=home)
    for side in ("bottom", "top"):
        x0, y0, x1, y1 = geo.tray(side)
        right = x0 > geo.spec.width / 2
        led = layout.tray_led(side, home)
        expected_column = {layout.TRAY_RIGHT_TOP, layout.TRAY_RIGHT_BOTTOM} if right else {
            layout.TRAY_LEFT_TOP, layout.TRAY_LEFT_BOTTOM}
        assert led in expected_column
        assert (led in (layout.TRAY_RIGHT_BOTTOM, layout.TRAY_LEFT_BOTTOM)) == (side == "bottom")


def test_every_led_has_one_name():
    for home in ("right", "left"):
        names = layout.led_names(home)
        assert len(names) == LED_COUNT and len(set(names)) == LED_COUNT and all(names)


def test_render_turn_cube_and_status():
    s = LedState().with_point(1, "green").with_turn("top").with_cube(16, "bottom")
    lights = layout.render_lights(s)
    assert lights[layout.point_led(1)] == Light("green", "on")
    assert lights[layout.TURN_TOP] == Light("white", "on") and not lights[layout.TURN_BOTTOM].lit
    assert lights[layout.CUBE_OWNER_BOTTOM].lit and not lights[layout.CUBE_OWNER_TOP].lit
    assert [i for i in range(29, 35) if lights[i].lit] == [layout.cube_value_led(16)] == [32]
    assert lights[layout.STATUS] == Light("dim_green", "on")


def test_centred_cube_at_one_lights_nothing():
    lights = layout.render_lights(LedState())
    assert not any(lights[i].lit for i in range(layout.CUBE_OWNER_BOTTOM, layout.CUBE_OWNER_TOP + 1)
                   if i not in (layout.BAR_BOTTOM, layout.BAR_TOP))


@pytest.mark.parametrize("status,led,light", [
    ("void_roll", layout.STATUS, Light("orange", "blink")),
    ("recalibrate", layout.TRAY_LEFT_TOP, Light("blue", "blink")),
    ("waiting", layout.STATUS, Light("dim_white", "blink")),
    ("error", layout.STATUS, Light("red", "on")),
    ("host_lost", 0, Light("dim_red", "blink")),
])
def test_status_patterns(status, led, light):
    assert layout.render_lights(LedState().with_status(status))[led] == light


def test_render_bytes_round_trip():
    s = LedState().with_point(7, "purple", "blink_fast").with_bar("top", "cyan", "blink")
    data = layout.render(s, "left")
    assert len(data) == LED_COUNT
    lights = layout.decode_led_bytes(data)
    assert lights[layout.point_led(7, "left")] == Light("purple", "blink_fast")
    assert lights[layout.BAR_TOP] == Light("cyan", "blink")


def test_home_is_validated():
    with pytest.raises(Exception):
        layout.point_led(1, "up")


def test_wiring_diagram_is_current():
    """hardware/wiring.svg is generated from geometry + layout; regenerate it when they change."""
    import importlib.util
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("wiring_diagram", repo / "hardware" / "tools" / "wiring_diagram.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (repo / "hardware" / "wiring.svg").read_text() == module.svg(BoardGeometry(home="right")), \
        "run: python hardware/tools/wiring_diagram.py"
