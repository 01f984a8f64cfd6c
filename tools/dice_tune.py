"""Sweep the dice reader's selection thresholds on labelled photos without re-running the networks.

Each image is read once down to a very low heat (``dice.net_candidates``: every find with the
classifier's probabilities); each combination of ``select_readings``' thresholds (heat, P(die),
suppression distance, cocked and value floors) is then scored from that cache. Tune on *train* splits
only: the held-out splits are for reporting, and ``--report`` scores them with the chosen setting.

    .venv/bin/python tools/dice_tune.py ../shared/data/dice/byler:train ../shared/data/dice/matteo:train \\
        --limit 80 --report ../shared/data/dice/byler:test ../shared/data/dice/matteo:valid
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablecompanion.vision.dice import (  # noqa: E402
    DEFAULT_CONFIG, check_frame, fill_unclear, load_image, net_candidates, network_for, read_dice, select_readings,
)
from tablecompanion.vision.dice_eval import EvalResult, load_labels  # noqa: E402
from tablecompanion.vision.dice_model import load_classifier  # noqa: E402

GRID = {
    "net_min_heat": [0.2],
    "cls_min_die": [0.5, 0.7],
    "net_nms_frac": [0.7, 0.85],
    "net_cocked": [0.5, 0.7],
    "net_min_value": [0.6],
    "net_neighbour_cocked": [0.6, 0.8, 0.9, 1.01],
}
CANDIDATE_GRID = {"cls_sizes": [(0.8, 1.0, 1.25), (0.5, 0.8, 1.0, 1.25)]}  # these need the networks again


def cache_candidates(specs, config, limit):
    net = network_for(config)
    classifier = load_classifier(config.classifier)
    cache = []
    for spec in specs:
        root, _, split = spec.partition(":")
        labels = load_labels(root, split)
        step = max(1, len(labels) // limit) if limit else 1
        for lab in labels[::step][: limit or None]:
            img = check_frame(load_image(Path(root) / lab.file))
            pips = read_dice(img, replace(config, model="pips")) if config.combine == "fill" else []
            cache.append((spec, lab, net_candidates(img, net, config, classifier), pips))
    return cache


def score(cache, config) -> dict:
    """{spec: EvalResult} of the selection stage with ``config`` over the cached candidates."""
    per = {}
    for spec, lab, cands, pips in cache:
        rs = select_readings(cands, config)
        if config.combine == "fill":
            rs = fill_unclear(rs, pips)
        per.setdefault(spec, EvalResult()).add(lab, rs)
    return per


def line(per: dict) -> str:
    return "; ".join(f"{s.split('/')[-1]} {100 * v.accuracy:.1f}% (wrong {v.wrong} "
                     f"no value {v.not_flat} miss {v.misses} false {v.false_dice})" for s, v in per.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="+", help="DIR:split to tune on")
    ap.add_argument("--limit", type=int, default=80, help="images per set (spread over the set)")
    ap.add_argument("--classifier", default="")
    ap.add_argument("--report", nargs="*", default=[], help="DIR:split to score with the best setting")
    ap.add_argument("--top", type=int, default=8)
    args = ap.parse_args(argv)
    results = []
    keys = list(GRID)
    for cls_sizes in CANDIDATE_GRID["cls_sizes"]:
        low = replace(DEFAULT_CONFIG, classifier=args.classifier, net_min_heat=min(GRID["net_min_heat"]),
                      cls_sizes=cls_sizes)
        cache = cache_candidates(args.sets, low, args.limit)
        print(f"{len(cache)} images cached, cls_sizes {cls_sizes}; default: {line(score(cache, replace(low, net_min_heat=DEFAULT_CONFIG.net_min_heat)))}", flush=True)
        for combo in itertools.product(*GRID.values()):
            cfg = replace(low, **dict(zip(keys, combo)))
            per = score(cache, cfg)
            # mean accuracy over the sets; a false die or a wrong value costs as much as a missed die
            acc = sum((v.correct - v.false_dice - v.wrong) / max(1, v.dice) for v in per.values()) / len(per)
            results.append((acc, dict(zip(keys, combo), cls_sizes=cls_sizes), per))
    results.sort(key=lambda t: -t[0])
    for acc, combo, per in results[: args.top]:
        print(combo, f"score {100 * acc:.2f}%", line(per))
    if args.report:
        best = replace(DEFAULT_CONFIG, classifier=args.classifier, **results[0][1])
        print("held out with the best setting:", line(score(cache_candidates(args.report, best, 0), best)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
