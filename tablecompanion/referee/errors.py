"""The referee's exception family: why an action or observation is refused, in a player's words.

``status`` is HTTP-like so the web layer can pass it through: 400 malformed input, 403 bad operator
token, 404 no such table, 409 not allowed at this moment of the match, 503 the record cannot be written.
"""

from __future__ import annotations

__all__ = ["RefereeError", "BadActionError", "NotAllowedError", "BadTokenError", "UnknownTableError",
           "SettingsError", "RecordUnavailableError"]


class RefereeError(Exception):
    """Base of every error raised by :mod:`tablecompanion.referee`; nothing changed when it is raised."""

    status = 400

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    def to_dict(self) -> dict:
        return {"error": self.message, "status": self.status}


class BadActionError(RefereeError):
    """The request itself is malformed: unknown action, dice that are not 1-6, unreadable notation."""

    status = 400


class SettingsError(BadActionError):
    """Table settings that cannot be used (unknown option, wrong type, option not valid for the match kind)."""


class NotAllowedError(RefereeError):
    """A well-formed action the rules do not allow now (rolling out of turn, doubling in the Crawford game)."""

    status = 409


class BadTokenError(RefereeError):
    """The operator token is missing or wrong."""

    status = 403


class UnknownTableError(RefereeError, KeyError):
    """No table with that id on this server."""

    status = 404

    def __str__(self) -> str:
        return self.message


class RecordUnavailableError(RefereeError):
    """The event could not be written to the record, so it did not take effect."""

    status = 503
