"""The durable event log of every table: SQLite in WAL mode, one transaction per event.

An event is written (and synced) before the referee lets it take effect, so an acknowledged event is
never lost, whatever kills the process. A table's state is rebuilt by replaying its events in order.

>>> import tempfile
>>> rec = Record(tempfile.mkdtemp())
>>> rec.create_table("1", {"players": ["A", "B"]}, token_hash="x", time=0.0)
>>> rec.append("1", "roll", {"dice": [3, 1]}, source="operator", time=1.0).n
1
>>> [e.kind for e in rec.events("1")]
['roll']
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time as _time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import DuplicateTableError, RecordError, UnknownTableError

__all__ = ["Record", "EventRow", "TableRow", "DB_NAME", "EVIDENCE_DIR"]

DB_NAME = "record.sqlite3"
EVIDENCE_DIR = "evidence"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL REFERENCES tables(id),
    n INTEGER NOT NULL,
    time REAL NOT NULL,
    source TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    evidence TEXT,
    UNIQUE (table_id, n)
);
CREATE INDEX IF NOT EXISTS events_by_table ON events (table_id, n);
"""


@dataclass(frozen=True)
class EventRow:
    """One recorded event: ``n`` counts a table's events from 1; ``evidence`` is a path under the data dir."""

    seq: int
    table_id: str
    n: int
    time: float
    source: str
    kind: str
    payload: dict
    evidence: str | None = None

    def to_dict(self) -> dict:
        return {"seq": self.seq, "table_id": self.table_id, "n": self.n, "time": self.time,
                "source": self.source, "kind": self.kind, "payload": self.payload, "evidence": self.evidence}


@dataclass(frozen=True)
class TableRow:
    id: str
    settings: dict
    token_hash: str
    created: float


class Record:
    """The SQLite record under ``data_dir`` (created if missing). Safe to share between threads."""

    def __init__(self, data_dir: str | os.PathLike) -> None:
        self.data_dir = Path(data_dir)
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            (self.data_dir / EVIDENCE_DIR).mkdir(exist_ok=True)
        except OSError as exc:
            raise RecordError(f"cannot create the data directory {self.data_dir}: {exc}") from exc
        self.path = self.data_dir / DB_NAME
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed transaction survives a power cut, not only a process crash.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.Error as exc:
            raise RecordError(f"cannot open the record {self.path}: {exc}") from exc

    @property
    def evidence_dir(self) -> Path:
        return self.data_dir / EVIDENCE_DIR

    def journal_mode(self) -> str:
        with self._lock:
            return self._db.execute("PRAGMA journal_mode").fetchone()[0]

    # -- tables -----------------------------------------------------------------------------------
    def create_table(self, table_id: str, settings: dict, token_hash: str, time: float | None = None) -> None:
        """Record a new table with its settings and the hash of its operator token."""
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO tables (id, settings, token_hash, created) VALUES (?, ?, ?, ?)",
                    (table_id, _dumps(settings), token_hash, _time.time() if time is None else float(time)),
                )
            except sqlite3.IntegrityError as exc:
                raise DuplicateTableError(f"table {table_id!r} already exists") from exc
            except sqlite3.Error as exc:
                raise RecordError(f"cannot record table {table_id!r}: {exc}") from exc

    def tables(self) -> list[TableRow]:
        with self._lock:
            rows = self._db.execute("SELECT id, settings, token_hash, created FROM tables ORDER BY created, id")
            return [TableRow(r[0], json.loads(r[1]), r[2], r[3]) for r in rows.fetchall()]

    def table(self, table_id: str) -> TableRow:
        with self._lock:
            r = self._db.execute("SELECT id, settings, token_hash, created FROM tables WHERE id = ?",
                                 (table_id,)).fetchone()
        if r is None:
            raise UnknownTableError(f"no table {table_id!r} in the record")
        return TableRow(r[0], json.loads(r[1]), r[2], r[3])

    # -- events -----------------------------------------------------------------------------------
    def append(self, table_id: str, kind: str, payload: dict[str, Any], *, source: str,
               time: float | None = None, evidence: str | None = None) -> EventRow:
        """Write one event durably (its own committed transaction) and return it with its numbers."""
        text = _dumps(payload)
        t = _time.time() if time is None else float(time)
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    row = self._db.execute("SELECT COALESCE(MAX(n), 0) FROM events WHERE table_id = ?",
                                           (table_id,)).fetchone()
                    n = row[0] + 1
                    cur = self._db.execute(
                        "INSERT INTO events (table_id, n, time, source, kind, payload, evidence) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (table_id, n, t, source, kind, text, evidence),
                    )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.IntegrityError as exc:
                raise UnknownTableError(f"no table {table_id!r} in the record") from exc
            except sqlite3.Error as exc:
                raise RecordError(f"cannot record the event for table {table_id!r}: {exc}") from exc
        return EventRow(cur.lastrowid, table_id, n, t, source, kind, json.loads(text), evidence)

    def events(self, table_id: str | None = None) -> list[EventRow]:
        """A table's events in order (every table's, in commit order, when ``table_id`` is None)."""
        sql = "SELECT seq, table_id, n, time, source, kind, payload, evidence FROM events"
        with self._lock:
            if table_id is None:
                rows = self._db.execute(sql + " ORDER BY seq").fetchall()
            else:
                rows = self._db.execute(sql + " WHERE table_id = ? ORDER BY n", (table_id,)).fetchall()
        return [EventRow(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7]) for r in rows]

    def event_count(self, table_id: str) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM events WHERE table_id = ?", (table_id,)).fetchone()[0]

    # -- evidence ---------------------------------------------------------------------------------
    def save_evidence(self, table_id: str, image: Any, label: str) -> str:
        """Store a frame (BGR array or JPEG bytes) as a JPEG, synced to disk; return its relative path.

        The path is what an event's ``evidence`` field holds; it is relative to the data directory.
        """
        from .evidence import encode_jpeg

        data = encode_jpeg(image)
        safe_label = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)[:40] or "frame"
        folder = self.evidence_dir / _safe_name(table_id)
        folder.mkdir(parents=True, exist_ok=True)
        stamp = f"{_time.time():.6f}".replace(".", "")
        path = folder / f"{stamp}-{safe_label}.jpg"
        k = 1
        while path.exists():
            path = folder / f"{stamp}-{safe_label}-{k}.jpg"
            k += 1
        with open(path, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        _fsync_dir(folder)  # the new file's name must survive a power cut too
        return path.relative_to(self.data_dir).as_posix()

    def evidence_path(self, relative: str) -> Path:
        """The absolute path of a stored evidence frame; refuses paths that leave the evidence folder."""
        p = (self.data_dir / relative).resolve()
        if self.evidence_dir.resolve() not in p.parents:
            raise RecordError(f"{relative!r} is not an evidence frame of this record")
        return p

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "Record":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _dumps(obj: Any) -> str:
    try:
        return json.dumps(obj, separators=(",", ":"), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise RecordError(f"event payload is not plain JSON: {exc}") from exc


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory handles
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "_"
