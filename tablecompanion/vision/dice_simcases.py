"""Void-roll verdicts measured on simulator frames (``tablecompanion.sim``), where the truth is known.

No public photo set has cocked dice or dice off the board, so every die state the simulator knows
(flat, cocked, leaning on / lying on a checker, against the edge, across the bar, wrong half, off the
board) is rendered with a second, flat die; the reader and placement give a verdict and it is compared
with the simulator's own ``valid`` flag. The figure that matters: no invalid roll accepted as valid,
and few good rolls called void.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tablecompanion.geometry import BoardGeometry
from tablecompanion.vision.dice import DiceConfig, read_dice
from tablecompanion.vision.placement import place_dice
from tablecompanion.vision.settle import judge_roll

STATES = ("flat", "cocked", "leaning-on-checker", "on-checker", "against-edge", "across-bar", "wrong-half", "off-board")


@dataclass
class SimCaseResult:
    cases: int = 0
    invalid: int = 0
    invalid_accepted: int = 0  # must stay 0
    valid: int = 0
    valid_called_void: int = 0
    valid_right_values: int = 0
    per_state: dict = field(default_factory=dict)  # state -> Counter(verdict outcome)
    reasons: Counter = field(default_factory=Counter)

    def to_dict(self) -> dict:
        return {
            "cases": self.cases,
            "invalid": self.invalid,
            "invalid_accepted_as_valid": self.invalid_accepted,
            "valid": self.valid,
            "valid_called_void": self.valid_called_void,
            "valid_called_void_rate": round(self.valid_called_void / self.valid, 4) if self.valid else None,
            "valid_with_right_values": self.valid_right_values,
            "per_state": {k: dict(v) for k, v in self.per_state.items()},
            "void_reasons": dict(self.reasons.most_common(12)),
        }

    def format(self) -> str:
        lines = [
            f"{self.cases} simulated rolls: {self.invalid} invalid, {self.valid} valid",
            f"invalid accepted as valid: {self.invalid_accepted} (target 0)",
            f"valid called void: {self.valid_called_void}"
            + (f" ({100 * self.valid_called_void / self.valid:.1f}%, target < 1%)" if self.valid else ""),
            f"valid accepted with the right values: {self.valid_right_values}",
            "per state of die 1 (outcomes):",
        ]
        for state, c in self.per_state.items():
            lines.append(f"  {state:20s} " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
        lines.append("void reasons: " + "; ".join(f"{k} x{v}" for k, v in self.reasons.most_common(8)))
        return "\n".join(lines)


def run_sim_cases(per_state: int = 5, seed: int = 0, config: DiceConfig | None = None, states=STATES) -> SimCaseResult:
    """Render ``per_state`` rolls for each die state and score the verdicts against the truth."""
    from tablecompanion.rules.position import Position
    from tablecompanion.sim.camera import Camera
    from tablecompanion.sim.render import render_frame
    from tablecompanion.sim.scene import Die, Scene

    rng = np.random.default_rng(seed)
    camera = Camera(distortion=(0.0,) * 5)  # the truth's homography then maps raw pixels
    res = SimCaseResult()
    for state in states:
        outcomes: Counter = Counter()
        for k in range(per_state):
            v1, v2 = (int(v) for v in rng.integers(1, 7, size=2))
            bottom = "on_roll" if k % 2 == 0 else "opponent"
            dice = (Die(v1, state, pose_seed=int(rng.integers(1 << 30))), Die(v2, "flat", pose_seed=int(rng.integers(1 << 30))))
            scene = Scene.from_position(Position.initial(), bottom=bottom, dice=dice)
            img, truth = render_frame(scene, camera, seed=int(rng.integers(1 << 30)))
            h = np.array(truth["homography_image_to_board"], dtype=np.float64)
            geo = BoardGeometry(home=truth.get("home", "right"))
            roller = truth.get("roller", scene.roller)
            readings = read_dice(img, config)
            placements = place_dice(readings, h, geo, roller)
            verdict, reason = judge_roll(readings, placements)
            valid = all(d["valid"] for d in truth["dice"])
            res.cases += 1
            if valid:
                res.valid += 1
                if verdict == "void":
                    res.valid_called_void += 1
                    outcomes["valid, called void"] += 1
                else:
                    right = sorted(r.value for r in readings) == sorted(d["top_value"] for d in truth["dice"])
                    res.valid_right_values += right
                    outcomes["valid, accepted" + ("" if right else " WRONG VALUES")] += 1
            else:
                res.invalid += 1
                if verdict == "valid":
                    res.invalid_accepted += 1
                    outcomes["invalid, ACCEPTED"] += 1
                else:
                    outcomes["invalid, void"] += 1
            if verdict == "void":
                res.reasons[reason.split(":")[0].replace("die 1 ", "die ").replace("die 2 ", "die ")] += 1
        res.per_state[state] = outcomes
    return res
