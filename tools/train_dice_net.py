"""Train the dice network (a tiny CenterNet-style detector) and export it to ONNX for cv2.dnn.

One fully-convolutional pass gives, on a grid of stride 4: a die-centre heatmap, six value logits, a
cocked logit and the die's side (log pixels). Trained only on the *train* splits of the shared photo
sets, plus simulator crops (tools/dice_sim_data.py: dice on a board, checkers, the doubling cube,
cocked dice) and drawn doubling cubes / checkers pasted in as hard negatives. Augmentation: any
rotation, flips, die size 14-64 px, colour (channel shuffle, inversion, grey, gain, gamma), blur,
noise, JPEG. Deterministic for a seed (single-threaded data, fixed torch seed), time-boxed.

    .venv/bin/python tools/dice_sim_data.py --frames 200 --out /tmp/dice_sim.npz --seed 0
    .venv/bin/python tools/train_dice_net.py --train ../shared/data/dice/byler:train \
        ../shared/data/dice/matteo:train --sim /tmp/dice_sim.npz --minutes 25 \
        --out tablecompanion/vision/models/dice_net.onnx

On a GPU, samples are made by forked processes (``--device cuda --workers 7 --batch 256 --lr 5e-3``; a run
then depends on the seed and the number of workers). The shipped detector is such a run: 7.5 min on one
H200, seed 1, 4193 steps (``MODE=net bash tools/train_dice_gpu.sh 7.5``, which packs the simulator crops
with ``pack_sim`` so that they can be carried to the GPU machine; docs/dice.md).

Torch and onnx are needed here only; the package runs the .onnx with OpenCV (cv2.dnn).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablecompanion.vision.dice_model import INPUT_MEAN, INPUT_SCALE  # noqa: E402
from tablecompanion.vision import dice_eval  # noqa: E402
from tablecompanion.vision.dice import DiceVisionError  # noqa: E402

CROP = 160
STRIDE = 4
MATTEO_SIDE_FROM_PIPS = 1.35  # matteo boxes surround the pips: the die side is ~1.35x the pip span


# ----------------------------------------------------------------------------------------- data
def seeded(args) -> np.random.Generator:
    """Every tool's start: torch seeded and on ``args.threads`` threads, OpenCV on one (its own threads
    fight torch's for two cores), and the numpy generator that draws the samples."""
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    return np.random.default_rng(args.seed)


LABEL_FIXES = Path(__file__).resolve().parent / "dice_label_fixes.csv"


def load_label_fixes(path: str | Path = LABEL_FIXES) -> dict[tuple[str, str], list[dict]]:
    """{(set folder name, file): [fix]}: the labels the photos contradict and the dice the labels leave out,
    each looked at in the photo (``dice_eval.load_label_fixes``; docs/dice.md, "What fails"); train splits
    only, so that a network never learns from a held-out photo. "" or "none": no fixes."""
    if not path or str(path) == "none":
        return {}
    try:
        return dice_eval.load_label_fixes(path)
    except DiceVisionError as exc:
        raise SystemExit(str(exc)) from None


def apply_label_fixes(dice: np.ndarray, fixes: list[dict], where: str) -> np.ndarray:
    """``dice`` ([x, y, side, value, cocked] rows) with ``fixes`` applied. A fix that finds no label where
    it says, or a label of another value, is an error: the labels or the list changed, and the list is stale."""
    dice = dice.copy()
    for f in fixes:
        x, y, seen = float(f["x"]), float(f["y"]), int(f["seen"])
        if not f["labelled"]:
            dice = np.vstack([dice, np.array([[x, y, float(f["side"]), seen, 0.0]], np.float32)])
            continue
        try:
            i = dice_eval.label_fix_index(dice[:, :2].tolist(), 0.5 * dice[:, 2], dice[:, 3], f, where)
        except DiceVisionError as exc:
            raise SystemExit(str(exc)) from None
        dice[i, 3] = seen
    return dice


