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
from dataclasses import dataclass, field, replace
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
    got = reading.completed()[0]  # what board read prints: a pile's hidden checkers put back where they must be
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
    window_glint: float | None = None,
) -> dict:
    """Replay matches on the simulated table and score every turn; returns figures and a summary.
    ``window_glint``: the window behind the far player mirrored in glossy tops (``Camera.window_glint``; None:
    the camera preset's own)."""
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
        renderer = Renderer(_with_window(Camera.preset(cam_name), window_glint), style, "right", True)
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
            outcome = "wrong" if found is None else _turn_outcome(found, expected)
            if outcome == "wrong":
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
                    ok = flagged is not None and _flagged(flagged)
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


def _save_failure(out_dir: Path, name: str, frame, reading, limit: int = 100) -> None:
    import cv2

    from tablecompanion.vision.board_annotate import annotate_reading

    if len(list(out_dir.glob("*.png"))) >= 2 * limit:  # each failure: the annotated frame and the raw one
        return
    cv2.imwrite(str(out_dir / f"{name}.png"), frame if reading is None else annotate_reading(frame, reading))
    cv2.imwrite(str(out_dir / f"{name}.raw.png"), frame)  # lossless: the same pixels the reader saw


def _with_window(camera, window_glint: float | None):
    """``camera`` with the window's glint asked for (None: as the preset has it)."""
    return camera if window_glint is None else replace(camera, window_glint=window_glint)


def _other(player: str) -> str:
    return "O" if player == "X" else "X"


