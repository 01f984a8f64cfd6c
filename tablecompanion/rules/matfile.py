"""The text match format (.mat, Jellyfish / GNU Backgammon): read it, replay it, write it.

Reading follows what GNU Backgammon's importer does, so that our results agree with gnubg's on the
files people hold (BackgammonGalaxy and Backgammon Studio exports included):

* a line is split into X's (left) and O's (right) entry the way gnubg splits it: before the second
  ``NN:`` roll when there are two, else at the first run of two spaces after column 15;
* ``25`` / ``bar`` and ``0`` / ``off``, missing ``*`` and written-out repeats are all accepted;
  a roll with nothing after it, or ``Cannot Move``, is the empty play of a dancing roll;
* ``Wins N point(s)`` ends a game that is still going as a resignation: single when N <= cube,
  gammon when N <= 2 x cube, else backgammon (gnubg's rule), the points then come from the cube;
  after a bear-off or a drop the line is only compared, because Galaxy credits just the points the
  winner needed;
* ``Losses N point`` (Galaxy) and unknown words are ignored, with a note.

Text in, values out: no file I/O here (the CLI reads the files).

>>> text = '''
...  1 point match
...
...  Game 1
...  Alice : 0                      Bob : 0
...   1) 31: 8/5 6/5                 Doubles => 2
...   2)  Drops
...                                  Wins 1 point
... '''
>>> mat = parse_mat(text)
>>> mat.length, mat.players, len(mat.games)
(1, ('Alice', 'Bob'), 1)
>>> report = check_mat(mat)
>>> report.ok, report.final_score, [(g.winner, g.points) for g in report.games]
(True, (0, 1), [('O', 1)])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tablecompanion.rules.actions import (
    AcceptResign,
    Action,
    ActionError,
    Beaver,
    Double,
    OpeningRoll,
    Pass,
    PlayAction,
    Resign,
    Roll,
    StandingPlay,
    Take,
    other,
)
from tablecompanion.rules.errors import RulesError
from tablecompanion.rules.match import Match

__all__ = [
    "MatFileError",
    "MatEntry",
    "MatGame",
    "MatFile",
    "GameOutcome",
    "CheckReport",
    "parse_mat",
    "check_mat",
    "check_text",
    "match_from_mat",
    "write_mat",
    "split_columns",
]


class MatFileError(RulesError):
    """Text that is not a match file at all (no ``N point match`` line, unreadable game header)."""


_LENGTH_RE = re.compile(r"^\s*(\d+)\s+[Pp]oint\s+[Mm]atch")
_GAME_RE = re.compile(r"^\s*Game\s+(\d+)\s*$")
_HEADER_RE = re.compile(r"^\s*[;#]\s*\[\s*([^\"\]]+?)\s+\"(.*)\"\s*\]\s*$")
_SCORE_RE = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$")
_ROLL_RE = re.compile(r"^([1-6])([1-6]):(.*)$")
_MOVE_NO_RE = re.compile(r"^\s*(\d+)\)")
_INT_RE = re.compile(r"\s*(\d+)")


@dataclass(frozen=True)
class MatEntry:
    """One column entry of a game: a roll and its play, a cube action, or a Wins/Losses line.

    ``kind`` is "roll", "double", "beaver", "take", "drop", "win", "loss" or "other"; ``text`` the
    play for a roll ("" when none) or the raw words otherwise; ``value`` the cube value of a
    double or the points of a Wins/Losses line.
    """

    line: int
    move_number: int | None
    player: str
    kind: str
    dice: tuple[int, int] | None = None
    text: str = ""
    value: int | None = None


@dataclass
class MatGame:
    """A game as written: its number, the header names and score, the entries in order."""

    number: int
    line: int
    names: tuple[str, str]
    score: tuple[int, int]
    entries: list[MatEntry] = field(default_factory=list)


@dataclass
class MatFile:
    """A parsed .mat: match length (0 = money), ``; [Key "Value"]`` headers, games."""

    length: int
    headers: dict[str, str]
    games: list[MatGame]
    notes: list[str] = field(default_factory=list)

    @property
    def players(self) -> tuple[str, str]:
        if self.games:
            return self.games[0].names
        return (self.headers.get("Player 1", "X"), self.headers.get("Player 2", "O"))

    def _flag(self, key: str, default: bool) -> bool:
        value = self.headers.get(key)
        if value is None:
            return default
        return value.strip().lower() not in ("off", "false", "no", "0")

    @property
    def crawford(self) -> bool:
        """The Crawford rule: on unless a ``Crawford "Off"`` header says otherwise."""
        return self._flag("Crawford", True)

    @property
    def jacoby(self) -> bool:
        """Money play only: a ``Jacoby "On"`` header."""
        return self.length == 0 and self._flag("Jacoby", False)

    @property
    def beaver(self) -> bool:
        """Money play only: a ``Beaver "On"`` header, or a beaver written in the games."""
        written = any(e.kind == "beaver" for g in self.games for e in g.entries)
        return self.length == 0 and self._flag("Beaver", written)


def split_columns(line: str) -> tuple[str, str | None]:
    """Split a move line into X's and O's text the way gnubg's importer does.

    >>> [part.strip() for part in split_columns("  1) 42: 8/4 6/4                        64: 8/2 6/2")]
    ['42: 8/4 6/4', '64: 8/2 6/2']
    >>> [part.strip() for part in split_columns("                                  Wins 1 point")]
    ['', 'Wins 1 point']
    """
    right: str | None = None
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if first >= 0 and second > 3:
        right = line[second - 2 :]
        line = line[: second - 3]
    elif len(line) > 15:
        cut = line.find("  ", 15)
        if cut >= 0:
            right = line[cut + 1 :]
            line = line[:cut]
    paren = line.find(")")
    left = line[paren + 1 :] if paren >= 0 else line
    if paren < 0 and not left.strip():
        left = ""
    return left, right


def _entry(text: str, player: str, line_no: int, move_no: int | None) -> MatEntry | None:
    s = text.strip()
    if not s:
        return None
    m = _ROLL_RE.match(s)
    if m:
        play = m.group(3).strip()
        low = play.lower()
        if low.startswith(("cannot move", "can't move", "cant move", "???")) or low in ("(no move)", "no move"):
            play = ""
        return MatEntry(line_no, move_no, player, "roll", (int(m.group(1)), int(m.group(2))), play)
    low = s.lower()
    for word, kind in (("double", "double"), ("beaver", "beaver"), ("take", "take"), ("drop", "drop"),
                       ("pass", "drop"), ("win", "win"), ("loss", "loss")):
        if low.startswith(word):
            value = None
            if kind in ("double", "beaver"):
                m2 = re.search(r"(\d+)", s)
                value = int(m2.group(1)) if m2 else None
            elif kind in ("win", "loss"):
                m2 = _INT_RE.match(s[4:] if kind == "win" else s[6:])
                value = int(m2.group(1)) if m2 else 0
            return MatEntry(line_no, move_no, player, kind, None, s, value)
    return MatEntry(line_no, move_no, player, "other", None, s)


def parse_mat(text: str) -> MatFile:
    """Parse the text of a .mat file; :class:`MatFileError` when it is not one."""
    if not isinstance(text, str):
        raise MatFileError(f"a match file is text, not {type(text).__name__}")
    lines = text.lstrip("\ufeff").splitlines()
    headers: dict[str, str] = {}
    length = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        i += 1
        h = _HEADER_RE.match(raw)
        if h:
            headers[h.group(1).strip()] = h.group(2)
            continue
        m = _LENGTH_RE.match(raw)
        if m:
            length = int(m.group(1))
            break
    if length is None:
        raise MatFileError("not a match file: no 'N point match' line")
    mat = MatFile(length, headers, [])
    game: MatGame | None = None
    warned = set()
    while i < len(lines):
        raw = lines[i]
        i += 1
        if not raw.strip():
            continue
        g = _GAME_RE.match(raw)
        if g:
            # the next non-blank line holds the names and the score
            while i < len(lines) and not lines[i].strip():
                i += 1
            if i >= len(lines):
                raise MatFileError(f"line {i}: game {g.group(1)} has no score line")
            s = _SCORE_RE.match(lines[i])
            if not s:
                raise MatFileError(f"line {i + 1}: expected 'name : score   name : score', got {lines[i].strip()!r}")
            game = MatGame(
                int(g.group(1)),
                i + 1,
                (s.group(1).strip(), s.group(3).strip()),
                (int(s.group(2)), int(s.group(4))),
            )
            mat.games.append(game)
            i += 1
            continue
        if game is None:
            continue  # text between the header and the first game
        mn = _MOVE_NO_RE.match(raw)
        move_no = int(mn.group(1)) if mn else None
        left, right = split_columns(raw)
        for player, part in (("X", left), ("O", right)):
            if part is None:
                continue
            e = _entry(part, player, i, move_no)
            if e is None:
                continue
            if e.kind == "other" and e.text.lower().startswith("resign"):
                continue  # .gam resign lines carry nothing gnubg uses
            if e.kind in ("other", "loss") and e.kind not in warned:
                warned.add(e.kind)
                mat.notes.append(f"line {i}: ignored {e.text!r}")
            game.entries.append(e)
    return mat


# ---------------------------------------------------------------------------------------------
# replay


@dataclass(frozen=True)
class GameOutcome:
    """One game's result as the checker found it (``winner`` None: the game never finished)."""

    number: int
    winner: str | None
    points: int
    resigned: bool = False
    verified: bool = True
    """False when the game's replay stopped on an illegal action and the file's Wins line was used."""

    def as_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "points": self.points}


