"""The one exception family of calibration: every message says what to do next."""

from __future__ import annotations


class CalibrationError(Exception):
    """Calibration could not be made, loaded or applied; the message tells the person what to do."""


class BoardNotFoundError(CalibrationError):
    """No board could be found in a frame (no markers, corners or board features)."""


class ProfileError(CalibrationError):
    """A saved profile is missing, corrupt, from another version or for another camera."""
