"""Train the roll reader's body model (is a changed pixel the die's body or the board in its shadow?).

Simulator renders of ``make_cases`` (roll_eval), each read by the RollReader with the body model off. For
every die read flat with a face, the tilt test's crop (frame and reference on the top-face plane around the
face, at ``tilt_px_per_mm``) is kept, and the render's truth draws every die's true silhouette on it: a
pixel inside one is body, any other is board (lit or in shadow). Pixels are sampled where the tilt test
counts body (beyond the top square, within reach of a flat outline) and changed by ``body_diff``; a
two-layer perceptron (NumPy, Adam, full batch) learns P(body) from ``body_features``.

The shipped model: ``python tools/train_roll_body.py --sets 31:cocked:200 32:cocked:200 33:asis:320``
(seeds none of ``tablecompanion roll eval``'s reports use; about 6 minutes on one core). Score it with
``tablecompanion roll eval --seed N --body-model FILE`` (``none``: without one).
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
from tablecompanion.calibration import calibrate_from_markers  # noqa: E402
from tablecompanion.vision import roll_reader as rr_mod  # noqa: E402
from tablecompanion.vision.body_model import DEFAULT_BODY_MODEL, save_body_model  # noqa: E402
from tablecompanion.vision.roll_eval import checker_centres, make_cases, render_case  # noqa: E402
from tablecompanion.vision.tilt_evidence import distance_beyond  # noqa: E402


def crops_of_case(case, per_die: int, rng) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Features and labels of sampled pixels around each die the reader read flat in one case."""
    ref, img, truth, scene = render_case(case)
    reader = rr_mod.RollReader(calibrate_from_markers(ref, home=scene.home), rr_mod.RollReaderConfig(body_model=None))
    reader.set_reference(ref, checker_centres(scene))
    res = reader.read(img, roller=scene.roller, opening=case.kind == "opening")
    c = reader.config
    die = float(reader.spec.die_size)
    k = c.tilt_px_per_mm
    X, Y = [], []
    for d in res.dice:
        f = d.features
        if "face_turn" not in f:
            continue
        cx, cy = f["g_centre_mm"]
        rect, a, b, margin = reader.tilt_crops(img, (cx, cy))
        h, w = a.shape[:2]
        half = 0.5 * (rect[2] - rect[0])
        truth_mask = np.zeros((h, w), np.uint8)
        for td in truth["dice"]:
            poly = (reader.to_plane(np.array(td["outline_px"]), die) - np.array(rect[:2])) * k
            hull = cv2.convexHull(poly.astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(truth_mask, np.round(hull * 16).astype(np.int32), 255, cv2.LINE_8, 4)
        outline = (reader.flat_silhouette((cx, cy), f["face_turn"], c.side_face_slack) - np.array(rect[:2])) * k
        yy, xx = np.mgrid[:h, :w]
        beyond = distance_beyond(np.column_stack([xx.ravel(), yy.ravel()]).astype(np.float64), outline).reshape(h, w)
        inner = (xx - half * k) ** 2 + (yy - half * k) ** 2 <= (0.5 * die * k + margin) ** 2
        where = reader.body_asked(a, b, (beyond > margin - 2) & (beyond < c.tilt_reach * die * k + 2) & ~inner)
        ys, xs = np.nonzero(where)
        if not len(ys):
            continue
        if len(ys) > per_die:
            pick = rng.choice(len(ys), per_die, replace=False)
            ys, xs = ys[pick], xs[pick]
        sample = np.zeros(where.shape, bool)
        sample[ys, xs] = True
        ys, xs = np.nonzero(sample)
        X.append(reader.body_features_of(a, b, sample))
        Y.append((truth_mask[ys, xs] > 0).astype(np.float32))
    return X, Y


def train(X: np.ndarray, y: np.ndarray, hidden: int, epochs: int, lr: float, seed: int):
    """A two-layer perceptron, full-batch Adam on the log loss; the inputs standardised."""
    rng = np.random.default_rng(seed)
    mu, sd = X.mean(0), X.std(0) + 1e-6
    Z = ((X - mu) / sd).astype(np.float32)
    w1 = rng.normal(0, 1 / math.sqrt(Z.shape[1]), (Z.shape[1], hidden)).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = rng.normal(0, 1 / math.sqrt(hidden), (hidden, 1)).astype(np.float32)
    b2 = np.zeros(1, np.float32)
    params = [w1, b1, w2, b2]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    for t in range(1, epochs + 1):
        pre = Z @ w1 + b1
        hid = np.maximum(pre, 0)
        p = 1 / (1 + np.exp(-np.clip((hid @ w2 + b2).ravel(), -30, 30)))
        g = (p - y)[:, None] / len(y)
        gh = g @ w2.T * (pre > 0)
        for i, gr in enumerate([Z.T @ gh, gh.sum(0), hid.T @ g, g.sum(0)]):
            m1[i] = 0.9 * m1[i] + 0.1 * gr
            m2[i] = 0.999 * m2[i] + 0.001 * gr * gr
            params[i] -= lr * (m1[i] / (1 - 0.9 ** t)) / (np.sqrt(m2[i] / (1 - 0.999 ** t)) + 1e-8)
        if t % 100 == 0 or t == epochs:
            loss = -(y * np.log(p + 1e-7) + (1 - y) * np.log(1 - p + 1e-7)).mean()
            print(f"epoch {t}: loss {loss:.4f}, pixels right {((p > 0.5) == y).mean():.4f}", flush=True)
    return mu, sd, w1, b1, w2, b2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["31:cocked:200", "32:cocked:200", "33:asis:320"],
                    help="case sets SEED:KIND:N (KIND a roll_eval kind given to every case, or 'asis')")
    ap.add_argument("--per-die", type=int, default=400, help="pixels sampled around each die")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=400)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--out", default=str(DEFAULT_BODY_MODEL))
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    X, Y = [], []
    t0 = time.time()
    for spec in args.sets:
        seed, kind, n = spec.split(":")
        for case in make_cases(int(n), int(seed)):
            if kind != "asis":
                case = replace(case, kind=kind)
            x, y = crops_of_case(case, args.per_die, rng)
            X += x
            Y += y
        print(f"set {spec}: {sum(len(y) for y in Y)} pixels so far ({time.time() - t0:.0f} s)", flush=True)
    X = np.concatenate(X)
    y = np.concatenate(Y)
    print(f"{len(y)} pixels, {y.mean():.3f} body")
    save_body_model(args.out, *train(X, y, args.hidden, args.epochs, args.lr, seed=0))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
