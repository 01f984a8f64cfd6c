"""The record's exception family: anything that stops an event or an export from being kept."""

from __future__ import annotations

__all__ = ["RecordError", "UnknownTableError", "DuplicateTableError", "ExportError"]


class RecordError(RuntimeError):
    """Base of every error raised by :mod:`tablecompanion.record`."""


class UnknownTableError(RecordError, KeyError):
    """No table with that id is in the record."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown table"


class DuplicateTableError(RecordError):
    """A table with that id already exists in the record."""


class ExportError(RecordError):
    """A match cannot be exported (for example, no game has been played yet)."""
