"""Every table of one server: created with an operator token, resumed from the record on start.

>>> import tempfile
>>> hall = Hall(tempfile.mkdtemp())
>>> ref, token = hall.create_table(TableSettings(players=("Ann", "Bo"), match_length=5), token="s3cret")
>>> ref.table_id, hall.check_token("1", "s3cret"), hall.check_token("1", "guess")
('1', True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import threading
import time as _time
from pathlib import Path
from typing import Callable

from .errors import BadActionError, NotAllowedError, RefereeError, UnknownTableError
from .referee import Referee
from .settings import TableSettings

__all__ = ["Hall", "hash_token"]

log = logging.getLogger(__name__)

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def hash_token(token: str, salt: str | None = None) -> str:
    """``salt$sha256`` of an operator token: the record never holds the token itself."""
    salt = salt or secrets.token_hex(8)
    return f"{salt}${hashlib.sha256((salt + token).encode()).hexdigest()}"


def _token_matches(token: str, stored: str) -> bool:
    if not stored or "$" not in stored or not isinstance(token, str):
        return False
    salt = stored.split("$", 1)[0]
    return hmac.compare_digest(hash_token(token, salt), stored)


class Hall:
    """The tables of a server, backed by one :class:`~tablecompanion.record.Record` under ``data_dir``."""

    def __init__(self, data_dir, *, now: Callable[[], float] | None = None,
                 tick_interval: float | None = None) -> None:
        from tablecompanion.record import Record, RecordError

        self.data_dir = Path(data_dir)
        try:
            self.record = Record(self.data_dir)
        except RecordError as exc:
            raise RefereeError(str(exc), status=503) from exc
        self._now = now or _time.time
        self._lock = threading.RLock()
        self._tables: dict[str, Referee] = {}
        self._tokens: dict[str, str] = {}
        self.resume_errors: dict[str, str] = {}
        for row in self.record.tables():
            try:
                self._tables[row.id] = Referee.resume(row.id, self.record, now=self._now)
                self._tokens[row.id] = row.token_hash
            except Exception as exc:  # noqa: BLE001 - one bad table must not keep the others down
                log.exception("table %s could not be resumed", row.id)
                self.resume_errors[row.id] = str(exc)
        self._ticker: threading.Thread | None = None
        self._ticker_stop = threading.Event()
        if tick_interval:
            self.start_ticker(tick_interval)

    def create_table(self, settings: TableSettings | dict, table_id: str | None = None,
                     token: str | None = None, *, min_token_length: int = 4) -> tuple[Referee, str]:
        """A new table with its match settings; returns its referee and operator token.

        ``min_token_length`` guards tokens typed into forms and the API; the server's own console
        (``serve --token T``) may choose a shorter one on purpose, and it must still work after a restart."""
        settings = TableSettings.from_dict(settings)
        if token is not None and (not isinstance(token, str) or not max(1, min_token_length) <= len(token) <= 200
                                  or not token.strip()):
            raise BadActionError(f"an operator token is text of {max(1, min_token_length)} to 200 characters")
        token = token or secrets.token_urlsafe(12)
        with self._lock:
            if table_id is None:
                k = 1
                while str(k) in self._tables or str(k) in self.resume_errors:
                    k += 1
                table_id = str(k)
            table_id = str(table_id)
            if not TABLE_ID.match(table_id):
                raise BadActionError("a table id is 1 to 40 letters, digits, '-' or '_'")
            if table_id in self._tables or table_id in self.resume_errors:
                raise NotAllowedError(f"table {table_id!r} already exists")
            th = hash_token(token)
            from tablecompanion.record import RecordError

            try:
                self.record.create_table(table_id, settings.to_dict(), th, time=self._now())
            except RecordError as exc:
                raise RefereeError(f"table {table_id!r} could not be recorded: {exc}", status=503) from exc
            ref = Referee(table_id, settings, self.record, now=self._now)
            self._tables[table_id] = ref
            self._tokens[table_id] = th
        return ref, token

    def get(self, table_id: str) -> Referee:
        ref = self._tables.get(str(table_id))
        if ref is None:
            raise UnknownTableError(f"no table {table_id!r}")
        return ref

    def __contains__(self, table_id: str) -> bool:
        return str(table_id) in self._tables

    def tables(self) -> list[Referee]:
        with self._lock:
            return list(self._tables.values())

    def check_token(self, table_id: str, token: str | None) -> bool:
        stored = self._tokens.get(str(table_id))
        if stored is None or not token:
            return False
        return _token_matches(token, stored)

    def tick(self) -> list[dict]:
        """Check every table's clock (a server calls this about once a second)."""
        out = []
        for ref in self.tables():
            try:
                out.extend(ref.tick())
            except RefereeError as exc:
                log.warning("table %s: clock check failed: %s", ref.table_id, exc)
        return out

    def start_ticker(self, interval: float = 1.0) -> None:
        """Check every table's clock every ``interval`` seconds from a daemon thread (for servers), so a
        time-out is recorded when it happens even if nobody acts."""
        if self._ticker is not None and self._ticker.is_alive():
            return
        self._ticker_stop.clear()

        def loop() -> None:
            while not self._ticker_stop.wait(interval):
                try:
                    self.tick()
                except Exception:  # noqa: BLE001 - the ticker must outlive any one table's trouble
                    log.exception("clock tick failed")

        self._ticker = threading.Thread(target=loop, name="hall-clock", daemon=True)
        self._ticker.start()

    def stop_ticker(self) -> None:
        self._ticker_stop.set()
        if self._ticker is not None:
            self._ticker.join(5)
            self._ticker = None

    def dice_statistics(self) -> dict:
        """Dice statistics per dice set across every table of this record."""
        from tablecompanion.record.export import dice_statistics_for

        return dice_statistics_for(self.record)

    def close(self) -> None:
        self.stop_ticker()
        self.record.close()
