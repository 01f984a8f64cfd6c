"""A stand-in hall for the web tests while (or where) the real one is unavailable: the real
:class:`~tablecompanion.referee.referee.Referee` per table, kept in memory, with the Hall's methods."""

from __future__ import annotations

import hmac
import itertools

from tablecompanion.referee.errors import BadTokenError, UnknownTableError
from tablecompanion.referee.referee import Referee
from tablecompanion.referee.settings import TableSettings


class FakeHall:
    def __init__(self, data_dir=None) -> None:
        self._tables: dict[str, Referee] = {}
        self._tokens: dict[str, str] = {}
        self._ids = itertools.count(1)

    def create_table(self, settings: TableSettings, table_id: str | None = None, token: str | None = None):
        table_id = table_id or str(next(i for i in self._ids if str(i) not in self._tables))
        ref = Referee(table_id, settings)
        self._tables[table_id] = ref
        self._tokens[table_id] = token or "secret"
        return ref, self._tokens[table_id]

    def get(self, table_id: str) -> Referee:
        try:
            return self._tables[str(table_id)]
        except KeyError:
            raise UnknownTableError(f"no table {table_id!r}") from None

    def tables(self) -> list[Referee]:
        return list(self._tables.values())

    def check_token(self, table_id: str, token: str) -> bool:
        self.get(table_id)
        if not hmac.compare_digest(self._tokens[str(table_id)], token or ""):
            raise BadTokenError("wrong token")
        return True