def evaluate_footage(
    mat_path: str | Path,
    max_turns: int | None = 8,
    inject: str = "illegal:0.3,correction:0.5",
    style: str = "tournament",
    camera: str = "default",
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    failures_dir: str | None = None,
    time_limit_s: float | None = None,
    observations_out: str | Path | None = None,
    window_glint: float | None = None,
    flicker: float = 0.0,
    light_changes: bool = False,
) -> dict:
    """Run the whole camera path on the simulator's 30 fps footage of a real match: a ``BoardWatcher``
    waits for a clear, still board and emits each new stable reading; the referee takes, for each turn,
    the last stable reading before the next player starts moving (or before a correction starts), and
    play identification is scored on it.

    A turn runs from its roll settling until the next mover picks up a checker: the last reading in that
    span shows the play made (the board is clear between the pick-up of the dice and the next roll, and
    while the next roll lies settled). For a turn with an injected illegal play, the last reading before
    the correction is the illegal board, and it must be flagged. Readings taken while a hand covered the
    playing surface are counted (they should not exist: the watcher waits for a clear board).

    Every stable reading that differs from the truth is listed (``misreads``: frame, phase, dice and cube on
    the board, and the places read wrong, a pile read as its lower bound told apart), and with
    ``failures_dir`` its frame is written (annotated and raw), as is the frame each wrongly identified turn
    was scored on. ``time_limit_s`` stops the footage early (the turn it stops in is not scored).
    With ``observations_out`` every identification scored is appended to that file as a JSON line (the turn,
    the roll, the recorded play and the board as observed), so :func:`replay_observations` can score a
    change to play identification on the same readings in seconds instead of re-running the footage.
    ``window_glint``, ``flicker`` and ``light_changes`` are the footage's window in glossy tops, mains flicker
    and the room's light changing (``Camera.window_glint``, ``iter_match_frames``).
    """
    import cv2

    from tablecompanion.rules import Position
    from tablecompanion.sim import Camera, Renderer
    from tablecompanion.sim.footage import iter_match_frames, script_match
    from tablecompanion.vision.occlusion import BoardWatcher

    path = Path(mat_path)
    if not path.is_file():
        raise EvalError(f"no match file {path}")
    script = script_match(path)
    cam = _with_window(Camera.preset(camera), window_glint)
    renderer = Renderer(cam, style, "right", True)
    calibration = truth_calibration(renderer)
    watcher = BoardWatcher(calibration)
    surface = np.zeros((cam.height, cam.width), np.uint8)
    cv2.fillPoly(surface, [np.round(calibration.rect_polygon_image(calibration.geometry.surface, 8)).astype(np.int32)], 1)
    surface = surface.astype(bool)
    turns: list[dict] = []
    stats = {"frames": 0, "stable_readings": 0, "with_hand": 0, "misread": 0, "turns": 0, "identified": 0,
             "ambiguous": 0, "wrong": 0, "no_reading": 0, "illegal_injected": 0, "illegal_flagged": 0, "failures": [],
             "misread_pile_only": 0, "misreads": []}
    out_dir = Path(failures_dir) if failures_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    images: dict[int, np.ndarray] = {}  # frame index -> picture of a stable reading still referred to
    started = time.perf_counter()
    cut_short = False
    book = FootageTurns()
    log = None if observations_out is None else _ObservationLog(observations_out, path.name, style, camera, seed)

    def settle(key, reading_entry) -> None:
        by_turn = {(t["game"], t["turn"]): t for t in turns}
        rec = by_turn.get(key)
        if rec is None or rec["kind"] != "roll" or not rec.get("position_id_before") or rec.get("play") is None:
            return
        stats["turns"] += 1
        if reading_entry is None:
            stats["no_reading"] += 1
            stats["wrong"] += 1
            stats["failures"].append({"game": key[0], "turn": key[1], "play": rec["play"], "why": "no stable reading"})
            return
        found = _identify_record(rec, reading_entry[1], Position, book.before.get(key), log, "turn", reading_entry[0])
        expected = Position.from_position_id(rec["position_id_before"]).parse_play(rec["play"], tuple(rec["dice"])).result()
        outcome = _turn_outcome(found, expected)
        stats[outcome] += 1
        if outcome != "identified":
            stats["failures"].append({"game": key[0], "turn": key[1], "play": rec["play"], "frame": reading_entry[0],
                                      "verdict": found.verdict, "reason": found.reason,
                                      "read_as": None if found.play is None else str(found.play)})
            if out_dir is not None and reading_entry[0] in images:
                _save_failure(out_dir, f"turn-g{key[0]}-t{key[1]}-f{reading_entry[0]}", images[reading_entry[0]],
                              reading_entry[1])

    for frame, truth in iter_match_frames(path, seed, 30.0, inject, camera=cam, style=style, bottom="X",
                                          max_turns=max_turns, script=script, turns_out=turns, flicker=flicker,
                                          light_changes=light_changes):
        if time_limit_s is not None and time.perf_counter() - started > time_limit_s:
            cut_short = True
            break
        stats["frames"] += 1
        for key, entry in book.frame(truth):
            settle(key, entry)
        event = watcher.feed(frame)
        if event is None:
            continue
        stats["stable_readings"] += 1
        mask = truth.get("hand_mask")
        hand = bool(mask is not None and int(np.count_nonzero(mask & surface)) > 50)
        stats["with_hand"] += hand
        if hand:
            stats["failures"].append({"frame": truth["frame"], "why": "stable reading with a hand over the surface",
                                      "hand_px": int(np.count_nonzero(mask & surface))})
        wrong = _footage_misread(event.reading, truth["board"])
        if wrong:
            stats["misread"] += 1
            pile_only = all(w["pile_lower_bound"] for w in wrong)
            stats["misread_pile_only"] += pile_only
            stats["misreads"].append({"frame": truth["frame"], "game": truth["game"], "turn": truth["turn"],
                                      "phase": truth["phase"], "dice": len(truth["dice"] or ()),
                                      "cube": truth["cube"].get("position"), "hand_px": int(np.count_nonzero(mask))
                                      if mask is not None else 0, "pile_only": pile_only, "places": wrong})
            if out_dir is not None and not pile_only:
                _save_failure(out_dir, f"misread-f{truth['frame']}-g{truth['game']}-t{truth['turn']}-{truth['phase']}",
                              frame, event.reading)
        book.reading(truth["frame"], event.reading)
        images = {truth["frame"]: frame}  # only the latest stable reading's picture can still be scored
    if max_turns is None and not cut_short:
        for key, entry in book.finish():  # the match's last play (footage cut short ends mid-turn: not scored)
            settle(key, entry)
    by_turn = {(t["game"], t["turn"]): t for t in turns}
    stats["illegal_injected"] = len(book.illegal_at)
    stats["illegal_never_clear"] = 0
    for key, entry in book.pre_correction.items():
        rec = by_turn.get(key)
        if rec is None or not entry:
            continue
        if entry[1] is None or (entry[0] is not None and entry[0] < book.illegal_at.get(key, 0)):
            # the hand never left the board between the illegal play and its correction: no clear picture of
            # the illegal board exists, and the play the turn ends with (the corrected one) is what is scored
            stats["illegal_never_clear"] += 1
            continue
        found = _identify_record(rec, entry[1], Position, book.before.get(key), log, "pre_correction", entry[0])
        if _flagged(found):
            stats["illegal_flagged"] += 1
        else:
            stats["failures"].append({"game": key[0], "turn": key[1], "injected_illegal": True, "frame": entry[0],
                                      "verdict": found.verdict})
    stats["summary"] = [
        f"footage: {stats['frames']} frames of {path.name} ({style}, {camera} camera, inject {inject})",
        f"stable readings: {stats['stable_readings']}, taken with a hand over the playing surface: {stats['with_hand']}, "
        f"differing from the truth: {stats['misread']} (of which only a pile read as its lower bound: "
        f"{stats['misread_pile_only']})",
        f"turns identified from the last stable reading of the turn: {stats['identified']}/{stats['turns']}"
        f" (ambiguous {stats['ambiguous']}, wrong {stats['wrong']}, of which no reading {stats['no_reading']})",
        f"injected illegal plays flagged before the correction: {stats['illegal_flagged']}/"
        f"{stats['illegal_injected'] - stats['illegal_never_clear']} (corrected before the board was ever clear, "
        f"so never visible: {stats['illegal_never_clear']})",
    ]
    if progress:
        for line in stats["summary"]:
            progress(line)
    return stats


