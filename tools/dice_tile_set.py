"""A labelled set of camera-sized frames of small dice, made from a labelled photo set.

No labelled set has a far camera's view (a whole board in 1280x720, dice of 15-25 px). This shrinks
each photo of one split by ``--scale`` and lays the photos side by side on frames of ``--frame`` size
(grey between them), with their labels moved along, so that ``tablecompanion dice eval OUT`` scores the
reader on such frames (docs/dice.md, "Dice larger or smaller than the networks learned"):

    .venv/bin/python tools/dice_tile_set.py ../shared/data/dice/byler test 0.5 /tmp/byler_test_far
    tablecompanion dice eval /tmp/byler_test_far
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import cv2
import numpy as np


def tile(src: Path, split: str, scale: float, out: Path, size: tuple[int, int] = (1280, 720)) -> tuple[int, int]:
    """Write ``out``/images/frame_NNN.jpg and ``out``/labels.csv; (frames, dice) written."""
    width, height = size
    with open(src / "labels.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if f"split={split}".lower() in r.get("notes", "").lower()]
    if not rows:
        raise SystemExit(f"no photos of split {split!r} in {src / 'labels.csv'}")
    (out / "images").mkdir(parents=True, exist_ok=True)
    written: list[dict] = []
    frame, values, boxes = None, [], []
    x = y = row_h = 0

    def flush() -> None:
        if frame is not None and values:
            name = f"images/frame_{len(written):03d}.jpg"
            cv2.imwrite(str(out / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            written.append({"file": name, "die_values": " ".join(values), "boxes": ";".join(boxes),
                            "notes": f"split={split}; tiled from {src.name} at {scale}x"})

    def new_frame() -> None:
        nonlocal frame, values, boxes, x, y, row_h
        frame, values, boxes, x, y, row_h = np.full((height, width, 3), 128, np.uint8), [], [], 0, 0, 0

    new_frame()
    for row in rows:
        img = cv2.imread(str(src / row["file"]))
        if img is None:
            raise SystemExit(f"cannot read {src / row['file']}")
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        h, w = img.shape[:2]
        if w > width or h > height:
            raise SystemExit(f"{row['file']} at {scale}x ({w}x{h}) does not fit a {width}x{height} frame")
        if x + w > width:
            x, y, row_h = 0, y + row_h, 0
        if y + h > height:
            flush()
            new_frame()
        frame[y:y + h, x:x + w] = img
        for value, box in zip(row["die_values"].split(), row["boxes"].split(";")):
            x1, y1, x2, y2 = (float(c) * scale for c in box.split(","))
            values.append(value)
            boxes.append(f"{x1 + x:.1f},{y1 + y:.1f},{x2 + x:.1f},{y2 + y:.1f}")
        x, row_h = x + w, max(row_h, h)
    flush()
    with open(out / "labels.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, ["file", "die_values", "boxes", "notes"])
        writer.writeheader()
        writer.writerows(written)
    return len(written), sum(len(r["die_values"].split()) for r in written)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="a labelled set (a folder with labels.csv)")
    ap.add_argument("split", help="train, test or valid")
    ap.add_argument("scale", type=float, help="how much to shrink each photo (0.5: dice half their size)")
    ap.add_argument("out", type=Path, help="folder to write the new set to")
    ap.add_argument("--frame", default="1280x720", help="frame size WxH (default 1280x720)")
    args = ap.parse_args(argv)
    if not 0 < args.scale <= 1:
        ap.error("scale must be in (0, 1]")
    try:
        size = tuple(int(v) for v in args.frame.lower().split("x"))
        assert len(size) == 2 and min(size) > 0
    except (ValueError, AssertionError):
        ap.error(f"--frame is WxH, e.g. 1280x720, not {args.frame!r}")
    frames, dice = tile(args.source, args.split, args.scale, args.out, size)
    print(f"{frames} frames, {dice} dice -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
