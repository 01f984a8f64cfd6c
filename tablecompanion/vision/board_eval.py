"""Scoring board reading and play identification on simulated footage of real matches.

As chesscog scores each stage alone, this replays real .mat matches (``../shared/data/matches``) on the
simulated table (``tablecompanion.sim``): after every recorded play the board is rendered as the camera
sees it when the roller reaches for the dice (dice still down, cube in place), read, and the reading is
(1) compared point by point with the truth and (2) matched against the legal plays of the recorded roll,
which must give back the recorded play. A share of turns is also replayed with an injected illegal play
(one checker put a point off, as the simulator's own injection does) that must be flagged.

``tablecompanion board eval`` prints the figures; the numbers in docs/board-reading.md come from it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from tablecompanion.calibration.model import Calibration
from tablecompanion.vision.board_reader import BoardReadError, read_board
from tablecompanion.vision.checkers import DEFAULT_CONFIG, SIDES, CheckerConfig
from tablecompanion.vision.identify import identify_play

DEFAULT_MATCHES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "matches"


class EvalError(Exception):
    """The evaluation cannot run (no match files, unknown style or camera)."""


@dataclass
class Tally:
    """Running counts of one evaluation."""

    frames: int = 0
    points: int = 0
    points_right: int = 0
    points_consistent: int = 0  # right, or a full row read as the lower bound of its pile
    boards_exact: int = 0
    turns: int = 0
    identified: int = 0
    ambiguous: int = 0
    wrong: int = 0
    illegal_injected: int = 0
    illegal_flagged: int = 0
    illegal_missed: int = 0
    read_seconds: list[float] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)

    def figures(self) -> dict:
        return {
            "frames": self.frames,
            "per_point": self.points_right / self.points if self.points else 0.0,
            "per_point_lower_bound": self.points_consistent / self.points if self.points else 0.0,
            "boards_exact": self.boards_exact / self.frames if self.frames else 0.0,
            "turns": self.turns,
            "turns_identified": self.identified,
            "turns_ambiguous": self.ambiguous,
            "turns_wrong": self.wrong,
            "illegal_injected": self.illegal_injected,
            "illegal_flagged": self.illegal_flagged,
            "median_read_ms": 1000 * float(np.median(self.read_seconds)) if self.read_seconds else float("nan"),
        }

    def summary(self) -> list[str]:
        def pct(a: int, b: int) -> str:
            return f"{100.0 * a / b:.2f} %" if b else "n/a"

        ms = 1000 * float(np.median(self.read_seconds)) if self.read_seconds else float("nan")
        return [
            f"frames read: {self.frames} (median {ms:.0f} ms a read on this machine)",
            f"per-point accuracy (count and side): {pct(self.points_right, self.points)} of {self.points}",
            f"per-point, piles read as their lower bound: {pct(self.points_consistent, self.points)}",
            f"boards read exactly: {pct(self.boards_exact, self.frames)}",
            f"turns identified as the play made: {self.identified}/{self.turns} = {pct(self.identified, self.turns)}"
            f" (ambiguous, asked for a look: {self.ambiguous}; wrong: {self.wrong})",
            f"injected illegal plays flagged: {self.illegal_flagged}/{self.illegal_injected}"
            f" (missed: {self.illegal_missed})",
        ]


def truth_calibration(renderer) -> Calibration:
    """The calibration a perfect calibration would find for a renderer's camera (lens included)."""
    model = renderer.model
    return Calibration(renderer.geo, (renderer.camera.width, renderer.camera.height), model.homography_image_to_board(),
                       camera_matrix=model.K, dist_coeffs=model.dist, source="truth")


