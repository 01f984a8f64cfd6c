"""How a board, its checkers and its dice look: colours (BGR) and the materials to paint them with."""

from __future__ import annotations

from dataclasses import dataclass

from tablecompanion.sim.errors import SimError

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class BoardStyle:
    """Colours of one physical board set. ``surface`` is ``felt`` or ``wood``. ``surface_gloss`` and
    ``frame_gloss``: how strongly the playing surface and the frame mirror the lamp (varnish, lacquer; 0 for
    felt), as a share of the lamp's light at the mirror point."""

    name: str
    surface: str
    surface_colour: BGR
    point_colours: tuple[BGR, BGR]  # point 1's colour, then the other
    frame_colour: BGR
    frame_dark: BGR
    bar_colour: BGR
    tray_colour: BGR
    light_checker: BGR
    dark_checker: BGR
    table_colour: BGR
    trim_colour: BGR | None = None
    surface_gloss: float = 0.0
    frame_gloss: float = 0.0


STYLES: dict[str, BoardStyle] = {
    s.name: s
    for s in (
        BoardStyle(
            name="tournament",
            surface="felt",
            surface_colour=(72, 112, 48),
            point_colours=((52, 44, 150), (196, 218, 226)),
            frame_colour=(38, 72, 118),
            frame_dark=(20, 40, 70),
            bar_colour=(30, 54, 84),
            tray_colour=(60, 96, 40),
            light_checker=(214, 228, 236),
            dark_checker=(40, 36, 150),
            table_colour=(90, 120, 150),
            trim_colour=(120, 190, 215),
            frame_gloss=0.3,  # felt, in a lacquered frame
        ),
        BoardStyle(
            name="classic",
            surface="wood",
            surface_colour=(96, 150, 196),
            point_colours=((30, 34, 40), (170, 208, 232)),
            frame_colour=(30, 58, 98),
            frame_dark=(16, 30, 52),
            bar_colour=(30, 58, 98),
            tray_colour=(80, 126, 168),
            light_checker=(200, 222, 238),
            dark_checker=(34, 36, 42),
            table_colour=(150, 160, 168),
            surface_gloss=0.28,  # varnished wood throughout
            frame_gloss=0.32,
        ),
        BoardStyle(
            name="leather",
            surface="felt",
            surface_colour=(70, 96, 130),
            point_colours=((36, 48, 70), (160, 196, 214)),
            frame_colour=(24, 34, 52),
            frame_dark=(12, 18, 28),
            bar_colour=(26, 38, 58),
            tray_colour=(56, 80, 110),
            light_checker=(196, 214, 226),
            dark_checker=(30, 40, 60),
            table_colour=(70, 92, 110),
            trim_colour=(90, 150, 190),
            surface_gloss=0.05,  # leather's faint sheen, a polished frame
            frame_gloss=0.2,
        ),
    )
}


def style_named(name: str | BoardStyle) -> BoardStyle:
    if isinstance(name, BoardStyle):
        return name
    try:
        return STYLES[name]
    except KeyError:
        raise SimError(f"unknown board style {name!r}; choose from {', '.join(STYLES)}") from None


@dataclass(frozen=True)
class DieStyle:
    name: str
    body: BGR
    pip: BGR
    alpha: float = 1.0  # < 1: translucent body


DIE_STYLES: dict[str, DieStyle] = {
    s.name: s
    for s in (
        DieStyle("white-black-pips", (236, 238, 240), (24, 24, 24)),
        DieStyle("red-white-pips", (40, 30, 180), (240, 240, 240)),
        DieStyle("black-white-pips", (34, 32, 30), (236, 236, 236)),
        DieStyle("translucent", (60, 60, 200), (245, 245, 245), alpha=0.55),
    )
}
