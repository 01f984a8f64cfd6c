"""The LED board: what the referee wants lit (``LedState``), the framed serial protocol, the host
driver (``SerialLedBoard``), an in-process emulated board and the real firmware under simavr.

>>> from tablecompanion.leds import LedState, open_board
>>> with open_board("emulated") as board:
...     board.show(LedState().with_point(4, "green").with_turn("bottom"))
...     board.wait_shown(5)
True

See docs/leds.md (host side) and hardware/README.md (board).
"""

from tablecompanion.leds.board import LedBoard, LinkStats, SerialLedBoard, discover, open_board
from tablecompanion.leds.emulated import EmulatedLedBoard
from tablecompanion.leds.errors import (
    BoardErrorReply, BoardNotFound, LedError, LinkTimeout, ProtocolError, ToolchainMissing,
)
from tablecompanion.leds.state import COLOURS, STATUSES, LedState, LedStateError, Light, legal_destinations

__all__ = [
    "COLOURS", "STATUSES", "BoardErrorReply", "BoardNotFound", "EmulatedLedBoard", "LedBoard", "LedError",
    "LedState", "LedStateError", "Light", "LinkStats", "LinkTimeout", "ProtocolError", "SerialLedBoard",
    "ToolchainMissing", "discover", "legal_destinations", "open_board",
]
