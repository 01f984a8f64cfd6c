"""Void-roll verdicts of the board-aware roll reader, measured on simulator renders with known truth.

Each case is a board (a position from a real-looking game: the opening position or a random legal
sequence of plays from it), a board style, a camera preset and a dice style; the reference is that board
with no dice (another frame: other noise, a little exposure drift), the frame is the same board with two
dice thrown. Good rolls are flat dice in the roller's right-hand board; the void kinds are every die state
the simulator knows (cocked, leaning on a checker, on a checker, against the edge, across the bar, wrong
half, off the board), on die 1 or die 2. Opening rolls (one die in each player's half) are good rolls too.

``python -m tablecompanion.vision.roll_eval --cases 320`` (or ``tablecompanion roll eval``) prints:
invalid rolls accepted as valid (target 0), good rolls called void (target < 1 %), value accuracy on good
rolls, and per-kind verdict accuracy.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

import numpy as np

VOID_KINDS = ("cocked", "leaning-on-checker", "on-checker", "against-edge", "across-bar", "wrong-half", "off-board")
KINDS = ("flat", "opening") + VOID_KINDS
PRESETS = ("top", "default", "tilted", "steep")
BOARD_STYLES = ("tournament", "classic", "leather")
DICE_STYLES = ("white-black-pips", "red-white-pips", "black-white-pips", "translucent")
# good rolls are most of a real match: weight them so the < 1 % figure has a denominator
KIND_WEIGHTS = {"flat": 6, "opening": 1, **{k: 1 for k in VOID_KINDS}}


@dataclass
class Case:
    index: int
    kind: str
    preset: str
    style: str
    dice_style: str
    values: tuple[int, int]
    bad_die: int  # 0 or 1: which die has the void state (kinds other than flat/opening)
    seed: int


def only_kinds(spec: str) -> tuple[str, ...]:
    """The kinds named in ``spec`` (comma-separated; "void" stands for every void kind), checked."""
    kinds: list[str] = []
    for name in (k.strip() for k in spec.split(",") if k.strip()):
        if name == "void":
            kinds += VOID_KINDS
        elif name in KINDS:
            kinds.append(name)
        else:
            raise ValueError(f"unknown kind {name!r}: each of void, {', '.join(KINDS)}")
    if not kinds:
        raise ValueError("no kind named")
    return tuple(kinds)


def make_cases(n: int, seed: int = 0, kinds: tuple[str, ...] = ()) -> list[Case]:
    """``n`` cases cycling through kinds (weighted), presets, board and dice styles. ``kinds``: throw only
    these, case ``i`` the ``i % len(kinds)``-th, all else drawn as the seed's full set draws it (the sets of
    void throws only and of open-space tilts only that docs/roll-verdicts.md reports)."""
    rng = np.random.default_rng(seed)
    order = [k for k in KINDS for _ in range(KIND_WEIGHTS[k])]
    cases = []
    for i in range(n):
        drawn = order[i % len(order)]
        kind = kinds[i % len(kinds)] if kinds else drawn
        values = tuple(int(v) for v in rng.integers(1, 7, size=2))
        if "opening" in (drawn, kind) and values[0] == values[1]:  # the full set's values kept
            values = (values[0], values[0] % 6 + 1)
        cases.append(Case(i, kind, PRESETS[(i // len(order)) % len(PRESETS)],
                          BOARD_STYLES[(i // (len(order) * len(PRESETS))) % len(BOARD_STYLES)],
                          DICE_STYLES[int(rng.integers(len(DICE_STYLES)))], values, int(rng.integers(2)),
                          int(rng.integers(1 << 30))))
    return cases


def _position(rng: np.random.Generator):
    """The opening position, or a few random legal plays into a game (fuller boards, piles, blots)."""
    from tablecompanion.rules.position import Position

    pos = Position.initial()
    for _ in range(int(rng.integers(0, 12))):
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        plays = pos.legal_plays(d)
        if plays:
            pos = pos.apply(plays[int(rng.integers(len(plays)))])
        else:
            pos = pos.swapped()
    return pos


def render_case(case: Case, window_glint: float | None = None):
    """(reference frame, roll frame, truth, scene) for one case. ``window_glint``: the window behind the far
    player mirrored in glossy tops (``Camera.window_glint``; None: the preset's own)."""
    from tablecompanion.sim.camera import Camera
    from tablecompanion.sim.render import renderer_for
    from tablecompanion.sim.scene import Die, Scene

    rng = np.random.default_rng(case.seed)
    pos = _position(rng)
    bottom = "on_roll" if rng.random() < 0.5 else "opponent"
    home = "right" if rng.random() < 0.7 else "left"
    v1, v2 = case.values
    ps = [int(x) for x in rng.integers(1 << 30, size=2)]
    st = case.dice_style
    if case.kind == "opening":
        dice = (Die(v1, "flat", style=st, pose_seed=ps[0], thrower="bottom"),
                Die(v2, "flat", style=st, pose_seed=ps[1], thrower="top"))
    elif case.kind == "flat":
        dice = (Die(v1, "flat", style=st, pose_seed=ps[0]), Die(v2, "flat", style=st, pose_seed=ps[1]))
    else:
        states = [case.kind, "flat"] if case.bad_die == 0 else ["flat", case.kind]
        dice = (Die(v1, states[0], style=st, pose_seed=ps[0]), Die(v2, states[1], style=st, pose_seed=ps[1]))
    base = Scene.from_position(pos, bottom=bottom, dice=(), home=home, style=case.style,
                               jitter_seed=int(rng.integers(1000)))
    scene = replace(base, dice=dice)
    camera = Camera.preset(case.preset)
    if window_glint is not None:
        camera = replace(camera, window_glint=window_glint)
    r = renderer_for(camera, scene)
    ref, _ = r.render(base, seed=int(rng.integers(1 << 30)), gain=float(rng.uniform(0.97, 1.03)))
    img, truth = r.render(scene, seed=int(rng.integers(1 << 30)), gain=float(rng.uniform(0.97, 1.03)))
    return ref, img, truth, scene


@dataclass
class EvalResult:
    cases: int = 0
    good: int = 0
    good_called_void: int = 0
    good_unclear: int = 0
    good_right_values: int = 0
    good_wrong_values: int = 0
    invalid: int = 0
    invalid_accepted: int = 0
    per_kind: dict = field(default_factory=lambda: defaultdict(Counter))
    per_preset: dict = field(default_factory=lambda: defaultdict(Counter))
    reasons: Counter = field(default_factory=Counter)
    accepted_invalid: list = field(default_factory=list)
    good_void: list = field(default_factory=list)
    # rolls unclear only for what a die touches, put to the players (RollReading.proposal): a good roll's
    # proposal with its right or wrong values, and invalid rolls proposed (a die leaning: a person says no)
    good_proposed_right: int = 0
    good_proposed_wrong: int = 0
    invalid_proposed: int = 0
    seconds: float = 0.0
    read_seconds: float = 0.0

    def supported_accepted(self) -> int:
        """Invalid rolls accepted, leaving out the simulator's tilt in open space (a die cannot rest
        tilted with nothing to lean on)."""
        return sum(c.get("ACCEPTED", 0) for k, c in self.per_kind.items() if k != "cocked")

    def to_dict(self) -> dict:
        return {
            "cases": self.cases, "good_rolls": self.good, "invalid_rolls": self.invalid,
            "invalid_accepted_as_valid": self.invalid_accepted,
            "invalid_accepted_except_open_space_tilt": self.supported_accepted(),
            "good_called_void_or_unclear": self.good_called_void + self.good_unclear,
            "good_called_void": self.good_called_void, "good_called_unclear": self.good_unclear,
            "good_rejected_rate": round((self.good_called_void + self.good_unclear) / self.good, 4) if self.good else None,
            "good_accepted_right_values": self.good_right_values,
            "good_accepted_wrong_values": self.good_wrong_values,
            "value_accuracy_on_good": round(self.good_right_values / self.good, 4) if self.good else None,
            "per_kind": {k: dict(v) for k, v in self.per_kind.items()},
            "per_preset": {k: dict(v) for k, v in self.per_preset.items()},
            "reasons": dict(self.reasons.most_common(20)),
            "accepted_invalid": self.accepted_invalid, "good_void": self.good_void[:30],
            "read_ms_mean": round(1000 * self.read_seconds / self.cases, 1) if self.cases else None,
            "good_proposed_right": self.good_proposed_right, "good_proposed_wrong": self.good_proposed_wrong,
            "invalid_proposed": self.invalid_proposed,
        }

    def format(self) -> str:
        g = self.good or 1
        lines = [
            f"{self.cases} simulated rolls: {self.good} good, {self.invalid} invalid ({self.seconds:.0f} s, "
            f"read {1000 * self.read_seconds / max(self.cases, 1):.0f} ms/roll)",
            f"invalid accepted as valid: {self.invalid_accepted} / {self.invalid} (target 0); of the kinds a real "
            f"table produces (all but 'cocked' in open space): {self.supported_accepted()} / "
            f"{self.invalid - sum(self.per_kind.get('cocked', {}).values())}",
            f"good rolls called void: {self.good_called_void} / {self.good}, unclear (re-roll): {self.good_unclear} "
            f"({100 * (self.good_called_void + self.good_unclear) / g:.1f} % not accepted, target < 1 %)",
            f"good rolls accepted with the right values: {self.good_right_values} / {self.good} "
            f"({100 * self.good_right_values / g:.1f} %), wrong values: {self.good_wrong_values}",
            f"unclear only for what a die touches, put to the players: good rolls {self.good_proposed_right} with the "
            f"right values, {self.good_proposed_wrong} wrong; invalid rolls {self.invalid_proposed}",
            "per kind (right verdict / all):",
        ]
        for k in KINDS:
            c = self.per_kind.get(k)
            if c:
                n = sum(c.values())
                lines.append(f"  {k:20s} {c['right']:4d} / {n:4d}   " + ", ".join(
                    f"{o} {v}" for o, v in sorted(c.items()) if o != "right"))
        lines.append("per camera preset (right verdict / all): " + ", ".join(
            f"{p} {c['right']}/{sum(v for o, v in c.items() if o != 'right')}" for p, c in self.per_preset.items()))
        lines.append("reasons: " + "; ".join(f"{k} x{v}" for k, v in self.reasons.most_common(10)))
        return "\n".join(lines)


def evaluate(n: int = 320, seed: int = 0, *, config=None, dice_config=None, checkers: str = "position",
             progress=None, cases: list[Case] | None = None, lens: str = "none",
             window_glint: float | None = None) -> EvalResult:
    """Render and score ``n`` cases. ``checkers``: "position" (the referee knows the position: checker
    places from the board model) or "reference" (found in the reference frame). ``lens``: "none" (the
    markers alone: the webcam's barrel distortion stays in the calibration, 2-3 mm near the rails) or
    "true" (the simulated webcam's own intrinsics and distortion, as a table whose lens was calibrated
    with the lens sheet, ``calibrate lens``, has them to within that calibration's error)."""
    from tablecompanion.calibration import calibrate_from_markers
    from tablecompanion.vision.roll_reader import RollReader

    res = EvalResult()
    t0 = time.perf_counter()
    for case in cases if cases is not None else make_cases(n, seed):
        ref, img, truth, scene = render_case(case, window_glint)
        cam = truth["camera"]
        lens_model = {"camera_matrix": np.asarray(cam["K"]), "dist_coeffs": np.asarray(cam["dist"])} \
            if lens == "true" else {}
        cal = calibrate_from_markers(ref, home=scene.home, **lens_model)
        reader = RollReader(cal, config, dice_config)
        t1 = time.perf_counter()
        reader.set_reference(ref, checker_centres(scene) if checkers == "position" else None)
        rr = reader.read(img, roller=scene.roller, opening=case.kind == "opening")
        res.read_seconds += time.perf_counter() - t1
        score_case(res, case, rr, truth)
        if progress:
            progress(case, rr, truth)
    res.seconds = time.perf_counter() - t0
    return res


def score_case(res: EvalResult, case: Case, rr, truth: dict) -> None:
    valid = all(d["valid"] for d in truth["dice"])
    res.cases += 1
    outcome = "right"
    if valid:
        res.good += 1
        if rr.verdict == "valid":
            right = sorted(rr.values) == sorted(d["top_value"] for d in truth["dice"])
            if right:
                res.good_right_values += 1
            else:
                res.good_wrong_values += 1
                outcome = "accepted, wrong values"
        else:
            outcome = f"called {rr.verdict}"
            if rr.verdict == "void":
                res.good_called_void += 1
            else:
                res.good_unclear += 1
            res.good_void.append({"case": case.index, "kind": case.kind, "preset": case.preset, "reason": rr.reason})
            if rr.proposal is not None:
                if sorted(rr.proposal) == sorted(d["top_value"] for d in truth["dice"]):
                    res.good_proposed_right += 1
                else:
                    res.good_proposed_wrong += 1
    else:
        res.invalid += 1
        if rr.proposal is not None:
            res.invalid_proposed += 1
        if rr.verdict == "valid":
            res.invalid_accepted += 1
            outcome = "ACCEPTED"
            res.accepted_invalid.append({"case": case.index, "kind": case.kind, "preset": case.preset,
                                         "style": case.style, "dice_style": case.dice_style, "read": rr.reason})
    if rr.verdict != "valid":
        res.reasons[_reason_kind(rr.reason)] += 1
    res.per_kind[case.kind][outcome] += 1
    res.per_preset[case.preset][outcome] += 1


def _reason_kind(reason: str) -> str:
    import re

    return re.sub(r"die \d ", "die ", reason.split(":")[0])


def checker_centres(scene) -> list[tuple[float, float]]:
    """Where the checkers of a scene stand by the board model (what the referee's position says)."""
    from tablecompanion.geometry import BoardGeometry

    geo = BoardGeometry(home=scene.home)
    out = []
    for p, (colour, count) in enumerate(scene.points, start=1):
        if count:
            out += [(s.x, s.y) for s in geo.checker_slots(p, count, "bottom")]
    for colour, count in scene.bar:
        if count:
            player = "bottom" if colour == scene.bottom else "top"
            out += [(s.x, s.y) for s in geo.bar_slots(player, count)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tablecompanion.vision.roll_eval", description=__doc__.split("\n\n")[0])
    add_arguments(ap)
    return run(ap.parse_args(argv))


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--cases", type=int, default=320, help="simulated rolls (default 320)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kinds", default="", metavar="KIND,...",
                    help="throw these kinds only, cycling through them ('void': every void kind; 'cocked' alone: "
                         "one die tilted in open space), the cameras, boards and dice drawn as the seed's own "
                         f"(default: every kind, good rolls weighted 6:1). Kinds: {', '.join(KINDS)}")
    ap.add_argument("--checkers", choices=("position", "reference"), default="position",
                    help="checker places from the known position (default) or found in the reference frame")
    ap.add_argument("--lens", choices=("none", "true"), default="none",
                    help="calibrate from the markers alone (default: the webcam's lens distortion stays in) or "
                         "with the simulated webcam's true lens model, as a table calibrated with the lens sheet")
    ap.add_argument("--window", type=float, default=None, metavar="GLINT",
                    help="the window behind the far player mirrored in glossy tops, 0-2 (default: the camera "
                         "preset's own; only a steep view sees it)")
    ap.add_argument("--tilt-net", default="", metavar="ONNX",
                    help="the roll reader's tilt net to use: a file (a retrained one, tools/train_roll_tilt.py), "
                         "'none' to read without it (default: the shipped one)")
    ap.add_argument("--body-model", default="", metavar="NPZ",
                    help="the roll reader's body model (a die's body against its shadow): a file (a retrained "
                         "one, tools/train_roll_body.py), 'none' to read without it (default: the shipped one)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--verbose", action="store_true", help="one line per case")


def run(args) -> int:
    def progress(case, rr, truth):
        states = ",".join(d["state"] for d in truth["dice"])
        print(f"{case.index:4d} {case.kind:18s} {case.preset:8s} {case.style:10s} {case.dice_style:17s} "
              f"truth {case.values} {states:28s} -> {rr.verdict:7s} {rr.reason}", file=sys.stderr)

    from tablecompanion.vision.body_model import load_body_model
    from tablecompanion.vision.dice import DiceVisionError
    from tablecompanion.vision.dice_model import load_tilt_net
    from tablecompanion.vision.roll_config import RollReaderConfig

    config = RollReaderConfig(tilt_net=None if args.tilt_net.lower() == "none" else args.tilt_net,
                              body_model=None if args.body_model.lower() == "none" else args.body_model)
    try:
        if config.tilt_net is not None:
            load_tilt_net(config.tilt_net)
        if config.body_model is not None:
            load_body_model(config.body_model)
    except DiceVisionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        cases = make_cases(args.cases, args.seed, only_kinds(args.kinds)) if args.kinds else None
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    res = evaluate(args.cases, args.seed, config=config, checkers=args.checkers, cases=cases,
                   progress=progress if args.verbose else None, lens=args.lens, window_glint=args.window)
    print(json.dumps(res.to_dict(), indent=2) if args.json else res.format())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
