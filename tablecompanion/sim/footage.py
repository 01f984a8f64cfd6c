"""Whole matches as webcam footage: a real .mat file replayed on the simulated table at 30 fps.

Every turn is acted out the way it happens over the board: the roller throws both dice into their
right-hand board (tumbling, bouncing, motion-blurred), the dice settle, a hand carries each checker
(hits go to the bar, bear-offs to the tray), then the hand picks the dice up. Cube actions move the cube.
Each frame comes with its ground truth; ``render_match`` writes JPEG frames plus ``truth.jsonl`` (one
line per frame), ``turns.jsonl`` (the exact rules positions per turn) and ``match.json`` (camera,
homography, who sits where).

Injections (``inject="cocked:0.05,misplaced:0.02,illegal:0.02,correction:0.5"``):

* ``cocked``: probability that a throw leaves one die not flat (cocked, leaning on or lying on a
  checker, against the board's edge); the roll is void, the roller picks the dice up and throws again.
* ``misplaced``: probability that a die lands in the wrong half, across the bar or off the board (void).
* ``illegal``: probability that a turn's play is first made wrongly (one checker a point off).
* ``correction``: of those illegal plays, the share the player corrects before picking up the dice;
  the others are corrected after the pick-up, before the next roll (default 1.0). Either way the match
  then continues as recorded, so the replay stays true to the file.
"""

from __future__ import annotations

import json
import math
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np

from tablecompanion.sim.camera import Camera
from tablecompanion.sim.dice import rest_on, rot_axis
from tablecompanion.sim.errors import SimError
from tablecompanion.sim.footage_light import MainsFlicker, Metering, PassingShadows, RoomLight
from tablecompanion.sim.render import Renderer
from tablecompanion.sim.scene import Cube, Die, Hand, Scene

INJECTIONS = ("cocked", "misplaced", "illegal", "correction")
NOT_FLAT = ("cocked", "leaning-on-checker", "on-checker", "against-edge")
MISPLACED = ("wrong-half", "across-bar", "off-board")
DICE_STYLE = {"light": "white-black-pips", "dark": "red-white-pips"}

# How long each part of a turn takes (seconds).
T_THROW = 0.7
T_SETTLED = 0.8
T_REACH = 0.35
T_GRAB = 0.1
T_CARRY = 0.4
T_RETREAT = 0.3
T_CUBE = 0.9
T_GAME_OVER = 1.0


# --------------------------------------------------------------------------------------------------
# The match as a script of turns, replayed with the rules engine.


@dataclass
class TurnScript:
    """One recorded action of a game, with the boards (X's and O's own numbering) before and after."""

    game: int
    index: int
    kind: str  # roll, double, take, drop, beaver, resign
    player: str  # "X" or "O"
    boards_before: dict[str, tuple[int, ...]]
    boards_after: dict[str, tuple[int, ...]]
    dice: tuple[int, int] | None = None
    play: str = ""
    moves: tuple = ()
    opening: bool = False
    position_id_before: str | None = None  # gnubg position ID, the mover on roll
    position_id_after: str | None = None  # the next player on roll
    cube_value: int = 1
    cube_owner: str | None = None
    score: tuple[int, int] = (0, 0)
    result: dict | None = None  # set on the action that ends the game


@dataclass
class MatchScript:
    players: tuple[str, str]
    length: int
    turns: list[TurnScript] = field(default_factory=list)


