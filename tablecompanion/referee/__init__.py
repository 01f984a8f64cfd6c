"""The referee of a backgammon table: the state machine, its decisions, the clock, and the hall of tables.

>>> from tablecompanion.referee import Referee, TableSettings
>>> ref = Referee("1", TableSettings(players=("Alice", "Bob"), match_length=1))
>>> ref.act({"action": "roll", "dice": [6, 1]})[0]["message"]
'Alice starts with 6-1'
"""

from .clock import MatchClock
from .errors import (
    BadActionError,
    BadTokenError,
    NotAllowedError,
    RecordUnavailableError,
    RefereeError,
    SettingsError,
    UnknownTableError,
)
from .hall import Hall
from .referee import ACTIONS, Referee, normalize_action
from .settings import ClockSettings, TableSettings

__all__ = [
    "Referee", "TableSettings", "ClockSettings", "RefereeError", "BadActionError", "NotAllowedError",
    "BadTokenError", "UnknownTableError", "SettingsError", "RecordUnavailableError", "Hall", "MatchClock",
    "ACTIONS", "normalize_action",
]