def score_points(reading, scene) -> tuple[int, int, int]:
    """(points right, points right or a pile read as its lower bound, points) for one frame, bar included."""
    right = consistent = total = 0
    got = reading.checkers.points
    for p in range(1, 25):
        side, n = scene.points[p - 1]
        g_side, g_n = got[p]
        ok = g_n == n and (n == 0 or g_side == side)
        lower = p in reading.checkers.piles and g_side == side and 0 < g_n <= n
        right += ok
        consistent += ok or lower
        total += 1
    bar = dict(scene.bar)
    for s in SIDES:
        ok = reading.checkers.bar.get(s, 0) == bar.get(s, 0)
        right += ok
        consistent += ok
        total += 1
    return right, consistent, total


def _wrong_play(before, turn, rng: np.random.Generator):
    """The recorded play with one checker put a point off, when that makes it illegal (else None)."""
    from tablecompanion.rules import Position

    play = before.parse_play(turn.play, turn.dice)
    results = {pl.result() for pl in before.legal_plays(turn.dice)}
    moves = list(play.moves)
    for i in rng.permutation(len(moves)):
        mv = moves[int(i)]
        if mv.hit or mv.dest == 0 or any(m.source == mv.dest for m in moves[int(i) + 1:]):
            continue
        for delta in (1, -1):
            dest = mv.dest + delta
            if not 1 <= dest <= 24 or dest == mv.source or before.opponent[24 - dest]:
                continue
            mover = list(before.on_roll)
            opp = list(before.opponent)
            for j, m in enumerate(moves):
                d = dest if j == int(i) else m.dest
                mover[24 if m.source == 25 else m.source - 1] -= 1
                if d:
                    mover[d - 1] += 1
                    if opp[24 - d] == 1:
                        opp[24 - d] = 0
                        opp[24] += 1
            try:
                wrong = Position.from_board(mover, opp)
            except Exception:  # noqa: BLE001 - a board the rules refuse is no test case
                continue
            if wrong not in results:
                return wrong, f"{mv.source}/{mv.dest} played to {dest}"
    return None