def script_match(mat_path: str | os.PathLike) -> MatchScript:
    """Replay a .mat file with the rules engine into a list of turns with exact positions."""
    from tablecompanion.rules.actions import (
        AcceptResign, ActionError, Beaver, Double, OpeningRoll, Pass, PlayAction, Resign, Roll, Take,
    )
    from tablecompanion.rules.errors import RulesError
    from tablecompanion.rules.match import Match
    from tablecompanion.rules.matfile import parse_mat

    path = Path(mat_path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SimError(f"cannot read match file {path}: {exc.strerror}") from None
    try:
        mat = parse_mat(text)
    except RulesError as exc:
        raise SimError(f"{path}: not a match file: {exc}") from None
    match = Match(mat.length, mat.players, crawford=mat.crawford)
    script = MatchScript(mat.players, mat.length)
    for mg in mat.games:
        if match.is_over:
            break
        game = match.game
        index = 0
        for k, e in enumerate(mg.entries):
            if game.is_over or e.kind in ("loss", "other"):
                continue
            before = _boards(game)
            cube_before = game.cube_value
            score = (match.score["X"], match.score["O"]) if isinstance(match.score, dict) else tuple(match.score)
            turn = TurnScript(mg.number, index, "", e.player, before, before, score=score)
            try:
                if e.kind == "roll":
                    d1, d2 = e.dice
                    turn.kind, turn.dice = "roll", (d1, d2)
                    if game.awaiting == "opening_roll":
                        if d1 == d2:
                            raise ActionError("an opening roll cannot be a double")
                        hi, lo = max(d1, d2), min(d1, d2)
                        match.apply(OpeningRoll(hi, lo) if e.player == "X" else OpeningRoll(lo, hi))
                        turn.opening = True
                    else:
                        if game.awaiting == "take_or_pass":
                            match.apply(Take(player=game.actor))
                        match.apply(Roll(d1, d2, player=e.player))
                    pos = game.position
                    turn.position_id_before = pos.position_id()
                    rest = mg.entries[k + 1:]
                    if not e.text and pos.has_legal_play(game.dice) and rest and rest[0].kind == "win":
                        turn.play = None  # rolled, then resigned without playing
                    else:
                        play = pos.parse_play(e.text, game.dice) if e.text else pos.pass_play(game.dice)
                        match.apply(PlayAction(play, player=e.player))
                        turn.play, turn.moves = str(play), tuple(play.moves)
                elif e.kind == "double":
                    turn.kind = "double"
                    match.apply(Double(player=e.player))
                elif e.kind == "take":
                    turn.kind = "take"
                    match.apply(Take(player=e.player))
                elif e.kind == "drop":
                    turn.kind = "drop"
                    match.apply(Pass(player=e.player))
                elif e.kind == "beaver":
                    turn.kind = "beaver"
                    match.apply(Beaver(player=e.player))
                elif e.kind == "win":
                    turn.kind = "resign"
                    turn.player = "O" if e.player == "X" else "X"
                    level = "single" if (e.value or 0) <= game.cube_value else (
                        "gammon" if (e.value or 0) <= 2 * game.cube_value else "backgammon")
                    match.apply(Resign(level, player=turn.player))
                    match.apply(AcceptResign(player=e.player))
                else:  # pragma: no cover - kinds are filtered above
                    continue
            except (RulesError, ActionError) as exc:
                raise SimError(f"{path.name}: game {mg.number} line {e.line}: {exc}") from None
            turn.boards_after = _boards(game)
            turn.cube_value, turn.cube_owner = game.cube_value, game.cube_owner
            if turn.kind in ("double", "beaver"):
                turn.cube_value = cube_before * 2  # the value on offer
            if game.is_over:
                res = game.result
                turn.result = {"winner": res.winner, "points": res.points}
            elif turn.kind == "roll" and turn.play is not None:
                turn.position_id_after = game.position.position_id()
            script.turns.append(turn)
            index += 1
    return script


def _boards(game) -> dict[str, tuple[int, ...]]:
    if game.turn is None:
        return {"X": tuple(game.position.on_roll), "O": tuple(game.position.opponent)}
    return {p: tuple(game.board(p)) for p in ("X", "O")}


# --------------------------------------------------------------------------------------------------
# Injections


def parse_inject(text: str | dict | None) -> dict[str, float]:
    """``"cocked:0.05,illegal:0.02"`` to probabilities; unknown names or bad numbers are a SimError."""
    out = {"cocked": 0.0, "misplaced": 0.0, "illegal": 0.0, "correction": 1.0}
    if not text:
        return out
    items = text.items() if isinstance(text, dict) else (
        part.split(":", 1) if ":" in part else (part, "")
        for part in (p.strip() for p in str(text).split(",")) if part
    )
    for name, value in items:
        name = str(name).strip()
        if name not in INJECTIONS:
            raise SimError(f"unknown injection {name!r}; choose from {', '.join(INJECTIONS)}")
        try:
            p = float(value)
        except (TypeError, ValueError):
            raise SimError(f"injection {name} needs a probability, e.g. {name}:0.05, got {value!r}") from None
        if not 0.0 <= p <= 1.0:
            raise SimError(f"injection {name}: probability must be in [0, 1], got {p}")
        out[name] = p
    return out


# --------------------------------------------------------------------------------------------------
# Acting the script out, frame by frame


@dataclass
class FrameSpec:
    scene: Scene
    info: dict[str, Any]


class _Table:
    """The physical table during the replay: boards per player, cube, which player sits at the bottom."""

    def __init__(self, players_bottom: str, style: str, home: str, markers: bool, jitter_seed: int) -> None:
        self.bottom_player = players_bottom
        self.colour = {players_bottom: "light", _other(players_bottom): "dark"}
        self.boards = {"X": [0] * 25, "O": [0] * 25}
        self.cube = Cube()
        self.style, self.home, self.markers, self.jitter_seed = style, home, markers, jitter_seed

    def side(self, player: str) -> str:
        return "bottom" if player == self.bottom_player else "top"

    def set_boards(self, boards: dict[str, tuple[int, ...]]) -> None:
        self.boards = {p: list(boards[p]) for p in ("X", "O")}

    def scene(self, roller: str, dice=(), hands=(), in_hand: str | None = None) -> Scene:
        top = _other(self.bottom_player)
        return Scene.from_boards(
            self.boards[self.bottom_player], self.boards[top], bottom_colour="light",
            in_hand={in_hand: 1} if in_hand else None,
            roller=self.side(roller), dice=tuple(dice), hands=tuple(hands), cube=self.cube,
            style=self.style, home=self.home, markers=self.markers, jitter_seed=self.jitter_seed,
        )

    def physical(self) -> dict[str, list[int]]:
        return {"X": list(self.boards["X"]), "O": list(self.boards["O"])}


def _other(player: str) -> str:
    return "O" if player == "X" else "X"


def _ease(t: float) -> float:
    return t * t * (3 - 2 * t)


class _Director:
    """Turns a MatchScript into FrameSpecs."""

    def __init__(self, script: MatchScript, renderer: Renderer, table: _Table, seed: int, fps: float,
                 inject: dict[str, float]) -> None:
        self.script, self.r, self.table, self.fps, self.inject = script, renderer, table, fps, inject
        self.rng = np.random.default_rng(seed)
        # how each reach is made, from its own generator so that the throws and injections stay as they were
        self.gesture_rng = np.random.default_rng((seed, 53))
        self.gestures: dict[str, _Gesture] = {}
        # which hand each player moves with, fixed for the match; from its own generator as well
        hands_rng = np.random.default_rng((seed, 59))
        self.left_handed = {side: bool(hands_rng.random() < LEFT_HANDED) for side in ("bottom", "top")}
        self.player_looks = {table.side(key): player_looks(name) for key, name in zip(("X", "O"), script.players)}
        self.geo = renderer.geo
        self.spec = renderer.spec
        self.events: list[dict] = []
        self.state: dict[str, Any] = {"game": None, "turn": None, "player": None, "phase": "setup"}
        self.turn_records: list[dict] = []

    def n(self, seconds: float) -> int:
        return max(1, int(round(seconds * self.fps)))

    # -- emitting --------------------------------------------------------------------------------
    def frame(self, roller: str, dice=(), hands=(), in_hand: str | None = None) -> FrameSpec:
        info = dict(self.state)
        info["events"], self.events = self.events, []
        info["board"] = self.table.physical()
        info["in_hand"] = in_hand
        info["cube"] = {"value": self.table.cube.value, "position": self.table.cube.position}
        return FrameSpec(self.table.scene(roller, dice, hands, in_hand), info)

    def event(self, kind: str, **data: Any) -> None:
        """Something that happened before the next frame (which is the first to show it)."""
        where = {k: self.state[k] for k in ("game", "turn", "player")}
        self.events.append({"type": kind, **where, **data})

    # -- positions on the board ------------------------------------------------------------------
    def slot_xy(self, player: str, point: int, count_after: int) -> tuple[float, float]:
        """Where the ``count_after``-th checker of ``player`` sits on their own ``point`` (25 = bar, 0 = off)."""
        side = self.table.side(player)
        n = max(1, count_after)
        if point == 25:
            s = self.geo.bar_slots(side, n)[-1]
            return s.x, s.y
        if point == 0:
            return self.geo.tray_slots(side, n)[-1]
        bottom_point = point if side == "bottom" else 25 - point
        s = self.geo.checker_slots(bottom_point, n)[-1]
        return s.x, s.y

    def rest_xy(self, player: str) -> tuple[float, float]:
        """Where a hand waits, just off the player's edge."""
        s = self.spec
        if self.table.side(player) == "bottom":
            return s.width * 0.62, s.height + 120
        return s.width * 0.38, -120

    # -- the whole match -------------------------------------------------------------------------
    def run(self, max_turns: int | None = None) -> Iterator[FrameSpec]:
        current_game = None
        done = 0
        for turn in self.script.turns:
            if max_turns is not None and done >= max_turns:
                return
            if turn.game != current_game:
                current_game = turn.game
                self.table.set_boards(turn.boards_before)
                self.table.cube = Cube()
                self.state.update(game=turn.game, turn=None, player=None, phase="setup")
                self.event("game_start", game=turn.game, score=list(turn.score))
                for _ in range(self.n(0.5)):
                    yield self.frame(turn.player)
            self.state.update(turn=turn.index, player=turn.player)
            record = {"game": turn.game, "turn": turn.index, "kind": turn.kind, "player": turn.player,
                      "dice": list(turn.dice) if turn.dice else None, "play": turn.play,
                      "opening": turn.opening, "position_id_before": turn.position_id_before,
                      "position_id_after": turn.position_id_after,
                      "boards_after": {p: list(b) for p, b in turn.boards_after.items()},
                      "cube_value": turn.cube_value, "cube_owner": turn.cube_owner, "score": list(turn.score),
                      "result": turn.result}
            self._record = record
            if turn.kind == "roll":
                yield from self.roll_turn(turn)
            else:
                yield from self.cube_turn(turn)
            if turn.result is not None:
                self.state.update(phase="game_over")
                self.event("game_over", winner=turn.result["winner"], points=turn.result["points"])
                for _ in range(self.n(T_GAME_OVER)):
                    yield self.frame(turn.player)
            self.turn_records.append(record)
            done += 1

    # -- a roll and its play -----------------------------------------------------------------------
    def roll_turn(self, turn: TurnScript) -> Iterator[FrameSpec]:
        p = turn.player
        d1, d2 = turn.dice
        while True:
            state = "flat"
            if self.rng.random() < self.inject["cocked"]:
                state = str(self.rng.choice(NOT_FLAT))
            elif self.rng.random() < self.inject["misplaced"]:
                state = str(self.rng.choice(MISPLACED))
            dice = self.make_dice(p, (d1, d2), state, opening=turn.opening)
            yield from self.throw(p, dice)
            void = state != "flat"
            self.state["phase"] = "settled"
            extra = {"by_player": {p: max(d1, d2), _other(p): min(d1, d2)}} if turn.opening else {}
            self.event("roll_settled", player=p, dice=[d1, d2], valid=not void,
                       states=[d.state for d in dice], opening=turn.opening, **extra)
            if void:
                self.event("roll_void", player=p, reason=state)
            for _ in range(self.n(T_SETTLED)):
                yield self.frame(p, dice)
            if not void:
                break
            yield from self.pick_up_dice(p, dice, void=True)
        if turn.play is None:  # resigned after rolling
            yield from self.pick_up_dice(p, dice)
            self.event("resign", player=_other(p), result=turn.result)
            return
        self.state["phase"] = "moving"
        moves = list(turn.moves)
        illegal = bool(moves) and self.rng.random() < self.inject["illegal"]
        wrong = self.wrong_move(turn, moves) if illegal else None
        for i, mv in enumerate(moves):
            dst = wrong[1] if wrong is not None and i == wrong[0] else mv.dest
            yield from self.move_checker(p, mv.source, dst, dice)
        if wrong is None:
            self.check_boards(turn)
            self.event("play_made", player=p, play=turn.play, boards=self.table.physical())
            yield from self.pick_up_dice(p, dice)
            return
        self.event("illegal_play", player=p, intended=turn.play, boards=self.table.physical())
        early = self.rng.random() < self.inject["correction"]
        idx, bad_dst = wrong
        if not early:
            yield from self.pick_up_dice(p, dice)
            dice = ()
        self.state["phase"] = "correcting"
        corrector = p if early else _other(p)
        yield from self.move_checker(p, bad_dst, moves[idx].dest, dice, hand_player=corrector)
        self.event("correction", player=corrector, boards=self.table.physical())
        self.check_boards(turn)
        self.event("play_made", player=p, play=turn.play, boards=self.table.physical())
        if early:
            yield from self.pick_up_dice(p, dice)

    def check_boards(self, turn: TurnScript) -> None:
        """The checkers on the table must now be the recorded position: anything else is a bug here."""
        if {p: tuple(b) for p, b in self.table.boards.items()} != dict(turn.boards_after):
            raise SimError(f"game {turn.game} turn {turn.index}: the table does not show the recorded "
                           f"position after {turn.play!r} (simulator bug)")

    def wrong_move(self, turn: TurnScript, moves) -> tuple[int, int] | None:
        """A move to change so the play becomes illegal: (index, wrong destination), or None."""
        opp = self.table.boards[_other(turn.player)]
        for i in self.rng.permutation(len(moves)):
            mv = moves[int(i)]
            if mv.hit or mv.dest == 0 or any(later.source == mv.dest for later in moves[int(i) + 1:]):
                continue
            for delta in (1, -1):
                d = mv.dest + delta
                if 1 <= d <= 24 and d != mv.source and opp[24 - d] == 0:
                    if not self.legal_result_with(turn, int(i), d):
                        return int(i), d
        return None

    def legal_result_with(self, turn: TurnScript, index: int, dest: int) -> bool:
        """Would the play with move ``index`` ending on ``dest`` still be a legal play? (Then it is no test.)"""
        from tablecompanion.rules.position import Position

        mover = turn.player
        own = list(turn.boards_before[mover])
        opp = list(turn.boards_before[_other(mover)])
        for i, mv in enumerate(turn.moves):
            d = dest if i == index else mv.dest
            own[24 if mv.source == 25 else mv.source - 1] -= 1
            if d:
                own[d - 1] += 1
                if opp[24 - d] == 1:
                    opp[24 - d] = 0
                    opp[24] += 1
        pos = Position.from_board(turn.boards_before[mover], turn.boards_before[_other(mover)])
        results = {tuple(pl.result().on_roll) + tuple(pl.result().opponent) for pl in pos.legal_plays(turn.dice)}
        return tuple(own) + tuple(opp) in results

    # -- dice --------------------------------------------------------------------------------------
    def make_dice(self, player: str, values, state: str, opening: bool = False) -> list[Die]:
        """The dice of a throw. At the opening each player throws one die into their own right-hand
        board: the starter's (the higher) and the other player's."""
        seeds = self.rng.integers(0, 2**31, 2)
        which = int(self.rng.integers(0, 2))
        if opening:
            hi, lo = max(values), min(values)
            throwers = [(player, hi), (_other(player), lo)]
        else:
            throwers = [(player, v) for v in values]
        dice = []
        for i, (who, v) in enumerate(throwers):
            st = state if i == which else "flat"
            dice.append(Die(int(v), st, style=DICE_STYLE[self.table.colour[who]], pose_seed=int(seeds[i]),
                            thrower=self.table.side(who) if opening else None))
        return dice

    def throw(self, player: str, dice: list[Die]) -> Iterator[FrameSpec]:
        self.state["phase"] = "rolling"
        scene = self.table.scene(player, dice)
        finals = self.r.pose_dice(scene)
        n = self.n(T_THROW)
        starts, spins = [], []
        for die, pose, _ in finals:
            side = die.thrower or self.table.side(player)
            sx = pose.centre[0] + self.rng.uniform(-40, 40)
            sy = (self.spec.height + 30) if side == "bottom" else -30.0
            starts.append((sx, sy, 70.0))
            spins.append((self.rng.uniform(0, 2 * math.pi), self.rng.uniform(2.5, 4.5) * math.pi))
        prev_px = None
        for k in range(n):
            t = (k + 1) / n
            rolling = []
            pts = []
            for (die, pose, _), (sx, sy, sh), (ang, spin) in zip(finals, starts, spins):
                e = 1 - (1 - t) ** 2  # decelerating
                x = sx + (pose.centre[0] - sx) * e
                y = sy + (pose.centre[1] - sy) * e
                h = sh * (1 - t) ** 1.5 * abs(math.cos(2.5 * math.pi * t))
                if t >= 1.0:
                    rolling.append(die)
                    pts.append((x, y, 0.0))
                    continue
                axis = (math.cos(ang), math.sin(ang), 0.0)
                R = rot_axis(axis, spin * (1 - e)) @ pose.R
                lifted = rest_on(R, x, y, self.spec.die_size, floor=-h)
                pts.append((x, y, float(lifted.centre[2])))
                rolling.append(Die(die.value, "rolling", x=x, y=y, height=h, style=die.style,
                                   rotation=tuple(map(tuple, R)), thrower=die.thrower))
            px = self.r.model.project(np.array(pts))
            if prev_px is not None:
                motion = (px - prev_px) * 0.5
                rolling = [d if d.state != "rolling" else _with_motion(d, tuple(motion[i])) for i, d in enumerate(rolling)]
            prev_px = px
            yield self.frame(player, rolling)

    def pick_up_dice(self, player: str, dice, void: bool = False) -> Iterator[FrameSpec]:
        """The roller's hand collects the dice one after the other, then goes back."""
        self.state["phase"] = "pickup"
        here = self.rest_xy(player)
        left = list(dice)
        if left:
            poses = {id(d): p for d, (_, p, _) in zip(left, self.r.pose_dice(self.table.scene(player, left)))}
            while left:
                die = min(left, key=lambda d: math.dist(here, poses[id(d)].centre[:2]))
                target = tuple(float(v) for v in poses[id(die)].centre[:2])
                yield from self.hand_travel(player, here, target, self.n(T_REACH if here == self.rest_xy(player) else T_GRAB * 3), left)
                left = [d for d in left if d is not die]
                here = target
            self.event("dice_picked_up", player=player, void=void)
        yield from self.hand_travel(player, here, self.rest_xy(player), self.n(T_RETREAT), ())

    def looks(self, side: str) -> dict:
        """The Hand fields that stay with a player all match: skin, sleeve, which hand."""
        return {**self.player_looks[side], "left": self.left_handed[side]}

    def gesture(self, side: str, fresh: bool) -> "_Gesture":
        """The hand's way of reaching for this move: drawn afresh when it sets out from its rest."""
        if fresh or side not in self.gestures:
            self.gestures[side] = _Gesture.draw(self.gesture_rng)
        return self.gestures[side]

    def hand_travel(self, player, a, b, n, dice, holding=None, hand_player=None) -> Iterator[FrameSpec]:
        hp = hand_player or player
        rest = self.rest_xy(hp)
        g = self.gesture(self.table.side(hp), fresh=tuple(a) == rest)
        for k in range(n):
            t = _ease((k + 1) / n)
            t0 = _ease(k / n)
            x = a[0] + (b[0] - a[0]) * t
            y = a[1] + (b[1] - a[1]) * t
            # Exposure of about half a frame interval: the hand smears over half its step.
            motion = (0.5 * (b[0] - a[0]) * (t - t0), 0.5 * (b[1] - a[1]) * (t - t0))
            lift = 30.0 * math.sin(math.pi * t) if holding else 0.0
            if holding:
                spread = g.pinch
            elif tuple(b) == rest:  # going back: the fingers open as the hand leaves
                spread = g.pinch + (g.open - g.pinch) * t
            else:  # reaching: open, closing to a pinch on arrival
                spread = g.open + (g.pinch - g.open) * t
            hand = Hand(self.table.side(hp), x, y, height=g.height + lift, holding=holding, motion_mm=motion,
                        spread=round(spread, 2), elbow_mm=g.elbow, fingers=g.fingers, **self.looks(self.table.side(hp)))
            yield self.frame(player, dice, (hand,), in_hand=holding)

    # -- checkers ----------------------------------------------------------------------------------
    def move_checker(self, player: str, src: int, dst: int, dice, hand_player: str | None = None) -> Iterator[FrameSpec]:
        own = self.table.boards[player]
        opp = self.table.boards[_other(player)]
        colour = self.table.colour[player]
        si = 24 if src == 25 else src - 1
        a = self.slot_xy(player, src, own[si])
        hp = hand_player or player
        yield from self.hand_travel(player, self.rest_xy(hp), a, self.n(T_REACH), dice, hand_player=hp)
        own[si] -= 1
        self.event("checker_picked", player=player, point=src)
        hit = dst != 0 and opp[24 - dst] == 1
        b = self.slot_xy(player, dst, (own[dst - 1] + 1) if dst else (15 - sum(own) + 1))
        yield from self.hand_travel(player, a, b, self.n(T_CARRY), dice, holding=colour, hand_player=hp)
        if dst:
            own[dst - 1] += 1
        self.event("checker_placed", player=player, point=dst)
        if hit:
            # The hit blot goes to the bar: picked from beside the new checker.
            opp[24 - dst] = 0
            bar_xy = self.slot_xy(_other(player), 25, opp[24] + 1)
            yield from self.hand_travel(player, b, bar_xy, self.n(T_CARRY), dice, holding=self.table.colour[_other(player)], hand_player=hp)
            opp[24] += 1
            self.event("checker_hit", player=player, point=dst)
            b = bar_xy
        g = self.gesture(self.table.side(hp), fresh=False)
        for _ in range(self.n(T_GRAB)):
            yield self.frame(player, dice, (Hand(self.table.side(hp), b[0], b[1], height=g.height - 5.0, spread=g.pinch,
                                                 elbow_mm=g.elbow, fingers=g.fingers, **self.looks(self.table.side(hp))),))
        yield from self.hand_travel(player, b, self.rest_xy(hp), self.n(T_RETREAT), dice, hand_player=hp)

    # -- cube --------------------------------------------------------------------------------------
    def cube_turn(self, turn: TurnScript) -> Iterator[FrameSpec]:
        p = turn.player
        self.state["phase"] = "cube"
        src = self.r.cube_position_mm(self.table.scene(p))
        if turn.kind in ("double", "beaver"):
            new = Cube(turn.cube_value, "offered")
            yield from self.hand_travel(p, self.rest_xy(p), src, self.n(T_REACH), ())
            self.table.cube = new
            dst = self.r.cube_position_mm(self.table.scene(p))
            yield from self.hand_travel(p, src, dst, self.n(T_CARRY), ())
            self.event(turn.kind, player=p, cube=new.value)
        elif turn.kind == "take":
            owner_side = self.table.side(p)
            yield from self.hand_travel(p, self.rest_xy(p), src, self.n(T_REACH), ())
            self.table.cube = Cube(turn.cube_value, owner_side)
            dst = self.r.cube_position_mm(self.table.scene(p))
            yield from self.hand_travel(p, src, dst, self.n(T_CARRY), ())
            self.event("take", player=p, cube=turn.cube_value)
        elif turn.kind == "drop":
            self.event("pass", player=p)
        elif turn.kind == "resign":
            self.event("resign", player=p, result=turn.result)
        for _ in range(self.n(T_CUBE * 0.4)):
            yield self.frame(p)


def _with_motion(die: Die, motion) -> Die:
    from dataclasses import replace

    return replace(die, motion_px=(float(motion[0]), float(motion[1])))


# --------------------------------------------------------------------------------------------------
# Public entry points


def iter_match_frames(
    mat_path: str | os.PathLike,
    seed: int = 0,
    fps: float = 30.0,
    inject: str | dict | None = None,
    *,
    camera: Camera | None = None,
    style: str = "tournament",
    home: str = "right",
    markers: bool = True,
    bottom: str = "X",
    max_turns: int | None = None,
    encode: bool = True,
    script: MatchScript | None = None,
    turns_out: list | None = None,
    lighting_drift: float = 0.04,
    passing_shadows: bool = False,
    flicker: float = 0.0,
    light_changes: bool = False,
) -> Iterator[tuple[np.ndarray, dict]]:
    """Yield (frame BGR uint8, truth) for a whole match, lazily: the demo plays this live.

    ``bottom`` says which player (X = first named in the file) sits at the bottom. Truth per frame:
    ``frame``, ``t``, ``game``, ``turn``, ``player``, ``phase``, ``board`` (X's and O's own 25-slot
    arrays as physically on the board, a checker in a hand excluded), ``in_hand``, ``dice``,
    ``cube``, ``hands`` and ``hand_mask``, and ``events``. ``turns_out`` (a list) receives the per-turn
    records with exact positions as the replay passes them. ``lighting_drift`` is the amplitude of the
    slow exposure and white-balance changes (auto-exposure, daylight) over the footage, on top of which
    the camera's metering answers a hand coming into the picture (``Metering``); 0 keeps it steady.
    ``passing_shadows`` adds, about every 40 s, a soft shadow drifting across the board for a few
    seconds (someone leaning between the lamp and the board); frames carry it as ``shade``.
    ``flicker`` is how deep the bands are that lamps flickering with 50 Hz mains leave in a rolling
    shutter's picture (0.03: rows 3 % brighter and darker; ``MainsFlicker``); frames carry their phase.
    ``light_changes`` changes the room's light now and then (a lamp switched on or off, daylight coming
    and going) and the camera's auto-exposure and white balance catch up over a second or so
    (``RoomLight``); frames carry ``room_light``.
    """
    if fps <= 0:
        raise SimError(f"fps must be positive, got {fps}")
    if bottom not in ("X", "O"):
        raise SimError(f"bottom must be X or O, got {bottom!r}")
    probs = parse_inject(inject)
    script = script or script_match(mat_path)
    renderer = Renderer(camera or Camera(), style, home, markers)
    table = _Table(bottom, style, home, markers, jitter_seed=seed)
    director = _Director(script, renderer, table, seed, fps, probs)
    seen = 0
    shadows = PassingShadows(seed, fps, renderer.spec) if passing_shadows else None
    metering = Metering(seed, fps, lighting_drift)
    mains = MainsFlicker(seed, fps, flicker, renderer.camera.height) if flicker else None
    room = RoomLight(seed, fps) if light_changes else None
    for index, spec in enumerate(director.run(max_turns)):
        while turns_out is not None and seen < len(director.turn_records):
            turns_out.append(director.turn_records[seen])
            seen += 1
        gain, balance = metering.next(index)
        if room is not None:
            light, tint = room.at(index)
            gain *= light
            balance = tuple(b * t for b, t in zip(balance, tint))
        shade = shadows.at(index) if shadows is not None else None
        img, truth = renderer.render(spec.scene, seed=_frame_seed(seed, index), encode=encode,
                                     gain=tuple(gain * b for b in balance), shade=shade,
                                     rows=mains.rows(index) if mains is not None else None)
        metering.saw(truth["hand_mask"])
        info = spec.info
        out = {
            "frame": index,
            "t": round(index / fps, 4),
            "game": info["game"],
            "turn": info["turn"],
            "player": info["player"],
            "phase": info["phase"],
            "board": info["board"],
            "bar": truth["bar"],
            "off": truth["off"],
            "in_hand": info["in_hand"],
            "dice": truth["dice"],
            "cube": {**info["cube"], **({"centre_px": truth["cube"]["centre_px"]} if truth.get("cube") else {})},
            "hands": truth["hands"],
            "hand_mask": truth["hand_mask"],
            "events": info["events"],
            "exposure": round(gain, 4),
            "white_balance": [round(b, 4) for b in balance],
            "shade": truth.get("shade"),
        }
        if mains is not None:
            out["flicker"] = {"depth": flicker, "phase": round(mains.phase(index), 4)}
        if room is not None:
            out["room_light"] = room.truth(index)
        yield img, out
    while turns_out is not None and seen < len(director.turn_records):
        turns_out.append(director.turn_records[seen])
        seen += 1


LEFT_HANDED = 0.1  # the share of players who move with their left hand
# What a player's hand looks like (BGR): skin from very light to very dark, and the sleeve of what they wear.
# Each player draws theirs from their name (``player_looks``), so the same player looks the same in every
# match and footage shows people of every skin tone, in dark, light and coloured sleeves alike.
SKIN_TONES = (
    (150, 172, 218),  # very light
    (120, 150, 200),  # light
    (86, 116, 168),  # olive
    (66, 98, 150),  # medium brown
    (45, 68, 110),  # dark brown
    (34, 48, 78),  # very dark
)
SLEEVES = (
    (110, 70, 40),  # navy
    (72, 74, 78),  # grey
    (36, 36, 40),  # black
    (205, 210, 212),  # off-white
    (52, 42, 125),  # burgundy
    (52, 92, 44),  # forest green
    (140, 168, 190),  # beige
    (132, 102, 72),  # denim
)


def player_looks(name: str) -> dict:
    """A player's skin and sleeve, drawn from their name (the same player, the same hand)."""
    rng = np.random.default_rng(zlib.crc32(name.encode("utf-8")))
    return {"skin": SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], "sleeve": SLEEVES[int(rng.integers(len(SLEEVES)))]}


