"""The exact backgammon rules engine: positions, legal plays, notation, gnubg IDs and XGID.

Pure Python, standard library only, no I/O. Modelled on python-chess: immutable value types,
classmethod parsers, one error family (:class:`RulesError`).

>>> from tablecompanion.rules import Position
>>> pos = Position.from_position_id("4HPwATDgc/ABMA")
>>> [str(p) for p in pos.legal_plays((6, 5))][:1]
['24/13']
"""

from tablecompanion.rules.errors import (
    IllegalPlayError,
    InvalidIdError,
    InvalidPositionError,
    NotationError,
    RulesError,
)
from tablecompanion.rules.ids import MatchState, decode_position_id, encode_position_id
from tablecompanion.rules.position import (
    BAR,
    CHECKERS,
    OFF,
    START,
    Move,
    Play,
    Position,
    normalize_dice,
)
from tablecompanion.rules.notation import format_play, parse_paths
from tablecompanion.rules.xgid import Xgid

__all__ = [
    "BAR",
    "CHECKERS",
    "OFF",
    "START",
    "IllegalPlayError",
    "InvalidIdError",
    "InvalidPositionError",
    "MatchState",
    "Move",
    "NotationError",
    "Play",
    "Position",
    "RulesError",
    "Xgid",
    "decode_position_id",
    "encode_position_id",
    "format_play",
    "normalize_dice",
    "parse_paths",
]

# --- rules part 2 (issue 3) appends its exports below this line ---
