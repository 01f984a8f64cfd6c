"""``tablecompanion roll read|eval``: read a roll against the still board before it; score the void verdicts
on simulated rolls (``tablecompanion.vision.roll_reader``, ``roll_eval``)."""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("roll", help="board-aware roll reading: verdicts (valid / void / unclear)")
    sub = p.add_subparsers(dest="roll_command", metavar="VERB")

    r = sub.add_parser("read", help="read the roll in FRAME against REFERENCE (the still board before the throw)")
    r.add_argument("reference", metavar="REFERENCE", help="image of the board after the last play, no dice")
    r.add_argument("frame", metavar="FRAME", help="image with the dice at rest")
    r.add_argument("--profile", help="calibration profile name (default: the corner markers in REFERENCE)")
    r.add_argument("--data-dir", help="where profiles live")
    r.add_argument("--home", choices=("right", "left"), default="right")
    r.add_argument("--roller", choices=("bottom", "top"), default="bottom", help="where the roller sits")
    r.add_argument("--opening", action="store_true", help="the opening roll: one die in each half")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_read)

    e = sub.add_parser("eval", help="score void-roll verdicts on simulated rolls (good rolls and every void kind)")
    from tablecompanion.vision.roll_eval import add_arguments

    add_arguments(e)
    e.set_defaults(func=_eval)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _read(args) -> int:
    import cv2

    from tablecompanion.calibration import CalibrationError, calibrate_from_markers, load_profile
    from tablecompanion.vision.dice import DiceVisionError
    from tablecompanion.vision.roll_reader import RollReader

    ref = cv2.imread(args.reference, cv2.IMREAD_COLOR)
    img = cv2.imread(args.frame, cv2.IMREAD_COLOR)
    for path, im in ((args.reference, ref), (args.frame, img)):
        if im is None:
            print(f"error: cannot read image {path}", file=sys.stderr)
            return 2
    try:
        cal = load_profile(args.profile, args.data_dir) if args.profile else calibrate_from_markers(ref, home=args.home)
        reader = RollReader(cal)
        reader.set_reference(ref)
        rr = reader.read(img, roller=args.roller, opening=args.opening)
    except (CalibrationError, DiceVisionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({
            "verdict": rr.verdict, "reason": rr.reason, "occluded": rr.occluded,
            "dice": [{"value": d.value, "status": d.status, "placement": d.placement, "reason": d.reason,
                      "x": round(d.centre[0], 1), "y": round(d.centre[1], 1),
                      "board_mm": [round(v, 1) for v in d.board_mm], "confidence": round(d.confidence, 3)}
                     for d in rr.dice]}, indent=2))
    else:
        print(f"{rr.verdict}: {rr.reason}")
        for i, d in enumerate(rr.dice, start=1):
            print(f"  die {i}: {d.value if d.value is not None else '-'} {d.status}"
                  f"{' (' + d.reason + ')' if d.reason else ''}, {d.placement}, at {d.board_mm[0]:.0f},{d.board_mm[1]:.0f} mm")
    return 0


def _eval(args) -> int:
    from tablecompanion.vision.roll_eval import run

    return run(args)
