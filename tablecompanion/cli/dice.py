"""``tablecompanion dice read|eval|boards|watch``: read dice in photos, score a labelled folder, count dice
invented on simulated boards, watch a stream."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("dice", help="read dice in images, score the reader, watch rolls settle")
    sub = p.add_subparsers(dest="dice_command", metavar="VERB")

    r = sub.add_parser("read", help="read the dice in one or more images")
    r.add_argument("images", nargs="+", metavar="IMAGE")
    r.add_argument("--json", action="store_true", help="print JSON: [{file, dice: [{value, x, y, confidence, status}]}]")
    r.add_argument("--annotate", metavar="OUT_DIR", help="write annotated copies of the images here")
    r.add_argument("--config", metavar="JSON", help="dice reader thresholds (DiceConfig fields)")
    r.add_argument("--model", metavar="PATH", help="dice network .onnx to use, or 'pips' for pip counting")
    r.add_argument("--classifier", metavar="PATH", help="dice crop classifier .onnx to use, or 'none'")
    r.add_argument("--value-reader", metavar="PATH", help="value reader .onnx for dice left unclear, or 'none'")
    r.set_defaults(func=_read)

    e = sub.add_parser("eval", help="score the reader on a folder with labels.csv")
    e.add_argument("dataset", metavar="DATASET_DIR")
    e.add_argument("--split", help="only rows whose notes say split=SPLIT (train, test, valid); SPLIT-choose: the "
                   "15 %% of it held back to choose between networks trained on SPLIT-fit (the rest)")
    e.add_argument("--limit", type=int, help="only the first N images")
    e.add_argument("--scale", type=float, default=1.0, metavar="F",
                   help="resize every photo (and its labels) by F first: 2 = dice twice as large, as a closer "
                        "camera or a full-size phone photo sees them (at most 8)")
    e.add_argument("--json", action="store_true", help="print JSON: the figures, and every die not read right (die_failures)")
    e.add_argument("--failures", action="store_true",
                   help="also list every die not read right: file, where, labelled and read")
    e.add_argument("--annotate", metavar="OUT_DIR",
                   help="write each image with a die not read right here, readings and labels drawn, failures ringed")
    e.add_argument("--label-fixes", metavar="CSV",
                   help="score the labels this list corrects as corrected (tools/dice_label_fixes.csv: train "
                        "splits, for choosing a network trained on them; held-out figures use the labels as given)")
    e.add_argument("--config", metavar="JSON")
    e.add_argument("--model", metavar="PATH", help="dice network .onnx to use, or 'pips' for pip counting")
    e.add_argument("--classifier", metavar="PATH", help="dice crop classifier .onnx to use, or 'none'")
    e.add_argument("--value-reader", metavar="PATH", help="value reader .onnx for dice left unclear, or 'none'")
    e.set_defaults(func=_eval)

    b = sub.add_parser("boards", help="count the dice read on simulated boards without dice (checkers, cube)",
                       description="Render the simulator's boards without dice (every board style and camera, "
                                   "checkers and the cube in play) and read each as a photo: every die reported "
                                   "is invented. Issue 4's target is none.")
    b.add_argument("--frames", type=int, default=60, help="boards to render (default 60)")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--annotate", metavar="OUT_DIR", help="write the boards with dice read on them here")
    b.add_argument("--json", action="store_true")
    b.add_argument("--config", metavar="JSON")
    b.set_defaults(func=_boards)

    w = sub.add_parser("watch", help="watch a camera / video / image folder and print roll events")
    w.add_argument("source", help="camera index, /dev/videoN, URL, video file or image folder")
    w.add_argument("--fps", type=float, default=30.0, help="frame rate of an image folder")
    w.add_argument("--opening", action="store_true", help="the first roll is the opening roll")
    w.add_argument("--side", choices=("bottom", "top"), default="bottom", help="where the roller sits")
    w.set_defaults(func=_watch)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _config(path: str | None, model: str | None = None, classifier: str | None = None, value_reader: str | None = None):
    from dataclasses import replace

    from tablecompanion.vision.dice import DEFAULT_CONFIG, DiceConfig, DiceVisionError

    # a network named but not there is an error now, not a reader that silently finds nothing in every image
    for what, named in (("dice network", model), ("dice classifier", classifier), ("dice value reader", value_reader)):
        if named and named not in ("none", "pips") and not Path(named).is_file():
            raise DiceVisionError(f"no {what} at {named}")
    config = DiceConfig.load(path) if path else None
    if model:
        config = replace(config or DEFAULT_CONFIG, model=model)
    if classifier:
        config = replace(config or DEFAULT_CONFIG, classifier=classifier)
    if value_reader:
        config = replace(config or DEFAULT_CONFIG, value_reader=value_reader)
    return config


def _read(args: argparse.Namespace) -> int:
    import cv2

    from tablecompanion.vision.dice import DiceVisionError, annotate, annotation_dir, read_dice
    import numpy as np

    try:
        config = _config(args.config, args.model, args.classifier, args.value_reader)
        out_dir = annotation_dir(args.annotate)
    except DiceVisionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    results = []
    status = 0
    for name in args.images:
        entry: dict = {"file": name, "dice": []}
        try:
            data = np.fromfile(name, dtype=np.uint8) if Path(name).is_file() else None
            img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data is not None and data.size else None
            if img is None:
                raise DiceVisionError(f"cannot read image {name}")
            readings = read_dice(img, config)
            entry["dice"] = [r.to_json() for r in readings]
            if out_dir:
                cv2.imwrite(str(out_dir / (Path(name).stem + "_dice.png")), annotate(img, readings))
        except DiceVisionError as exc:
            entry["error"] = str(exc)
            status = 1
            print(f"error: {exc}", file=sys.stderr)
        results.append(entry)
        if not args.json:
            dice = entry["dice"]
            text = ", ".join(
                f"{d['value'] if d['value'] else '?'} at ({d['x']:.0f},{d['y']:.0f}) {d['status']} {d['confidence']:.2f}"
                for d in dice
            )
            print(f"{name}: {len(dice)} dice" + (f": {text}" if text else ""))
    if args.json:
        print(json.dumps(results))
    return status


def _eval(args: argparse.Namespace) -> int:
    from tablecompanion.vision.dice import DiceVisionError
    from tablecompanion.vision.dice_eval import evaluate

    try:
        result = evaluate(args.dataset, args.split, _config(args.config, args.model, args.classifier, args.value_reader),
                          limit=args.limit, scale=args.scale, annotate_dir=args.annotate,
                          label_fixes=args.label_fixes)
    except DiceVisionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if result.images == 0:
        print(f"error: no labelled images in {args.dataset}" + (f" for split {args.split}" if args.split else ""), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result.format())
        if args.failures and (result.die_failures or result.failures):
            print("dice not read right:")
            print(result.format_failures())
    return 0


def _boards(args: argparse.Namespace) -> int:
    from tablecompanion.vision.dice import DiceVisionError
    from tablecompanion.vision.dice_boards import evaluate_boards

    if args.frames < 1:
        print("error: --frames must be at least 1", file=sys.stderr)
        return 2
    try:
        result = evaluate_boards(args.frames, args.seed, _config(args.config), args.annotate)
    except DiceVisionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_dict()) if args.json else result.format())
    return 0


def _watch(args: argparse.Namespace) -> int:
    from tablecompanion.vision.frames import FrameSourceError, open_source
    from tablecompanion.vision.settle import DicePickedUp, Occluded, RollSettled, RollWatcher

    try:
        source = open_source(args.source, fps=args.fps)
    except FrameSourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    watcher = RollWatcher(roller_side=args.side, opening=args.opening)
    t0 = time.perf_counter()
    n = 0
    try:
        for frame in source.frames():
            n += 1
            for ev in watcher.feed(frame.image, frame.time, frame.index):
                if isinstance(ev, RollSettled):
                    print(f"[{ev.time:7.2f}s #{ev.frame_index}] roll {ev.verdict}: {ev.reason}")
                    watcher.opening = False
                elif isinstance(ev, DicePickedUp):
                    print(f"[{ev.time:7.2f}s #{ev.frame_index}] dice picked up")
                elif isinstance(ev, Occluded):
                    print(f"[{ev.time:7.2f}s #{ev.frame_index}] board occluded")
    finally:
        source.close()
    dt = time.perf_counter() - t0
    print(f"{n} frames, {n / dt if dt else 0:.1f} frames/s", file=sys.stderr)
    return 0
