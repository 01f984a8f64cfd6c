"""The exact backgammon rules engine: positions, legal plays, notation, gnubg IDs and XGID.

Pure Python, standard library only, no I/O. Modelled on python-chess: immutable value types,
classmethod parsers, one error family (:class:`RulesError`).

>>> from tablecompanion.rules import Position
>>> pos = Position.from_position_id("4HPwATDgc/ABMA")
>>> sorted(str(p) for p in pos.legal_plays((6, 5)))[:3]
['13/2', '13/7 8/3', '13/8 13/7']
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

# --- games, matches, records
from tablecompanion.rules.actions import (  # noqa: E402
    PLAYERS,
    RESIGN_LEVELS,
    AcceptResign,
    Action,
    ActionError,
    Beaver,
    Double,
    OpeningRoll,
    Pass,
    PlayAction,
    RejectResign,
    Resign,
    Roll,
    StandingPlay,
    Take,
    other,
)
from tablecompanion.rules.chouette import Chouette, ChouetteGame, MemberResult  # noqa: E402
from tablecompanion.rules.cube import Cube  # noqa: E402
from tablecompanion.rules.game import AWAITING, Game, GameResult, GameRules  # noqa: E402
from tablecompanion.rules.match import GameRecord, Match  # noqa: E402
from tablecompanion.rules.matfile import (  # noqa: E402
    CheckReport,
    MatFile,
    MatFileError,
    check_mat,
    check_text,
    match_from_mat,
    parse_mat,
    write_mat,
)
from tablecompanion.rules.scoring import game_points, result_level  # noqa: E402

__all__ += [
    "AWAITING",
    "PLAYERS",
    "RESIGN_LEVELS",
    "AcceptResign",
    "Action",
    "ActionError",
    "Beaver",
    "CheckReport",
    "Chouette",
    "ChouetteGame",
    "Cube",
    "Double",
    "Game",
    "GameRecord",
    "GameResult",
    "GameRules",
    "MatFile",
    "MatFileError",
    "Match",
    "MemberResult",
    "OpeningRoll",
    "Pass",
    "PlayAction",
    "RejectResign",
    "Resign",
    "Roll",
    "StandingPlay",
    "Take",
    "check_mat",
    "check_text",
    "game_points",
    "match_from_mat",
    "other",
    "parse_mat",
    "result_level",
    "write_mat",
]
