"""Fixtures in flaskr's style: ``app`` (one table "1", operator token "T", a temporary data dir),
``client``, ``runner``, and ``op`` (the Authorization header of table 1's operator)."""

from __future__ import annotations

import pytest

from tablecompanion.referee.settings import TableSettings
from tablecompanion.web import create_app

TOKEN = "op-T0k3n"


def make_hall(data_dir):
    try:
        from tablecompanion.referee import Hall
    except ImportError:
        from .fakes import FakeHall as Hall
    return Hall(data_dir)


@pytest.fixture
def hall(tmp_path):
    h = make_hall(tmp_path / "data")
    h.create_table(TableSettings(players=("Alice", "Bob"), match_length=7), table_id="1", token=TOKEN)
    yield h
    close = getattr(h, "close", None)
    if close:
        close()


@pytest.fixture
def app(hall, tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test",
                      "SSE_HEARTBEAT_S": 0.2, "SSE_MAX_S": 2.0}, hall=hall)
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def op():
    return {"Authorization": f"Bearer {TOKEN}"}
