"""Render simulator frames of dice on a full board, for training the dice network (tools/train_dice_net.py).

Real photo sets have no board, no checkers, no doubling cube and no cocked die; the simulator has all
of them, with ground truth. Each frame is cropped to a window around the dice (plus some random
board-only windows as hard negatives) and saved with die centres, values, sizes and a cocked flag.

    .venv/bin/python tools/dice_sim_data.py --frames 160 --out /tmp/dice_sim.npz --seed 0
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablecompanion.rules.position import Position  # noqa: E402
from tablecompanion.sim.camera import Camera  # noqa: E402
from tablecompanion.sim.render import render_frame  # noqa: E402
from tablecompanion.sim.scene import Die, Scene  # noqa: E402
from tablecompanion.sim.style import DIE_STYLES, STYLES  # noqa: E402

STATES = ["flat"] * 6 + ["cocked", "leaning-on-checker", "on-checker", "against-edge", "across-bar", "wrong-half"]
WIN = 320


def random_position(rng: np.random.Generator) -> Position:
    """The initial position moved on by a few random legal plays: varied checker layouts."""
    pos = Position.initial()
    for _ in range(int(rng.integers(0, 24))):
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        plays = pos.legal_plays(d)
        pos = pos.apply(plays[int(rng.integers(len(plays)))]) if plays else pos.swapped()
    return pos


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=160)
    ap.add_argument("--out", default="/tmp/dice_sim.npz")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    crops, labels = [], []
    t0 = time.time()
    for k in range(args.frames):
        styles = list(DIE_STYLES)
        style = styles[int(rng.integers(len(styles)))]
        dice = tuple(
            Die(int(rng.integers(1, 7)), STATES[int(rng.integers(len(STATES)))] if i == 0 else "flat",
                style=style, pose_seed=int(rng.integers(1 << 30)))
            for i in range(2)
        )
        cam = Camera(distance_mm=float(rng.uniform(700, 1400)), tilt_deg=float(rng.uniform(0, 14)),
                     yaw_deg=float(rng.uniform(-4, 4)), exposure=float(rng.uniform(0.8, 1.2)))
        try:
            scene = Scene.from_position(random_position(rng), bottom="on_roll" if k % 2 else "opponent", dice=dice,
                                        style=list(STYLES)[int(rng.integers(len(STYLES)))])
            img, truth = render_frame(scene, cam, seed=int(rng.integers(1 << 30)))
        except Exception as exc:  # a scene the simulator refuses: skip it
            print("skip", k, exc, flush=True)
            continue
        h, w = img.shape[:2]
        dice_t = []
        for d in truth["dice"]:
            x, y = d.get("top_centre_px") or d["centre_px"]
            o = np.array(d["outline_px"], float)
            side = float(math.sqrt(max(cv2_area(o), 1.0)))
            cocked = float(d.get("tilt_deg", 0.0)) > 4.0 or float(d.get("height_mm", 0.0)) > 0.5
            dice_t.append((x, y, side, d["top_value"], cocked))
        cx = float(np.mean([d[0] for d in dice_t])) + rng.uniform(-80, 80)
        cy = float(np.mean([d[1] for d in dice_t])) + rng.uniform(-80, 80)
        windows = [(cx, cy), (rng.uniform(WIN / 2, w - WIN / 2), rng.uniform(WIN / 2, h - WIN / 2))]
        for wx, wy in windows:
            x0 = int(np.clip(wx - WIN / 2, 0, w - WIN))
            y0 = int(np.clip(wy - WIN / 2, 0, h - WIN))
            crops.append(img[y0:y0 + WIN, x0:x0 + WIN].copy())
            labels.append([(x - x0, y - y0, s, v, c) for x, y, s, v, c in dice_t
                           if -s < x - x0 < WIN + s and -s < y - y0 < WIN + s])
        if k % 20 == 0:
            print(k, f"{time.time() - t0:.0f}s", flush=True)
    lab = np.array([(i, *d) for i, ds in enumerate(labels) for d in ds], np.float32).reshape(-1, 6)
    np.savez_compressed(args.out, crops=np.stack(crops), labels=lab)
    print("wrote", args.out, len(crops), "crops", len(lab), "dice", f"{time.time() - t0:.0f}s")
    return 0


def cv2_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


if __name__ == "__main__":
    raise SystemExit(main())
