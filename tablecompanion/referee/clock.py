"""The match clock: a delay per move plus a bank per match point; whoever runs out of time loses.

The clock is driven by the times of recorded events, never by reading the wall clock itself, so a
replayed record rebuilds exactly the same clock. Only the player who must act has a running clock;
each time the clock passes to a player they get ``delay_s`` free before their bank runs down.

>>> from tablecompanion.referee.settings import ClockSettings
>>> c = MatchClock(ClockSettings(delay_s=12, bank_per_point_s=120), match_length=3)
>>> c.switch("X", 100.0)
>>> c.remaining("X", 150.0)   # 50 s used, the first 12 are free
322.0
>>> c.expires_at()
472.0
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .settings import ClockSettings

__all__ = ["MatchClock"]


@dataclass
class MatchClock:
    settings: ClockSettings
    match_length: int
    bank: dict = field(default_factory=dict)
    running: str | None = None
    since: float | None = None  # when the running player's clock last started

    def __post_init__(self) -> None:
        if not self.bank:
            b = self.settings.bank_for(self.match_length)
            self.bank = {"X": b, "O": b}

    @property
    def delay_s(self) -> float:
        return float(self.settings.delay_s)

    def _used(self, t: float) -> float:
        """Bank seconds the running player has used since the clock passed to them."""
        if self.running is None or self.since is None:
            return 0.0
        return max(0.0, (t - self.since) - self.delay_s)

    def remaining(self, player: str, t: float) -> float:
        left = self.bank[player]
        if player == self.running:
            left -= self._used(t)
        return max(0.0, left)

    def delay_left(self, t: float) -> float:
        if self.running is None or self.since is None:
            return 0.0
        return max(0.0, self.delay_s - (t - self.since))

    def switch(self, player: str | None, t: float) -> None:
        """Stop the running clock at ``t`` (charging its bank) and start ``player``'s (None = stop all)."""
        if player == self.running:
            return
        if self.running is not None:
            self.bank[self.running] = max(0.0, self.bank[self.running] - self._used(t))
        self.running = player
        self.since = t if player is not None else None

    def expires_at(self) -> float | None:
        """The moment the running player's time is up (None when no clock is running)."""
        if self.running is None or self.since is None:
            return None
        return self.since + self.delay_s + self.bank[self.running]

    def expired(self, t: float) -> str | None:
        """The player whose time is up at ``t``, if any."""
        end = self.expires_at()
        if end is not None and t >= end:
            return self.running
        return None

    def to_dict(self, t: float) -> dict:
        return {
            "delay_s": self.delay_s,
            "running": self.running,
            "delay_left": round(self.delay_left(t), 3),
            "remaining": {p: round(self.remaining(p, t), 3) for p in ("X", "O")},
            "expires_at": self.expires_at(),
        }
