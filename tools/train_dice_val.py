"""Train the dice value reader (1..6 of a die already found) and export it to ONNX for cv2.dnn.

The crop classifier (tools/train_dice_cls.py) decides die / no die / cocked and reads most values, but
it learns from dice shrunk to anything down to 14 px and hedges on small dark or marbled dice with
coloured pips: about one byler die in ten stayed "unclear". This network only answers "which value",
for dice the classifier is already sure are dice and not tilted (``dice.read_unclear``), on a 48 px crop
(``dice_model.VAL_SIZE``, cut as the classifier's crops are: CLS_CONTEXT x the die's side).

Examples: the labelled dice of the *train* splits and the detector's finds on them (their real centre and
size errors), from ``train_dice_cls.photo_patches``, plus a few drawn dice (``vision.dice_synth``) for
colours the photos lack. Each sample is turned by any angle, mirrored, its centre and size jittered as a
detector's are, scaled to 0.7-1.2 of the die's own size in the photo (14-64 px), recoloured, noised and
JPEG-compressed. Deterministic for a seed, time-boxed.

    python tools/train_dice_val.py --train ../shared/data/dice/byler:train ../shared/data/dice/matteo:train \\
        --cache /tmp/dice_val_cache.npz --minutes 15 --out /tmp/dice_val_a.onnx
    # then on from there (the state dict is written beside --out) at a lower rate, another seed:
    python tools/train_dice_val.py --train ... --cache /tmp/dice_val_cache.npz --init /tmp/dice_val_a.pt \\
        --lr 1e-3 --seed 1 --minutes 20 --out /tmp/dice_val_b.onnx

The shipped reader was trained on a GPU, wider (``--widths 48,96,192 --hidden 192``), with crops cut by
worker processes (``--device cuda --workers 7``): tools/train_dice_gpu.sh is that run.
torch is needed here only; the reader runs on cv2.dnn.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train_dice_cls import (PATCH, UNIT, add_run_options, cached, drawn_patches, export, parse_run_args,  # noqa: E402
                            photo_patches, save_state, start_from, train)
from train_dice_net import augment_colour, load_split, seeded  # noqa: E402

from tablecompanion.vision.dice_model import CLS_CONTEXT, VAL_SIZE  # noqa: E402

DRAWN_SHARE = 0.15  # of the samples drawn in a batch


def add_glint(cam: np.ndarray, side: float, rng: np.random.Generator) -> np.ndarray:
    """A lamp's highlight on a glossy face: a soft white ellipse somewhere on the top face (``side`` px, the
    die centred in ``cam``). byler test's black 4 with a glint between its pips reads 5 to the classifier and
    is a coin toss to this reader; the photos have few such dice to learn from."""
    n = cam.shape[0]
    c = (n / 2 + rng.uniform(-0.3, 0.3) * side, n / 2 + rng.uniform(-0.3, 0.3) * side)
    axes = (max(1.0, rng.uniform(0.05, 0.16) * side), max(1.0, rng.uniform(0.03, 0.1) * side))
    mask = np.zeros((n, n), np.float32)
    cv2.ellipse(mask, (c, (2 * axes[0], 2 * axes[1]), float(rng.uniform(0, 180))), 1.0, -1, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.6, 0.3 * axes[1]))[..., None] * rng.uniform(0.5, 1.0)
    white = np.array([rng.uniform(225, 255)] * 3, np.float32)
    return np.clip(cam.astype(np.float32) * (1 - mask) + white * mask, 0, 255).astype(np.uint8)


def add_fade(cam: np.ndarray, side: float, rng: np.random.Generator) -> np.ndarray:
    """Part of the top face washed toward the face's own colour: worn paint, a shadow's edge or a haze of
    light that leaves a pip faint but there. byler test's dark 3 with a faint middle pip reads 2; only
    partly faded (at most 0.7), so a faded pip is still a pip and the label stays true. Tried once (forty-sixth
    session), not kept: the reader grew less sure of 3s (docs/dice.md)."""
    n = cam.shape[0]
    h = max(1, int(round(0.3 * side)))
    face = np.median(cam[n // 2 - h:n // 2 + h + 1, n // 2 - h:n // 2 + h + 1].reshape(-1, cam.shape[2]), axis=0)
    c = (n / 2 + rng.uniform(-0.3, 0.3) * side, n / 2 + rng.uniform(-0.3, 0.3) * side)
    r = max(1.0, rng.uniform(0.08, 0.18) * side)
    mask = np.zeros((n, n), np.float32)
    cv2.circle(mask, (int(round(c[0] * 16)), int(round(c[1] * 16))), int(round(r * 16)), 1.0, -1, cv2.LINE_AA, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.6, 0.4 * r))[..., None] * rng.uniform(0.3, 0.7)
    return np.clip(cam.astype(np.float32) * (1 - mask) + face.astype(np.float32) * mask, 0, 255).astype(np.uint8)


def make_crop(patch: np.ndarray, native_side: float, rng: np.random.Generator, glint: float = 0.0,
              fade: float = 0.0) -> np.ndarray:
    """One canonical patch (train_dice_cls: the die UNIT px across in PATCH px) as the reader would cut it
    from a photo, augmented; with ``glint``/``fade``, that share of them with a highlight / a faded spot on
    the face."""
    target = float(np.clip(native_side * math.exp(rng.uniform(-0.35, 0.2)), 14, 64))  # camera px of the die
    est = UNIT * math.exp(rng.uniform(-0.2, 0.2))  # the detector's size is not exact
    cx = PATCH / 2 + rng.normal(0, 0.06) * UNIT
    cy = PATCH / 2 + rng.normal(0, 0.06) * UNIT
    n = max(8, int(math.ceil(CLS_CONTEXT * target)) + 2)
    k = target / est
    src = cv2.GaussianBlur(patch, (0, 0), 0.45 / k) if k < 0.8 else patch
    M = cv2.getRotationMatrix2D((float(cx), float(cy)), rng.uniform(0, 360), k)
    M[:, 2] += (n / 2 - cx, n / 2 - cy)
    if rng.random() < 0.5:  # pip patterns are mirror-symmetric up to a turn
        M = np.array([[-1, 0, n], [0, 1, 0]], np.float64) @ np.vstack([M, [0, 0, 1]])
    cam = cv2.warpAffine(src, M, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cam = augment_colour(cam, rng)
    if glint and rng.random() < glint:
        cam = add_glint(cam, target, rng)
    if fade and rng.random() < fade:
        cam = add_fade(cam, target, rng)
    return cv2.resize(cam, (VAL_SIZE, VAL_SIZE), interpolation=cv2.INTER_AREA if n > VAL_SIZE else cv2.INTER_LINEAR)


def build_reader(widths=(32, 64, 128), hidden=128):
    from torch import nn

    def cbr(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, 1, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    a, b, c = widths
    cells = (VAL_SIZE // 8) ** 2
    return nn.Sequential(
        cbr(3, a), cbr(a, a), nn.MaxPool2d(2),  # 24
        cbr(a, b), cbr(b, b), nn.MaxPool2d(2),  # 12
        cbr(b, c), cbr(c, c), nn.MaxPool2d(2),  # 6
        nn.Flatten(), nn.Linear(c * cells, hidden), nn.ReLU(inplace=True), nn.Dropout(0.3), nn.Linear(hidden, 6),
    )


def build_cache(train: list[str], drawn: int, rng: np.random.Generator, detector_path: str = "", workers: int = 0) -> dict:
    from tablecompanion.vision.dice_model import load_net

    detector = load_net(detector_path)
    parts = []
    for spec in train:
        got = [p for p in photo_patches(load_split(spec), detector, rng, workers) if 1 <= p[1] <= 6]
        print(f"{spec}: {len(got)} die patches", flush=True)
        parts += got
    got = [p for p in drawn_patches(drawn, rng) if 1 <= p[1] <= 6]
    print(f"drawn: {len(got)} die patches", flush=True)
    parts += got
    return {"patches": np.stack([p[0] for p in parts]), "labels": np.array([p[1] for p in parts], np.int64),
            "sides": np.array([p[2] for p in parts], np.float32), "kinds": np.array([p[3] for p in parts], np.int64)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs="+", required=True, help="DIR:split of labelled photo sets (train splits only)")
    ap.add_argument("--drawn", type=int, default=1500, help="drawn scenes (about half give a flat die)")
    ap.add_argument("--detector", default="", help="dice network proposing finds ('' = the shipped one; a network "
                    "trained on other splits for a cross-source run)")
    ap.add_argument("--cache", default="", help="npz of canonical patches: built when missing, reused when there")
    ap.add_argument("--minutes", type=float, default=15.0)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--glint", type=float, default=0.0, help="share of samples given a lamp's highlight (add_glint)")
    ap.add_argument("--fade", type=float, default=0.0, help="share of samples with part of the face washed out "
                    "(add_fade: a faint pip)")
    add_run_options(ap, "32,64,128", 128, "valft")  # the shipped reader: --widths 48,96,192 --hidden 192
    args = parse_run_args(ap, argv)
    rng = seeded(args)
    cache = cached(args.cache, lambda: build_cache(args.train, args.drawn, rng, args.detector, args.workers))
    if args.cache_only:
        return 0
    drawn = cache["kinds"] == 5
    p = np.where(drawn, DRAWN_SHARE / max(1, drawn.sum()), (1 - DRAWN_SHARE) / max(1, (~drawn).sum()))
    p /= p.sum()
    print(f"{len(p)} patches, per value {np.bincount(cache['labels'], minlength=7)[1:].tolist()}", flush=True)
    net = build_reader(args.widths, args.hidden)
    start_from(net, args)

    def next_batch(idx, rng):
        crops = np.stack([make_crop(cache["patches"][i], float(cache["sides"][i]), rng, args.glint, args.fade) for i in idx])
        return crops, cache["labels"][idx] - 1  # values 1..6 as classes 0..5

    out_path = Path(args.out)
    step, seconds = train(net, p, next_batch, rng, args, checkpoint=lambda n: export(n, out_path, VAL_SIZE))
    export(net, out_path, VAL_SIZE)
    save_state(net, out_path.with_suffix(".pt"))
    print(f"wrote {out_path} after {step} steps, {seconds:.0f}s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
