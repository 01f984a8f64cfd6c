"""Train the dice crop classifier (no die / 1..6 / cocked) and export it to ONNX for cv2.dnn.

The detector (``models/dice_net.onnx``, tools/train_dice_net.py) proposes die centres and sizes; this
network looks at each proposal as the reader cuts it at run time (``dice_model.crop_for_classifier``:
CLS_CONTEXT x the proposed side, axis-aligned, resized to CLS_SIZE) and says what it is.

Training is cheap because it never warps whole photos: ``--cache`` first cuts one canonical patch per
example (PATCH px square, the die's side = UNIT px, so the patch holds 3 die sides of context) from

- the labelled dice of the *train* splits only (value classes);
- the detector's own finds on those images: finds on a labelled die keep its value, with the detector's
  real centre and size errors; finds away from every die are hard negatives (what the classifier has to
  reject at run time: pip-like spots, side faces, grain, a laptop's keys);
- crops beside a die (its side face, a few of its pips, its edge): negatives;
- simulator renders (``tools/dice_sim_data.py``): dice on a full board, cocked, leaning, on a checker
  (class 7), and board windows as negatives (checkers, the cube, triangles);
- drawn dice (``vision.dice_synth``): flat dice in many colours, strongly tilted ones (class 7), doubling
  cubes and checkers (negatives);
- with ``--boards N``: the detector's finds on N empty simulated boards (negatives: stacks of checkers,
  the cube, the rails), which no photo shows.

Each training sample is then one patch turned by any angle, mirrored, its centre and size jittered as a
detector's are, scaled to a die of 14-64 camera pixels (blurred when that is smaller than the source),
recoloured, noised and JPEG-compressed, and cut as the reader cuts it. Deterministic for a seed, time-boxed.

    .venv/bin/python tools/train_dice_cls.py --train ../shared/data/dice/byler:train \\
        ../shared/data/dice/matteo:train --sim /tmp/dice_sim.npz --cache /tmp/dice_cls_cache.npz \\
        --boards 240 --minutes 40 --out tablecompanion/vision/models/dice_cls.onnx

Fine-tuning the shipped one (forty-first session; the cache had been built without boards, then the board
finds added): ``--init tablecompanion/vision/models/dice_cls.onnx --minutes 20 --lr 1e-3 --oversize 0.12
--seed 3``. Then on a GPU machine, eight such runs side by side (``MODE=clsft bash tools/train_dice_gpu.sh``,
forty-second session; the one shipped: ``--lr 3e-4 --minutes 6 --seed 13``, 12819 steps with three crop workers).
"""

from __future__ import annotations

import argparse
import copy
import itertools
import math
import multiprocessing as mp
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train_dice_net import augment_colour, jpeg_pack, jpeg_unpack, load_sim, load_split, seeded, to_input  # noqa: E402

from tablecompanion.vision.dice_model import CLS_CONTEXT, CLS_SIZE  # noqa: E402

CLASSES = 8  # 0 no die, 1..6 value, 7 cocked
UNIT = 32  # a die's side in a canonical patch, px
PATCH = 3 * UNIT  # canonical patch side, px
KIND_NAMES = ["labelled", "detector-on-die", "hard-negative", "beside-die", "sim", "drawn", "board-find"]


