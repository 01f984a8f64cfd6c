"""Labelled dice for the roll reader's tilt net, from simulator renders (``make_cases`` of roll_eval).

Each case is rendered, read by the RollReader as the referee would read it, and every die the reader found
with a face is matched to the render's truth: its patch (``RollReader.tilt_patch``: the frame, the
reference and a flat die's outline on the top-face plane) is labelled tilted when the truth die is not
lying flat on the board (``not_flat``). Half the cases have their kind replaced by a tilted one (cocked,
leaning on a checker, against the edge), so tilted dice are about as common as flat ones. About 0.5 s a
case on one core; 10 cases a seed (``--per``) draw a camera and board for each seed.

    python tools/roll_tilt_data.py --seeds 3000-3299 --per 10 --minutes 6 --out .dicegpu/tilt2/l3_s0.npz

``--presets`` and ``--dice-styles`` draw from some cameras and dice sets only (the thirty-sixth session's net
missed most under the steep camera and on black dice); left out, every one, drawn as before.
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
from tablecompanion.vision.roll_eval import BOARD_STYLES, DICE_STYLES, PRESETS, checker_centres, make_cases, render_case  # noqa: E402
from tablecompanion.vision.roll_reader import RollReader, RollReaderConfig  # noqa: E402

TILTED_KINDS = ("cocked", "leaning-on-checker", "against-edge")
# not lying flat on the board: the tilted states, and a die on a checker (flat, but raised). A die across
# the bar, in the wrong half or off the board lies flat: its roll is void for where it lies, not for this.
NOT_FLAT = TILTED_KINDS + ("on-checker",)


def not_flat(state: str, tilt_deg: float) -> int:
    """1 for a die the net should call tilted (the truth's state and tilt), else 0."""
    return int(state in NOT_FLAT or tilt_deg > 3.0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", required=True, help="first-last case-set seeds (each gives --per cases)")
    ap.add_argument("--per", type=int, default=40)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tilted-share", type=float, default=0.5, help="share of cases turned into a tilted kind")
    ap.add_argument("--kinds", default=",".join(TILTED_KINDS),
                    help="the tilted kinds to turn them into (comma-separated; leaning-on-checker,against-edge: "
                         "the dice the net vouches for lie beside a checker or the board's edge)")
    ap.add_argument("--presets", default=",".join(PRESETS),
                    help="the cameras a seed's set is drawn from (comma-separated; steep: the camera most tilts pass)")
    ap.add_argument("--dice-styles", default=",".join(DICE_STYLES),
                    help="the dice sets the cases are drawn from (comma-separated)")
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this long and save what is done (0: no limit)")
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)  # one process per core
    deadline = time.time() + 60 * a.minutes if a.minutes else float("inf")
    lo, hi = (int(v) for v in a.seeds.split("-"))
    kinds = a.kinds.split(",")
    presets, dice_styles = a.presets.split(","), a.dice_styles.split(",")
    for name, got, known in (("kinds", kinds, TILTED_KINDS), ("presets", presets, PRESETS),
                             ("dice-styles", dice_styles, DICE_STYLES)):
        if not set(got) <= set(known):
            ap.error(f"--{name}: each of {', '.join(known)}")
    X, y, meta = [], [], []
    t0 = time.time()
    for seed in range(lo, hi + 1):
        rng = np.random.default_rng(seed + 7919)
        if time.time() > deadline:
            break
        # make_cases cycles camera and board by the case's index, so a short set would see one of each: each
        # seed's set gets its own (one renderer a set: building one costs more than a render)
        preset = presets[int(rng.integers(len(presets)))]
        style = BOARD_STYLES[int(rng.integers(len(BOARD_STYLES)))]
        for c in make_cases(a.per, seed):
            c = replace(c, preset=preset, style=style)
            if c.dice_style not in dice_styles:
                c = replace(c, dice_style=dice_styles[int(rng.integers(len(dice_styles)))])
            if rng.random() < a.tilted_share:
                c = replace(c, kind=kinds[int(rng.integers(len(kinds)))])
            try:
                ref, img, truth, scene = render_case(c)
                cal = calibrate_from_markers(ref, home=scene.home)
                rr = RollReader(cal, RollReaderConfig(tilt_net=None))  # the data must not depend on the net
                rr.set_reference(ref, checker_centres(scene))
                read = rr.read(img, roller=scene.roller, opening=c.kind == "opening")
            except Exception as e:  # a failed calibration: skip the case, say so
                print("skip", seed, c.index, e, file=sys.stderr)
                continue
            for d in read.dice:
                f = d.features
                if "g_centre_mm" not in f:
                    continue
                tb = [t for t in truth["dice"] if "board_mm" in t]
                if not tb:
                    continue
                dist = [math.dist(t["board_mm"], d.board_mm) for t in tb]
                t = tb[int(np.argmin(dist))]
                if min(dist) > 0.8 * rr.spec.die_size:
                    continue
                X.append(rr.tilt_patch(img, f["g_centre_mm"], float(f.get("face_turn", f.get("g_turn", 0.0)))))
                y.append(not_flat(t["state"], float(t.get("tilt_deg", 0.0))))
                meta.append((seed, c.index, c.kind, c.preset, c.dice_style, t["state"], float(t.get("tilt_deg", 0.0)),
                             d.status, d.reason))
        print(f"seed {seed}: {len(y)} dice, {sum(y)} tilted, {time.time() - t0:.0f} s", flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, X=np.array(X, np.uint8), y=np.array(y, np.uint8), meta=np.array(meta, dtype=object))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