@dataclass
class CheckReport:
    """What ``mat check`` says about one file."""

    file: str
    length: int
    players: tuple[str, str]
    games: list[GameOutcome]
    final_score: tuple[int, int]
    errors: list[str]
    notes: list[str]
    match: Match | None = None

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "ok": self.ok,
            "games": [g.as_dict() for g in self.games],
            "final_score": list(self.final_score),
            "errors": list(self.errors),
        }


class _Stop(Exception):
    def __init__(self, entry: MatEntry | None, why: str) -> None:
        super().__init__(why)
        self.entry = entry
        self.why = why


def _resign_level(points: int, cube: int) -> str:
    if points <= cube:
        return "single"
    if points <= 2 * cube:
        return "gammon"
    return "backgammon"


def _play_game(match: Match, mg: MatGame, notes: list[str]) -> None:
    """Apply one written game to ``match``; raises :class:`_Stop` at the first illegal entry."""
    entries = mg.entries
    game = match.game
    k = 0
    while k < len(entries):
        e = entries[k]
        k += 1
        if game.is_over:
            if e.kind == "win":
                res = game.result
                if e.player != res.winner:
                    raise _Stop(e, f"the file says {e.player} wins, but {res.winner} won the game")
                if e.value != res.points:
                    notes.append(
                        f"game {mg.number}: file credits {e.value}, the game is worth {res.points}"
                    )
                continue
            if e.kind in ("loss", "other"):
                continue
            raise _Stop(e, "an action after the end of the game")
        try:
            if e.kind == "roll":
                _apply_roll(match, e, entries[k:])
            elif e.kind == "double":
                match.apply(Double(player=e.player))
                if e.value is not None and e.value != game.cube_value * 2:
                    notes.append(f"game {mg.number} line {e.line}: double written as {e.value}, cube was {game.cube_value}")
            elif e.kind == "beaver":
                match.apply(Beaver(player=e.player))
            elif e.kind == "take":
                match.apply(Take(player=e.player))
            elif e.kind == "drop":
                match.apply(Pass(player=e.player))
            elif e.kind == "win":
                if game.awaiting == "opening_roll":
                    raise _Stop(e, "a win before the game started")
                level = _resign_level(e.value or 0, game.cube_value)
                match.apply(Resign(level, player=other(e.player)))
                match.apply(AcceptResign(player=e.player))
            # "loss" and unknown words: ignored like gnubg does
        except ActionError as exc:
            raise _Stop(e, str(exc)) from None
        if match.game is not game and not game.is_over:  # pragma: no cover - defensive
            raise _Stop(e, "the game changed unexpectedly")


