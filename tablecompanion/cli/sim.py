"""``tablecompanion sim``: rendered webcam frames of a board, with ground truth.

    tablecompanion sim frame --position-id 4HPwATDgc/ABMA --dice 6 3 --out frame.png
    tablecompanion sim render MATCH.mat --out DIR [--seed N] [--inject cocked:0.05,illegal:0.02] [--max-turns K]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

DIE_STATE_CHOICES = ("flat", "cocked", "leaning-on-checker", "on-checker", "against-edge", "across-bar",
                     "wrong-half", "off-board")
DIE_STYLE_CHOICES = ("white-black-pips", "red-white-pips", "black-white-pips", "translucent")
LIGHTING_CHOICES = ("preset", "varied")
LIGHTING_STREAM = 71  # the lighting's own generator beside --seed, so the seed's other draws stay as they were
LIGHTING_HELP = ("preset: the camera preset's lamp and room; varied: the lamp's place and height, the room's light, "
                 "white balance and exposure drawn from --seed")
WINDOW_HELP = ("how bright a window in the wall beyond the top player shows in glossy tops, against the lamp "
               "(0-2; default 0.3, a bright sky; 0: no window; only a steep view sees it, see docs/sim-looks.md)")
FLICKER_HELP = ("bands a rolling shutter records under lamps flickering with 50 Hz mains, rolling from frame to frame "
                "(0-0.3; 0.03: rows 3 %% brighter and darker; default 0, as with the camera's anti-flicker setting)")
LIGHT_CHANGES_HELP = ("now and then a lamp is switched or daylight comes and goes, and the camera's auto-exposure "
                      "catches up over about a second")


def bounded(what: str, low: float, high: float, example: str):
    """An argparse type: a number from ``low`` to ``high``, refused with a message that says what it is."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number ({low:g} to {high:g}, e.g. {example})") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r}: {what} must be between {low:g} and {high:g}")
        return value

    return parse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sim",
        help="render simulated webcam frames and match footage with ground truth",
        description="Table simulator: photo-like frames of a board from a rules position, or a whole "
        ".mat match replayed as 30 fps footage with per-frame truth. A test and demo instrument.",
    )
    sub = p.add_subparsers(dest="sim_verb", metavar="VERB")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    f = sub.add_parser("frame", help="one frame of a position, its truth next to it as JSON")
    f.add_argument("--position-id", default="4HPwATDgc/ABMA", help="gnubg position ID (default: the starting position)")
    f.add_argument("--dice", nargs=2, type=int, default=[6, 3], metavar="D", help="the roll on the table (default 6 3)")
    f.add_argument("--no-dice", action="store_true", help="no dice on the table")
    f.add_argument("--out", required=True, help="image to write (.png or .jpg); truth goes to OUT.json")
    f.add_argument("--bottom", choices=("on_roll", "opponent"), default="on_roll", help="who sits at the bottom edge")
    f.add_argument("--home", choices=("right", "left"), default="right", help="home boards on the right (usual) or left (mirrored)")
    f.add_argument("--die-state", choices=DIE_STATE_CHOICES, default="flat", help="how the first die lies (the second lies flat)")
    f.add_argument("--dice-style", choices=DIE_STYLE_CHOICES, default="white-black-pips")
    f.add_argument("--style", default="tournament", help="board style: tournament, classic, leather")
    f.add_argument("--camera", default="default", help="camera pose preset: top, default, tilted, steep")
    f.add_argument("--tilt", type=float, help="camera tilt in degrees (0 = straight down), overrides the preset")
    f.add_argument("--yaw", type=float, help="camera turn around the vertical, degrees")
    f.add_argument("--size", default="1280x720", help="image size WxH (default 1280x720)")
    f.add_argument("--no-markers", action="store_true", help="leave the ArUco calibration markers off")
    f.add_argument("--hand", action="store_true", help="the roller's hand reaching over the board")
    f.add_argument("--cube", type=int, default=1, help="cube value (1 = centred, showing 64)")
    f.add_argument("--cube-owner", choices=("bottom", "top"), help="who owns the cube (default: centred)")
    f.add_argument("--jpeg", type=int, default=88, help="JPEG quality of the camera (0 = none)")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--lighting", choices=LIGHTING_CHOICES, default="preset", help=LIGHTING_HELP)
    f.add_argument("--window", type=bounded("the window's glint", 0.0, 2.0, "0.3"), default=None, metavar="GLINT",
                   help=WINDOW_HELP)
    f.set_defaults(func=_frame)

    r = sub.add_parser("render", help="replay a .mat match as frames + truth.jsonl + turns.jsonl")
    r.add_argument("match", help=".mat file (for example ../shared/data/matches/...)")
    r.add_argument("--out", required=True, help="output directory")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--inject", default="", help="e.g. cocked:0.05,misplaced:0.02,illegal:0.02,correction:0.5")
    r.add_argument("--max-turns", type=int, help="stop after this many recorded actions")
    r.add_argument("--fps", type=float, default=30.0)
    r.add_argument("--size", default="1280x720", help="image size WxH")
    r.add_argument("--camera", default="default", help="camera pose preset: top, default, tilted, steep")
    r.add_argument("--style", default="tournament")
    r.add_argument("--home", choices=("right", "left"), default="right")
    r.add_argument("--bottom", choices=("X", "O"), default="X", help="which player sits at the bottom (X = first named)")
    r.add_argument("--no-markers", action="store_true")
    r.add_argument("--truth-only", action="store_true", help="write the truth files but no JPEG frames")
    r.add_argument("--passing-shadows", action="store_true", help="now and then a soft shadow drifts over the board")
    r.add_argument("--flicker", type=bounded("the flicker's depth", 0.0, 0.3, "0.03"), default=0.0, metavar="DEPTH",
                   help=FLICKER_HELP)
    r.add_argument("--light-changes", action="store_true", help=LIGHT_CHANGES_HELP)
    r.add_argument("--lighting", choices=LIGHTING_CHOICES, default="preset", help=LIGHTING_HELP + " (one room for the whole match)")
    r.add_argument("--window", type=bounded("the window's glint", 0.0, 2.0, "0.3"), default=None, metavar="GLINT",
                   help=WINDOW_HELP)
    r.set_defaults(func=_render)


