"""Score tilt nets on held-out shards the way the roll reader uses them, to choose a net and its thresholds.

The reader asks the net two questions, so two scores: of the dice every other rule read flat (the net's
"cocked" call, ``tilt_net_cocked``), how many flat ones it would void and how many tilted ones it catches;
of the dice left touching a checker or the board's edge (the net's "flat" word, ``tilt_net_flat`` and, beside
checkers alone, ``tilt_net_flat_checker``), how many flat ones it vouches for and how many tilted ones it
would let through. The lowest P of a not-flat touching die is printed too: the sessions' rule sets each
vouching threshold at half of it. P is the four quarter turns' (``TiltNet.p_views`` through ``cv2.dnn``) as
the reader takes them: their median for the cocked call (``tilt_net_cocked_median``), their mean for vouching;
not the training script's single view.

    python tools/roll_tilt_score.py tablecompanion/vision/models/roll_tilt.onnx new.onnx --shards held/*.npz

Shards: ``tools/roll_tilt_data.py`` from case-set seeds no net trained on.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _only_checkers(meta) -> np.ndarray:
    return np.array([str(m[8]).startswith("touching a checker") for m in meta], bool)


def score(p: np.ndarray, y: np.ndarray, meta, cocked=(0.9, 0.95, 0.98), flat: float = 0.004,
          flat_checker: float = 0.30, p_cocked: np.ndarray | None = None) -> dict:
    """The counts that choose a net and its thresholds, from each die's P(tilted) ``p`` (the one it vouches
    on; ``p_cocked`` the one it calls cocked on, ``p`` when not given), its label ``y`` (1: not lying flat)
    and its notes (``roll_tilt_data``: the reader's status at 7, reason at 8)."""
    pc = p if p_cocked is None else p_cocked
    from train_roll_tilt import _read_flat, _touching

    read_flat, touching, checkers = _read_flat(meta), _touching(meta), _only_checkers(meta)
    flat_dice, tilted = y == 0, y == 1
    out = {"dice": int(len(y)), "read_flat": {"flat": int((read_flat & flat_dice).sum()),
                                              "tilted": int((read_flat & tilted).sum())},
           "cocked_at": {}}
    for t in cocked:
        out["cocked_at"][f"{t:g}"] = {"flat_voided": int((read_flat & flat_dice & (pc >= t)).sum()),
                                     "tilted_caught": int((read_flat & tilted & (pc >= t)).sum())}
    for name, mask, t in (("touching", touching & ~checkers, flat), ("beside_checkers", checkers, flat_checker)):
        out[name] = {"flat": int((mask & flat_dice).sum()), "tilted": int((mask & tilted).sum()), "threshold": t,
                     "flat_vouched": int((mask & flat_dice & (p <= t)).sum()),
                     "tilted_vouched": int((mask & tilted & (p <= t)).sum()),
                     "lowest_p_tilted": float(p[mask & tilted].min()) if (mask & tilted).any() else None}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nets", nargs="+", help="ONNX tilt nets ('' or 'shipped': the shipped one)")
    ap.add_argument("--shards", nargs="+", required=True)
    ap.add_argument("--flat", type=float, default=0.004, help="the vouching threshold beside the edge (tilt_net_flat)")
    ap.add_argument("--flat-checker", type=float, default=0.30, help="... beside checkers alone (tilt_net_flat_checker)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    import cv2

    from tablecompanion.vision.dice_model import load_tilt_net
    from train_roll_tilt import load

    cv2.setNumThreads(1)
    X, y, meta = load(a.shards)
    results = {}
    for name in a.nets:
        net = load_tilt_net("" if name == "shipped" else name)
        if net is None:
            ap.error(f"no tilt net at {name!r}")
        views = np.array([net.p_views(x) for x in X])
        results[name] = score(views.mean(axis=1), y, meta, flat=a.flat, flat_checker=a.flat_checker,
                              p_cocked=np.median(views, axis=1))
    if a.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, r in results.items():
        rf = r["read_flat"]
        print(f"{name}: {r['dice']} dice; read flat {rf['flat']} flat / {rf['tilted']} tilted")
        print("  cocked at " + ", ".join(f"{t}: {c['flat_voided']} flat voided, {c['tilted_caught']} tilted caught"
                                         for t, c in r["cocked_at"].items()))
        for k in ("touching", "beside_checkers"):
            s = r[k]
            low = "-" if s["lowest_p_tilted"] is None else f"{s['lowest_p_tilted']:.3f}"
            print(f"  {k} (<= {s['threshold']}): {s['flat_vouched']} of {s['flat']} flat vouched for, "
                  f"{s['tilted_vouched']} of {s['tilted']} tilted; lowest P of a tilted one {low}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
