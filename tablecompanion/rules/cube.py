"""The doubling cube as a value: its stake, who owns it, and who may turn it.

A game holds one :class:`Cube` and replaces it on every cube action, so undo by replay is trivial
and the referee can show "why not" without trying the action.

>>> cube = Cube()
>>> cube.why_cannot_double("X") is None
True
>>> cube = cube.taken_by("O")
>>> cube
Cube(value=2, owner='O')
>>> cube.why_cannot_double("X")
'X cannot double: O owns the cube'
"""

from __future__ import annotations

from dataclasses import dataclass

from tablecompanion.rules.actions import ActionError, other

__all__ = ["Cube"]


@dataclass(frozen=True)
class Cube:
    """Cube value (1 = centred showing 64) and owner ("X", "O" or ``None`` = centred)."""

    value: int = 1
    owner: str | None = None

    def __post_init__(self) -> None:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1):
            raise ActionError(f"a cube value is a power of two (1, 2, 4, ...), not {v!r}")
        if self.owner not in (None, "X", "O"):
            raise ActionError(f"the cube owner is 'X', 'O' or None (centred), not {self.owner!r}")

    @property
    def centred(self) -> bool:
        return self.owner is None

    def why_cannot_double(self, player: str, *, crawford: bool = False, limit: int | None = None) -> str | None:
        """Why ``player`` may not offer a double now (``None`` when they may).

        Only the cube's state is judged here; that it is ``player``'s turn before rolling is the
        game's business. Owning the cube is what stops a player doubling twice in a row: after a
        take the cube belongs to the other side.
        """
        if crawford:
            return "no doubling in the Crawford game"
        if self.owner is not None and self.owner != player:
            return f"{player} cannot double: {self.owner} owns the cube"
        if limit is not None and self.value * 2 > limit:
            return f"{player} cannot double: the cube is limited to {limit}"
        return None

    def taken_by(self, taker: str) -> "Cube":
        """The cube after ``taker`` accepts a double: twice the value, in the taker's hands."""
        other(taker)
        return Cube(self.value * 2, taker)

    def beavered_by(self, beaverer: str) -> "Cube":
        """The cube after a take-and-redouble: four times the value, still the beaverer's."""
        other(beaverer)
        return Cube(self.value * 4, beaverer)

    def turned_centred(self) -> "Cube":
        """An automatic double on a tied opening roll: twice the value, still centred."""
        if self.owner is not None:
            raise ActionError("automatic doubles only turn a centred cube")
        return Cube(self.value * 2, None)