def _size(text: str) -> tuple[int, int]:
    from tablecompanion.sim.errors import SimError

    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SimError(f"--size must look like 1280x720, got {text!r}") from None
    return w, h


def _camera(args, jpeg: int | None = 88):
    from tablecompanion.sim import Camera

    w, h = _size(args.size)
    overrides = {"width": w, "height": h, "jpeg_quality": jpeg}
    if getattr(args, "tilt", None) is not None:
        overrides["tilt_deg"] = args.tilt
    if getattr(args, "yaw", None) is not None:
        overrides["yaw_deg"] = args.yaw
    if getattr(args, "window", None) is not None:
        overrides["window_glint"] = args.window
    camera = Camera.preset(args.camera, **overrides)
    if getattr(args, "lighting", "preset") == "varied":
        import numpy as np

        camera = camera.relit(np.random.default_rng((args.seed, LIGHTING_STREAM)))
    return camera


def _frame(args) -> int:
    import cv2

    from tablecompanion.sim import Cube, Die, Hand, Scene, SimError, render_frame
    from tablecompanion.sim.render import renderer_for

    try:
        camera = _camera(args, args.jpeg or None)
        dice = () if args.no_dice else tuple(
            Die(int(v), state=args.die_state if i == 0 else "flat", style=args.dice_style) for i, v in enumerate(args.dice)
        )
        cube = Cube(args.cube, args.cube_owner or "middle")
        scene = Scene.from_position(args.position_id, bottom=args.bottom, dice=dice, home=args.home,
                                    style=args.style, markers=not args.no_markers, cube=cube)
        if args.hand:
            roller = scene.roller
            x0, y0, x1, y1 = renderer_for(camera, scene).geo.right_hand_board(roller)
            scene = scene.replace(hands=(Hand(roller, (x0 + x1) / 2 - 60, (y0 + y1) / 2 + (60 if roller == "bottom" else -60)),))
        img, truth = render_frame(scene, camera, seed=args.seed)
    except SimError as exc:
        print(f"sim frame: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), img):
        print(f"sim frame: cannot write {out} (use .png or .jpg)", file=sys.stderr)
        return 2
    mask = truth.pop("hand_mask")
    truth["hand_pixels"] = int(mask.sum()) if mask is not None else 0
    out.with_suffix(out.suffix + ".json").write_text(json.dumps(truth, indent=1), encoding="utf-8")
    dice_txt = ", ".join(f"{d['value']} {d['state']}{'' if d['valid'] else ' (void)'}" for d in truth["dice"]) or "none"
    print(f"wrote {out} ({img.shape[1]}x{img.shape[0]}); dice: {dice_txt}; truth: {out}.json")
    return 0


def _render(args) -> int:
    from tablecompanion.sim import SimError
    from tablecompanion.sim.footage import render_match

    try:
        camera = _camera(args)
        start = time.perf_counter()

        def progress(n: int) -> None:
            el = time.perf_counter() - start
            print(f"  {n} frames, {n / max(el, 1e-9):.1f} frames/s", file=sys.stderr)

        summary = render_match(
            args.match, args.out, seed=args.seed, inject=args.inject, fps=args.fps, camera=camera,
            style=args.style, home=args.home, markers=not args.no_markers, bottom=args.bottom,
            max_turns=args.max_turns, write_frames=not args.truth_only, progress=progress,
            passing_shadows=args.passing_shadows, flicker=args.flicker, light_changes=args.light_changes,
        )
    except SimError as exc:
        print(f"sim render: {exc}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    fps = summary["frames"] / max(elapsed, 1e-9)
    print(f"wrote {summary['frames']} frames ({summary['seconds']:.1f} s of footage, {summary['turns']} turns) "
          f"to {summary['out']} in {elapsed:.1f} s: {fps:.1f} frames/s, "
          f"{summary['seconds'] / max(elapsed, 1e-9):.2f}x real time")
    return 0