def _apply_roll(match: Match, e: MatEntry, rest: list[MatEntry]) -> None:
    game = match.game
    d1, d2 = e.dice
    if game.awaiting == "opening_roll":
        if d1 == d2:
            raise ActionError(f"the opening roll cannot be a double ({d1}{d2}): ties are rolled again")
        hi, lo = max(d1, d2), min(d1, d2)
        match.apply(OpeningRoll(hi, lo) if e.player == "X" else OpeningRoll(lo, hi))
    else:
        if game.awaiting == "take_or_pass" and game._beaver:
            # gnubg: a roll after a beaver means the beaver was taken
            match.apply(Take(player=game.actor))
        match.apply(Roll(d1, d2, player=e.player))
    if not e.text and game.position.has_legal_play(game.dice):
        # A roll with no play: legal only when nothing can be played, or just before a resignation.
        if rest and rest[0].kind == "win" and rest[0].player != e.player:
            return
        raise ActionError(f"{e.player} rolled {d1}{d2} but no play is written although legal plays exist")
    match.apply(PlayAction(e.text or None, player=e.player))


def match_from_mat(mat: MatFile) -> tuple[Match, CheckReport]:
    """Replay a parsed file with the rules engine: the :class:`Match` and the check report."""
    return _replay(mat, "<text>")


