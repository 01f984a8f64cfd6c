"""What the views show, worked out once from a referee snapshot: each side's checkers by X/O, the
legal plays split into single-die steps (for click-to-move and hover hints), and display labels.

Everything here is read-only and derived from the snapshot (and the rules engine), so the HTML, the
SVG and the live updates can never disagree with the JSON API.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablecompanion.rules.position import Position

OTHER = {"X": "O", "O": "X"}


@dataclass
class BoardModel:
    """Checkers per side in each side's own numbering (index i = point i+1, 24 = bar), plus off counts."""

    x: tuple[int, ...]
    o: tuple[int, ...]
    mover: str | None  # whose numbering the plays use ("X"/"O"); None before the opening roll

    def side(self, player: str) -> tuple[int, ...]:
        return self.x if player == "X" else self.o

    def off(self, player: str) -> int:
        return 15 - sum(self.side(player))

    def at_x_point(self, xp: int) -> tuple[str, int] | None:
        """Who holds X's point ``xp`` (1..24) and how many, or None."""
        if self.x[xp - 1]:
            return "X", self.x[xp - 1]
        if self.o[24 - xp]:
            return "O", self.o[24 - xp]
        return None


def board_model(snapshot: dict) -> BoardModel:
    """The board of a snapshot by X/O; the position ID's side on roll is the snapshot's ``turn``."""
    board = snapshot.get("board") or {}
    if isinstance(board.get("X"), (list, tuple)) and isinstance(board.get("O"), (list, tuple)):
        x, o = tuple(board["X"])[:25], tuple(board["O"])[:25]
        return BoardModel(x, o, snapshot.get("turn"))
    pos = _position(snapshot)
    turn = snapshot.get("turn")
    if turn == "O":
        return BoardModel(pos.opponent, pos.on_roll, "O")
    return BoardModel(pos.on_roll, pos.opponent, turn)


def _position(snapshot: dict) -> Position:
    pid = snapshot.get("position_id")
    if not pid:
        return Position.initial()
    try:
        return Position.from_position_id(pid)
    except Exception:  # noqa: BLE001 - a damaged ID must not take the page down
        return Position.initial()


def _dice(snapshot: dict) -> tuple[int, int] | None:
    dice = snapshot.get("dice")
    if (isinstance(dice, (list, tuple)) and len(dice) == 2
            and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)):
        return int(dice[0]), int(dice[1])
    return None


def play_steps(snapshot: dict) -> list[dict]:
    """The snapshot's legal plays with their single-die steps ``[[src, dst], ...]`` in the mover's
    numbering (25 = bar, 0 = off), so the page can offer click-to-move and show where a checker can go.
    """
    texts = [p for p in snapshot.get("legal_plays") or [] if isinstance(p, str)]
    dice = _dice(snapshot)
    if not texts or dice is None:
        return [{"play": t, "steps": []} for t in texts]
    pos = _position(snapshot)
    by_text: dict[str, list] = {}
    try:
        for play in pos.legal_plays(dice):
            by_text[str(play)] = [[m.source, m.dest] for m in play.moves]
    except Exception:  # noqa: BLE001
        by_text = {}
    out = []
    for text in texts:
        steps = by_text.get(text)
        if steps is None:
            try:
                steps = [[m.source, m.dest] for m in pos.parse_play(text, dice).moves]
            except Exception:  # noqa: BLE001
                steps = []
        out.append({"play": text, "steps": steps})
    return out


def on_turn(snapshot: dict, player: str) -> bool:
    """Whether ``player`` is to act: never once the match is over (the last mover is not "on turn")."""
    return snapshot.get("status") != "match_over" and snapshot.get("turn") == player


def game_winner_name(snapshot: dict, game: dict) -> str:
    """Who won a finished game as seated in it: a chouette game names its box or its captain's team
    (the seats rotate after each game, so X/O name other people now)."""
    box = game.get("box")
    if box:
        team = game.get("team") or []
        return box if game.get("winner") == "X" else (f"{team[0]}'s team" if team else "the team")
    return player_name(snapshot, game.get("winner"))


def player_name(snapshot: dict, player: str | None) -> str:
    players = snapshot.get("players") or {}
    if isinstance(players, (list, tuple)):
        players = dict(zip(("X", "O"), players))
    if player in ("X", "O"):
        return str(players.get(player) or player)
    return ""


def score_line(snapshot: dict) -> str:
    """"3-2 (7-point match)" or "money"."""
    score = snapshot.get("score") or [0, 0]
    ml = snapshot.get("match_length")
    if not ml:
        return f"{score[0]}–{score[1]} · money"
    return f"{score[0]}–{score[1]} · {ml}-point match"


def crawford_label(snapshot: dict) -> str:
    """"Crawford game", "post-Crawford" or ""."""
    c = snapshot.get("crawford")
    if (snapshot.get("match_length") or 0) <= 1:
        return ""  # money play or a 1-point match: Crawford means nothing
    if snapshot.get("status") == "match_over":
        return ""  # no game is left for the Crawford rule to govern
    if isinstance(c, dict):
        if c.get("crawford_game") or c.get("is_crawford") or c.get("this_game"):
            return "Crawford game"
        if c.get("post_crawford"):
            return "post-Crawford"
        return ""
    if c in (None, False, "pre", "none", "off", ""):
        return ""
    if c is True or c == "crawford":
        return "Crawford game"
    if c == "post":
        return "post-Crawford"
    if isinstance(c, str) and c and c not in ("none", "off"):
        return c.replace("_", "-")
    return ""


def summary(snapshot: dict) -> dict:
    """One row of the hall: who plays, the score, the match length, the cube and the status."""
    return {
        "id": snapshot.get("id"),
        "players": snapshot.get("players"),
        "score": snapshot.get("score"),
        "match_length": snapshot.get("match_length"),
        "cube": snapshot.get("cube"),
        "turn": snapshot.get("turn"),
        "awaiting": snapshot.get("awaiting"),
        "status": snapshot.get("status"),
        "crawford": snapshot.get("crawford"),
        "games": len(snapshot["games"]) if isinstance(snapshot.get("games"), list) else snapshot.get("games"),
        "pips": snapshot.get("pips"),
        "dice": snapshot.get("dice"),
        "position_id": snapshot.get("position_id"),
        "match_id": snapshot.get("match_id"),
    }
