"""Train the roll reader's tilt net (is this die lying flat?) and export it to ONNX for cv2.dnn.

Input: ``RollReader.tilt_patch`` (frame, reference and a flat die's outline on the top-face plane, 7
channels uint8, the net scales them itself); output: one logit, tilted. Data: shards written by
``tools/roll_tilt_data.py`` from simulator renders (case-set seeds 1000 and up, none of the seeds
``tablecompanion roll eval`` reports on). The shards named by --valid are held out and scored at the end.
Augmentation keeps the physics: the patch and its outline turned and mirrored together (a mirrored
table), the colours permuted alike in frame and reference (other dice and boards), the frame's exposure
drifting a little against the reference.

    /path/to/torch/python tools/train_roll_tilt.py .dicegpu/tilt/l1_*.npz --valid .dicegpu/tilt/l2_s5.npz

The net vouches for dice the reader left "touching" a checker or the board's edge, so ``--touch-weight``
weighs the dice left touching anything (those, the bar's edge, the other die) more; it also calls a die every
other rule read flat tilted when it is sure (``tilt_net_cocked``), so ``--flat-weight`` weighs those dice.
The shipped net (2026-11-28, thirty-sixth session) was fine-tuned on one core from the one before it, on
9254 dice of case-set seeds 30000-30260 and 31000-31216 (``roll_tilt_data.py --per 10``) and 12357 of seeds
50000-50219, 52000-52108, 53000-53152 and 54000-54157 (``--per 10 --tilted-share 0.6 --kinds cocked``):
``--init <net before> --epochs 12 --lr 1e-3 --touch-weight 4 --flat-weight 4 --seed 7`` (23 min, torch 2.13 on
the CPU). The net before it: the same from its own predecessor without the 53000 and 54000 seeds, ``--seed 5``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def load(paths):
    """Patches, labels and notes of the shards; labels made again from the notes (the truth's state and
    tilt: roll_tilt_data.not_flat), so a shard written under an older rule is labelled by today's."""
    from roll_tilt_data import not_flat

    X, y, meta = [], [], []
    for p in paths:
        z = np.load(p, allow_pickle=True)
        if len(z["y"]):
            X.append(z["X"]); meta.append(z["meta"])
            y.append(np.array([not_flat(str(m[5]), float(m[6])) for m in z["meta"]], np.uint8))
    return np.concatenate(X), np.concatenate(y), np.concatenate(meta)


def _touching(meta) -> np.ndarray:
    return np.array([str(m[8]).startswith("touching ") for m in meta], bool)


def _read_flat(meta) -> np.ndarray:
    return np.array([str(m[7]) == "flat" for m in meta], bool)


def loss_weights(meta, touch_weight: float = 1.0, flat_weight: float = 1.0) -> np.ndarray:
    """Each die's weight in the loss, from the reader's verdict in its notes (``roll_tilt_data``: status at 7,
    reason at 8): the dice the net answers for weigh more, those left touching something (the net vouches for
    them) ``touch_weight``, those every other rule read flat (the net may call them cocked) ``flat_weight``."""
    w = np.where(_touching(meta), touch_weight, 1.0).astype(np.float32)
    w[_read_flat(meta)] = flat_weight
    return w


def build():
    import torch.nn as nn

    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    class Scale(nn.Module):
        def forward(self, x):
            return x * (1.0 / 255.0) - 0.5

    return nn.Sequential(Scale(), *block(7, 24), *block(24, 24), nn.MaxPool2d(2),  # 24
                         *block(24, 32), *block(32, 32), nn.MaxPool2d(2),  # 12
                         *block(32, 48), *block(48, 48), nn.MaxPool2d(2),  # 6
                         *block(48, 64), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 1))