def _options(mat: MatFile) -> dict[str, bool]:
    return {"crawford": mat.crawford, "jacoby": mat.jacoby, "beaver": mat.beaver}


def _replay(mat: MatFile, name: str) -> tuple[Match, CheckReport]:
    match = Match(mat.length, mat.players, **_options(mat))
    notes = list(mat.notes)
    errors: list[str] = []
    outcomes: list[GameOutcome] = []
    score = [0, 0]
    for mg in mat.games:
        if match.is_over:
            notes.append(f"game {mg.number}: ignored, the match was already over")
            break
        if tuple(score) != mg.score:
            errors.append(
                f"game {mg.number}: the file's score {mg.score[0]}-{mg.score[1]} differs from the games "
                f"before it, {score[0]}-{score[1]}"
            )
        before = len(match.games)
        try:
            _play_game(match, mg, notes)
        except _Stop as stop:
            e = stop.entry
            where = f"game {mg.number}" + (f" move {e.move_number}" if e and e.move_number else "")
            if e is not None:
                where += f" (line {e.line}, {e.player})"
            errors.append(f"{where}: {stop.why}")
            # carry on from the file's own word for this game so later games are still checked
            win = next((x for x in reversed(mg.entries) if x.kind == "win"), None)
            if len(match.games) == before and win is not None:
                outcomes.append(GameOutcome(mg.number, win.player, win.value or 0, verified=False))
                score["XO".index(win.player)] += win.value or 0
            elif len(match.games) > before:
                rec = match.games[-1]
                outcomes.append(GameOutcome(mg.number, rec.winner, rec.points, rec.resigned))
                score["XO".index(rec.winner)] += rec.points
            else:
                outcomes.append(GameOutcome(mg.number, None, 0, verified=False))
            match = _restart(match, score, mat)
            continue
        if len(match.games) > before:
            rec = match.games[-1]
            outcomes.append(GameOutcome(mg.number, rec.winner, rec.points, rec.resigned))
            score["XO".index(rec.winner)] += rec.points
        else:
            outcomes.append(GameOutcome(mg.number, None, 0))
            notes.append(f"game {mg.number}: unfinished")
            if mg is not mat.games[-1]:
                errors.append(f"game {mg.number}: the game ends without a result but another game follows")
                match = _restart(match, score, mat)
    report = CheckReport(name, mat.length, mat.players, outcomes, (score[0], score[1]), errors, notes, match)
    return match, report


def _restart(old: Match, score: list[int], mat: MatFile) -> Match:
    """A fresh match at ``score`` after a game that could not be replayed (Crawford kept)."""
    n = mat.length
    if n and max(score) >= n:
        m = Match(n, mat.players, **_options(mat))
        m._score = list(score)  # finished: only the score matters now
        return m
    post = old.crawford_state in ("crawford", "post")
    return Match(n, mat.players, **_options(mat), score=(score[0], score[1]), post_crawford=post)


def check_mat(mat: MatFile, name: str = "<text>") -> CheckReport:
    """Replay a parsed match file and say whether every action was legal, game by game."""
    return _replay(mat, name)[1]


def check_text(text: str, name: str = "<text>") -> CheckReport:
    """Parse and check the text of one .mat file; a file that is not one gives a failing report."""
    try:
        mat = parse_mat(text)
    except MatFileError as exc:
        return CheckReport(name, 0, ("X", "O"), [], (0, 0), [str(exc)], [])
    return check_mat(mat, name)