@dataclass(frozen=True)
class _Gesture:
    """One reach's manner: where the arm comes from, how high the hand travels, how open it goes out and
    how tight it pinches. Fixed within a move (an arm does not jump), different from move to move: one
    hand curling the same way every time gave footage away."""

    elbow: tuple[float, float]
    height: float
    open: float
    pinch: float
    fingers: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    @classmethod
    def draw(cls, rng: np.random.Generator) -> "_Gesture":
        across = round(float(np.clip(rng.normal(160.0, 45.0), 60.0, 280.0)), 1)
        back = round(float(np.clip(rng.normal(380.0, 50.0), 280.0, 480.0)), 1)
        height = round(float(rng.uniform(36.0, 46.0)), 1)
        # Each finger's own curl: the index and middle do the pinch, the ring and little fingers follow
        # loosely, mostly curled a little more. Drawn from the reach's own numbers, not from ``rng``, so the
        # footage's other draws are as before.
        own = np.random.default_rng([int(across * 10), int(back * 10), int(height * 10)])
        fingers = tuple(round(float(np.clip(own.normal(m, sd), -1.0, 1.0)), 2)
                        for m, sd in ((0.0, 0.1), (0.0, 0.15), (0.1, 0.3), (0.2, 0.35)))
        return cls((across, back), height, round(float(rng.uniform(0.4, 0.7)), 2),
                   round(float(rng.uniform(0.08, 0.3)), 2), fingers)


