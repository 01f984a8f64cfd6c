"""Score value readers against each other, and against the shipped one, on labelled photos.

A value reader (``models/dice_val.onnx``) only sees the dice the classifier leaves unclear and untilted, a
handful a split, so a whole ``dice eval`` per candidate repeats the same slow read of every photo to change a
few dice. Here each photo is read once without a value reader (``--cache`` keeps that read), and each reader
is then applied at several ``value_min`` as ``dice.read_unclear`` applies it. That is the reader as it stood
before the forty-third session (pip counting first, no ``value_check``): a value reader that passes here is then
scored as shipped by ``tablecompanion dice eval --value-reader PATH``. A reader ships when it reads
more of the *train* splits right with no more wrong values (docs/dice.md); choose on the train lines before
reading the held-out ones.

    python tools/dice_value_compare.py /tmp/out/dice_val.onnx /tmp/out/dice_val_wide.onnx \\
        --sets ../shared/data/dice/byler:train ../shared/data/dice/matteo:train --cache /tmp/val_pre.pkl
"""

from __future__ import annotations

import argparse
import pickle
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablecompanion.vision.dice import DEFAULT_CONFIG, DiceVisionError, load_image, read_dice  # noqa: E402
from tablecompanion.vision.dice_eval import EvalResult, load_labels  # noqa: E402
from tablecompanion.vision.dice_model import load_value_reader  # noqa: E402


def read_without_value_reader(specs: list[str]) -> dict:
    """{spec: [(label, readings, file path)]}: every photo read by the shipped reader, value reader off."""
    config = replace(DEFAULT_CONFIG, value_reader="none")
    out = {}
    for spec in specs:
        root, _, split = spec.partition(":")
        out[spec] = [(lab, read_dice(load_image(Path(root) / lab.file), config), str(Path(root) / lab.file))
                     for lab in load_labels(root, split or None)]
        print(f"read {spec}: {len(out[spec])} photos", flush=True)
    return out


def reader_probs(reads: list, reader) -> dict:
    """{(photo, die index): the reader's probabilities} for the dice ``read_unclear`` would show it."""
    probs = {}
    for n, (_, readings, path) in enumerate(reads):
        image = None
        for k, r in enumerate(readings):
            if r.status == "unclear" and r.tilt < DEFAULT_CONFIG.value_max_tilt and r.size > 0:
                image = load_image(path) if image is None else image
                probs[(n, k)] = reader.read(image, r.centre[0], r.centre[1], r.size)
    return probs


def score(reads: list, probs: dict, value_min: float) -> EvalResult:
    """The labelled photos scored with each die's probabilities applied at ``value_min``."""
    res = EvalResult()
    for n, (lab, readings, _) in enumerate(reads):
        out = []
        for k, r in enumerate(readings):
            p = probs.get((n, k))
            if p is not None:
                v = int(np.argmax(p)) + 1
                if p[v - 1] >= value_min:
                    r = replace(r, value=v, status="flat")
            out.append(r)
        res.add(lab, out)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("readers", nargs="*", help="value reader .onnx files (the shipped one is always scored)")
    ap.add_argument("--sets", nargs="+", required=True, help="DIR:split of labelled photos")
    ap.add_argument("--cache", default="", help="pickle of the reads without a value reader: made when missing")
    ap.add_argument("--value-min", type=float, nargs="+", default=[0.5, 0.6, 0.7, 0.8])
    args = ap.parse_args(argv)
    cache = Path(args.cache) if args.cache else None
    reads = pickle.loads(cache.read_bytes()) if cache and cache.is_file() else {}
    missing = [s for s in args.sets if s not in reads]
    if missing:
        reads.update(read_without_value_reader(missing))
        if cache:
            cache.write_bytes(pickle.dumps(reads))
    readers = {"shipped": ""} | {Path(p).name: p for p in args.readers}
    for spec in args.sets:
        for name, path in readers.items():
            try:
                reader = load_value_reader(path)
            except DiceVisionError as exc:
                reader, why = None, str(exc)
            else:
                why = "none shipped"
            if reader is None:
                print(f"{name}: {why}", file=sys.stderr)
                return 1
            probs = reader_probs(reads[spec], reader)
            cells = []
            for vm in args.value_min:
                r = score(reads[spec], probs, vm)
                cells.append(f"{vm}: {r.correct} right {r.wrong} wrong {r.not_flat} no value")
            print(f"{spec.split('/')[-1]:14s} {name:18s} " + " | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