def load_split(spec: str, fixes: str | Path = LABEL_FIXES):
    """``DIR:split`` -> list of (image, dice array [x, y, side, value, cocked]), with the label fixes for
    that set applied (:func:`load_label_fixes`). ``DIR:train-fit`` leaves out the slice held back to choose
    on (``dice eval --split train-choose``; ``dice_eval.split_wanted``)."""
    root, _, split = spec.partition(":")
    root = Path(root)
    known = load_label_fixes(fixes)
    out = []
    with (root / "labels.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            if not dice_eval.split_wanted(dice_eval.split_of(row["notes"]), row["file"], split):
                continue
            img = cv2.imread(str(root / row["file"]), cv2.IMREAD_COLOR)
            if img is None:
                continue
            vals = [int(v) for v in row["die_values"].split()]
            boxes = [[float(c) for c in b.split(",")] for b in row["boxes"].split(";") if b.strip()]
            pips_boxed = "around pips" in row["notes"]
            sides = [max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes]
            if pips_boxed:
                est = [s * MATTEO_SIDE_FROM_PIPS for s, v in zip(sides, vals) if v >= 2]
                side = float(np.median(est)) if est else 60.0
                sides = [side] * len(vals)
            d = [((x1 + x2) / 2, (y1 + y2) / 2, s, v, 0.0) for (x1, y1, x2, y2), s, v in zip(boxes, sides, vals)]
            dice = np.array(d, np.float32).reshape(-1, 5)
            if (root.name, row["file"]) in known:
                dice = apply_label_fixes(dice, known[(root.name, row["file"])], f"{root.name}/{row['file']}")
            out.append((img, dice))
    return out


def load_sim(path: str):
    """Simulator crops and their dice, from ``dice_sim_data.py``'s npz (``crops``) or its JPEG-packed copy
    (``jpeg`` bytes and ``ends`` offsets; ``pack_sim``: a sixth of the bytes, small enough to carry to a GPU)."""
    z = np.load(path)
    lab = z["labels"]
    crops = z["crops"] if "crops" in z.files else jpeg_unpack(z)
    return [(crops[i], lab[lab[:, 0] == i][:, 1:6].copy()) for i in range(len(crops))]


def jpeg_pack(images, quality: int = 95) -> dict:
    """Images JPEG-encoded at ``quality`` as one byte string (``jpeg``) and where each ends (``ends``), for
    an npz small enough to carry to a GPU machine (training JPEG-compresses samples anyway)."""
    enc = [cv2.imencode(".jpg", c, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].ravel() for c in images]
    return {"jpeg": np.concatenate(enc), "ends": np.cumsum([len(e) for e in enc])}


def jpeg_unpack(z) -> list[np.ndarray]:
    """``jpeg_pack``'s images (``z`` an npz or a dict with its keys) decoded."""
    buf, ends = z["jpeg"], z["ends"]
    return [cv2.imdecode(buf[a:b], cv2.IMREAD_COLOR) for a, b in zip(np.r_[0, ends[:-1]], ends)]


def pack_sim(src: str, dst: str, quality: int = 95) -> None:
    """``src``'s crops JPEG-packed (``jpeg_pack``) into ``dst``, labels as they are."""
    z = np.load(src)
    np.savez(dst, **jpeg_pack(z["crops"], quality), labels=z["labels"])


def _paste_rotated(dst: np.ndarray, patch: np.ndarray, mask: np.ndarray, x: float, y: float, angle: float) -> None:
    ph, pw = patch.shape[:2]
    M = cv2.getRotationMatrix2D((pw / 2, ph / 2), angle, 1.0)
    M[:, 2] += (x - pw / 2, y - ph / 2)
    h, w = dst.shape[:2]
    p = cv2.warpAffine(patch, M, (w, h), flags=cv2.INTER_LINEAR)
    m = cv2.warpAffine(mask, M, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255.0
    dst[:] = (dst * (1 - m) + p * m).astype(np.uint8)


def paste_negative(img: np.ndarray, rng: np.random.Generator, side: float) -> None:
    """A doubling cube (printed number) or a checker, drawn and rotated: things that are not dice."""
    h, w = img.shape[:2]
    x, y = rng.uniform(0, w), rng.uniform(0, h)
    if rng.random() < 0.6:
        s = side * rng.uniform(1.0, 1.5)
        n = int(2 * s) + 4
        patch = np.zeros((n, n, 3), np.uint8)
        mask = np.zeros((n, n), np.uint8)
        face = tuple(int(c) for c in rng.integers(150, 256, 3)) if rng.random() < 0.7 else tuple(int(c) for c in rng.integers(0, 256, 3))
        ink = tuple(int(c) for c in rng.integers(0, 90, 3)) if sum(face) > 380 else (235, 235, 235)
        a, b = int(n / 2 - s / 2), int(n / 2 + s / 2)
        cv2.rectangle(patch, (a, a), (b, b), face, -1, cv2.LINE_AA)
        cv2.rectangle(mask, (a, a), (b, b), 255, -1, cv2.LINE_AA)
        text = ["2", "4", "8", "16", "32", "64"][int(rng.integers(6))]
        sc = s / 40.0 * rng.uniform(0.8, 1.2)
        th = max(1, int(sc * 2))
        (tw, tht), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, sc, th)
        font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX][int(rng.integers(3))]
        cv2.putText(patch, text, (int(n / 2 - tw / 2), int(n / 2 + tht / 2)), font, sc, ink, th, cv2.LINE_AA)
        _paste_rotated(img, patch, mask, x, y, rng.uniform(0, 360))
    else:
        r = side * rng.uniform(0.6, 1.0)
        col = tuple(int(c) for c in rng.integers(0, 256, 3))
        cv2.circle(img, (int(x), int(y)), int(r), col, -1, cv2.LINE_AA)
        ring = tuple(int(np.clip(c + rng.integers(-80, 80), 0, 255)) for c in col)
        cv2.circle(img, (int(x), int(y)), int(r * rng.uniform(0.5, 0.8)), ring, max(1, int(r * 0.06)), cv2.LINE_AA)
        if rng.random() < 0.5:  # a highlight: a small bright spot, like a pip
            cv2.circle(img, (int(x + r * 0.3), int(y - r * 0.3)), max(1, int(r * 0.12)), (250, 250, 250), -1, cv2.LINE_AA)


