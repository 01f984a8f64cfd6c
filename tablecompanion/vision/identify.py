"""Which play was made: the board the camera read, matched against every legal result of the roll.

The rules engine is the prior. Before the turn the position and the roll are known, so the observed
board is compared with each legal play's resulting position; the play is the one it matches. When it
matches none, the play was illegal, and the difference between the board before and the board now is
turned back into notation so the rules engine can say what is wrong with it ("6/off: ..."), with the
closest legal plays beside it. Points the camera was unsure of are left out of the comparison; when
that leaves several plays matching, the answer is "ambiguous" and a person should look. Where the
board's picture changed since the turn began (``BoardObservation.still``/``changed``) says where
checkers went when the counts cannot, as on piles.

>>> from tablecompanion.rules import Position
>>> before = Position.initial()
>>> after = before.parse_play("8/5 6/5", (3, 1)).result()
>>> identify_play(before, (3, 1), BoardObservation.from_position(after)).verdict
'legal'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal, Sequence

from tablecompanion.rules import CHECKERS, IllegalPlayError, NotationError, Play, Position
from tablecompanion.rules.errors import RulesError

Verdict = Literal["legal", "illegal", "ambiguous", "unchanged"]
BAR_INDEX = 24
CLOSEST = 3
# A second candidate this close (checker count differences) to the best one leaves room for a misread.
CONFIDENT_MARGIN = 4.0
# At most this many checkers of a legal result may be missing from the board for it still to be read as
# that play (each one lowers the confidence by UNSEEN_CONFIDENCE).
MAX_UNSEEN = 3
UNSEEN_CONFIDENCE = 0.7
TRAY_CONFIDENCE = 0.8  # a play told from its rivals only by the tray's count
PICTURE_CONFIDENCE = 0.8  # ... or only by where the picture changed


@dataclass(frozen=True)
class BoardObservation:
    """Checkers as read from the board, in the mover's numbering: 25 counts a side like
    :attr:`Position.on_roll` (index i = own point i+1, index 24 = bar); borne off is what is missing.

    ``uncertain`` holds the mover's point numbers (1..24, 25 for the bar) whose counts the reader could
    not vouch for (occlusion, mixed colours); they are left out of the comparison. ``at_least`` holds
    points whose count is a lower bound (a full row may carry a pile the camera sees as the row): a
    candidate with at least that many checkers there matches. ``off`` is the mover's borne-off checkers as
    counted in their tray (None when the tray was not read): it tells apart plays the points cannot, such
    as a checker borne off from beside a pile against one put on it.

    ``still`` and ``changed`` compare the board's picture with its picture before the turn
    (``vision.changes``): points that look exactly as they did (no checker put down or taken away) and
    points that were touched. They tell where checkers went when the counts cannot, as on piles; a point in
    neither says nothing, and without a picture from before the turn both are empty.
    """

    mover: tuple[int, ...]
    opponent: tuple[int, ...]
    uncertain: frozenset[int] = field(default_factory=frozenset)
    confidence: float = 1.0
    at_least: frozenset[int] = field(default_factory=frozenset)
    off: int | None = None
    still: frozenset[int] = field(default_factory=frozenset)
    changed: frozenset[int] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        for name in ("mover", "opponent"):
            counts = tuple(int(n) for n in getattr(self, name))
            if len(counts) != 25 or min(counts) < 0:
                raise ValueError(f"{name} must be 25 non-negative counts (points 1..24 and the bar)")
            object.__setattr__(self, name, counts)
        for name in ("uncertain", "at_least", "still", "changed"):
            object.__setattr__(self, name, frozenset(getattr(self, name)))
            for point in getattr(self, name):
                if not 1 <= point <= 25:
                    raise ValueError(f"{name} points are 1..24 or 25 (bar), not {point!r}")
        if self.still & self.changed:
            raise ValueError(f"a point cannot be both still and changed: {sorted(self.still & self.changed)}")
        if self.off is not None and not 0 <= int(self.off) <= CHECKERS:
            raise ValueError(f"off must be None or 0..{CHECKERS} checkers, not {self.off!r}")

    @classmethod
    def from_position(cls, position: Position, uncertain: Iterable[int] = (), confidence: float = 1.0,
                      at_least: Iterable[int] = ()):
        """The observation of a board that shows exactly ``position`` (mover = side on roll)."""
        return cls(position.on_roll, position.opponent, frozenset(uncertain), confidence, frozenset(at_least))

    def to_json(self) -> dict:
        """A plain dict (lists and ints) that :meth:`from_json` turns back into the same observation."""
        return {"mover": list(self.mover), "opponent": list(self.opponent), "uncertain": sorted(self.uncertain),
                "confidence": self.confidence, "at_least": sorted(self.at_least), "off": self.off,
                "still": sorted(self.still), "changed": sorted(self.changed)}

    @classmethod
    def from_json(cls, data: dict) -> "BoardObservation":
        return cls(tuple(data["mover"]), tuple(data["opponent"]), frozenset(data.get("uncertain", ())),
                   float(data.get("confidence", 1.0)), frozenset(data.get("at_least", ())), data.get("off"),
                   frozenset(data.get("still", ())), frozenset(data.get("changed", ())))

    def position(self) -> Position:
        """The observed board as a position, mover on roll (raises if it is not a legal board)."""
        return Position.from_board(self.mover, self.opponent)


@dataclass(frozen=True)
class Identification:
    """The answer: what was played, how sure, and for an illegal play what was done and why not."""

    verdict: Verdict
    play: Play | None
    confidence: float
    distance: float
    candidates: tuple[tuple[Play, float], ...]
    observed: str = ""
    reason: str = ""
    points: tuple[int, ...] = ()

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "play": None if self.play is None else str(self.play),
            "confidence": round(self.confidence, 3),
            "distance": self.distance,
            "closest": [{"play": str(p), "distance": d} for p, d in self.candidates],
            "observed": self.observed,
            "reason": self.reason,
            "points": list(self.points),
        }


def board_distance(result: Position, seen: BoardObservation) -> float:
    """How many checkers would have to change for ``result`` to look like ``seen`` (sure points only)."""
    return float(_distance(result.on_roll, result.opponent, seen))


def _distance(mover: Sequence[int], opp: Sequence[int], seen: BoardObservation) -> int:
    """:func:`board_distance` of a board given as counts (the mover's numbering, index 24 the bar), which
    need not be a legal position: a checker put where the rules forbid is still a board to compare."""
    total = 0
    for point in range(1, 25):
        if point in seen.uncertain:
            continue
        total += _gap(mover[point - 1], seen.mover[point - 1], point in seen.at_least)
        total += _gap(opp[24 - point], seen.opponent[24 - point], point in seen.at_least)
    if 25 not in seen.uncertain:
        total += _gap(mover[BAR_INDEX], seen.mover[BAR_INDEX], 25 in seen.at_least)
        total += _gap(opp[BAR_INDEX], seen.opponent[BAR_INDEX], 25 in seen.at_least)
    return total


def unseen_checkers(result: Position, seen: BoardObservation, before: Position | None = None) -> tuple[int, int]:
    """(checkers of ``result`` the board does not show, checkers it shows that ``result`` lacks or that
    cannot have been missed), over the places the reader vouched for; a pile's count is a lower bound.

    With ``before``, a checker counts as missed only where the camera may have failed on a point that
    did not change (the count is as before the turn) or where it saw some of that point's checkers; a
    point the play put checkers on that shows none is not a miss but a checker gone elsewhere."""
    missing = extra = 0
    rows = []
    # bearing off, a mover's checker gone from a point may have been borne off (wrongly): only a point still
    # showing some of its checkers can have been half-missed by the camera, by one checker
    bearing_off = before is not None and not any(before.on_roll[6:])
    for point in range(1, 25):
        if point not in seen.uncertain:
            pile = point in seen.at_least
            rows.append((result.on_roll[point - 1], seen.mover[point - 1], pile,
                         None if before is None else before.on_roll[point - 1], bearing_off))
            rows.append((result.opponent[24 - point], seen.opponent[24 - point], pile,
                         None if before is None else before.opponent[24 - point], False))
    if 25 not in seen.uncertain:
        pile = 25 in seen.at_least
        rows.append((result.on_roll[BAR_INDEX], seen.mover[BAR_INDEX], pile,
                     None if before is None else before.on_roll[BAR_INDEX], bearing_off))
        rows.append((result.opponent[BAR_INDEX], seen.opponent[BAR_INDEX], pile,
                     None if before is None else before.opponent[BAR_INDEX], False))
    for expected, got, pile, earlier, strict in rows:
        if got > expected:
            extra += got - expected
        elif got < expected and not pile:
            if not strict and (got > 0 or earlier is None or earlier == expected):
                missing += expected - got
            elif strict and got > 0:
                missing += 1  # bearing off: one checker of a row may be missed; more gone were borne off
                extra += expected - got - 1
            else:
                extra += expected - got
    return missing, extra


def _piles_that_could_hide(result: Position, seen: BoardObservation) -> tuple[int, ...]:
    """The places whose count of the mover's checkers is not known, when some of the mover's checkers of
    ``result`` are not seen elsewhere: the mover's piles (a full row read as a lower bound) and the places
    read as uncertain (a hand beside them) that show none of the opponent's. A checker missing from one
    point may have been put there instead (an illegal play), not missed by the camera."""
    short = any(result.on_roll[i] > seen.mover[i] for i in range(25)
                if (25 if i == BAR_INDEX else i + 1) not in seen.uncertain | seen.at_least)
    if not short:
        return ()
    piles = {p for p in seen.at_least
             if p not in seen.uncertain and seen.mover[BAR_INDEX if p == 25 else p - 1] > 0}
    unsure = {p for p in seen.uncertain if p == 25 or seen.opponent[24 - p] == 0}
    return tuple(sorted(piles | unsure, reverse=True))


def _gap(expected: int, seen: int, lower_bound: bool) -> int:
    """Checkers to change at one place; a lower-bound count matches any larger expected count."""
    if lower_bound and expected >= seen:
        return 0
    return abs(expected - seen)


def identify_play(before: Position, dice: Sequence[int], seen: BoardObservation) -> Identification:
    """Match the observed board against the legal results of ``dice`` played from ``before``."""
    plays = before.legal_plays(dice)
    if not plays:
        plays = [before.pass_play(dice)]
    ranked = sorted(((p, board_distance(p.result(), seen)) for p in plays), key=lambda pd: pd[1])
    best_play, best = ranked[0]
    exact = [p for p, d in ranked if d == 0]
    closest = tuple(ranked[:CLOSEST])

    if len(exact) > 1:
        told = _told_by_tray(exact, seen)
        if told is not None:
            return Identification("legal", told, seen.confidence * TRAY_CONFIDENCE, 0.0, closest, observed=str(told),
                                  reason=f"{len(exact)} legal plays fit the points; the tray tells this one")
        shown = [p for p in exact if not _picture_disagrees(before, p.result().on_roll, p.result().opponent, seen)]
        if len(shown) == 1:
            return Identification("legal", shown[0], seen.confidence * PICTURE_CONFIDENCE, 0.0, closest,
                                  observed=str(shown[0]), reason=f"{len(exact)} legal plays fit the points; where the "
                                                                 f"picture changed tells this one")
        exact = shown or exact
        return Identification(
            "ambiguous", None, 0.0, 0.0, tuple((p, 0.0) for p in exact[:CLOSEST]),
            reason=f"{len(exact)} legal plays fit the board where it could be read: please look",
            points=_points_of(exact),
        )
    if best == 0:
        result = best_play.result()
        untouched = _picture_disagrees(before, result.on_roll, result.opponent, seen)
        if untouched:
            # the counts fit, but the picture shows no checker put down or taken away where the play moves them
            return _ask_for_a_look(closest, f"{best_play} fits the counts, but the picture shows no change on "
                                            f"{', '.join(map(_name, untouched))}: please look",
                                   _points_of([best_play]) + untouched)
        slips = [(p, q) for p, q in _slips_that_fit(before, result, seen)
                 if not _picture_disagrees(before, *_slipped(before, result, p, q), seen, touched=(p, q))]
        if slips:
            # the play's checkers arrived where the camera could not count them, and the same play with a
            # checker put a point off (an illegal play) leaves the board it read just as well
            return _ask_for_a_look(closest, f"{best_play} fits, but {_describe_slips(slips, seen)}: please look",
                                   _points_of([best_play]) + tuple(q for pq in slips for q in pq))
        runner_up = ranked[1][1] if len(ranked) > 1 else CONFIDENT_MARGIN
        confidence = seen.confidence * min(1.0, runner_up / CONFIDENT_MARGIN)
        return Identification("legal", best_play, confidence, 0.0, closest, observed=str(best_play))

    # a tray that gained checkers says the board changed, whatever the points show: a checker borne off from
    # a pile (read as its row) or from a point where one more may have been missed is a play, not none
    tray_grew = seen.off is not None and seen.off > before.borne_off[0]
    if board_distance(before, seen) == 0 and not tray_grew:
        return Identification(
            "unchanged", None, seen.confidence, best, closest,
            reason="the board still shows the position before the roll: no checker has moved",
        )
    # A board that is a legal result less a few checkers is that result with checkers the camera missed
    # (a dark checker on a dark point, a shadow): a play moves checkers, it never makes them vanish.
    # Extra checkers, or checkers in the wrong place, are never explained away.
    # ... unless the tray holds more checkers than the play bears off: the checker the points lack is in the
    # tray, borne off by a play that is not this one
    explained = []
    for play, _ in ranked:
        result = play.result()
        missing, extra = unseen_checkers(result, seen, before)
        in_tray = seen.off is not None and seen.off > result.borne_off[0]
        if extra == 0 and 0 < missing <= MAX_UNSEEN and not in_tray:
            explained.append((missing, play))
    if explained:
        explained.sort(key=lambda mp: mp[0])
        missing, play = explained[0]
        hiding = _piles_that_could_hide(play.result(), seen)
        if hiding:
            # a checker put on a pile by mistake looks the same as one the camera missed: ask, never excuse it
            return Identification(
                "ambiguous", None, 0.0, float(missing), tuple((p, float(m)) for m, p in explained[:CLOSEST]),
                reason=f"{play} fits if {missing} checker{'s' if missing > 1 else ''} were missed by the camera, "
                       f"but {'it' if missing == 1 else 'they'} may be on the pile on {', '.join(map(_name, hiding))}: please look",
                points=_points_of([play]) + tuple(p for p in hiding if p not in _points_of([play])),
            )
        if len(explained) == 1 or explained[1][0] > missing:
            confidence = seen.confidence * UNSEEN_CONFIDENCE**missing
            return Identification(
                "legal", play, confidence, float(missing), closest, observed=str(play),
                reason=f"{missing} checker{'s' if missing > 1 else ''} of this play not seen on the board (missed or hidden)",
            )
        tied = [p for m, p in explained if m == missing]
        told = _told_by_tray(tied, seen)
        if told is not None:
            return Identification(
                "legal", told, seen.confidence * TRAY_CONFIDENCE * UNSEEN_CONFIDENCE**missing, float(missing), closest,
                observed=str(told), reason=f"{len(tied)} legal plays fit the points if {missing} checker(s) were "
                                           f"missed; the tray tells this one")
        return Identification(
            "ambiguous", None, 0.0, float(missing), tuple((p, float(missing)) for p in tied[:CLOSEST]),
            reason=f"{len(tied)} legal plays fit the board if {missing} checker(s) were missed: please look",
            points=_points_of(tied),
        )
    missing, extra = unseen_checkers(before, seen, before)
    if extra == 0 and missing <= MAX_UNSEEN and not tray_grew and not _piles_that_could_hide(before, seen):
        return Identification(
            "unchanged", None, seen.confidence * UNSEEN_CONFIDENCE**missing, best, closest,
            reason="the board still shows the position before the roll: no checker has moved",
        )
    observed, reason, points = describe_illegal(before, dice, seen)
    return Identification("illegal", None, seen.confidence, best, closest, observed, reason, points)


def _ask_for_a_look(closest, reason: str, points: Iterable[int]) -> Identification:
    """The best play fits, but the board cannot tell it from a mistake beside it: a person looks at ``points``."""
    return Identification("ambiguous", None, 0.0, 0.0, closest, reason=reason,
                          points=tuple(sorted(set(points), reverse=True)))


def _slips_that_fit(before: Position, result: Position, seen: BoardObservation) -> tuple[tuple[int, int], ...]:
    """The pairs (p, q) where ``result`` puts the mover's checkers on p without the reader seeing them all
    arrive (p uncertain, or a pile read short of the result), and the same board with one of those checkers
    put a point off, on q, fits the reading as well: q's count is not known either (uncertain, or the mover's
    pile, read as a lower bound). A hit on p that the slip would undo must then show too: the hit checker on
    the bar is evidence that the play reached p. A player miscounts by a pip, not by eighteen: q is p's
    neighbour only (the opening 6-5's 24/13 onto the mid-point's row beside the full 6-point stands)."""
    hiding = set(seen.uncertain) | {p for p in seen.at_least if p <= 24 and seen.mover[p - 1] > 0}
    slips = []
    for p in range(1, 25):
        if not (result.on_roll[p - 1] > before.on_roll[p - 1] and seen.mover[p - 1] < result.on_roll[p - 1]
                and p in hiding):
            continue
        for q in (p + 1, p - 1):
            if 1 <= q <= 24 and q in hiding and _distance(*_slipped(before, result, p, q), seen) == 0:
                slips.append((p, q))
    return tuple(slips)


def _picture_disagrees(before: Position, mover: Sequence[int], opp: Sequence[int], seen: BoardObservation,
                       touched: Iterable[int] = ()) -> tuple[int, ...]:
    """The points where the picture says a board (counts in the mover's numbering) is not the one on the
    table: it changes a point that looks exactly as it did before the turn, or it leaves as they were the
    counts of a point of ``touched`` that the picture shows touched. A point looking as it did is strong
    evidence (a checker put down changes its point's look); a touched point is weaker (a player may nudge a
    checker, or lift one and put it back), so it is asked of named points only."""
    touched = set(touched)
    out = []
    for p in range(1, 25):
        moved = mover[p - 1] != before.on_roll[p - 1] or opp[24 - p] != before.opponent[24 - p]
        if moved and p in seen.still and not _on_the_pile_only(before, mover, opp, seen, p):
            out.append(p)
        elif not moved and p in touched and p in seen.changed:
            out.append(p)
    return tuple(sorted(out, reverse=True))


def _on_the_pile_only(before: Position, mover: Sequence[int], opp: Sequence[int], seen: BoardObservation,
                      p: int) -> bool:
    """Whether a board changes point p only above its row: before and after, at least the row the camera
    reads there (a pile). A checker put exactly on top of another of its colour can leave the picture as it
    was (seen from straight above, on a plain checker), so a point that looks as it did says nothing there."""
    if p not in seen.at_least:
        return False
    row = max(seen.mover[p - 1], seen.opponent[24 - p])
    return min(before.on_roll[p - 1], mover[p - 1]) >= row > 0 or min(before.opponent[24 - p], opp[24 - p]) >= row > 0


def _slipped(before: Position, result: Position, p: int, q: int) -> tuple[list[int], list[int]]:
    """``result``'s counts with one of the mover's checkers moved from p to q (the mover's numbering): a hit on
    p that no checker of the mover is left to make is undone, and a blot on q is hit instead."""
    mover, opp = list(result.on_roll), list(result.opponent)
    mover[p - 1] -= 1
    mover[q - 1] += 1
    if mover[p - 1] == 0 and before.opponent[24 - p] == 1 and result.opponent[24 - p] == 0:
        opp[24 - p] += 1
        opp[BAR_INDEX] -= 1
    if opp[24 - q] == 1:
        opp[24 - q] = 0
        opp[BAR_INDEX] += 1
    return mover, opp


def _describe_slips(slips: Sequence[tuple[int, int]], seen: BoardObservation) -> str:
    """Why the camera cannot tell the play from a slip, in words: where it lost the checkers and where a
    slipped one could be."""
    where = sorted({p for p, _ in slips}, reverse=True)
    unread = [p for p in where if p in seen.uncertain]
    piles = [p for p in where if p not in seen.uncertain]
    parts = []
    if unread:
        parts.append(f"the camera could not read {', '.join(map(_name, unread))}, where it puts checkers")
    if piles:
        parts.append(f"it puts checkers on the pile{'s' if len(piles) > 1 else ''} on {', '.join(map(_name, piles))}, "
                     f"which the camera cannot count")
    instead = ", ".join(f"on {_name(q)} for {_name(p)}" for p, q in slips)
    return " and ".join(parts) + f", and a checker put a point off ({instead}) would look the same"


def _told_by_tray(plays: Sequence[Play], seen: BoardObservation) -> Play | None:
    """The one play of ``plays`` that leaves the mover as many checkers borne off as the tray shows, if one."""
    if seen.off is None:
        return None
    fits = [p for p in plays if p.result().borne_off[0] == seen.off]
    return fits[0] if len(fits) == 1 else None


def describe_illegal(before: Position, dice: Sequence[int], seen: BoardObservation) -> tuple[str, str, tuple[int, ...]]:
    """What the player seems to have done (notation), why the rules refuse it, and the points involved."""
    seen = _fill_piles(before, seen)
    problems = _opponent_changes(before, seen)
    sources, dests = _mover_changes(before, seen)
    if 0 in dests and any(seen.mover[6:]):
        # Nothing can be borne off while checkers are outside the home board: they are unaccounted for.
        dests = [d for d in dests if d != 0]
    hit_points = {p for p, n in problems.pop("hit", {}).items() if n > 0}
    steps = _pair(sources, dests)
    text = " ".join(
        f"{_name(s)}/{_name(d)}{'*' if d in hit_points else ''}" for s, d in steps
    )
    points = tuple(sorted({p for s, d in steps for p in (s, d) if 1 <= p <= 24}, reverse=True))
    if len(sources) != len(dests):
        missing = len(sources) - len(dests)
        what = "missing from the board" if missing > 0 else "more than before"
        return text, f"{abs(missing)} of the mover's checkers are {what}: the board cannot be read as a play", points
    if problems.get("moved"):
        moved = ", ".join(str(p) for p in sorted(problems["moved"], reverse=True))
        return text, f"the opponent's checkers changed on {moved} (mover's numbering) without being hit", points
    try:
        play = before.parse_play(text, dice)
    except (IllegalPlayError, NotationError) as err:
        return text, str(err), points
    try:
        matches = play.result() == seen.position()
    except RulesError:  # more checkers read than a side has: the board cannot be a position
        return text, "more checkers were read than a side has: the board cannot be read as a play", points
    if not matches:
        return text, f"{play} was read, but a hit checker is not on the bar or one is there that was not hit", points
    return text, "the board matches no legal play", points


def _fill_piles(before: Position, seen: BoardObservation) -> BoardObservation:
    """Checkers a pile hides, put back where they must be: the opponent cannot lose checkers during the
    mover's turn, and the mover can only bear off what a turn allows, so a deficit lies under the piles."""
    if not seen.at_least:
        return seen
    counts = {"mover": list(seen.mover), "opponent": list(seen.opponent)}
    totals = {"mover": CHECKERS - before.borne_off[0], "opponent": CHECKERS - before.borne_off[1]}
    for who, arr in counts.items():
        piles = []
        for point in sorted(seen.at_least):
            index = BAR_INDEX if point == 25 else (point - 1 if who == "mover" else 24 - point)
            if arr[index]:
                piles.append(index)
        deficit = totals[who] - sum(arr)
        bearing_off = who == "mover" and not any(before.on_roll[6:])
        if len(piles) == 1 and deficit > 0 and not bearing_off:
            arr[piles[0]] += deficit
    return BoardObservation(tuple(counts["mover"]), tuple(counts["opponent"]), seen.uncertain, seen.confidence, seen.at_least)


def _mover_changes(before: Position, seen: BoardObservation) -> tuple[list[int], list[int]]:
    """Points the mover's checkers left (with multiplicity; 25 = bar) and reached (0 = off)."""
    sources: list[int] = []
    dests: list[int] = []
    for index in range(25):
        point = 25 if index == BAR_INDEX else index + 1
        delta = seen.mover[index] - before.on_roll[index]
        (dests if delta > 0 else sources).extend([point] * abs(delta))
    off_delta = (CHECKERS - sum(seen.mover)) - before.borne_off[0]
    if off_delta > 0:
        dests.extend([0] * off_delta)
    return sorted(sources, reverse=True), sorted(dests, reverse=True)


def _opponent_changes(before: Position, seen: BoardObservation) -> dict[str, dict[int, int]]:
    """Opponent checkers gone from the mover's points: hits when the bar grew to match, else moves."""
    gone: dict[int, int] = {}
    for index in range(24):
        delta = before.opponent[index] - seen.opponent[index]
        if delta:
            gone[24 - index] = delta  # the opponent's point index+1 is the mover's 24 - index
    bar_gain = seen.opponent[BAR_INDEX] - before.opponent[BAR_INDEX]
    hits: dict[int, int] = {}
    moved: dict[int, int] = {}
    for point, n in sorted(gone.items(), reverse=True):
        if n > 0 and bar_gain > 0:
            taken = min(n, bar_gain)
            hits[point] = taken
            bar_gain -= taken
            n -= taken
        if n:
            moved[point] = n
    return {"hit": hits, "moved": moved}


def _pair(sources: list[int], dests: list[int]) -> list[tuple[int, int]]:
    """Pair leaving and arriving checkers, highest with highest, as players write their moves."""
    return list(zip(sources, dests))


def _points_of(plays: Iterable[Play]) -> tuple[int, ...]:
    points = {p for play in plays for m in play.moves for p in (m.source, m.dest) if 1 <= p <= 24}
    return tuple(sorted(points, reverse=True))


def _name(point: int) -> str:
    return "bar" if point == 25 else "off" if point == 0 else str(point)