def evaluate_matches(
    matches_dir: str | Path | None = None,
    limit_matches: int = 3,
    max_turns: int | None = None,
    skip_matches: int = 0,
    styles: Iterable[str] = ("tournament", "classic", "leather"),
    cameras: Iterable[str] = ("default", "tilted"),
    illegal_share: float = 0.05,
    find_board: bool = False,
    seed: int = 0,
    failures_dir: str | None = None,
    progress: Callable[[str], None] | None = None,
    time_limit_s: float | None = None,
    config: CheckerConfig = DEFAULT_CONFIG,
) -> dict:
    """Replay matches on the simulated table and score every turn; returns figures and a summary."""
    from tablecompanion.rules import Position
    from tablecompanion.sim import Camera, Renderer, Scene
    from tablecompanion.sim.camera import PRESETS
    from tablecompanion.sim.errors import SimError
    from tablecompanion.sim.footage import script_match
    from tablecompanion.sim.scene import Die
    from tablecompanion.sim.style import STYLES

    folder = Path(matches_dir) if matches_dir else DEFAULT_MATCHES
    mats = sorted(folder.glob("*.mat")) if folder.is_dir() else []
    if not mats:
        raise EvalError(f"no .mat files found in {folder}")
    styles, cameras = list(styles), list(cameras)
    for s in styles:
        if s not in STYLES:
            raise EvalError(f"unknown board style {s!r}; choose from {', '.join(STYLES)}")
    for c in cameras:
        if c not in PRESETS:
            raise EvalError(f"unknown camera preset {c!r}; choose from {', '.join(PRESETS)}")
    rng = np.random.default_rng(seed)
    tally = Tally()
    per_combo: dict[tuple[str, str], Tally] = {}
    out_dir = Path(failures_dir) if failures_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    combos = [(s, c) for c in cameras for s in styles]
    for m_index, mat in enumerate(mats[skip_matches:skip_matches + limit_matches]):
        style, cam_name = combos[m_index % len(combos)]
        combo = per_combo.setdefault((style, cam_name), Tally())
        try:
            script = script_match(mat)
        except SimError as exc:
            if progress:
                progress(f"skipped {mat.name}: {exc}")
            continue
        renderer = Renderer(Camera.preset(cam_name), style, "right", True)
        calibration = truth_calibration(renderer)
        if find_board:
            from tablecompanion.calibration.find_board import find_board as find

            start = Scene.from_position(Position.initial(), dice=(), style=style)
            frame, _ = renderer.render(start, seed=seed)
            found = find(frame)
            if found is None:
                if progress:
                    progress(f"{mat.name}: no board found in the first frame; using the true calibration")
            else:
                calibration = found
        bottom_player = "X"
        done = 0
        for turn in script.turns:
            if max_turns is not None and done >= max_turns:
                break
            if time_limit_s is not None and time.perf_counter() - started > time_limit_s:
                break
            if turn.kind != "roll" or turn.play is None or turn.position_id_before is None:
                continue
            done += 1
            before = Position.from_position_id(turn.position_id_before)
            mover_at = "bottom" if turn.player == bottom_player else "top"
            mover_side = "light" if mover_at == "bottom" else "dark"
            dice = tuple(Die(int(v), pose_seed=int(rng.integers(0, 2**31))) for v in turn.dice)
            boards = turn.boards_after
            scene = Scene.from_boards(boards[bottom_player], boards[_other(bottom_player)], style=style,
                                      roller=mover_at, dice=dice, jitter_seed=m_index)
            expected = before.parse_play(turn.play, turn.dice).result()
            name = f"{mat.stem[:24]}-{style}-{cam_name}-g{turn.game}-t{turn.index}"
            found, frame, reading = _read_and_identify(renderer, scene, calibration, before, turn.dice, mover_side,
                                                       mover_at, int(rng.integers(0, 2**31)), (tally, combo), config)
            for t in (tally, combo):
                t.turns += 1
            if found is not None and found.verdict == "legal" and found.play is not None and found.play.result() == expected:
                outcome = "identified"
            elif found is not None and found.verdict == "ambiguous" and any(p.result() == expected for p, _ in found.candidates):
                outcome = "ambiguous"
            else:
                outcome = "wrong"
                tally.failures.append({"match": mat.name, "style": style, "camera": cam_name, "game": turn.game,
                                       "turn": turn.index, "play": turn.play, "dice": list(turn.dice),
                                       "verdict": None if found is None else found.verdict,
                                       "read_as": None if found is None or found.play is None else str(found.play),
                                       "reason": "no board read" if found is None else found.reason})
            for t in (tally, combo):
                setattr(t, outcome, getattr(t, outcome) + 1)
            if out_dir is not None and frame is not None and (outcome != "identified" or _misread(reading, scene)):
                _save_failure(out_dir, name, frame, reading)
            if illegal_share and rng.random() < illegal_share:
                wrong = _wrong_play(before, turn, rng)
                if wrong is not None:
                    wrong_pos, what = wrong
                    mover_board, opp_board = wrong_pos.on_roll, wrong_pos.opponent
                    if mover_at == "bottom":
                        bottom_b, top_b = mover_board, opp_board
                    else:
                        bottom_b, top_b = opp_board, mover_board
                    bad = Scene.from_boards(bottom_b, top_b, style=style, roller=mover_at, dice=dice, jitter_seed=m_index)
                    flagged, frame, reading = _read_and_identify(renderer, bad, calibration, before, turn.dice, mover_side,
                                                                 mover_at, int(rng.integers(0, 2**31)), (tally, combo), config)
                    ok = flagged is not None and flagged.verdict in ("illegal", "ambiguous")
                    for t in (tally, combo):
                        t.illegal_injected += 1
                        t.illegal_flagged += ok
                        t.illegal_missed += not ok
                    if not ok:
                        tally.failures.append({"match": mat.name, "style": style, "camera": cam_name, "game": turn.game,
                                               "turn": turn.index, "injected": what,
                                               "verdict": None if flagged is None else flagged.verdict})
                        if out_dir is not None and frame is not None:
                            _save_failure(out_dir, f"{mat.stem[:24]}-{style}-{cam_name}-illegal-g{turn.game}-t{turn.index}",
                                          frame, reading)
        if progress:
            progress(f"{mat.name} ({style}, {cam_name} camera): " + "; ".join(tally.summary()[1:5]))
    by_combo = {f"{s}/{c}": t.figures() for (s, c), t in per_combo.items()}
    report = {
        "frames": tally.frames,
        "per_point_accuracy": tally.points_right / tally.points if tally.points else None,
        "per_point_lower_bound_accuracy": tally.points_consistent / tally.points if tally.points else None,
        "boards_exact": tally.boards_exact / tally.frames if tally.frames else None,
        "turns": tally.turns,
        "turns_identified": tally.identified,
        "turns_ambiguous": tally.ambiguous,
        "turns_wrong": tally.wrong,
        "illegal_injected": tally.illegal_injected,
        "illegal_flagged": tally.illegal_flagged,
        "median_read_ms": 1000 * float(np.median(tally.read_seconds)) if tally.read_seconds else None,
        "failures": tally.failures[:200],
        "by_style_camera": by_combo,
        "summary": tally.summary() + [""] + [
            f"{k:<22} points {v['per_point']:.2%} (piles as lower bound {v['per_point_lower_bound']:.2%}), "
            f"turns {v['turns_identified']}/{v['turns']} (ambiguous {v['turns_ambiguous']}, wrong {v['turns_wrong']}), "
            f"illegal flagged {v['illegal_flagged']}/{v['illegal_injected']}, read {v['median_read_ms']:.0f} ms"
            for k, v in by_combo.items() if v["turns"]],
    }
    return report


