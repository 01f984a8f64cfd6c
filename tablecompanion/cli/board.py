"""``tablecompanion board read|eval``: read the checkers in a photo, score the reader on simulator footage."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tablecompanion.cli.sim import FLICKER_HELP, LIGHT_CHANGES_HELP, bounded


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("board", help="read the checkers on a board photo, score the board reader")
    sub = p.add_subparsers(dest="board_command", metavar="VERB")

    r = sub.add_parser(
        "read",
        help="read every checker in a photo of a board",
        description="Print the position in a photo: per point (the bottom player's numbering, home boards "
        "on the right unless the profile says otherwise), bar, borne off, and a gnubg Position ID when all "
        "30 checkers are accounted for.",
    )
    r.add_argument("image", metavar="IMAGE")
    r.add_argument("--profile", metavar="NAME", help="calibration profile to use (default: find the board in the photo)")
    r.add_argument("--data-dir", metavar="DIR",
                   help="data directory holding profiles/ (default $TABLECOMPANION_DATA or ~/.local/share/tablecompanion)")
    r.add_argument("--json", action="store_true",
                   help='print {"points": {"1": {"side", "count"}, ...}, "bar", "off", "uncertain"}')
    r.add_argument("--annotate", metavar="OUT", help="write a copy of the photo with what was read drawn on it")
    r.set_defaults(func=_read)

    e = sub.add_parser("eval", help="score board reading and play identification on simulated real matches")
    e.add_argument("--matches", default=None, metavar="DIR", help="folder of .mat files (default ../shared/data/matches)")
    e.add_argument("--limit-matches", type=int, default=3, help="how many matches to replay (each one whole unless --max-turns)")
    e.add_argument("--skip-matches", type=int, default=0, help="start at this match of the sorted folder")
    e.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop starting new turns after S seconds "
                   "(with --footage: stop the footage, the turn it stops in is not scored)")
    e.add_argument("--max-turns", type=int, default=None, help="at most this many turns per match")
    e.add_argument("--styles", default="tournament,classic,leather", help="board styles, comma-separated (matches "
                   "are dealt round-robin over every style x camera)")
    e.add_argument("--cameras", default="top,default,tilted,steep", help="camera presets, comma-separated")
    e.add_argument("--illegal", type=float, default=0.05, help="share of turns replayed with an injected illegal play "
                   "(with --footage: played illegally first, half of them corrected before the dice are picked up)")
    e.add_argument("--find-board", action="store_true", help="find the board in the first frame instead of using the true calibration")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--json", action="store_true")
    e.add_argument("--failures", metavar="DIR", help="write frames that were misread here")
    e.add_argument("--footage", action="store_true", help="score the whole camera path (board watcher) on 30 fps "
                   "footage of each match instead of single frames (slow: about 1 s of CPU per second of footage)")
    e.add_argument("--observations", metavar="FILE", help="with --footage: append each scored identification's "
                   "inputs (turn, roll, recorded play, board as observed) to FILE as JSON lines, for --replay")
    e.add_argument("--replay", metavar="FILE", help="score play identification as it is now on an --observations "
                   "file (seconds, instead of re-running the footage)")
    e.add_argument("--window", type=bounded("the window's glint", 0.0, 2.0, "0.3"), default=None, metavar="GLINT",
                   help="single frames and --footage: mirror the window behind the far player in glossy checker "
                        "tops and varnish at this strength (0-2; default 0.3, a bright day, as the simulator's "
                        "cameras; 0: no window)")
    e.add_argument("--flicker", type=bounded("the flicker's depth", 0.0, 0.3, "0.03"), default=0.0, metavar="DEPTH",
                   help="with --footage: " + FLICKER_HELP)
    e.add_argument("--light-changes", action="store_true", help="with --footage: " + LIGHT_CHANGES_HELP)
    e.add_argument("--photos", type=int, default=0, metavar="N",
                   help="score board read without a profile on N photo-like renders (random camera, light, hands)")
    e.add_argument("--photo-tilt", type=_tilt_range, default=(0.0, 35.0), metavar="MIN,MAX",
                   help="with --photos: the camera's tilt from straight down, in degrees, drawn from this range "
                        "(default 0,35; a phone held by a seated player looks at 35-60)")
    e.add_argument("--trays", type=int, default=0, metavar="N",
                   help="score the tray count (checkers borne off, as the change since the board before the turn) "
                        "on N rendered bearing-off turns of real matches")
    e.set_defaults(func=_eval)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _tilt_range(text: str) -> tuple[float, float]:
    """``MIN,MAX`` degrees from straight down, 0 <= MIN <= MAX < 80."""
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not MIN,MAX in degrees (e.g. 35,60)") from None
    if not 0.0 <= low <= high < 80.0:
        raise argparse.ArgumentTypeError(f"{text!r}: the tilt must satisfy 0 <= MIN <= MAX < 80 degrees")
    return low, high


def _read(args: argparse.Namespace) -> int:
    import cv2

    from tablecompanion.calibration import CalibrationError, load_profile
    from tablecompanion.vision.board_annotate import annotate_reading
    from tablecompanion.vision.board_reader import BoardReadError, read_board

    path = Path(args.image)
    if not path.is_file():
        print(f"error: no such image: {path}", file=sys.stderr)
        return 2
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        print(f"error: cannot read {path} as an image (is it a JPEG/PNG?)", file=sys.stderr)
        return 2
    calibration = None
    if args.profile:
        try:
            calibration = load_profile(args.profile, args.data_dir)
        except CalibrationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    try:
        reading = read_board(frame, calibration)
    except (BoardReadError, CalibrationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (cv2.error, ValueError, ArithmeticError) as exc:  # a picture the vision code cannot handle
        print(f"error: cannot read a board in {path}: {exc}", file=sys.stderr)
        return 1
    if args.annotate:
        out = Path(args.annotate)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            ok = cv2.imwrite(str(out), annotate_reading(frame, reading))
        except (OSError, cv2.error) as exc:
            ok = False
            print(f"error: cannot write {out}: {exc}", file=sys.stderr)
        if not ok:
            print(f"error: cannot write {out} (use a .png or .jpg name in a writable folder)", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(reading.to_json(), indent=1))
    else:
        print(reading.describe())
    return 0


def _eval(args: argparse.Namespace) -> int:
    from tablecompanion.vision.board_eval import EvalError, evaluate_footage, evaluate_matches, evaluate_photos

    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    if args.replay:
        from tablecompanion.vision.board_eval import replay_observations

        try:
            report = replay_observations(args.replay)
        except EvalError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(report, indent=1) if args.json else "\n".join(report["summary"]))
        return 0
    if args.trays:
        from tablecompanion.vision.board_eval import evaluate_trays

        try:
            report = evaluate_trays(args.trays, seed=args.seed, progress=say)
        except EvalError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(report, indent=1) if args.json else "\n".join(report["summary"]))
        return 0
    if args.photos:
        report = evaluate_photos(args.photos, seed=args.seed, progress=say, failures_dir=args.failures,
                                 tilt=args.photo_tilt)
        print(json.dumps(report, indent=1) if args.json else "\n".join(report["summary"]))
        return 0
    if args.footage:
        from tablecompanion.vision.board_eval import DEFAULT_MATCHES

        folder = Path(args.matches) if args.matches else DEFAULT_MATCHES
        mats = sorted(folder.glob("*.mat"))[args.skip_matches:args.skip_matches + args.limit_matches]
        if not mats:
            print(f"error: no .mat files found in {folder}", file=sys.stderr)
            return 2
        styles = [s for s in args.styles.split(",") if s]
        cameras = [c for c in args.cameras.split(",") if c]
        combos = [(s, c) for c in cameras for s in styles]
        reports = []
        started = time.perf_counter()
        for i, mat in enumerate(mats):
            style, camera = combos[i % len(combos)]
            left = None if args.time_limit is None else args.time_limit - (time.perf_counter() - started)
            if left is not None and left <= 0:
                say(f"time limit reached: {mat.name} and later matches not run")
                break
            try:
                reports.append(evaluate_footage(mat, max_turns=args.max_turns, style=style, camera=camera,
                                                inject=f"illegal:{args.illegal},correction:0.5", seed=args.seed,
                                                progress=say, failures_dir=args.failures, time_limit_s=left,
                                                observations_out=args.observations, window_glint=args.window,
                                                flicker=args.flicker, light_changes=args.light_changes))
            except EvalError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
        if args.json:
            print(json.dumps([{k: v for k, v in r.items()} for r in reports], indent=1, default=str))
        else:
            for r in reports:
                print("\n".join(r["summary"]))
        return 0

    try:
        report = evaluate_matches(
            matches_dir=args.matches,
            limit_matches=args.limit_matches,
            skip_matches=args.skip_matches,
            time_limit_s=args.time_limit,
            max_turns=args.max_turns,
            styles=[s for s in args.styles.split(",") if s],
            cameras=[c for c in args.cameras.split(",") if c],
            illegal_share=args.illegal,
            find_board=args.find_board,
            seed=args.seed,
            failures_dir=args.failures,
            window_glint=args.window,
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except EvalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for line in report["summary"]:
            print(line)
    return 0