def augment_colour(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.5:
        img = img[..., rng.permutation(3)]
    if rng.random() < 0.12:
        img = 255 - img
    if rng.random() < 0.1:
        g = cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_BGR2GRAY)
        img = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR)
    f = img.astype(np.float32) / 255.0
    f = f ** rng.uniform(0.7, 1.4)
    f = f * rng.uniform(0.6, 1.3) * rng.uniform(0.85, 1.15, 3) + rng.uniform(-0.12, 0.12)
    if rng.random() < 0.3:
        k = rng.uniform(0.3, 1.3)
        f = cv2.GaussianBlur(f, (0, 0), k)
    if rng.random() < 0.4:
        f = f + rng.normal(0, rng.uniform(0.005, 0.04), f.shape).astype(np.float32)
    out = np.clip(f * 255.0, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 92))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return np.ascontiguousarray(out)


def make_sample(item, rng: np.random.Generator, crop: int = CROP):
    """A randomly scaled, rotated, flipped, recoloured crop and its dice (x, y, side, value, cocked)."""
    img, dice = item
    h, w = img.shape[:2]
    ref = float(np.median(dice[:, 2])) if len(dice) else 30.0
    target = math.exp(rng.uniform(math.log(14), math.log(64)))
    s = target / ref
    ang = rng.uniform(0, 360)
    if len(dice) and rng.random() < 0.85:
        k = int(rng.integers(len(dice)))
        cx, cy = dice[k, 0] + rng.uniform(-0.4, 0.4) * crop / s, dice[k, 1] + rng.uniform(-0.4, 0.4) * crop / s
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    M = cv2.getRotationMatrix2D((float(cx), float(cy)), ang, s)
    M[:, 2] += (crop / 2 - cx, crop / 2 - cy)
    if rng.random() < 0.5:  # mirror: die faces are mirror-symmetric up to a rotation
        M = np.array([[-1, 0, crop], [0, 1, 0]], np.float64) @ np.vstack([M, [0, 0, 1]])
    border = tuple(int(c) for c in rng.integers(0, 256, 3))
    out = cv2.warpAffine(img, M, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    d = dice.copy()
    if len(d):
        xy = np.c_[d[:, :2], np.ones(len(d))] @ M.T
        d[:, 0], d[:, 1] = xy[:, 0], xy[:, 1]
        d[:, 2] *= s
    if rng.random() < 0.35:
        for _ in range(int(rng.integers(1, 3))):
            paste_negative(out, rng, target)
        # a pasted object may cover a die: drop those under a pasted cube is not tracked, so keep dice
    out = augment_colour(out, rng)
    return out, d


def targets(dice: np.ndarray, crop: int = CROP):
    g = crop // STRIDE
    hm = np.zeros((g, g), np.float32)
    val = np.full((g, g), -1, np.int64)
    cock = np.full((g, g), -1.0, np.float32)
    size = np.zeros((g, g), np.float32)
    ys, xs = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, side, v, c in dice:
        ox, oy = (x - STRIDE / 2 + 0.5) / STRIDE, (y - STRIDE / 2 + 0.5) / STRIDE
        if not (-1 <= ox <= g and -1 <= oy <= g):
            continue
        sig = max(0.6, side / STRIDE / 5.0)
        gauss = np.exp(-((xs - ox) ** 2 + (ys - oy) ** 2) / (2 * sig * sig))
        hm = np.maximum(hm, gauss)
        r = max(1.0, side / STRIDE / 4.0)
        near = ((xs - ox) ** 2 + (ys - oy) ** 2) <= r * r
        if c < 0.5:
            val[near] = int(v) - 1
        cock[near] = float(c)
        size[near] = math.log(max(side, 2.0))
    # the peak cell is exactly 1 (focal loss positives)
    for x, y, side, v, c in dice:
        ix, iy = int(round((x - STRIDE / 2 + 0.5) / STRIDE)), int(round((y - STRIDE / 2 + 0.5) / STRIDE))
        if 0 <= ix < g and 0 <= iy < g:
            hm[iy, ix] = 1.0
    return hm, val, cock, size


# ---------------------------------------------------------------------------------------- model
def build_model(widths=(12, 24, 48, 64)):
    """Stride-2 stem, then depthwise-separable blocks down to stride 16 and back up to stride 4 (FPN adds)."""
    import torch
    from torch import nn

    def cbr(i, o, s=1):
        return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    def sep(i, o, s=1):
        return nn.Sequential(
            nn.Conv2d(i, i, 3, s, 1, groups=i, bias=False), nn.BatchNorm2d(i), nn.ReLU(inplace=True),
            nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
        )

    w1, w2, w3, w4 = widths

    class DiceNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.s2 = cbr(3, w1, 2)
            self.s4 = nn.Sequential(sep(w1, w2, 2), sep(w2, w2))
            self.s8 = nn.Sequential(sep(w2, w3, 2), sep(w3, w3))
            self.s16 = nn.Sequential(sep(w3, w4, 2), sep(w4, w4), sep(w4, w4))
            self.lat16 = nn.Conv2d(w4, w3, 1)
            self.m8 = sep(w3, w3)
            self.lat8 = nn.Conv2d(w3, w2, 1)
            self.m4 = nn.Sequential(sep(w2, w2), sep(w2, w2))
            self.head = nn.Conv2d(w2, 9, 1)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")

        def forward(self, x):
            a = self.s4(self.s2(x))
            b = self.s8(a)
            c = self.s16(b)
            b = self.m8(b + self.up(self.lat16(c)))
            a = self.m4(a + self.up(self.lat8(b)))
            return self.head(a)

    net = DiceNet()
    with torch.no_grad():
        net.head.bias.zero_()
        net.head.bias[0] = -4.0  # heatmap prior: mostly background
    return net


def loss_fn(out, hm, val, cock, size):
    import torch
    import torch.nn.functional as F

    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = hm.eq(1).float()
    neg = 1 - pos
    npos = pos.sum().clamp(min=1)
    focal = -(pos * (1 - p) ** 2 * torch.log(p) + neg * (1 - hm) ** 4 * p ** 2 * torch.log(1 - p)).sum() / npos
    vmask = val >= 0
    lv = F.cross_entropy(out[:, 1:7].permute(0, 2, 3, 1)[vmask], val[vmask]) if vmask.any() else out.sum() * 0
    cmask = cock >= 0
    lc = F.binary_cross_entropy_with_logits(out[:, 7][cmask], cock[cmask]) if cmask.any() else out.sum() * 0
    ls = F.smooth_l1_loss(out[:, 8][cmask], size[cmask]) if cmask.any() else out.sum() * 0
    return focal, lv, lc, ls


def to_input(images: np.ndarray, device="cpu"):
    """A batch of BGR uint8 images (N, H, W, 3) as the network's input tensor, scaled as at run time. The
    bytes go to ``device`` first: a GPU then does the arithmetic, not the process feeding it."""
    import torch

    x = torch.from_numpy(np.ascontiguousarray(images)).to(device, non_blocking=True)
    return ((x.float() - INPUT_MEAN) * INPUT_SCALE).permute(0, 3, 1, 2).contiguous()


def export(net, path: Path) -> None:
    import torch

    net.eval()
    dummy = torch.zeros(1, 3, 192, 256, device=next(net.parameters()).device)
    torch.onnx.export(net, dummy, str(path), input_names=["image"], output_names=["maps"], opset_version=13,
                      dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "h4", 3: "w4"}}, dynamo=False)