def _frame_seed(seed: int, index: int) -> int:
    return (int(seed) * 1_000_003 + index) % (2**63)


def match_header(camera: Camera, style: str, home: str, markers: bool, bottom: str, script: MatchScript,
                 fps: float, seed: int, inject: dict) -> dict:
    r_model = camera.model()
    return {
        "players": {"X": script.players[0], "O": script.players[1]},
        "length": script.length,
        "bottom": bottom,
        "colours": {bottom: "light", _other(bottom): "dark"},
        "home": home,
        "style": style,
        "markers": markers,
        "fps": fps,
        "seed": seed,
        "inject": inject,
        "camera": r_model.to_truth(),
        "homography_image_to_board": r_model.homography_image_to_board().round(9).tolist(),
        "board_numbering": "board[player][i] = that player's own point i + 1, index 24 = bar (gnubg)",
    }


def render_match(
    mat_path: str | os.PathLike,
    out_dir: str | os.PathLike,
    seed: int = 0,
    inject: str | dict | None = None,
    *,
    fps: float = 30.0,
    camera: Camera | None = None,
    style: str = "tournament",
    home: str = "right",
    markers: bool = True,
    bottom: str = "X",
    max_turns: int | None = None,
    write_frames: bool = True,
    progress=None,
    passing_shadows: bool = False,
    flicker: float = 0.0,
    light_changes: bool = False,
) -> dict:
    """Render a match to ``out_dir``: frames/000000.jpg..., truth.jsonl, turns.jsonl, match.json.

    Returns a summary (frames, seconds of footage, turns). Hand masks are stored as polygons' bounding
    boxes in truth.jsonl (the full mask is in the in-memory truth of ``iter_match_frames``).
    """
    camera = camera or Camera()
    probs = parse_inject(inject)
    script = script_match(mat_path)
    out = Path(out_dir)
    frames_dir = out / "frames"
    try:
        frames_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimError(f"cannot create {frames_dir}: {exc.strerror}") from None
    header = match_header(camera, style, home, markers, bottom, script, fps, seed, probs)
    header["passing_shadows"] = passing_shadows
    header["flicker"] = flicker
    header["light_changes"] = light_changes
    header["source"] = Path(mat_path).name
    turns: list[dict] = []
    count = 0
    quality = camera.jpeg_quality or 90
    with open(out / "truth.jsonl", "w", encoding="utf-8") as truth_file:
        for img, truth in iter_match_frames(
            mat_path, seed, fps, probs, camera=camera, style=style, home=home, markers=markers,
            bottom=bottom, max_turns=max_turns, encode=False, script=script, turns_out=turns,
            passing_shadows=passing_shadows, flicker=flicker, light_changes=light_changes,
        ):
            name = f"{truth['frame']:06d}.jpg"
            if write_frames:
                ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
                if not ok:
                    raise SimError(f"could not encode frame {truth['frame']} as JPEG")
                try:
                    buf.tofile(str(frames_dir / name))
                except OSError as exc:
                    raise SimError(f"cannot write {frames_dir / name}: {exc.strerror}") from None
            mask = truth.pop("hand_mask")
            truth["file"] = f"frames/{name}"
            truth["hand_bbox"] = _bbox(mask)
            truth_file.write(json.dumps(truth, separators=(",", ":")) + "\n")
            count += 1
            if progress is not None and count % 300 == 0:
                progress(count)
    with open(out / "turns.jsonl", "w", encoding="utf-8") as f:
        for rec in turns:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    header["frames"] = count
    header["seconds"] = round(count / fps, 2)
    header["turns"] = len(turns)
    (out / "match.json").write_text(json.dumps(header, indent=1), encoding="utf-8")
    return {"frames": count, "seconds": count / fps, "turns": len(turns), "out": str(out)}


def _bbox(mask) -> list[int] | None:
    if mask is None:
        return None
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return None
    return [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]
