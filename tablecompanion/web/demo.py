"""Demo mode without camera or board: a real match replayed through the referee at a watchable pace.

The source is a recorded ``.mat`` match (``../shared/data/matches`` next to a checkout, or a file given
with ``--demo-match``); with none available, a match generated from seeded dice with a simple playing
heuristic. Every action goes through ``Referee.act`` exactly as an operator's would, so the record, the
dashboard and the live updates show what a real table shows.
"""

from __future__ import annotations

import logging
import random
import threading
from pathlib import Path

from tablecompanion.referee.errors import RefereeError

log = logging.getLogger(__name__)

SHARED_MATCHES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "matches"
PREFERRED = ("Magic_-_Lasse_5pt", "Llabba_-_Kabrus_7pt", "SniperKitten_-_Llabba_7pt")


def find_demo_match() -> Path | None:
    """A recorded match to replay, if this checkout has the shared data next to it."""
    if not SHARED_MATCHES.is_dir():
        return None
    files = sorted(SHARED_MATCHES.glob("*.mat"))
    for prefix in PREFERRED:
        for f in files:
            if f.name.startswith(prefix):
                return f
    return files[0] if files else None


def _heuristic(play, rng: random.Random) -> float:
    after = play.result()
    mine = after.on_roll
    made = sum(1 for n in mine[:24] if n >= 2)
    blots = sum(1 for n in mine[:24] if n == 1)
    return 3 * play.hits + 2 * made - 1.2 * blots + 0.5 * play.bears_off + rng.random() * 0.5


class DemoPlayer:
    """Plays a match at one table from a background thread; stops at the match's end or on ``stop()``."""

    def __init__(self, referee, *, delay_s: float = 1.5, match_file: Path | None = None, seed: int = 7) -> None:
        self.referee = referee
        self.delay_s = delay_s
        self.match_file = match_file
        self.rng = random.Random(seed)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="demo-player", daemon=True)
        self.actions_sent = 0

    @staticmethod
    def settings_for(match_file: Path | None) -> dict:
        if match_file is not None:
            try:
                from tablecompanion.rules.matfile import parse_mat

                mat = parse_mat(match_file.read_text(encoding="utf-8", errors="replace"))
                return {"players": list(mat.players), "match_length": mat.length, "crawford": mat.crawford}
            except Exception:  # noqa: BLE001
                log.exception("cannot read the demo match %s", match_file)
        return {"players": ["Demo X", "Demo O"], "match_length": 5, "crawford": True}

    def start(self) -> "DemoPlayer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _wait(self, factor: float = 1.0) -> bool:
        return not self._stop.wait(self.delay_s * factor)

    def _send(self, action: dict) -> bool:
        try:
            self.referee.act(action, source="replay")
        except RefereeError as exc:
            log.warning("demo: %s refused: %s", action, getattr(exc, "message", exc))
            return False
        self.actions_sent += 1
        return True

    def _run(self) -> None:
        try:
            if self.match_file is not None and self._replay():
                return
            self._generate()
        except Exception:  # noqa: BLE001 - a demo must never take the server down
            log.exception("demo player stopped")

    def _replay(self) -> bool:
        """Replay the .mat action by action; False when it could not be followed (the generator goes on)."""
        from tablecompanion.referee.matplay import mat_turns

        turns = mat_turns(self.referee, self.match_file.read_text(encoding="utf-8", errors="replace"),
                          source="replay")
        try:
            while self._wait():
                try:
                    next(turns)
                except StopIteration:
                    return True
                self.actions_sent += 1
        except RefereeError as exc:
            log.warning("demo: the recorded match could not be followed: %s", getattr(exc, "message", exc))
            return False
        finally:
            turns.close()
        return True

    def _generate(self) -> None:
        from tablecompanion.rules import Position

        for _ in range(5000):  # bounded: a demo match ends long before
            if not self._wait():
                return
            snap = self.referee.snapshot(public=True)
            awaiting = snap.get("awaiting")
            rng = self.rng
            if snap.get("status") == "match_over" or awaiting == "match_over":
                return
            if awaiting == "opening_roll":
                a, b = rng.randint(1, 6), rng.randint(1, 6)
                self._send({"action": "roll", "dice": [a, b]})
            elif awaiting in ("roll", "roll_or_double"):
                pips = snap.get("pips") or [167, 167]
                me = 0 if snap.get("turn") == "X" else 1
                lead = (pips[1 - me] - pips[me]) / max(1, pips[me])
                cube = snap.get("cube") or {}
                if (lead > 0.12 and cube.get("owner") in (None, snap.get("turn"))
                        and snap.get("crawford") != "crawford" and rng.random() < 0.5):
                    if self._send({"action": "double"}):
                        continue
                self._send({"action": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)]})
            elif awaiting == "take_or_pass":
                pips = snap.get("pips") or [167, 167]
                taker = snap.get("actor")
                me = 0 if taker == "X" else 1
                behind = (pips[me] - pips[1 - me]) / max(1, pips[1 - me])
                self._send({"action": "take" if behind < 0.2 else "pass"})
            elif awaiting == "play":
                pos = Position.from_position_id(snap["position_id"])
                plays = pos.legal_plays(snap["dice"])
                best = max(plays, key=lambda p: _heuristic(p, rng)) if plays else None
                self._send({"action": "play", "play": str(best) if best is not None else ""})
            elif awaiting == "resign_response":
                self._send({"action": "accept_resign"})
            else:
                self._send({"action": "new_game"})