def _read_and_identify(renderer, scene, calibration, before, dice, mover_side, mover_at, seed, tallies,
                       config: CheckerConfig = DEFAULT_CONFIG):
    """Render, read and identify one board; returns (identification or None, frame, reading or None)."""
    frame, _ = renderer.render(scene, seed=seed)
    t0 = time.perf_counter()
    try:
        reading = read_board(frame, calibration, config)
    except BoardReadError:
        for t in tallies:
            t.frames += 1
        return None, frame, None
    spent = time.perf_counter() - t0
    right, consistent, total = score_points(reading, scene)
    for t in tallies:
        t.read_seconds.append(spent)
        t.frames += 1
        t.points += total
        t.points_right += right
        t.points_consistent += consistent
        t.boards_exact += right == total
    return identify_play(before, dice, reading.observation(mover_side, mover_at)), frame, reading


def _misread(reading, scene) -> bool:
    """A point or the bar read wrong beyond a pile read as its lower bound."""
    if reading is None:
        return True
    _, consistent, total = score_points(reading, scene)
    return consistent != total


def _save_failure(out_dir: Path, name: str, frame, reading, limit: int = 60) -> None:
    import cv2

    from tablecompanion.vision.board_annotate import annotate_reading

    if len(list(out_dir.glob("*.png"))) >= limit:
        return
    cv2.imwrite(str(out_dir / f"{name}.png"), frame if reading is None else annotate_reading(frame, reading))


def _other(player: str) -> str:
    return "O" if player == "X" else "X"


