"""Dice invented on a board with no dice: the per-photo reader on the simulator's empty boards.

Issue 4 asks that no die be read on a doubling cube or a checker. The photo sets show neither, and
drawn cubes and checkers (``dice_synth``) are far simpler than a board: a full board has stacks of
checkers, the cube, the points' pattern and the rails, each of which the networks can take for a die.
The simulator renders boards of every style under every camera (``roll_eval.render_case``: the
reference frame, the board before the dice land) and ``read_dice`` reads each as a photo: every die it
reports there is invented. (At the table the roll reader reads only what changed since that reference
frame, so the board itself is never read; this measures ``tablecompanion dice read`` on a board photo.)
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tablecompanion.vision.dice import DiceConfig, read_dice


@dataclass
class BoardsResult:
    frames: int = 0
    frames_with_dice: int = 0
    invented: int = 0
    by_status: Counter = field(default_factory=Counter)
    by_style: dict = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # style -> [frames, dice]
    by_preset: dict = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    seconds: float = 0.0

    def add(self, style: str, preset: str, readings: list) -> None:
        self.frames += 1
        self.frames_with_dice += bool(readings)
        self.invented += len(readings)
        self.by_status.update(r.status for r in readings)
        for table, key in ((self.by_style, style), (self.by_preset, preset)):
            table[key][0] += 1
            table[key][1] += len(readings)

    def to_dict(self) -> dict:
        return {
            "frames": self.frames,
            "frames_with_dice": self.frames_with_dice,
            "dice_invented": self.invented,
            "by_status": dict(self.by_status),
            "by_board_style": {k: {"frames": f, "dice": d} for k, (f, d) in sorted(self.by_style.items())},
            "by_camera": {k: {"frames": f, "dice": d} for k, (f, d) in sorted(self.by_preset.items())},
            "seconds": round(self.seconds, 1),
        }

    def format(self) -> str:
        status = ", ".join(f"{k} {v}" for k, v in sorted(self.by_status.items())) or "none"
        lines = [
            f"{self.frames} simulated boards without dice: {self.invented} dice invented "
            f"on {self.frames_with_dice} boards (target 0; {status})",
            "by board style: " + ", ".join(f"{k} {d} on {f}" for k, (f, d) in sorted(self.by_style.items())),
            "by camera: " + ", ".join(f"{k} {d} on {f}" for k, (f, d) in sorted(self.by_preset.items())),
            f"{self.seconds:.0f} s",
        ]
        return "\n".join(lines)


def empty_boards(frames: int, seed: int):
    """(case, board frame) for ``frames`` boards with no dice: every camera preset with every board style in
    turn; position, checkers and cube drawn from the case seed (``roll_eval.render_case``'s reference frame)."""
    import numpy as np

    from tablecompanion.vision.roll_eval import BOARD_STYLES, DICE_STYLES, PRESETS, Case, render_case

    rng = np.random.default_rng([seed, 4242])
    for i in range(frames):
        case = Case(i, "flat", PRESETS[i % len(PRESETS)], BOARD_STYLES[(i // len(PRESETS)) % len(BOARD_STYLES)],
                    DICE_STYLES[0], (1, 2), 0, int(rng.integers(1 << 30)))
        yield case, render_case(case)[0]


def evaluate_boards(frames: int = 60, seed: int = 0, config: DiceConfig | None = None,
                    annotate_dir: str | Path | None = None) -> BoardsResult:
    """Read ``frames`` empty boards: positions drawn from ``seed``, every camera preset with every board
    style in turn (``roll_eval.render_case``)."""
    import cv2

    from tablecompanion.vision.dice import annotate, annotation_dir

    out = annotation_dir(annotate_dir)
    res = BoardsResult()
    t0 = time.perf_counter()
    for case, board in empty_boards(frames, seed):
        readings = read_dice(board, config)
        res.add(case.style, case.preset, readings)
        if out and readings:
            cv2.imwrite(str(out / f"board_{seed}_{case.index:03d}.png"), annotate(board, readings))
    res.seconds = time.perf_counter() - t0
    return res
