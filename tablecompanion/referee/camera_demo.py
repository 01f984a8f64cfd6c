"""The demo table's operator: keeps the referee in step with simulator footage where the camera cannot.

In demo mode the footage of a real match runs through the real vision. The camera reads rolls (valid or
void) and, when the dice are picked up, the board and so the play. What it does not read — cube actions
and resignations, which players say aloud — an operator enters at a real table; and when the camera missed
or misread a roll or a play, the operator corrects it (undo, then enter it), as the dashboard lets one do.
:class:`FootageOperator` is that operator, working from the footage's per-turn records (the match file):
after each turn it checks the referee against the turn's known result and enters only what is missing,
counting per turn who did what, so the demo says how much the camera really read.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from .errors import RefereeError

__all__ = ["FootageOperator", "TurnTally"]

log = logging.getLogger(__name__)

ROLL_STATES = ("roll", "roll_or_double")
MAX_UNDO = 6


@dataclass
class TurnTally:
    """Per turn of the footage: who read the roll and who read the play ("camera", "operator", "corrected";
    a roll the camera read but put to the players, taken by the operator: "confirmed")."""

    turns: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        rolls = [t for t in self.turns if t["kind"] == "roll"]
        out = {"turns": len(self.turns), "roll_turns": len(rolls), "cube_or_resign_turns": len(self.turns) - len(rolls)}
        for what in ("roll", "play"):
            for who in ("camera", "confirmed", "operator", "corrected", "failed"):
                out[f"{what}_{who}"] = sum(1 for t in rolls if t.get(what) == who)
        return out


def _resign_level(points: int, cube: int) -> str:
    if points <= cube:
        return "single"
    return "gammon" if points <= 2 * cube else "backgammon"


class FootageOperator:
    """``TableRunner(on_frame=...)``: after each frame, settle the turns the footage has finished.

    ``turns`` is the list ``iter_match_frames(turns_out=...)`` fills as the footage passes each turn.
    A turn is settled once the next roll is down (or a cube is handled, a new game set up), so the camera
    has had its chance to read the board after the dice were picked up.
    """

    def __init__(self, referee, turns: list, *, source: str = "operator") -> None:
        self.referee = referee
        self.turns = turns
        self.source = source
        self.done = 0
        self.tally = TurnTally()

    def __call__(self, image, truth: dict | None) -> None:
        phase = (truth or {}).get("phase")
        # as a table's operator would: a turn is entered by hand only once the next roll is down (the camera
        # reads the board until then), a cube is handled or a new game is set up
        if phase not in ("settled", "cube", "setup", "game_over"):
            return
        self._settle_pending()

    def finish(self) -> None:
        self._settle_pending()

    def _settle_pending(self) -> None:
        while self.done < len(self.turns):
            rec = self.turns[self.done]
            self.done += 1
            if self.referee.state.match_over:
                return
            try:
                entry = self._settle(rec)
            except RefereeError as exc:
                entry = {"game": rec.get("game"), "turn": rec.get("turn"), "kind": rec.get("kind"),
                         "player": rec.get("player"), "roll": "failed", "play": "failed", "error": exc.message}
                log.warning("demo operator: turn %s of game %s not entered: %s", rec.get("turn"), rec.get("game"),
                            exc.message)
            self.tally.turns.append(entry)

    # -- one turn -----------------------------------------------------------------------------------
    def _act(self, action: dict) -> list[dict]:
        return self.referee.act(action, self.source)

    def _settle(self, rec: dict) -> dict:
        kind, player = rec["kind"], rec["player"]
        entry = {"game": rec["game"], "turn": rec["turn"], "kind": kind, "player": player}
        if kind != "roll":
            self._cube_or_resign(rec)
            return entry
        roll_by = play_by = "camera"
        for _ in range(MAX_UNDO + 1):
            where = self._where(rec)
            if where == "done":
                break
            if where == "before_roll":
                proposal = self.referee.state.roll_proposal
                dice = self._dice(rec)
                self._act({"action": "roll", "dice": dice})
                if roll_by == "camera":  # the camera's proposal, seen to lie flat, is taken with a click
                    roll_by = "confirmed" if proposal and sorted(proposal["dice"]) == sorted(dice) else "operator"
                where = "before_play"
                if self.referee.state.game.awaiting != "play":
                    play_by = "operator"
                    break
            if where == "before_play":
                self._act({"action": "play", "play": rec.get("play") or ""})
                play_by = "operator" if play_by == "camera" else play_by
                break
            # the camera put something else on the record: undo it and enter the turn
            self._act({"action": "undo"})
            back_to = self._where(rec)
            if back_to == "before_play":
                play_by = "corrected"  # the camera's roll stands, its play did not
            elif back_to == "before_roll":
                roll_by = "corrected"
        else:
            raise RefereeError(f"the referee could not be brought back to turn {rec['turn']}")
        entry.update(roll=roll_by, play=play_by)
        return entry

    def _where(self, rec: dict) -> str:
        """Where the referee stands against this turn: before_roll, before_play, done, or elsewhere."""
        st = self.referee.state
        g = st.game
        games_done = len(st.match.games)
        if rec.get("result") is not None:
            if games_done >= rec["game"] or st.match_over:
                return "done"
        elif games_done >= rec["game"]:
            return "elsewhere"  # the referee finished a game the footage has not
        pos = g.position.position_id()
        if rec.get("opening") and g.awaiting == "opening_roll":
            return "before_roll"
        if g.awaiting in ROLL_STATES and g.turn == rec["player"] and pos == rec["position_id_before"]:
            return "before_roll"
        if g.awaiting == "play" and g.turn == rec["player"] and pos == rec["position_id_before"]:
            return "before_play" if sorted(g.dice or ()) == sorted(rec["dice"]) else "elsewhere"
        if rec.get("position_id_after") and pos == rec["position_id_after"] and g.turn != rec["player"]:
            return "done"
        return "elsewhere"

    @staticmethod
    def _dice(rec: dict) -> list[int]:
        d1, d2 = rec["dice"]
        if rec.get("opening"):
            hi, lo = max(d1, d2), min(d1, d2)
            return [hi, lo] if rec["player"] == "X" else [lo, hi]
        return [d1, d2]

    def _cube_or_resign(self, rec: dict) -> None:
        kind = rec["kind"]
        if kind in ("double", "beaver", "take"):
            self._act({"action": kind})
        elif kind == "drop":
            self._act({"action": "pass"})
        elif kind == "resign":
            result = rec.get("result") or {}
            level = _resign_level(int(result.get("points") or 1), int(self.referee.state.game.cube_value))
            self._act({"action": "resign", "level": level})
            self._act({"action": "accept_resign"})


def measure_demo(mat_path, *, turns: int = 16, seed: int = 0,
                 inject: str | dict | None = "cocked:0.05,misplaced:0.03,illegal:0.03") -> dict:
    """Play the first ``turns`` turns of ``mat_path``'s footage through the camera pipeline as fast as it
    goes (no server, no record) and say who read what: the demo's figures (``serve --demo-measure``)."""
    import time

    from tablecompanion.rules.matfile import parse_mat

    from .matplay import settings_for
    from .referee import Referee
    from .runner import demo_runner

    ref = Referee("1", settings_for(parse_mat(open(mat_path, encoding="utf-8", errors="replace").read())))
    runner = demo_runner(ref, mat_path, realtime=False, max_turns=turns, seed=seed, inject=inject)
    operator = runner.operator
    throws: list[dict] = []
    calls: list[tuple[str, bool | None]] = []  # (camera's call, was the throw it judged valid?)

    def on_frame(image, truth):
        for e in (truth or {}).get("events") or ():
            if e.get("type") == "roll_settled":
                throws.append(e)
        operator(image, truth)

    observe = runner._observe

    def observe_and_check(obs):
        """Each roll / void call of the camera against the footage's last throw (valid or not)."""
        if isinstance(obs, dict) and obs.get("type") in ("roll", "roll_void"):
            calls.append((obs["type"], throws[-1].get("valid") if throws else None))
        return observe(obs)

    runner._observe = observe_and_check

    on_frame.finish = operator.finish  # type: ignore[attr-defined]
    runner.on_frame = on_frame
    t0 = time.monotonic()
    runner.run()
    wall = time.monotonic() - t0
    decisions = [d for d in runner.stats.log if "decision" in d]
    flags = ref.snapshot().get("flags") or []
    loc = runner.pipeline.locator
    return {
        "match": str(mat_path), "seed": seed, "inject": inject, "frames": runner.stats.frames,
        "frames_per_s": round(runner.stats.frames / wall, 1) if wall else None,
        "calibration": getattr(runner.pipeline.calibration, "source", None),
        **operator.tally.summary(),
        "throws_in_footage": len(throws), "void_throws_in_footage": sum(1 for t in throws if not t.get("valid")),
        "camera_void_calls": sum(1 for d in decisions if d.get("decision") == "void_roll"),
        "camera_void_reasons": [d.get("reason") for d in decisions if d.get("decision") == "void_roll"],
        "camera_void_on_invalid_throws": sum(1 for c, v in calls if c == "roll_void" and v is False),
        "camera_void_on_valid_throws": sum(1 for c, v in calls if c == "roll_void" and v is True),
        "camera_accepted_invalid_throws": sum(1 for c, v in calls if c == "roll" and v is False),
        "flags": [{"reason": f.get("reason"), "status": f.get("status")} for f in flags],
        "dice_crops_read": getattr(loc, "crops_read", None),
        "not_by_camera": [t for t in operator.tally.turns if t.get("roll") != "camera" or t.get("play") != "camera"],
    }
