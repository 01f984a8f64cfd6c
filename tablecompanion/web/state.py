"""What one dashboard application holds: its hall of tables, the broker that fans out live updates, and
the pictures of the calibration page (each table's camera, the frame being clicked on, the result).

Kept in ``app.extensions["tablecompanion"]`` so two apps (two tests) never share a table or a listener.
"""

from __future__ import annotations

import hmac
import threading
import time
from typing import Any, Callable

from flask import current_app


class WebState:
    def __init__(self, app, hall) -> None:
        from .events import Broker

        self.hall = hall
        self.broker = Broker(app, hall)
        # the calibration page's pictures, per table: a live camera, the picture the page shows (taken
        # from the camera or uploaded: clicks are made on it, so it stays put until replaced) and the last
        # annotated result; in memory only (the profile itself is saved on disk)
        self._lock = threading.Lock()
        self._cameras: dict[str, tuple[Any, Callable | None]] = {}
        self._shown: dict[str, tuple[Any, str, float]] = {}
        self._calibrated: dict[str, tuple[bytes, float]] = {}

    # -- pictures for the calibration page ---------------------------------------------------------
    def attach_camera(self, table_id: str, source: Any, apply: Callable | None = None) -> None:
        """Let the calibration page see ``table_id``'s camera: ``source`` is a ``TableRunner`` (its
        pipeline's last frame), anything with ``last_frame``, or a callable returning the latest frame.
        ``apply(calibration)``, when given, hands a profile made on the page to the running camera."""
        with self._lock:
            self._cameras[str(table_id)] = (source, apply)

    def has_camera(self, table_id: str) -> bool:
        with self._lock:
            return str(table_id) in self._cameras

    def latest_frame(self, table_id: str):
        """A copy of the live camera's latest frame for ``table_id``, or None (no camera, nothing seen yet)."""
        with self._lock:
            camera = self._cameras.get(str(table_id))
        frame = _last_frame_of(camera[0]) if camera is not None else None
        return None if frame is None else frame.copy()

    def camera_apply(self, table_id: str) -> Callable | None:
        with self._lock:
            camera = self._cameras.get(str(table_id))
        return camera[1] if camera else None

    def show_frame(self, table_id: str, image, origin: str) -> float:
        """Make ``image`` the picture the calibration page shows and calibrates on ("camera" or "upload");
        returns its stamp (the page's cache-buster)."""
        stamp = time.time()
        with self._lock:
            self._shown[str(table_id)] = (image, origin, stamp)
        return stamp

    def shown_frame(self, table_id: str):
        """``(image, origin, stamp)`` of the page's picture: the one shown, else the camera's latest (which
        then becomes the one shown), else ``(None, None, None)``."""
        with self._lock:
            shown = self._shown.get(str(table_id))
        if shown is not None:
            return shown
        frame = self.latest_frame(table_id)
        if frame is None:
            return None, None, None
        stamp = self.show_frame(table_id, frame, "camera")
        return frame, "camera", stamp

    def keep_calibrated(self, table_id: str, jpeg: bytes) -> float:
        """The annotated picture of the last calibration made on the page; returns its stamp."""
        stamp = time.time()
        with self._lock:
            self._calibrated[str(table_id)] = (jpeg, stamp)
        return stamp

    def calibrated(self, table_id: str) -> bytes | None:
        with self._lock:
            item = self._calibrated.get(str(table_id))
        return item[0] if item else None

    def table(self, table_id: str):
        """The referee of ``table_id`` or None."""
        try:
            return self.hall.get(str(table_id))
        except Exception:  # noqa: BLE001 - the hall's "unknown table" error, whatever its type
            return None

    def tables(self) -> list:
        return list(self.hall.tables())

    def check_token(self, table_id: str, token: str | None) -> bool:
        """The table's operator token: the hall's, or one given to the server (``TABLE_TOKENS``)."""
        if not token or not isinstance(token, str):
            return False
        given = (current_app.config.get("TABLE_TOKENS") or {}).get(str(table_id))
        if given and hmac.compare_digest(str(given).encode(), token.encode()):
            return True
        try:
            return bool(self.hall.check_token(str(table_id), token))
        except Exception:  # noqa: BLE001
            return False

    def check_admin(self, token: str | None) -> bool:
        admin = current_app.config.get("ADMIN_TOKEN")
        return bool(admin and isinstance(token, str) and token
                    and hmac.compare_digest(str(admin).encode(), token.encode()))


def _last_frame_of(source):
    """The newest frame a camera source holds, or None (nothing seen yet, or no image at all)."""
    try:
        if callable(source) and not hasattr(source, "pipeline"):
            frame = source()
        else:
            holder = getattr(source, "pipeline", None) or source
            frame = getattr(holder, "last_frame", None)
    except Exception:  # noqa: BLE001 - a camera that fails to answer has no frame
        return None
    frame = getattr(frame, "image", frame)  # a vision Frame
    if frame is None or not hasattr(frame, "shape") or getattr(frame, "size", 0) == 0 or len(frame.shape) < 2:
        return None
    return frame


def web_state() -> WebState:
    return current_app.extensions["tablecompanion"]
