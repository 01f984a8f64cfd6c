"""Calibration: where the board is in the camera's image, and which pixel is which point.

Make a ``Calibration`` from the corner markers (``calibrate_from_markers``), from four given corners
(``calibrate_from_corners``) or from the board's own look (``find_board``); save and load it by name
(``save_profile``/``load_profile``); check it still holds (``check_drift``).
"""

from tablecompanion.calibration.errors import BoardNotFoundError, CalibrationError, ProfileError
from tablecompanion.calibration.markers import calibrate_from_corners, calibrate_from_markers, detect_markers
from tablecompanion.calibration.model import Calibration
from tablecompanion.calibration.profiles import list_profiles, load_profile, save_profile

BoardProfile = Calibration

__all__ = [
    "BoardNotFoundError",
    "BoardProfile",
    "Calibration",
    "CalibrationError",
    "ProfileError",
    "calibrate_from_corners",
    "calibrate_from_markers",
    "detect_markers",
    "list_profiles",
    "load_profile",
    "save_profile",
]
