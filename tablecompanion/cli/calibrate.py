"""``tablecompanion calibrate``: make a profile from a camera or image, check it, print the targets.

    tablecompanion calibrate --camera 0 --name table-1 [--corners x,y x,y x,y x,y] [--home left]
    tablecompanion calibrate check --name table-1 --camera 0
    tablecompanion calibrate targets --out DIR
    tablecompanion calibrate lens --name webcam IMAGE... ; then calibrate --lens webcam ...
    tablecompanion calibrate show --name table-1
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

METHODS = ("auto", "markers", "corners", "board")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "calibrate",
        help="find the board in a camera or image and save a calibration profile",
        description="Find the board (corner markers, given corners, or the board's own look), save a "
        "profile and write an annotated image to check by eye. Verbs: check, targets, lens, show.",
    )
    _source_args(p, required=False)
    p.add_argument("--name", help="profile name to save (for example table-1)")
    p.add_argument("--corners", nargs=4, metavar="X,Y", help="outer frame corners in px: top-left top-right bottom-right bottom-left")
    p.add_argument("--method", choices=METHODS, default="auto", help="auto: corners if given, else markers, else the board's look")
    p.add_argument("--home", choices=("right", "left"), default="right", help="side of the home boards as the bottom player sees it")
    p.add_argument("--bottom", metavar="PLAYER", help="who sits at the board's bottom edge: X, O or a name")
    p.add_argument("--spec", metavar="JSON", help="board dimensions in mm (BoardSpec fields); default: a standard board")
    p.add_argument("--lens", metavar="NAME", help="apply a lens model saved by 'calibrate lens --name NAME'")
    p.add_argument("--annotated", metavar="PNG", help="where to write the annotated image (default: next to the profile)")
    p.add_argument("--data-dir", metavar="DIR", help="data directory (default $TABLECOMPANION_DATA or ~/.local/share/tablecompanion)")
    p.set_defaults(func=_calibrate)
    sub = p.add_subparsers(dest="calibrate_verb", metavar="VERB")

    c = sub.add_parser("check", help="re-validate a profile against a live frame (drift)")
    _source_args(c, required=True)
    c.add_argument("--name", required=True)
    c.add_argument("--annotated", metavar="PNG", help="write the frame with the saved regions drawn on it")
    c.add_argument("--data-dir", metavar="DIR")
    c.set_defaults(func=_check)

    t = sub.add_parser("targets", help="write the printable corner markers and lens sheet (PNG and PDF)")
    t.add_argument("--out", default="calibration/targets", help="output folder")
    t.add_argument("--frame-width", type=float, help="the board frame's width in mm (marker size follows it)")
    t.set_defaults(func=_targets)

    lens = sub.add_parser("lens", help="lens intrinsics and distortion from photos of the lens sheet")
    lens.add_argument("images", nargs="+", metavar="IMAGE")
    lens.add_argument("--name", required=True, help="name to save the lens model under")
    lens.add_argument("--data-dir", metavar="DIR")
    lens.set_defaults(func=_lens)

    e = sub.add_parser("eval", help="score marker calibration and board finding on images of known geometry")
    e.add_argument("--cases", type=int, default=10, help="images per set")
    e.add_argument("--seed", type=int, default=500)
    e.add_argument("--sets", nargs="+", default=["markers", "drawn", "filled", "sim", "no-board"],
                   choices=["markers", "drawn", "filled", "sim", "no-board"], help="which sets to score")
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.set_defaults(func=_eval)

    s = sub.add_parser("show", help="print a saved profile, or list them")
    s.add_argument("--name", help="profile to print (omit to list all)")
    s.add_argument("--data-dir", metavar="DIR")
    s.set_defaults(func=_show)


def _source_args(p: argparse.ArgumentParser, required: bool) -> None:
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument("--camera", metavar="N", help="camera index or device path to grab a frame from")
    g.add_argument("--image", metavar="FILE", help="image file to calibrate from")


def _fail(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def grab_frame(args: argparse.Namespace):
    """One frame from --image or --camera; CalibrationError with what to do when neither works."""
    import cv2

    from tablecompanion.calibration import CalibrationError

    if args.image:
        path = Path(args.image)
        if not path.is_file():
            raise CalibrationError(f"image {path} does not exist")
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None or frame.size == 0:
            raise CalibrationError(f"cannot read {path} as an image (is it a PNG or JPEG?)")
        return frame
    source = int(args.camera) if str(args.camera).isdigit() else args.camera
    cap = cv2.VideoCapture(source)
    try:
        if not cap.isOpened():
            raise CalibrationError(f"cannot open camera {args.camera!r}: check the cable, the index (try 0, 1) or permissions")
        frame = None
        for _ in range(10):  # let exposure settle
            ok, grabbed = cap.read()
            if ok and grabbed is not None:
                frame = grabbed
        if frame is None:
            raise CalibrationError(f"camera {args.camera!r} gave no frame: is another program using it?")
        return frame
    finally:
        cap.release()


def _load_spec(path: str | None):
    from tablecompanion.calibration import CalibrationError
    from tablecompanion.geometry import BoardSpec

    if not path:
        return BoardSpec()
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return BoardSpec.from_dict(data.get("board", data))
    except (OSError, json.JSONDecodeError, ValueError, TypeError, AttributeError) as exc:
        raise CalibrationError(f"board dimensions {path}: {exc} (a JSON object of BoardSpec fields in mm)") from exc


def _calibrate(args: argparse.Namespace) -> int:
    from dataclasses import replace

    import cv2

    from tablecompanion.calibration import CalibrationError, save_profile
    from tablecompanion.calibration.annotate import annotate
    from tablecompanion.calibration.find_board import find_board
    from tablecompanion.calibration.profiles import load_lens
    from tablecompanion.calibration.markers import calibrate_from_corners, calibrate_from_markers, parse_corners
    from tablecompanion.calibration.profiles import check_name, profiles_dir

    if not (args.camera or args.image):
        return _fail("give --camera N or --image FILE (or a verb: check, targets, lens, show; see --help)")
    if not args.name:
        return _fail("give --name PROFILE to save the calibration under (for example --name table-1)")
    try:
        check_name(args.name)
        spec = _load_spec(args.spec)
        lens = load_lens(args.lens, args.data_dir) if args.lens else None
        k, d = (lens.camera_matrix, lens.dist_coeffs) if lens else (None, None)
        frame = grab_frame(args)
        h, w = frame.shape[:2]
        method = args.method
        if method == "auto":
            method = "corners" if args.corners else "markers"
        common = dict(spec=spec, home=args.home, bottom_player=args.bottom, camera_matrix=k, dist_coeffs=d)
        if method == "corners":
            if not args.corners:
                return _fail("--method corners needs --corners x,y x,y x,y x,y (top-left top-right bottom-right bottom-left)")
            cal = calibrate_from_corners((w, h), parse_corners(args.corners), **common)
        elif method == "markers":
            try:
                cal = calibrate_from_markers(frame, **common)
            except CalibrationError as exc:
                if args.method == "markers":
                    raise
                print(f"note: {exc}\nnote: looking for the board by its own look instead", file=sys.stderr)
                method = "board"
        if method == "board":
            view = cv2.undistort(frame, k, d) if k is not None else frame
            found = find_board(view, spec if args.spec else None, args.home, args.bottom)
            if found is None:
                raise CalibrationError(
                    "no board found: stick the corner markers on (tablecompanion calibrate targets), or give the "
                    "frame's corners with --corners x,y x,y x,y x,y (TL TR BR BL), or make the board fill more of the picture"
                )
            if k is not None:
                found = replace(found, camera_matrix=k, dist_coeffs=d)
            cal = found
        cal = replace(cal, name=args.name)
        path = save_profile(cal, args.name, args.data_dir)
        out = Path(args.annotated) if args.annotated else profiles_dir(args.data_dir) / f"{args.name}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out), annotate(frame, cal))
    except CalibrationError as exc:
        return _fail(str(exc))
    print(f"calibrated from {cal.source}: reprojection error {cal.reprojection_error_mm:.2f} mm"
          + (f", markers {sorted(cal.marker_image_corners)}" if cal.marker_image_corners else ""))
    print(f"profile: {path}")
    print(f"annotated image: {out}  <- look at it: the numbered triangles must sit on the board's points")
    return 0


def _check(args: argparse.Namespace) -> int:
    import cv2

    from tablecompanion.calibration import CalibrationError, load_profile
    from tablecompanion.calibration.annotate import annotate
    from tablecompanion.calibration.drift import check_drift

    try:
        cal = load_profile(args.name, args.data_dir)
        frame = grab_frame(args)
    except CalibrationError as exc:
        return _fail(str(exc))
    report = check_drift(cal, frame)
    print(f"{report.status}: {report.message}")
    for marker_id, shift in sorted(report.per_marker.items()):
        print(f"  marker {marker_id}: {shift:.1f} mm")
    if args.annotated and frame.shape[1::-1] == cal.image_size:
        cv2.imwrite(args.annotated, annotate(frame, cal, title=f"check {args.name}: {report.status}"))
    return 1 if report.needs_recalibration else 0


def _targets(args: argparse.Namespace) -> int:
    from tablecompanion.calibration.targets import write_targets
    from tablecompanion.geometry import BoardSpec

    try:
        spec = BoardSpec(frame_width=args.frame_width) if args.frame_width else BoardSpec()
    except ValueError as exc:
        return _fail(str(exc))
    for path in write_targets(args.out, spec):
        print(path)
    return 0


def _lens(args: argparse.Namespace) -> int:
    import cv2

    from tablecompanion.calibration import CalibrationError
    from tablecompanion.calibration.lens import calibrate_lens
    from tablecompanion.calibration.profiles import save_lens

    images = []
    for name in args.images:
        img = cv2.imread(name, cv2.IMREAD_COLOR)
        if img is None:
            return _fail(f"cannot read {name} as an image")
        images.append(img)
    try:
        lens = calibrate_lens(images)
        path = save_lens(lens, args.name, args.data_dir)
    except CalibrationError as exc:
        return _fail(str(exc))
    print(f"lens from {lens.views} views: rms {lens.rms_px:.2f} px, focal {lens.camera_matrix[0, 0]:.0f} px")
    print(f"saved: {path}  (use with: tablecompanion calibrate --lens {args.name} ...)")
    return 0


def _eval(args: argparse.Namespace) -> int:
    import cv2

    from tablecompanion.calibration import evaluate as ev

    photos = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dice" / "byler" / "images"
    backgrounds = [cv2.imread(str(p)) for p in sorted(photos.glob("*.jpg"))[:6]] if photos.is_dir() else None
    sets = {
        "markers": lambda: ev.run(ev.synthetic_cases(args.cases, args.seed, markers=True, backgrounds=backgrounds), ev.markers_method),
        "drawn": lambda: ev.run(ev.synthetic_cases(args.cases, args.seed, backgrounds=backgrounds), ev.board_method),
        "filled": lambda: ev.run(ev.filled_cases(args.cases, args.seed), ev.board_method),
        "sim": lambda: ev.run(ev.sim_cases(args.cases, args.seed), ev.board_method),
        "no-board": lambda: ev.run(ev.negative_cases(photos, args.cases), ev.board_method),
    }
    results = {}
    for name in args.sets:
        results[name] = ev.summary(sets[name]())
        if not args.json:
            r = results[name]
            if not r.get("cases"):
                print(f"{name:9s} no cases (simulator or shared photos missing)")
                continue
            err = "" if r["median_across_mm"] is None else (
                f"  point error median {r['median_error_mm']:.1f} mm, p90 {r['p90_error_mm']:.1f}, "
                f"max {r['max_error_mm']:.1f} (across points: median {r['median_across_mm']:.1f}, max {r['max_across_mm']:.1f})")
            print(f"{name:9s} {r['cases']:3d} cases  success {r['success_rate']:.0%}{err}  {r['mean_seconds']:.1f} s/image")
            if r["failures"]:
                print(f"          failures: {', '.join(r['failures'])}")
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


def _show(args: argparse.Namespace) -> int:
    from tablecompanion.calibration import CalibrationError, list_profiles, load_profile

    if not args.name:
        for name in list_profiles(args.data_dir):
            print(name)
        return 0
    try:
        cal = load_profile(args.name, args.data_dir)
    except CalibrationError as exc:
        return _fail(str(exc))
    print(json.dumps(cal.to_dict(), indent=2))
    return 0
