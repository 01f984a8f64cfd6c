"""Table simulator: photo-like webcam frames of a backgammon board, with ground truth.

A test and demo instrument (never a shortcut for the vision code): ``render_frame(scene, camera, seed)``
for one still, ``tablecompanion.sim.footage`` for whole matches replayed from .mat files.
"""

from tablecompanion.sim.camera import Camera
from tablecompanion.sim.errors import SimError
from tablecompanion.sim.render import Renderer, render_frame
from tablecompanion.sim.scene import DIE_STATES, Cube, Die, Hand, Scene
from tablecompanion.sim.style import DIE_STYLES, STYLES

__all__ = [
    "Camera",
    "Cube",
    "DIE_STATES",
    "DIE_STYLES",
    "Die",
    "Hand",
    "Renderer",
    "STYLES",
    "Scene",
    "SimError",
    "render_frame",
]