def evaluate_footage(
    mat_path: str | Path,
    max_turns: int = 8,
    inject: str = "illegal:0.3,correction:0.5",
    style: str = "tournament",
    camera: str = "default",
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Run the whole camera path on the simulator's 30 fps footage of a real match: a ``BoardWatcher``
    waits for a clear, still board, and each stable reading is identified against the turn in play.

    Scores: stable readings taken while a hand was over the board (must be 0), stable readings that
    differ from the truth, turns whose play was identified, injected illegal plays flagged before the
    correction.
    """
    from tablecompanion.rules import Position
    from tablecompanion.sim import Camera, Renderer
    from tablecompanion.sim.footage import iter_match_frames, script_match
    from tablecompanion.vision.occlusion import BoardWatcher

    path = Path(mat_path)
    if not path.is_file():
        raise EvalError(f"no match file {path}")
    script = script_match(path)
    cam = Camera.preset(camera)
    renderer = Renderer(cam, style, "right", True)
    watcher = BoardWatcher(truth_calibration(renderer))
    turns: list[dict] = []
    readings: list[dict] = []
    illegal_windows: list[dict] = []
    frames = 0
    last_played: tuple | None = None  # the turn whose play the board now shows
    for frame, truth in iter_match_frames(path, seed, 30.0, inject, camera=cam, style=style, bottom="X",
                                          max_turns=max_turns, script=script, turns_out=turns):
        frames += 1
        for ev in truth["events"]:
            if ev["type"] in ("play_made", "illegal_play"):
                last_played = (ev["game"], ev["turn"])
            elif ev["type"] == "game_start":
                last_played = None
            if ev["type"] == "illegal_play":
                illegal_windows.append({"game": ev["game"], "turn": ev["turn"], "flagged": False, "open": True})
            elif ev["type"] == "correction" and illegal_windows:
                illegal_windows[-1]["open"] = False
        event = watcher.feed(frame)
        if event is None:
            continue
        mask = truth.get("hand_mask")
        hand_on_board = bool(mask is not None and np.any(mask))
        x_board, o_board = truth["board"]["X"], truth["board"]["O"]
        played = last_played or (None, None)
        readings.append({"frame": truth["frame"], "game": played[0], "turn": played[1],
                         "phase": truth["phase"], "hand": hand_on_board, "reading": event.reading,
                         "truth": (tuple(x_board), tuple(o_board)),
                         "in_illegal": bool(illegal_windows and illegal_windows[-1]["open"])})
    by_turn = {(t["game"], t["turn"]): t for t in turns}
    stats = {"frames": frames, "stable_readings": len(readings), "with_hand": 0, "misread": 0,
             "turns": 0, "identified": 0, "illegal_injected": len(illegal_windows), "illegal_flagged": 0}
    identified_turns = set()
    for r in readings:
        stats["with_hand"] += r["hand"]
        reading = r["reading"]
        x_seen = reading.observation("light", "bottom")
        if (tuple(x_seen.mover), tuple(x_seen.opponent)) != r["truth"]:
            stats["misread"] += 1
        rec = by_turn.get((r["game"], r["turn"]))
        if rec is None:
            continue
        if rec is None or rec["kind"] != "roll" or not rec.get("position_id_before") or rec.get("play") is None:
            continue
        before = Position.from_position_id(rec["position_id_before"])
        mover_at = "bottom" if rec["player"] == "X" else "top"
        found = identify_play(before, tuple(rec["dice"]), reading.observation("light" if mover_at == "bottom" else "dark", mover_at))
        expected = before.parse_play(rec["play"], tuple(rec["dice"])).result()
        if found.verdict == "legal" and found.play is not None and found.play.result() == expected:
            identified_turns.add((r["game"], r["turn"]))
        if r["in_illegal"] and found.verdict == "illegal":
            for w in illegal_windows:
                if (w["game"], w["turn"]) == (r["game"], r["turn"]):
                    w["flagged"] = True
    roll_turns = [t for t in turns if t["kind"] == "roll" and t.get("play") is not None and t.get("position_id_before")]
    stats["turns"] = len(roll_turns)
    stats["identified"] = sum((t["game"], t["turn"]) in identified_turns for t in roll_turns)
    stats["illegal_flagged"] = sum(w["flagged"] for w in illegal_windows)
    stats["summary"] = [
        f"footage: {frames} frames of {path.name} ({style}, {camera} camera, inject {inject})",
        f"stable readings: {stats['stable_readings']}, taken with a hand over the board: {stats['with_hand']}, "
        f"differing from the truth: {stats['misread']}",
        f"turns identified from the stable readings: {stats['identified']}/{stats['turns']}",
        f"injected illegal plays flagged before the correction: {stats['illegal_flagged']}/{stats['illegal_injected']}",
    ]
    if progress:
        for line in stats["summary"]:
            progress(line)
    return stats
