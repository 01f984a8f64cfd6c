"""A table's settings: who plays, the match length and options, the move policy, the clock, the seating.

Settings are checked once, here, so the referee and the record never see a value they cannot use.

>>> s = TableSettings(players=("Alice", "Bob"), match_length=7)
>>> TableSettings.from_dict(s.to_dict()) == s
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import SettingsError

__all__ = ["TableSettings", "ClockSettings", "MOVE_POLICIES", "MAX_MATCH_LENGTH"]

MOVE_POLICIES = ("legal", "responsible")
MAX_MATCH_LENGTH = 99
MAX_NAME = 40


@dataclass(frozen=True)
class ClockSettings:
    """Delay per move plus a bank per match point (tournament style: 12 s + 2 min/point).

    ``bank_s`` overrides the bank (needed for money play, where there is no match length).
    """

    delay_s: float = 12.0
    bank_per_point_s: float = 120.0
    bank_s: float | None = None

    def __post_init__(self) -> None:
        for name in ("delay_s", "bank_per_point_s"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 86400:
                raise SettingsError(f"clock {name} must be a number of seconds from 0 to 86400, not {v!r}")
        if self.bank_s is not None:
            v = self.bank_s
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 864000:
                raise SettingsError(f"clock bank_s must be a positive number of seconds, not {v!r}")

    def bank_for(self, match_length: int) -> float:
        if self.bank_s is not None:
            return float(self.bank_s)
        if match_length == 0:
            raise SettingsError("a clock for money play needs bank_s (there are no match points)")
        return float(self.bank_per_point_s) * match_length

    @classmethod
    def from_value(cls, value: Any) -> "ClockSettings | None":
        if value is None or value is False:
            return None
        if isinstance(value, ClockSettings):
            return value
        if not isinstance(value, dict):
            raise SettingsError(f"clock must be null or an object like {{'delay_s': 12, 'bank_per_point_s': 120}}, "
                                f"not {value!r}")
        known = {f.name for f in fields(cls)}
        unknown = set(value) - known
        if unknown:
            raise SettingsError(f"unknown clock setting(s): {', '.join(sorted(unknown))}")
        return cls(**value)


@dataclass(frozen=True)
class TableSettings:
    """Everything chosen when a match starts at a table. Money play is ``match_length=0``."""

    players: tuple[str, str] = ("Player X", "Player O")
    match_length: int = 7
    crawford: bool = True
    jacoby: bool = False
    beaver: bool = False
    automatic_doubles: int = 0  # money play: how many tied opening rolls may turn the cube per game
    backgammon_as_gammon: bool = False
    move_policy: str = "legal"
    clock: ClockSettings | None = None
    bottom_player: str = "X"
    home: str = "right"
    dice_sets: tuple[str, str] | None = None  # names of X's and O's dice sets, for dice statistics
    cube_limit: int | None = None
    chouette: tuple[str, ...] | None = None  # 3+ names, box first then the team in order (money play)

    def __post_init__(self) -> None:
        if self.chouette is not None:
            self._check_chouette()
        players = self.players
        if isinstance(players, list):
            players = tuple(players)
            object.__setattr__(self, "players", players)
        if (not isinstance(players, tuple) or len(players) != 2
                or not all(isinstance(p, str) and p.strip() for p in players)):
            raise SettingsError("players must be two non-empty names")
        names = tuple(p.strip() for p in players)
        if any(len(p) > MAX_NAME for p in names):
            raise SettingsError(f"a player's name has at most {MAX_NAME} characters")
        if names[0] == names[1]:
            raise SettingsError("the two players need different names")
        object.__setattr__(self, "players", names)
        ml = self.match_length
        if isinstance(ml, bool) or not isinstance(ml, int) or not 0 <= ml <= MAX_MATCH_LENGTH:
            raise SettingsError(f"match_length must be a whole number from 0 (money) to {MAX_MATCH_LENGTH}, "
                                f"not {ml!r}")
        for name in ("crawford", "jacoby", "beaver", "backgammon_as_gammon"):
            if not isinstance(getattr(self, name), bool):
                raise SettingsError(f"{name} must be true or false, not {getattr(self, name)!r}")
        ad = self.automatic_doubles
        if isinstance(ad, bool):
            ad = int(ad)
            object.__setattr__(self, "automatic_doubles", ad)
        if not isinstance(ad, int) or not 0 <= ad <= 6:
            raise SettingsError(f"automatic_doubles is how many per game, 0 (off) to 6, not {ad!r}")
        if ml > 0:
            if self.jacoby:
                raise SettingsError("the Jacoby rule applies to money play only (match_length 0)")
            if self.beaver:
                raise SettingsError("beavers apply to money play only (match_length 0)")
            if ad:
                raise SettingsError("automatic doubles apply to money play only (match_length 0)")
        if self.move_policy not in MOVE_POLICIES:
            raise SettingsError(f"move_policy is 'legal' or 'responsible', not {self.move_policy!r}")
        object.__setattr__(self, "clock", ClockSettings.from_value(self.clock))
        if self.clock is not None:
            self.clock.bank_for(ml)  # money play without bank_s is refused here
        if self.bottom_player not in ("X", "O"):
            raise SettingsError(f"bottom_player is 'X' or 'O', not {self.bottom_player!r}")
        if self.home not in ("right", "left"):
            raise SettingsError(f"home is 'right' or 'left', not {self.home!r}")
        if self.dice_sets is not None:
            ds = tuple(self.dice_sets) if isinstance(self.dice_sets, (list, tuple)) else None
            if ds is None or len(ds) != 2 or not all(isinstance(s, str) and s.strip() for s in ds):
                raise SettingsError("dice_sets must be two names (X's set, O's set) or null")
            object.__setattr__(self, "dice_sets", tuple(s.strip()[:MAX_NAME] for s in ds))
        cl = self.cube_limit
        if cl is not None and (isinstance(cl, bool) or not isinstance(cl, int) or cl < 2 or cl & (cl - 1)):
            raise SettingsError(f"cube_limit is a power of two of at least 2, or null, not {cl!r}")

    def _check_chouette(self) -> None:
        names = self.chouette
        if not isinstance(names, (list, tuple)) or len(names) < 3:
            raise SettingsError("a chouette needs at least three players: box first, then the team in order")
        names = tuple(n.strip() if isinstance(n, str) else n for n in names)
        if any(not isinstance(n, str) or not n or len(n) > MAX_NAME for n in names) or len(set(names)) != len(names):
            raise SettingsError(f"chouette players need distinct names of 1 to {MAX_NAME} characters")
        if self.match_length != 0:
            raise SettingsError("a chouette is money play: match_length must be 0")
        if self.beaver:
            raise SettingsError("beavers are not played in a chouette")
        object.__setattr__(self, "chouette", names)
        object.__setattr__(self, "players", (names[0], names[1]))

    @property
    def money(self) -> bool:
        return self.match_length == 0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["players"] = list(self.players)
        d["dice_sets"] = list(self.dice_sets) if self.dice_sets else None
        d["chouette"] = list(self.chouette) if self.chouette else None
        return d

    @classmethod
    def from_dict(cls, data: Any) -> "TableSettings":
        """Settings from JSON-like data; unknown keys and wrong types raise :class:`SettingsError`."""
        if isinstance(data, TableSettings):
            return data
        if not isinstance(data, dict):
            raise SettingsError("settings must be an object")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise SettingsError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        kwargs = dict(data)
        if "players" in kwargs:
            p = kwargs["players"]
            if isinstance(p, dict):
                p = (p.get("X"), p.get("O"))
            if isinstance(p, list):
                p = tuple(p)
            kwargs["players"] = p
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise SettingsError(f"bad settings: {exc}") from exc