class FootageTurns:
    """Which stable reading each turn of simulator footage is scored on, from the footage's events.

    The referee takes, for a turn, the last stable reading before the board can change again: before the
    next mover picks up a checker, or, for a game's last play, before the next game is set up (the board
    stands through the game-over pause; a cube turned in between moves no checker). For an injected
    illegal play, the last reading before its correction begins is kept apart (``pre_correction``).

    Feed each frame's truth with :meth:`frame` before its reading (it returns the turns to score now, with
    their reading ``(frame index, reading)`` or None), each stable reading with :meth:`reading`, and call
    :meth:`finish` at the end of whole footage.
    """

    def __init__(self) -> None:
        self.current = None  # (game, turn) whose roll settled last
        self.open = None  # a turn played, waiting for the board to be final
        self.last = None  # (frame index, reading) of the latest stable reading
        self.moved_at: dict = {}  # (game, turn) -> frame of its latest checker placed (or hit checker on the bar)
        self.illegal_at: dict = {}  # (game, turn) -> first frame showing its injected illegal play
        self.pre_correction: dict = {}  # (game, turn) -> last reading before its correction began
        self.before: dict = {}  # (game, turn) -> the latest stable reading when its roll settled (the board before)

    def frame(self, truth: dict) -> list:
        due = []
        for ev in truth["events"]:
            key = (ev.get("game"), ev.get("turn"))
            kind = ev["type"]
            if kind == "roll_settled":
                self.current = key
                self.before[key] = self.last[1] if self.last else None
            elif kind == "checker_picked" and self.open is not None and key != self.open:
                due.append(self._close())
            elif kind in ("play_made", "illegal_play") and key == self.current:
                if self.open is not None and self.open != key:
                    due.append(self._close())  # the turn before a play that moved nothing (a dance)
                self.open = key
            elif kind == "game_start" and self.open is not None:
                due.append(self._close())  # the game that ended was seen through its game-over pause
            if kind in ("checker_placed", "checker_hit"):
                self.moved_at[key] = truth["frame"]
            if kind == "illegal_play":
                self.pre_correction[key] = None
                # the event comes once the hand is back at rest: the illegal board stands from its last checker
                self.illegal_at[key] = self.moved_at.get(key, truth["frame"])
            # a correction begins when a checker is picked up while the illegal board stands
            if kind in ("checker_picked", "correction") and self.pre_correction.get(key, False) is None:
                self.pre_correction[key] = self.last or (None, None)
        return due

    def reading(self, frame_index: int, reading) -> None:
        self.last = (frame_index, reading)

    def finish(self) -> list:
        return [self._close()] if self.open is not None else []

    def _close(self):
        key, self.open = self.open, None
        return key, self.last