def batches(sets, sim, args, rng: np.random.Generator):
    """Endless (images, (heatmaps, values, cocked, sizes)) of ``args.batch`` samples: a simulator crop with
    probability ``args.sim_weight``, else a photo of a set drawn evenly, then of that set evenly. Made here
    from ``rng`` without ``args.workers`` (as before: a run depends on the seed alone); with N workers, by N
    forked processes (``train_dice_cls.batches``: making samples, not the network, is what a GPU waits for)."""
    items = [it for s in sets for it in s] + list(sim)
    photo_share = 1 - (args.sim_weight if sim else 0.0)
    p = np.concatenate([np.full(len(s), photo_share / len(sets) / len(s)) for s in sets]
                       + ([np.full(len(sim), args.sim_weight / len(sim))] if sim else []))
    p /= p.sum()

    def one(rng):
        if sim and rng.random() < args.sim_weight:
            return sim[int(rng.integers(len(sim)))]
        s = sets[int(rng.integers(len(sets)))]
        return s[int(rng.integers(len(s)))]

    def made(item, rng):
        img, d = make_sample(item, rng)
        return img, targets(d)

    def stacked(samples):
        return np.stack([x for x, _ in samples]), tuple(np.stack(t) for t in zip(*(t for _, t in samples)))

    if not args.workers:  # the single-process run draws as it always did
        while True:
            yield stacked([made(one(rng), rng) for _ in range(args.batch)])
    from train_dice_cls import batches as forked

    yield from forked(lambda idx, rng: stacked([made(items[i], rng) for i in idx]), p, rng, args)


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs="+", required=True, help="DIR:split of labelled photo sets")
    ap.add_argument("--sim", default="", help="npz from tools/dice_sim_data.py")
    ap.add_argument("--sim-weight", type=float, default=0.25, help="share of samples from the simulator")
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", help="torch device: cpu, cuda")
    ap.add_argument("--workers", type=int, default=0, help="processes making samples (0: this one, deterministic)")
    ap.add_argument("--widths", default="12,24,48,64", help="channels at strides 2, 4, 8, 16 (the shipped net's)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    rng = seeded(args)
    sets = [load_split(s) for s in args.train]
    for s, items in zip(args.train, sets):
        print(f"{s}: {len(items)} images, {sum(len(d) for _, d in items)} dice", flush=True)
    sim = load_sim(args.sim) if args.sim else []
    if sim:
        print(f"sim: {len(sim)} crops, {sum(len(d) for _, d in sim)} dice", flush=True)
    dev = torch.device(args.device)
    torch.backends.cudnn.benchmark = dev.type == "cuda"  # one input shape throughout: let cuDNN pick kernels
    net = build_model(tuple(int(w) for w in args.widths.split(","))).to(dev)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    data = batches(sets, sim, args, rng)
    budget = args.minutes * 60
    t0 = saved = time.time()
    step, hist = 0, []
    while True:
        el = time.time() - t0
        if el > budget:
            break
        frac = el / budget
        lr = args.lr * (min(1.0, (step + 1) / 100)) * (0.5 * (1 + math.cos(math.pi * frac)) * 0.97 + 0.03)
        for g in opt.param_groups:
            g["lr"] = lr
        xs, tg = next(data)
        x = to_input(xs, dev)
        hm, val, cock, size = (torch.from_numpy(t).to(dev, non_blocking=True) for t in tg)
        net.train()
        out = net(x)
        focal, lv, lc, ls = loss_fn(out, hm, val, cock, size)
        loss = focal + lv + 0.5 * lc + 0.5 * ls
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append(torch.stack([focal.detach(), lv.detach(), lc.detach(), ls.detach()]))  # no GPU sync per step
        step += 1
        if step % 50 == 0:
            m = torch.stack(hist).mean(0).tolist()
            hist = []
            print(f"step {step} {el:.0f}s lr {lr:.2e} focal {m[0]:.3f} value {m[1]:.3f} cocked {m[2]:.3f} size {m[3]:.3f} "
                  f"{step * args.batch / max(el, 1e-3):.0f} samples/s", flush=True)
        if step % 500 == 0 and time.time() - saved > 60:  # a checkpoint a minute at most: GPU steps are fast
            export(net, Path(args.out))
            saved = time.time()
    data.close()
    export(net, Path(args.out))
    print(f"wrote {args.out} after {step} steps, {time.time() - t0:.0f}s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