# ---------------------------------------------------------------------------------------------
# writing


def write_mat(match: Match, headers: dict[str, str] | None = None) -> str:
    """The match as .mat text that GNU Backgammon imports (layout of gnubg's own export).

    Resignations are written as the winner's ``Wins N points`` line (N = level x cube), which
    gnubg reads back as the same resignation; rejected resignations and tied opening rolls are
    not part of the format and are left out.
    """
    out: list[str] = []
    headers = dict(headers or {})
    if match.length and not match.crawford:
        headers["Crawford"] = "Off"
    if match.is_money:
        headers["Jacoby"] = "On" if match.jacoby else "Off"
        headers["Beaver"] = "On" if match.beaver else "Off"
    for key, value in headers.items():
        out.append(f'; [{key} "{value}"]')
    if out:
        out.append("")
    out.append(f" {match.length} point match")
    out.append("")
    records = list(match.games)
    games = [r.game for r in records]
    if not match.is_over and match.game.history and (not records or records[-1].game is not match.game):
        games.append(match.game)
    scores = [r.score_before for r in records]
    if len(games) > len(scores):
        scores.append((match.score["X"], match.score["O"]))
    names = [n.replace(":", " ") for n in match.players]
    for number, (game, score) in enumerate(zip(games, scores), start=1):
        out.append(f" Game {number}")
        out.append(f" {names[0] + ' : ' + str(score[0]):<31}{names[1]} : {score[1]}")
        out.extend(_game_lines(game, match, number == len(games)))
        out.append("")
    return "\n".join(out) + "\n"


def _game_lines(game, match: Match, last: bool) -> list[str]:
    rows: list[list[str | None]] = []

    def put(player: str, cell: str) -> None:
        col = 0 if player == "X" else 1
        if not rows or rows[-1][col] is not None or (col == 0 and rows[-1][1] is not None):
            rows.append([None, None])
        rows[-1][col] = cell

    rolled: tuple[str, tuple[int, int]] | None = None  # dice on the table, not played yet
    for t in game.history:
        a = t.action
        if isinstance(a, Roll):
            rolled = (t.actor, a.dice)
        elif isinstance(a, OpeningRoll) and a.x_die != a.o_die:  # a tie is rolled again, not written
            rolled = ("X" if a.x_die > a.o_die else "O", (max(a.x_die, a.o_die), min(a.x_die, a.o_die)))
        elif isinstance(a, PlayAction):
            rolled = None
            d = t.dice
            put(t.actor, f"{d[0]}{d[1]}: {'' if t.play is None or t.play.is_pass() else str(t.play)}".rstrip())
        elif isinstance(a, StandingPlay):
            rolled = None
            d = t.dice
            text = str(t.play) if t.play is not None else (a.text or "")
            put(t.actor, f"{d[0]}{d[1]}: {text}".rstrip())
        elif isinstance(a, AcceptResign) and rolled is not None:
            # rolled, then resigned without playing: gnubg keeps the dice alone
            put(rolled[0], f"{rolled[1][0]}{rolled[1][1]}:")
            rolled = None
        elif isinstance(a, Double):
            put(t.actor, f" Doubles => {t.cube.value * 2}")
        elif isinstance(a, Beaver):
            put(t.actor, f" Beavers => {t.cube.value * 4}")
        elif isinstance(a, Take):
            put(t.actor, " Takes")
        elif isinstance(a, Pass):
            put(t.actor, " Drops")
    res = game.result
    if res is not None:
        # The result goes in the winner's column, on the drop's line when there is room (as gnubg
        # writes it), else on a line of its own.
        pts = res.points
        tail = " and the match" if last and match.is_over else ""
        put(res.winner, f" Wins {pts} point{'s' * (pts != 1)}{tail}")
    lines = []
    for n, (left, right) in enumerate(rows, start=1):
        left = left or ""
        # Every line is at least 33 characters: gnubg 1.07 reads past the end of lines shorter
        # than 16 into the previous line's text and would replay that line's O entry again.
        sep = " " if len(left) < 27 else "  "
        lines.append(f"{n:3d}) {left:<27}{sep}{right or ''}")
    return lines