def _footage_misread(reading, board: dict) -> list[dict]:
    """Where a stable reading differs from the checkers physically on the board (X light at the bottom):
    one entry per point (bottom numbering) or bar side, with the truth, the reading, and whether it is only
    a pile read as its lower bound (the row under it: identification takes it as such)."""
    c = reading.checkers
    xs, os_ = board["X"], board["O"]
    wrong = []
    for p in range(1, 25):
        if xs[p - 1]:
            truth = ("light", int(xs[p - 1]))
        elif os_[24 - p]:
            truth = ("dark", int(os_[24 - p]))
        else:
            truth = (None, 0)
        side, n = c.points.get(p, (None, 0))
        got = (side if n else None, int(n))
        if got != truth:
            lower = p in c.piles and got[0] == truth[0] and 0 < got[1] < truth[1]
            wrong.append({"place": p, "truth": list(truth), "read": list(got), "pile_lower_bound": bool(lower),
                          "uncertain": p in c.uncertain})
    for side, n in (("light", xs[24]), ("dark", os_[24])):
        if int(c.bar.get(side, 0)) != int(n):
            wrong.append({"place": f"bar-{side}", "truth": [side, int(n)], "read": [side, int(c.bar.get(side, 0))],
                          "pile_lower_bound": False, "uncertain": 25 in c.uncertain})
    return wrong


def _identify_record(rec: dict, reading, Position, before_reading=None, log=None, kind: str = "turn", frame=None):
    """The turn's play identified from ``reading``, as the referee does it: with the reading of the board
    before the play (``before_reading``) the mover's tray is counted as its change since then. With ``log``
    (an ``_ObservationLog``) the observation is written down for a later replay."""
    before = Position.from_position_id(rec["position_id_before"])
    mover_at = "bottom" if rec["player"] == "X" else "top"
    side = "light" if mover_at == "bottom" else "dark"
    seen = reading.observation(side, mover_at, before=before_reading, off_before=before.borne_off[0])
    if log is not None:
        log.write(rec, kind, frame, seen)
    return identify_play(before, tuple(rec["dice"]), seen)


def _turn_outcome(found, expected) -> str:
    """How a turn's identification scores against the play made (``expected``, its resulting position):
    "identified", "ambiguous" (a look asked for, the play among the candidates) or "wrong"."""
    if found.verdict == "legal" and found.play is not None and found.play.result() == expected:
        return "identified"
    if found.verdict == "ambiguous" and any(p.result() == expected for p, _ in found.candidates):
        return "ambiguous"
    return "wrong"


def _flagged(found) -> bool:
    """An injected illegal play counts as caught when it is called illegal or a look is asked for."""
    return found.verdict in ("illegal", "ambiguous")


class _ObservationLog:
    """Appends each scored identification's inputs to a JSON-lines file, flushed line by line (a run cut
    off keeps what it had)."""

    def __init__(self, path: str | Path, match: str, style: str, camera: str, seed: int) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.head = {"match": match, "style": style, "camera": camera, "seed": seed}

    def write(self, rec: dict, kind: str, frame, seen) -> None:
        import json

        line = dict(self.head, kind=kind, game=rec["game"], turn=rec["turn"], player=rec["player"],
                    position_id_before=rec["position_id_before"], dice=list(rec["dice"]), play=rec["play"],
                    frame=frame, observation=seen.to_json())
        with self.path.open("a") as fh:
            fh.write(json.dumps(line) + "\n")


