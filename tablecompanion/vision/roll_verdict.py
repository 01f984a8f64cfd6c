"""A roll's verdict from its dice: valid only when exactly the thrown dice lie flat, read and placed right;
void for a die cocked, misplaced or missing; unclear (re-roll) for a die unread. Kept apart from how the
dice are seen (:mod:`tablecompanion.vision.roll_reader`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, Sequence

from tablecompanion.vision.dice import DiceReading
from tablecompanion.vision.placement import Placement

__all__ = ["DieSeen", "RollReading", "RollVerdict", "judge_dice", "propose", "value_unread"]

RollVerdict = Literal["valid", "void", "unclear"]


@dataclass(frozen=True)
class DieSeen:
    """One die of a roll: its reading (value only when flat), where it rests and why it is not flat."""

    value: int | None
    status: Literal["flat", "cocked", "unclear"]
    placement: Placement
    centre: tuple[float, float]  # image px (the top face)
    board_mm: tuple[float, float]  # where it rests on the board
    confidence: float
    reason: str = ""  # why cocked / unclear: "resting on a checker", "tilted", "unreadable"
    reading: DiceReading | None = field(default=None, repr=False)
    features: dict = field(default_factory=dict, repr=False)
    # the value a die read flat shows when only what it touches, or the tilt net's doubt, keeps it from
    # counting: a person who sees it lie flat can take the roll instead of re-rolling (``RollReader.proposal_for``)
    proposed: int | None = None

    def as_reading(self) -> DiceReading:
        """A :class:`DiceReading` (what ``RollWatcher`` and ``judge_roll`` take) with this verdict's status."""
        r = self.reading
        if r is None:
            return DiceReading(None, self.centre, (), self.confidence, self.status)
        return replace(r, value=self.value if self.status == "flat" else None, status=self.status)


@dataclass(frozen=True)
class RollReading:
    dice: tuple[DieSeen, ...]
    verdict: RollVerdict
    reason: str
    occluded: bool = False
    opening: bool = False

    @property
    def values(self) -> tuple[int | None, ...]:
        return tuple(d.value for d in self.dice)

    @property
    def proposal(self) -> tuple[int, ...] | None:
        """The roll to put to the players when it is unclear only for what a die touches (see :func:`propose`).
        For the opening roll the dice are in the order seen (each lies in its player's half: the caller, who
        knows the halves, says whose is whose), and equal dice are none (they are rolled again anyway)."""
        return propose(self.dice, 2, self.opening) if self.verdict == "unclear" else None


def value_unread(d: DieSeen) -> bool:
    """Left unclear for its value alone (no face read, or the two readers read two), not for how or where it
    lies: the outline checks may still find the face it shows."""
    return d.reason == "unreadable" or d.reason.startswith("read as ")


def propose(dice: Sequence[DieSeen], expected: int = 2, opening: bool = False) -> tuple[int, ...] | None:
    """The roll ``dice`` show if those unclear only for what they touch (or the tilt net's doubt) lie flat
    (``DieSeen.proposed``), when every other die is flat, read and placed right; None otherwise, and for
    ``opening`` dice that are equal (a tie is rolled again whether the die leans or not)."""
    if len(dice) != expected or not any(d.proposed for d in dice):
        return None
    values = []
    for d in dice:
        value = d.value if d.status == "flat" else d.proposed if d.status == "unclear" else None
        if value is None or d.placement not in ("ok", "unknown"):
            return None
        values.append(int(value))
    if opening and len(set(values)) < len(values):
        return None
    return tuple(values)


def judge_dice(dice: Sequence[DieSeen], expected: int = 2) -> tuple[RollVerdict, str]:
    """Valid only when exactly ``expected`` dice are seen, each flat, read and placed "ok"/"unknown".

    A die that is cocked or placed wrong makes the roll void, and so does one missing (it left the board);
    an unreadable die makes it "unclear" (re-roll), and so do more dice than were thrown (which of them are
    the roll, and are they all dice?); the first problem found is the reason."""
    if len(dice) < expected:
        return "void", f"only {len(dice)} of {expected} dice seen (off the board or hidden?)"
    if len(dice) > expected:
        return "unclear", f"{len(dice)} dice seen, expected {expected}: re-roll"
    for i, d in enumerate(dice, start=1):
        if d.status == "cocked":
            return "void", f"die {i} cocked ({d.reason})" if d.reason else f"die {i} cocked"
        if d.placement not in ("ok", "unknown"):
            return "void", f"die {i} {d.placement}"
    for i, d in enumerate(dice, start=1):
        if d.status != "flat" or d.value is None:
            return "unclear", f"die {i} unclear ({d.reason or 'unreadable'}): re-roll"
    return "valid", "-".join(str(d.value) for d in sorted(dice, key=lambda d: -(d.value or 0)))
