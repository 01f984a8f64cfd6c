"""What one dashboard application holds: its hall of tables and the broker that fans out live updates.

Kept in ``app.extensions["tablecompanion"]`` so two apps (two tests) never share a table or a listener.
"""

from __future__ import annotations

import hmac

from flask import current_app


class WebState:
    def __init__(self, app, hall) -> None:
        from .events import Broker

        self.hall = hall
        self.broker = Broker(app, hall)

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


def web_state() -> WebState:
    return current_app.extensions["tablecompanion"]