def replay_observations(path: str | Path) -> dict:
    """Score play identification as the code stands now on the observations ``evaluate_footage`` wrote:
    the footage run's figures (turns identified, asked for a look, wrong; injected illegal plays flagged)
    and the failures. Each line is identified afresh, so a change to identification is measured on the
    same readings without rendering the footage again."""
    import json

    from tablecompanion.rules import Position
    from tablecompanion.vision.identify import BoardObservation

    file = Path(path)
    if not file.is_file():
        raise EvalError(f"no observations file {file}")
    stats = {"lines": 0, "turns": 0, "identified": 0, "ambiguous": 0, "wrong": 0, "illegal_seen": 0,
             "illegal_flagged": 0, "failures": []}
    for number, text in enumerate(file.read_text().splitlines(), 1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
            before = Position.from_position_id(line["position_id_before"])
            dice = tuple(line["dice"])
            seen = BoardObservation.from_json(line["observation"])
            expected = before.parse_play(line["play"], dice).result()
        except (ValueError, KeyError, TypeError) as exc:
            raise EvalError(f"{file}:{number}: not an observation line ({exc})") from exc
        stats["lines"] += 1
        found = identify_play(before, dice, seen)
        where = {k: line.get(k) for k in ("match", "game", "turn", "frame")}
        if line.get("kind") == "pre_correction":
            stats["illegal_seen"] += 1
            if _flagged(found):
                stats["illegal_flagged"] += 1
            else:
                stats["failures"].append(dict(where, injected_illegal=True, verdict=found.verdict,
                                              read_as=None if found.play is None else str(found.play)))
            continue
        stats["turns"] += 1
        outcome = _turn_outcome(found, expected)
        stats[outcome] += 1
        if outcome == "identified":
            continue
        stats["failures"].append(dict(where, play=line["play"], verdict=found.verdict, reason=found.reason,
                                      read_as=None if found.play is None else str(found.play)))
    stats["summary"] = [
        f"replayed {stats['lines']} observations from {file.name}",
        f"turns identified: {stats['identified']}/{stats['turns']} (ambiguous {stats['ambiguous']}, "
        f"wrong {stats['wrong']})",
        f"injected illegal plays flagged before the correction: {stats['illegal_flagged']}/{stats['illegal_seen']}",
    ]
    return stats


def photo_cases(n: int, seed: int = 0, tilt: tuple[float, float] = (0.0, 35.0), skip: int = 0):
    """``n`` photo-like pictures with their scenes: random mid-game positions from real matches, every board
    style, a random camera (overhead to 35 degrees, or within ``tilt``: a phone held by a seated player looks
    at 35-60; turned, rolled, near or far, phone-like sizes and lenses),
    mixed light (exposure, colour cast, vignetting, weak or strong lamp), noise, focus blur and JPEG, a hand
    in the picture one time in three, dice on the board. Yields (image, scene, truth, description) for cases
    ``skip`` .. ``n - 1``: the cases before are drawn but not rendered, so case k alone is quick to look at."""
    from tablecompanion.rules import Position
    from tablecompanion.sim import Camera, Hand, Renderer, Scene
    from tablecompanion.sim.footage import script_match
    from tablecompanion.sim.scene import Die
    from tablecompanion.sim.style import STYLES

    rng = np.random.default_rng(seed)
    mats = sorted(DEFAULT_MATCHES.glob("*.mat")) if DEFAULT_MATCHES.is_dir() else []
    positions = []
    for mat in mats[:: max(1, len(mats) // 8)][:8]:
        try:
            script = script_match(mat)
        except Exception:  # noqa: BLE001 - a file the simulator cannot replay gives no positions
            continue
        positions += [t.position_id_before for t in script.turns if t.kind == "roll" and t.position_id_before]
    if not positions:
        positions = [Position.initial().position_id()]
    styles = list(STYLES)
    sizes = [(1280, 720), (1920, 1080), (1600, 1200), (1024, 768), (1280, 960)]
    for i in range(n):
        pid = positions[int(rng.integers(len(positions)))]
        style = styles[i % len(styles)]
        w, h = sizes[int(rng.integers(len(sizes)))]
        cam = Camera(
            width=w, height=h,
            tilt_deg=float(rng.uniform(*tilt)), yaw_deg=float(rng.uniform(-12, 12)), roll_deg=float(rng.uniform(-8, 8)),
            distance_mm=float(rng.uniform(850, 1300)),
            distortion=(float(rng.uniform(-0.12, 0.02)), 0.01, 0.0, 0.0, 0.0),
            focus_blur=float(rng.uniform(0.3, 1.6)), noise=float(rng.uniform(1.0, 5.0)),
            jpeg_quality=int(rng.integers(60, 95)),
        ).relit(rng)
        hands = ()
        if rng.random() < 1 / 3:
            hands = (Hand("bottom" if rng.random() < 0.5 else "top", x=float(rng.uniform(150, 700)),
                          y=float(rng.uniform(100, 450)), spread=float(rng.uniform(0.2, 0.9))),)
        dice = tuple(Die(int(rng.integers(1, 7)), pose_seed=int(rng.integers(0, 2**31))) for _ in range(2))
        scene = Scene.from_position(pid, dice=dice, style=style, hands=hands, jitter_seed=int(rng.integers(0, 1000)),
                                    markers=bool(rng.random() < 0.3))
        render_seed = int(rng.integers(0, 2**31))
        if i < skip:
            continue
        renderer = Renderer(cam, style, "right", scene.markers)
        img, truth = renderer.render(scene, seed=render_seed)
        yield img, scene, truth, (f"{style}, {w}x{h}, tilt {cam.tilt_deg:.0f}, yaw {cam.yaw_deg:.0f}, roll {cam.roll_deg:.0f}, "
                                  f"exposure {cam.exposure:.2f}" + (", hand" if hands else ""))


def evaluate_photos(n: int = 24, seed: int = 0, progress: Callable[[str], None] | None = None,
                    failures_dir: str | None = None, tilt: tuple[float, float] = (0.0, 35.0)) -> dict:
    """``board read`` as the held-out evaluation runs it (no profile: the board is found in the picture) on
    photo-like renders (:func:`photo_cases`); scored per point (count and side) against the truth. Points
    under a hand count as they are: the reader must mark them uncertain or get them right."""
    import cv2

    from tablecompanion.vision.board_annotate import annotate_reading

    out_dir = Path(failures_dir) if failures_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    totals = {"images": 0, "boards_found": 0, "points": 0, "right": 0, "uncertain": 0, "wrong_sure": 0,
              "seconds": []}
    lines = []
    for k, (img, scene, truth, what) in enumerate(photo_cases(n, seed, tilt)):
        totals["images"] += 1
        t0 = time.perf_counter()
        try:
            reading = read_board(img)
        except BoardReadError as exc:
            totals["points"] += 24
            lines.append(f"{k:3d} {what}: no board ({exc})")
            continue
        finally:
            totals["seconds"].append(time.perf_counter() - t0)
        totals["boards_found"] += 1
        out = reading.to_json()
        right = unsure = wrong = 0
        for p in range(1, 25):
            colour, count = scene.points[p - 1]
            got = out["points"][str(p)]
            ok = got["count"] == count and (count == 0 or got["side"] == colour)
            if ok:
                right += 1
            elif p in out["uncertain"]:
                unsure += 1
            else:
                wrong += 1
        totals["points"] += 24
        totals["right"] += right
        totals["uncertain"] += unsure
        totals["wrong_sure"] += wrong
        lines.append(f"{k:3d} {what}: {right}/24 right, {unsure} uncertain, {wrong} wrong")
        if out_dir is not None and (wrong or unsure):
            cv2.imwrite(str(out_dir / f"photo-{k:03d}.png"), annotate_reading(img, reading))
        if progress:
            progress(lines[-1])
    pts = max(1, totals["points"])
    summary = [
        f"photo-like renders: {totals['images']}, board found in {totals['boards_found']}",
        f"per-point accuracy (count and side, every point of every image): {100 * totals['right'] / pts:.1f} %",
        f"points marked uncertain: {100 * totals['uncertain'] / pts:.1f} %; read wrong without a mark: "
        f"{100 * totals['wrong_sure'] / pts:.1f} %",
        f"median time of a read without a profile: {float(np.median(totals['seconds'])):.1f} s",
    ]
    totals["seconds"] = float(np.median(totals["seconds"])) if totals["seconds"] else None
    return {**totals, "cases": lines, "summary": summary}


def evaluate_trays(n: int = 60, seed: int = 0, progress: Callable[[str], None] | None = None) -> dict:
    """The tray count as play identification uses it, on ``n`` bearing-off turns of real matches: the board
    before the turn and after its play rendered (every style and camera preset, either player moving), both
    read, and the mover's tray counted as its change since the board before (only turns where the mover had
    borne off a checker already: from an empty tray the count is not used). Scored against the play's
    result: right, not counted (None: the turn stays as the points say), or wrong."""
    from tablecompanion.rules import Position
    from tablecompanion.sim import Camera, Renderer, Scene
    from tablecompanion.sim.footage import script_match
    from tablecompanion.sim.style import STYLES

    rng = np.random.default_rng(seed)
    mats = sorted(DEFAULT_MATCHES.glob("*.mat")) if DEFAULT_MATCHES.is_dir() else []
    if not mats:
        raise EvalError(f"no .mat files in {DEFAULT_MATCHES}: the tray evaluation replays real matches' bear-offs")
    cases = []
    for mat in mats[:: max(1, len(mats) // 20)]:
        try:
            script = script_match(mat)
        except Exception:  # noqa: BLE001 - a file the simulator cannot replay gives no cases
            continue
        for t in script.turns:
            if t.kind == "roll" and t.play and "off" in t.play and t.position_id_before:
                before = Position.from_position_id(t.position_id_before)
                if before.borne_off[0] >= 1:
                    cases.append((before, tuple(t.dice), t.play))
    picks = rng.choice(len(cases), size=min(n, len(cases)), replace=False)
    cameras = ["top", "default", "tilted", "steep"]
    totals = {"cases": 0, "right": 0, "not_counted": 0, "wrong": 0, "wrong_cases": []}
    lines = []
    for k, i in enumerate(picks):
        before, dice, play = cases[int(i)]
        after = before.parse_play(play, dice).result()
        style = list(STYLES)[k % len(STYLES)]
        camera = cameras[(k // len(STYLES)) % len(cameras)]
        mover_at = "bottom" if k % 2 == 0 else "top"
        bottom = "on_roll" if mover_at == "bottom" else "opponent"
        calibration, reads = None, []
        for j, position in enumerate((before, after)):
            scene = Scene.from_position(position, bottom=bottom, dice=None, style=style,
                                        jitter_seed=int(rng.integers(0, 1000)))
            renderer = Renderer(Camera.preset(camera), style, "right", scene.markers)
            img, _ = renderer.render(scene, seed=int(rng.integers(0, 2**31)))
            calibration = calibration or truth_calibration(renderer)
            reads.append(read_board(img, calibration))
        side = "light" if mover_at == "bottom" else "dark"
        seen = reads[1].observation(side, mover_at, before=reads[0], off_before=before.borne_off[0])
        truth = after.borne_off[0]
        what = f"{style}/{camera}, {mover_at} player: {play} ({before.borne_off[0]} -> {truth} off)"
        totals["cases"] += 1
        if seen.off is None:
            totals["not_counted"] += 1
            lines.append(f"{k:3d} {what}: not counted")
        elif seen.off == truth:
            totals["right"] += 1
            lines.append(f"{k:3d} {what}: right")
        else:
            totals["wrong"] += 1
            totals["wrong_cases"].append(what + f": read {seen.off}")
            lines.append(f"{k:3d} {what}: WRONG, read {seen.off}")
        if progress:
            progress(lines[-1])
    c = max(1, totals["cases"])
    summary = [
        f"tray counts on {totals['cases']} bearing-off turns (board before and after, the change measured):",
        f"right {totals['right']} ({100 * totals['right'] / c:.1f} %), not counted {totals['not_counted']}, "
        f"wrong {totals['wrong']}",
    ]
    return {**totals, "lines": lines, "summary": summary}
