"""The SQLite record: durable appends, ordering, tables, evidence frames."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from tablecompanion.record import DuplicateTableError, Record, RecordError, UnknownTableError


@pytest.fixture()
def rec(tmp_path):
    r = Record(tmp_path)
    yield r
    r.close()


def test_wal_mode_and_schema(rec, tmp_path):
    assert rec.journal_mode() == "wal"
    assert (tmp_path / "record.sqlite3").exists()


def test_append_numbers_events_per_table_and_survives_reopen(rec, tmp_path):
    rec.create_table("1", {"players": ["A", "B"]}, "h1", time=1.0)
    rec.create_table("2", {"players": ["C", "D"]}, "h2", time=2.0)
    e1 = rec.append("1", "roll", {"dice": [3, 1]}, source="operator", time=10.0)
    e2 = rec.append("2", "roll", {"dice": [6, 5]}, source="camera", time=11.0)
    e3 = rec.append("1", "play", {"play": "8/5 6/5"}, source="operator", time=12.0)
    assert (e1.n, e2.n, e3.n) == (1, 1, 2)
    assert e1.seq < e2.seq < e3.seq
    rec.close()
    again = Record(tmp_path)
    evs = again.events("1")
    assert [(e.n, e.kind, e.payload, e.source, e.time) for e in evs] == [
        (1, "roll", {"dice": [3, 1]}, "operator", 10.0),
        (2, "play", {"play": "8/5 6/5"}, "operator", 12.0),
    ]
    assert [t.id for t in again.tables()] == ["1", "2"]
    assert again.table("2").settings == {"players": ["C", "D"]}
    assert again.event_count("2") == 1
    again.close()


def test_committed_event_is_visible_to_another_connection_at_once(rec, tmp_path):
    rec.create_table("1", {}, "h")
    rec.append("1", "roll", {"dice": [2, 2]}, source="operator")
    other = sqlite3.connect(tmp_path / "record.sqlite3")
    assert other.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1
    other.close()


def test_duplicate_and_unknown_tables_are_typed_errors(rec):
    rec.create_table("1", {}, "h")
    with pytest.raises(DuplicateTableError):
        rec.create_table("1", {}, "h")
    with pytest.raises(UnknownTableError):
        rec.append("nope", "roll", {}, source="operator")
    with pytest.raises(UnknownTableError):
        rec.table("nope")
    assert rec.events("nope") == []


def test_payload_must_be_json_and_nothing_is_written_otherwise(rec):
    rec.create_table("1", {}, "h")
    with pytest.raises(RecordError):
        rec.append("1", "x", {"bad": object()}, source="operator")
    with pytest.raises(RecordError):
        rec.append("1", "x", {"nan": float("nan")}, source="operator")
    assert rec.events("1") == []


def test_evidence_frame_is_a_jpeg_on_disk(rec, tmp_path):
    rec.create_table("1", {}, "h")
    frame = np.zeros((48, 64, 3), np.uint8)
    frame[10:20, 10:30] = (0, 0, 255)
    rel = rec.save_evidence("1", frame, "void roll: cocked")
    path = rec.evidence_path(rel)
    assert path.is_file() and path.read_bytes()[:2] == b"\xff\xd8"
    assert str(path).startswith(str(tmp_path))
    import cv2

    back = cv2.imread(str(path))
    assert back.shape == (48, 64, 3)
    assert back[15, 20, 2] > 200 and back[15, 20, 0] < 60
    ev = rec.append("1", "void", {"reason": "cocked"}, source="camera", evidence=rel)
    assert rec.events("1")[0].evidence == rel == ev.evidence


def test_evidence_refuses_garbage_and_paths_outside(rec):
    rec.create_table("1", {}, "h")
    with pytest.raises(RecordError):
        rec.save_evidence("1", b"not a jpeg", "x")
    with pytest.raises(RecordError):
        rec.save_evidence("1", np.zeros((0,), np.uint8), "x")
    with pytest.raises(RecordError):
        rec.evidence_path("../record.sqlite3")
