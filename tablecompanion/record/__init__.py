"""The durable record of every table: SQLite event log, evidence frames, exports, dice statistics."""

from .errors import DuplicateTableError, ExportError, RecordError, UnknownTableError
from .stats import DiceRoll, DiceSetStats, chi2_sf, dice_statistics, rolls_from_events
from .store import EventRow, Record, TableRow

__all__ = [
    "Record", "EventRow", "TableRow", "RecordError", "UnknownTableError", "DuplicateTableError",
    "ExportError", "chi2_sf", "dice_statistics", "rolls_from_events", "DiceRoll", "DiceSetStats",
]
