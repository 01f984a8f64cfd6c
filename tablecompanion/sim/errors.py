"""The simulator's one exception family: bad scene, camera or footage input says what is wrong."""

from __future__ import annotations


class SimError(ValueError):
    """A scene, camera or footage request the simulator cannot render, with a readable reason."""