# ------------------------------------------------------------------------------------------ patches
def canonical_patch(img: np.ndarray, x: float, y: float, side: float) -> np.ndarray:
    """PATCH x PATCH px around (x, y), scaled so that ``side`` source px become UNIT px."""
    k = UNIT / max(side, 2.0)
    src = img
    if k < 0.8:  # shrinking: blur first so pips do not alias
        r = int(2 * PATCH / k)
        x0, y0 = max(0, int(x) - r), max(0, int(y) - r)
        src = cv2.GaussianBlur(img[y0:int(y) + r, x0:int(x) + r], (0, 0), 0.45 / k)
        x, y = x - x0, y - y0
    M = np.array([[k, 0, PATCH / 2 - k * x], [0, k, PATCH / 2 - k * y]], np.float64)
    return cv2.warpAffine(src, M, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _near(dice: np.ndarray, x: float, y: float) -> tuple[int, float]:
    """Index of the labelled die nearest (x, y) and that distance in its sides (-1, inf when none)."""
    if not len(dice):
        return -1, math.inf
    d = np.hypot(dice[:, 0] - x, dice[:, 1] - y) / dice[:, 2]
    i = int(np.argmin(d))
    return i, float(d[i])


def _photo(img: np.ndarray, dice: np.ndarray, detector, rng: np.random.Generator) -> list:
    """One labelled photo's patches (``photo_patches``)."""
    out = []
    for x, y, side, v, c in dice:
        out.append((canonical_patch(img, x, y, side), 7 if c > 0.5 else int(v), side, 0))
        for _ in range(2):  # beside the die, smaller than it: no die
            a = rng.uniform(0, 2 * math.pi)
            off = rng.uniform(0.5, 1.0) * side
            bx, by = x + off * math.cos(a), y + off * math.sin(a)
            if _near(dice, bx, by)[1] < 0.7:
                continue  # that is another die
            est = side * rng.uniform(0.3, 0.9)
            out.append((canonical_patch(img, bx, by, est), 0, est, 3))
    if detector is None:
        return out
    for x, y, side in detector_finds(img, detector, 0.05):
        i, dist = _near(dice, x, y)
        if dist < 0.3 and abs(math.log(side / dice[i, 2])) < 0.5:
            c, v = dice[i, 4], dice[i, 3]
            out.append((canonical_patch(img, x, y, side), 7 if c > 0.5 else int(v), side, 1))
        elif dist > 0.7:
            out.append((canonical_patch(img, x, y, side), 0, side, 2))
    return out


def detector_finds(img: np.ndarray, detector, min_heat: float) -> list[tuple[float, float, float]]:
    """(x, y, side) in ``img``'s pixels of the detector's finds at the reader's scales, as the reader looks
    (``DiceConfig.net_scales``; small finds of a coarser pass dropped: ``net_small_side``)."""
    from tablecompanion.vision.dice import DEFAULT_CONFIG

    h, w = img.shape[:2]
    out = []
    for k in DEFAULT_CONFIG.net_scales:
        im = img if k == 1.0 else cv2.resize(img, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
        out += [(d.x / k, d.y / k, d.side / k) for d in detector.detect(im, min_heat)
                if k == 1.0 or d.side >= DEFAULT_CONFIG.net_small_side]
    return out


_JOB = None  # (items, detector) for the forked photo workers: inherited, never pickled


def _photo_job(i: int, seed: int) -> list:
    items, detector = _JOB
    return _photo(*items[i], detector, np.random.default_rng(seed))


def photo_patches(items, detector, rng: np.random.Generator, workers: int = 0):
    """Canonical patches from labelled photos: (patch, class, native die side px, kind). With ``workers``
    the photos are cut by that many forked processes (the detector's passes are most of the minute), each
    photo with its own generator seeded from ``rng``: deterministic, but not the serial build's patches."""
    global _JOB
    if not workers:
        return [p for img, dice in items for p in _photo(img, dice, detector, rng)]
    seeds = rng.integers(1 << 62, size=len(items)).tolist()
    _JOB = (items, detector)
    with mp.get_context("fork").Pool(workers, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
        parts = pool.starmap(_photo_job, enumerate(seeds), chunksize=4)
    _JOB = None
    return [p for part in parts for p in part]


def sim_patches(sim_items, rng: np.random.Generator):
    """Simulator windows: every die (cocked ones as class 7) and random board places as negatives."""
    out = []
    for img, dice in sim_items:
        h, w = img.shape[:2]
        for x, y, side, v, c in dice:
            if 0 <= x < w and 0 <= y < h:
                out.append((canonical_patch(img, x, y, side), 7 if c > 0.5 else int(v), side, 4))
        side = float(np.median(dice[:, 2])) if len(dice) else 18.0
        for _ in range(3):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            if _near(dice, x, y)[1] > 0.8:
                out.append((canonical_patch(img, x, y, side * rng.uniform(0.7, 1.3)), 0, side, 4))
    return out


def sim_source(path: str, rng: np.random.Generator):
    """``--sim``: simulator frames (tools/dice_sim_data.py) cut here, or patches already cut from them (an
    npz with a cache's keys, e.g. a cache's kind-4 rows: a tenth of the frames' bytes, for carrying; or
    ``pack_patches``' JPEG-packed rows, a quarter of that again). Packed rows keep their kinds, so a
    cache's board finds (kind 6) can travel this way too."""
    z = np.load(path)
    if "jpeg" in z.files:
        return list(zip(jpeg_unpack(z), z["labels"].tolist(), z["sides"].tolist(), z["kinds"].tolist()))
    if "patches" not in z.files:
        return sim_patches(load_sim(path), rng)
    return list(zip(z["patches"], z["labels"].tolist(), z["sides"].tolist(), z["kinds"].tolist()))


def pack_patches(path: str, cache: dict, rows: np.ndarray, quality: int = 95) -> None:
    """A cache's ``rows`` JPEG-packed (``jpeg_pack``) with their labels, sides and kinds: 3 KB a patch
    against 28 KB, so that the simulator's patches and the board finds fit beside the photos in what a GPU
    machine is sent (``sim_source`` reads them back)."""
    np.savez(path, **jpeg_pack((cache["patches"][i] for i in rows), quality),
             labels=cache["labels"][rows], sides=cache["sides"][rows], kinds=cache["kinds"][rows])


def board_patches(n: int, seed: int, detector, min_heat: float = 0.2) -> list:
    """The detector's finds on ``n`` simulated boards with no dice (``dice_boards``' renders, drawn from
    ``seed``): stacks of checkers, the cube, the rails, the points' tips. Every one is "no die". The photo
    sets show no board, and a random board window (``sim_patches``) is rarely where the detector looks;
    these are the places it does, so the classifier learns to turn down the finds it will be shown.
    Choose ``seed`` away from the seeds ``tablecompanion dice boards`` is measured on."""
    from tablecompanion.vision.dice_boards import empty_boards

    out = []
    for _, img in empty_boards(n, seed):
        out += [(canonical_patch(img, x, y, side), 0, side, 6) for x, y, side in detector_finds(img, detector, min_heat)]
    return out


def drawn_patches(n: int, rng: np.random.Generator):
    """Drawn dice (flat and strongly tilted), doubling cubes and checkers on plain cloth."""
    from tablecompanion.vision.dice_synth import DieSpec, draw_checker, draw_cube, draw_die

    out = []
    for _ in range(n):
        bg = tuple(int(c) for c in rng.integers(20, 230, 3))
        img = np.zeros((200, 200, 3), np.uint8)
        img[:] = bg
        img = np.clip(img.astype(np.int16) + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
        side = float(rng.uniform(36, 56))
        r = rng.random()
        if r < 0.5:
            face = tuple(int(c) for c in rng.integers(0, 256, 3))
            pip = (20, 20, 20) if sum(face) > 400 else (240, 240, 240)
            tilt = float(rng.uniform(25, 60)) if r < 0.25 else 0.0
            v = int(rng.integers(1, 7))
            draw_die(img, DieSpec(v, 100, 100, side, float(rng.uniform(0, 90)), tilt=tilt, face=face, pip=pip))
            out.append((canonical_patch(img, 100, 100, side), 7 if tilt else v, side, 5))
        elif r < 0.75:
            draw_cube(img, 100, 100, side * rng.uniform(1.0, 1.3), ["2", "4", "8", "16", "32", "64"][int(rng.integers(6))])
            out.append((canonical_patch(img, 100, 100, side), 0, side, 5))
        else:
            col = tuple(int(c) for c in rng.integers(0, 256, 3))
            ring = tuple(int(c) for c in rng.integers(0, 256, 3))
            draw_checker(img, 100, 100, side * rng.uniform(0.6, 1.0), col, ring)
            out.append((canonical_patch(img, 100, 100, side), 0, side, 5))
    return out


def cached(path: str, build) -> dict:
    """The canonical patches from ``path`` when it is there, else ``build()``'s, saved there when a path is
    given: cutting them means reading every photo and running the detector, minutes the training need not
    repeat."""
    if path and Path(path).is_file():
        cache = dict(np.load(path))
        print(f"cache {path}: {len(cache['labels'])} patches", flush=True)
        return cache
    cache = build()
    if path:
        np.savez(path, **cache)
    return cache


def build_cache(args, rng: np.random.Generator) -> dict:
    from tablecompanion.vision.dice_model import load_net

    detector = load_net(args.detector)
    parts = []
    for spec in args.train:
        items = load_split(spec)
        got = photo_patches(items, detector, rng, args.workers)
        print(f"{spec}: {len(items)} images -> {len(got)} patches", flush=True)
        parts += got
    if args.sim:
        got = sim_source(args.sim, rng)
        print(f"sim: {len(got)} patches", flush=True)
        parts += got
    got = drawn_patches(args.drawn, rng)
    print(f"drawn: {len(got)} patches", flush=True)
    parts += got
    if args.boards:
        got = board_patches(args.boards, args.boards_seed, detector)
        print(f"boards: {len(got)} finds on {args.boards} empty boards", flush=True)
        parts += got
    cache = {
        "patches": np.stack([p[0] for p in parts]),
        "labels": np.array([p[1] for p in parts], np.int64),
        "sides": np.array([p[2] for p in parts], np.float32),
        "kinds": np.array([p[3] for p in parts], np.int64),
    }
    counts = np.bincount(cache["labels"], minlength=CLASSES)
    print("class counts", counts.tolist(), "kinds", np.bincount(cache["kinds"], minlength=len(KIND_NAMES)).tolist(), flush=True)
    return cache


# --------------------------------------------------------------------------------------- samples
def make_crop(patch: np.ndarray, native_side: float, rng: np.random.Generator, oversize: bool = False) -> np.ndarray:
    """One canonical patch as the reader would cut it from a camera frame, augmented. ``oversize``: cut
    as if the detector had guessed the die 2.8-6 times too big (a coarse pass does), so the die is a
    speck in the crop: that crop must say "no die" (the reader then keeps a find of the right size)."""
    target = math.exp(rng.uniform(math.log(14), math.log(min(64.0, max(16.0, 1.6 * native_side)))))
    est = UNIT * math.exp(rng.uniform(-0.22, 0.22))  # the detector's size is not exact
    if oversize:  # the crop believes the die f times its size (context beyond the patch: edges replicated)
        est = UNIT * rng.uniform(2.8, 5.0)
    cx = PATCH / 2 + rng.normal(0, 0.07) * UNIT
    cy = PATCH / 2 + rng.normal(0, 0.07) * UNIT
    n = max(8, int(math.ceil(CLS_CONTEXT * target)) + 2)  # camera pixels of the crop
    k = target / est  # patch px -> camera px
    src = patch
    if k < 0.8:
        src = cv2.GaussianBlur(patch, (0, 0), 0.45 / k)
    M = cv2.getRotationMatrix2D((float(cx), float(cy)), rng.uniform(0, 360), k)
    M[:, 2] += (n / 2 - cx, n / 2 - cy)
    if rng.random() < 0.5:  # pip patterns are mirror-symmetric up to a turn
        M = np.array([[-1, 0, n], [0, 1, 0]], np.float64) @ np.vstack([M, [0, 0, 1]])
    cam = cv2.warpAffine(src, M, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cam = augment_colour(cam, rng)
    return cv2.resize(cam, (CLS_SIZE, CLS_SIZE), interpolation=cv2.INTER_AREA if n > CLS_SIZE else cv2.INTER_LINEAR)


def batch(cache: dict, idx: np.ndarray, rng: np.random.Generator, oversize: float = 0.0):
    over = rng.random(len(idx)) < oversize
    xs = [make_crop(cache["patches"][i], float(cache["sides"][i]), rng, bool(o)) for i, o in zip(idx, over)]
    return np.stack(xs), np.where(over, 0, cache["labels"][idx])


# ----------------------------------------------------------------------------------------- model
def build_classifier(widths=(24, 48, 96), hidden=96):
    from torch import nn

    def cbr(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, 1, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    a, b, c = widths
    return nn.Sequential(
        cbr(3, a), cbr(a, a), nn.MaxPool2d(2),  # 16
        cbr(a, b), cbr(b, b), nn.MaxPool2d(2),  # 8
        cbr(b, c), cbr(c, c), nn.MaxPool2d(2),  # 4
        nn.Flatten(), nn.Linear(c * 16, hidden), nn.ReLU(inplace=True), nn.Dropout(0.2), nn.Linear(hidden, CLASSES),
    )


def export(net, path: Path, size: int = CLS_SIZE) -> None:
    """Exports a CPU copy: the net may be training on a GPU, and the dummy input is a CPU tensor."""
    import torch

    net = copy.deepcopy(net).cpu().eval()
    torch.onnx.export(net, torch.zeros(1, 3, size, size), str(path), input_names=["crops"],
                      output_names=["logits"], opset_version=13, dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      dynamo=False)


def _produce(q, next_batch, p: np.ndarray, size: int, seed: int, w: int) -> None:
    """A forked batch worker (the cache is the parent's, shared copy-on-write): its own generator from
    (seed, w) and one OpenCV thread; it makes the batches of steps w, w + N, w + 2N, ... in order."""
    cv2.setNumThreads(1)
    rng = np.random.default_rng([seed, w])
    while True:
        q.put(next_batch(rng.choice(len(p), size=size, p=p), rng))


def batches(next_batch, p: np.ndarray, rng: np.random.Generator, args):
    """Endless (crops, labels) of ``args.batch`` examples drawn by the weights ``p``. Without
    ``args.workers``, made here from ``rng`` (the single-process run, as before); with N workers, by N
    forked processes (cutting crops is the bottleneck, not the network), read round-robin from a
    bounded queue each, so a run depends only on (seed, workers)."""
    if not args.workers:
        while True:
            yield next_batch(rng.choice(len(p), size=args.batch, p=p), rng)
    ctx = mp.get_context("fork")
    qs = [ctx.Queue(4) for _ in range(args.workers)]
    procs = [ctx.Process(target=_produce, args=(q, next_batch, p, args.batch, args.seed, w), daemon=True)
             for w, q in enumerate(qs)]
    for pr in procs:
        pr.start()
    try:
        for step in itertools.count():
            yield qs[step % len(qs)].get(timeout=120)  # a dead worker ends the run, not hangs it
    finally:
        for pr in procs:
            pr.terminate()


def train(net, p: np.ndarray, next_batch, rng: np.random.Generator, args, checkpoint=None) -> tuple[int, float]:
    """The time-boxed loop the crop networks train with (this classifier, tools/train_dice_val.py): AdamW,
    ``args.lr`` warmed up over 100 steps and cosine-decayed to 2 % over ``args.minutes``, cross-entropy
    with 0.02 label smoothing, on ``args.device``. Each step draws ``args.batch`` examples by the weights
    ``p`` and ``next_batch(idx, rng)`` gives their crops (uint8, N x H x W x 3) and labels (``batches``:
    here or in ``args.workers`` processes); ``checkpoint(net)`` runs every 500 steps (at most once a
    minute) when given. Returns (steps, seconds)."""
    import torch
    import torch.nn.functional as F

    dev = torch.device(args.device)
    torch.backends.cudnn.benchmark = dev.type == "cuda"  # one input shape throughout: let cuDNN pick kernels
    net.to(dev)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    data = batches(next_batch, p, rng, args)
    budget = args.minutes * 60
    t0 = saved = time.time()
    step, hist = 0, []
    while time.time() - t0 < budget:
        frac = (time.time() - t0) / budget
        lr = args.lr * min(1.0, (step + 1) / 100) * (0.5 * (1 + math.cos(math.pi * frac)) * 0.98 + 0.02)
        for g in opt.param_groups:
            g["lr"] = lr
        xs, ys = next(data)
        x = to_input(xs, dev)
        y = torch.from_numpy(ys).to(dev, non_blocking=True)
        net.train()
        if getattr(args, "freeze_bn", False):  # folded norms (load_folded_onnx): keep their statistics
            for m in net.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.eval()
        out = net(x)
        loss = F.cross_entropy(out, y, label_smoothing=0.02)
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append(torch.stack([loss.detach(), (out.argmax(1) == y).float().mean()]))  # no GPU sync per step
        step += 1
        if step % 100 == 0:
            m = torch.stack(hist).mean(0).tolist()
            hist = []
            print(f"step {step} {time.time() - t0:.0f}s lr {lr:.2e} loss {m[0]:.3f} acc {m[1]:.3f} "
                  f"{step * args.batch / (time.time() - t0):.0f} samples/s", flush=True)
        if checkpoint is not None and step % 500 == 0 and time.time() - saved > 60:  # GPU steps are fast
            checkpoint(net)
            saved = time.time()
    data.close()
    return step, time.time() - t0


def add_run_options(ap: argparse.ArgumentParser, widths: str, hidden: int, mode: str) -> None:
    """Options both crop networks share: where they train, who cuts the crops, how wide they are (the
    reader loads an ONNX by its input size and class count only, so any width ships), what they start from
    and where they go (``mode``: the tools/train_dice_gpu.sh mode whose runs share one cache). Parse with
    :func:`parse_run_args`."""
    ap.add_argument("--init", default="",
                    help="state dict (.pt) to start from, or a shipped .onnx (its batch norms folded: trained frozen; "
                         "--widths/--hidden as it was made)")
    ap.add_argument("--freeze-bn", action="store_true",
                    help="keep the batch norms' statistics (implied by an .onnx --init; "
                         "give it with a .pt saved by such a run)")
    ap.add_argument("--out", help="the .onnx to write (its .pt state dict beside it)")
    ap.add_argument("--cache-only", action="store_true",
                    help=f"build --cache and stop: several runs (tools/train_dice_gpu.sh MODE={mode}) share one")
    ap.add_argument("--device", default="cpu", help="torch device: cpu, cuda")
    ap.add_argument("--workers", type=int, default=0, help="processes cutting crops (0: this one)")
    ap.add_argument("--widths", type=lambda s: tuple(int(w) for w in s.split(",")), default=widths,
                    help=f"channels of the three conv stages (default {widths})")
    ap.add_argument("--hidden", type=int, default=hidden, help="units of the hidden dense layer")


def parse_run_args(ap: argparse.ArgumentParser, argv: list[str] | None):
    """``ap``'s arguments, with --out and --cache-only checked against each other and --cache."""
    args = ap.parse_args(argv)
    if args.cache_only and not args.cache:
        ap.error("--cache-only needs --cache")
    if not args.cache_only and not args.out:
        ap.error("--out is required (or --cache-only with --cache)")
    return args


def start_from(net, args) -> None:
    """``net`` set to ``args.init``: a shipped ONNX (folded norms, then kept fixed) or a state dict."""
    import torch

    if args.init.endswith(".onnx"):
        load_folded_onnx(net, args.init)
        args.freeze_bn = True
    elif args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))


def save_state(net, path: Path) -> None:
    """The state dict beside the ONNX, on the CPU (``--init`` loads it anywhere)."""
    import torch

    torch.save({k: v.cpu() for k, v in net.state_dict().items()}, str(path))


def sampling_weights(cache: dict, board_share: float = 0.0) -> np.ndarray:
    """Classes drawn about equally often (no die about 40 %), cocked at 8 %; with ``board_share``, that
    share of all samples comes from the board finds (kind 6), out of the no-die 40 %."""
    labels = cache["labels"]
    share = np.array([0.40] + [0.52 / 6] * 6 + [0.08])
    counts = np.bincount(labels, minlength=CLASSES).astype(np.float64)
    w = share[labels] / np.maximum(counts[labels], 1)
    board = cache["kinds"] == 6
    if board_share > 0 and board.any():
        rest = (labels == 0) & ~board
        w[board] = board_share / board.sum()
        w[rest] = (share[0] - board_share) / max(rest.sum(), 1)
    return w / w.sum()


def load_folded_onnx(net, path: str) -> None:
    """Start from a shipped classifier: the export folded each batch norm into its convolution, so the
    convolutions take the folded weights, the norms become identities (mean 0, variance 1 - eps) and
    training keeps them in eval mode (``freeze_bn``): batch statistics would undo the folding."""
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    graph = onnx.load(path).graph
    init = {t.name: np.array(numpy_helper.to_array(t)) for t in graph.initializer}  # writable copies
    convs = [n for n in graph.node if n.op_type == "Conv"]
    gemms = [n for n in graph.node if n.op_type == "Gemm"]
    mods_conv = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    mods_bn = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    mods_lin = [m for m in net.modules() if isinstance(m, nn.Linear)]
    if len(convs) != len(mods_conv) or len(gemms) != len(mods_lin):
        raise SystemExit(f"{path}: {len(convs)} convolutions and {len(gemms)} dense layers; the net has "
                         f"{len(mods_conv)} and {len(mods_lin)} (--widths/--hidden as the shipped one?)")
    with torch.no_grad():
        for node, conv, bn in zip(convs, mods_conv, mods_bn):
            w, b = init[node.input[1]], init[node.input[2]]
            conv.weight.copy_(torch.from_numpy(w))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        for node, lin in zip(gemms, mods_lin):
            lin.weight.copy_(torch.from_numpy(init[node.input[1]]))
            lin.bias.copy_(torch.from_numpy(init[node.input[2]]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs="+", required=True, help="DIR:split of labelled photo sets (train splits only)")
    ap.add_argument("--sim", default="", help="npz from tools/dice_sim_data.py")
    ap.add_argument("--drawn", type=int, default=3000, help="drawn dice, cubes and checkers")
    ap.add_argument("--detector", default="", help="dice network proposing finds ('' = the shipped one)")
    ap.add_argument("--cache", default="", help="npz of canonical patches: built when missing, reused when there")
    ap.add_argument("--minutes", type=float, default=40.0)
    ap.add_argument("--batch", type=int, default=192)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--oversize", type=float, default=0.1, help="share of samples cut far too big (label: no die)")
    ap.add_argument("--boards", type=int, default=0, help="empty simulated boards whose detector finds are negatives")
    ap.add_argument("--boards-seed", type=int, default=100, help="their seed (not one `dice boards` is measured on)")
    ap.add_argument("--board-share", type=float, default=0.0,
                    help="share of samples drawn from the board finds (0: as many as their count gives)")
    add_run_options(ap, "24,48,96", 96, "clsft")
    args = parse_run_args(ap, argv)
    rng = seeded(args)
    cache = cached(args.cache, lambda: build_cache(args, rng))
    if args.cache_only:
        print(f"cache {args.cache}: {len(cache['labels'])} patches", flush=True)
        return 0
    p = sampling_weights(cache, args.board_share)
    net = build_classifier(args.widths, args.hidden)
    start_from(net, args)
    step, seconds = train(net, p, lambda idx, r: batch(cache, idx, r, args.oversize), rng, args,
                          checkpoint=lambda n: export(n, Path(args.out)))
    export(net, Path(args.out))
    save_state(net, Path(args.out).with_suffix(".pt"))
    print(f"wrote {args.out} after {step} steps, {seconds:.0f}s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