def init_from_onnx(net, path: str) -> None:
    """Start from an exported net: its convolutions carry their batch norms folded in, so each norm here
    becomes the identity plus the folded bias (train with the norms frozen, ``BatchNorm2d.eval``)."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(path).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    gemm = next(n for n in graph.node if n.op_type == "Gemm")
    mods = [m for m in net if isinstance(m, (torch.nn.Conv2d, torch.nn.BatchNorm2d))]
    with torch.no_grad():
        for node, conv, bn in zip(convs, mods[0::2], mods[1::2]):
            conv.weight.copy_(torch.from_numpy(inits[node.input[1]]))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(inits[node.input[2]]))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        lin = net[-1]
        lin.weight.copy_(torch.from_numpy(inits[gemm.input[1]]))
        lin.bias.copy_(torch.from_numpy(inits[gemm.input[2]]))


def augment(xb, rng):
    """A batch (n, 7, H, W) float32: turned/mirrored, colours permuted, exposure drift."""
    k = int(rng.integers(4))
    xb = np.rot90(xb, k, axes=(2, 3))
    if rng.random() < 0.5:
        xb = xb[:, :, :, ::-1]
    perm = rng.permutation(3)
    xb = xb[:, list(perm) + list(3 + perm) + [6]]
    gain = rng.uniform(0.92, 1.08, size=(len(xb), 1, 1, 1)).astype(np.float32)
    xb = np.ascontiguousarray(xb)
    xb[:, :3] = np.clip(xb[:, :3] * gain, 0, 255)
    return xb


def main(argv=None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("shards", nargs="+")
    ap.add_argument("--valid", nargs="+", default=[])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="tablecompanion/vision/models/roll_tilt.onnx")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--init", help="an exported net (ONNX) to start from; its norms stay frozen")
    ap.add_argument("--touch-weight", type=float, default=1.0,
                    help="loss weight of the dice the reader left 'touching' something (a checker or the board's "
                         "edge: the only ones the net vouches for; the bar's edge, the other die) (1: as any other)")
    ap.add_argument("--flat-weight", type=float, default=1.0,
                    help="loss weight of the dice every other rule read flat and passed (the net's call 'cocked' is "
                         "made on those alone: a die tilted in open space that the outline passes) (1: as any other)")
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    valid = set(a.valid)
    X, y, meta = load([p for p in a.shards if p not in valid])
    w = loss_weights(meta, a.touch_weight, a.flat_weight)
    touching, read_flat = _touching(meta), _read_flat(meta)
    X = X.transpose(0, 3, 1, 2).astype(np.float32)
    print(f"train: {len(y)} dice, {int(y.sum())} tilted, {int(touching.sum())} touching weighted {a.touch_weight}, "
          f"{int(read_flat.sum())} read flat weighted {a.flat_weight} ({int((read_flat & (y == 1)).sum())} of them tilted)",
          flush=True)
    net = build()
    if a.init:
        init_from_onnx(net, a.init)
    net = net.to(a.device)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    steps = a.epochs * (len(y) // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps)
    lossf = torch.nn.BCEWithLogitsLoss(reduction="none")
    t0 = time.time()
    step = 0
    for ep in range(a.epochs):
        net.train()
        if a.init:
            for m in net.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.eval()
        order = rng.permutation(len(y))
        tot = 0.0
        for i in range(0, len(order) - a.batch + 1, a.batch):
            idx = order[i:i + a.batch]
            xb = torch.from_numpy(augment(X[idx], rng)).to(a.device, non_blocking=True)
            yb = torch.from_numpy(y[idx].astype(np.float32))[:, None].to(a.device)
            wb = torch.from_numpy(w[idx])[:, None].to(a.device)
            loss = (lossf(net(xb), yb) * wb).sum() / wb.sum()
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
            tot += loss.detach() * len(idx); step += 1
        print(f"epoch {ep}: loss {float(tot) / len(order):.4f} ({time.time() - t0:.0f} s)", flush=True)
    net = net.cpu().eval()
    out = Path(a.out)
    torch.onnx.export(net, torch.zeros(1, 7, X.shape[2], X.shape[3]), str(out), input_names=["patches"],
                      output_names=["logits"], opset_version=13, dynamic_axes={"patches": {0: "n"}, "logits": {0: "n"}},
                      dynamo=False)
    print("wrote", out, out.stat().st_size, "bytes")
    if valid:
        Xv, yv, mv = load(sorted(valid))
        with torch.no_grad():
            p = torch.sigmoid(net(torch.from_numpy(Xv.transpose(0, 3, 1, 2).astype(np.float32)))).numpy()[:, 0]
        for t in (0.5, 0.9, 0.98):
            print(f"valid @ {t}: flat called tilted {int(((p > t) & (yv == 0)).sum())}/{int((yv == 0).sum())}, "
                  f"tilted missed {int(((p <= t) & (yv == 1)).sum())}/{int((yv == 1).sum())}")
        np.save(str(out) + ".valid_p.npy", p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
