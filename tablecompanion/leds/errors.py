"""The LED board's one exception family: every failure a caller can see is a ``LedError``."""

from __future__ import annotations


class LedError(Exception):
    """Base of all LED board errors; messages say what to check on the board or the cable."""


class ProtocolError(LedError):
    """The board answered something the protocol does not allow (wrong version, malformed reply)."""


class BoardErrorReply(ProtocolError):
    """The board rejected a frame with an ERROR reply (unknown type, bad length, ...)."""

    def __init__(self, code: int, detail: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.detail = detail


class LinkTimeout(LedError):
    """No valid answer within the retries: the board is unplugged, busy resetting or not ours."""


class BoardNotFound(LedError):
    """Discovery found no serial port that answers the LED board handshake."""


class ToolchainMissing(LedError):
    """avr-gcc, simavr's library or a C compiler is missing, so the emulated MCU cannot be built."""
