"""Train the dice reader's learned check (tablecompanion/vision/dice_model.py) on labelled photo sets.

Only the train split of each source is used for training. Every pip group the reader proposes in a
training photo becomes one example: labelled with the value of the die whose centre it lies on, or
"no die" when it lies on none; each crop is used in its eight square symmetries.

    python tools/train_dice.py --train ../shared/data/dice/byler:train ../shared/data/dice/matteo:train \\
        --out tablecompanion/vision/models/dice_mlp.npz \\
        --report ../shared/data/dice/byler:test ../shared/data/dice/matteo:valid
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablecompanion.vision.dice import DEFAULT_CONFIG, candidates  # noqa: E402
from tablecompanion.vision.dice_eval import evaluate, load_labels  # noqa: E402
from tablecompanion.vision.dice_model import augment, crop, image_features, scalars, train_mlp  # noqa: E402


def _spec(text: str) -> tuple[Path, str | None]:
    root, _, split = text.partition(":")
    return Path(root), (split or None)


def examples(root: Path, split: str | None, config) -> tuple[list[np.ndarray], list[np.ndarray], list[int]]:
    patches, extra, ys = [], [], []
    for lab in load_labels(root, split):
        img = cv2.imread(str(root / lab.file))
        if img is None:
            continue
        ycc, scale, evidence = candidates(img, config)
        for ev in evidence:
            cx, cy = ev.centre[0] / scale, ev.centre[1] / scale
            best, best_d = 0, math.inf
            for value, c, r in zip(lab.values, lab.centres, lab.radii):
                d = math.dist((cx, cy), c)
                if d <= r and d < best_d:
                    best, best_d = value, d
            patches.append(crop(ycc, ev, config.pip_side_frac))
            extra.append(scalars(ev))
            ys.append(best)
    return patches, extra, ys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs="+", required=True, metavar="DIR:SPLIT")
    ap.add_argument("--out", required=True)
    ap.add_argument("--report", nargs="*", default=[], metavar="DIR:SPLIT")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-negative-ratio", type=float, default=1.0, help="at most this many no-die examples per die, per source")
    ap.add_argument("--cache", help="folder to keep extracted crops in between runs")
    args = ap.parse_args(argv)
    config = replace(DEFAULT_CONFIG, model="none")
    t0 = time.perf_counter()
    xs, ys = [], []
    for spec in args.train:
        root, split = _spec(spec)
        cached = Path(args.cache) / (root.name + f"_{split}.npz") if args.cache else None
        if cached and cached.is_file():
            with np.load(cached) as z:
                patches, extra, labels = list(z["p"]), list(z["e"]), z["y"].tolist()
        else:
            patches, extra, labels = examples(root, split, config)
            if cached:
                cached.parent.mkdir(parents=True, exist_ok=True)
                np.savez_compressed(cached, p=np.stack(patches), e=np.stack(extra), y=np.array(labels))
        rng = np.random.default_rng(args.seed)
        labels_arr = np.array(labels)
        neg = np.nonzero(labels_arr == 0)[0]
        keep_neg = int(args.max_negative_ratio * np.count_nonzero(labels_arr))
        drop = set(rng.permutation(neg)[keep_neg:].tolist()) if len(neg) > keep_neg else set()
        for i, (p, e, y) in enumerate(zip(patches, extra, labels)):
            if i in drop:
                continue
            for a in augment(p):
                xs.append(np.concatenate([image_features(np.ascontiguousarray(a)), e]))
                ys.append(y)
        counts = np.bincount(labels, minlength=7)
        print(f"{spec}: {len(labels)} groups, per class (no die, 1..6) {counts.tolist()}")
    x = np.stack(xs).astype(np.float32)
    y = np.array(ys, np.int64)
    print(f"{len(y)} training examples with symmetries ({time.perf_counter() - t0:.0f} s)")
    model = train_mlp(x, y, hidden=args.hidden, epochs=args.epochs, seed=args.seed)
    acc = float((model.predict(x).argmax(1) == y).mean())
    print(f"training accuracy {acc:.4f} ({time.perf_counter() - t0:.0f} s)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    print(f"wrote {out} ({out.stat().st_size} bytes)")
    for spec in args.report:
        root, split = _spec(spec)
        res = evaluate(root, split, replace(DEFAULT_CONFIG, model=str(out)))
        print(f"--- {spec}\n{res.format()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
