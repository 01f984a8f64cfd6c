"""Fixtures for the referee tests: a fake clock and table factories."""

from __future__ import annotations

import pytest

from tablecompanion.referee import Referee, RefereeError, TableSettings


class FakeClock:
    """An injectable time source: tests move time by hand."""

    def __init__(self, t: float = 1_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture()
def clock():
    return FakeClock()


@pytest.fixture()
def make_ref(clock):
    def make(record=None, table_id="1", **settings):
        settings.setdefault("players", ("Alice", "Bob"))
        return Referee(table_id, TableSettings(**settings), record, now=clock)

    return make


def decisions(result: list[dict]) -> list[str]:
    return [d["decision"] for d in result]


def refused(ref, action: dict, status: int, *, contains: str = "") -> RefereeError:
    """Assert ``action`` is refused with ``status`` and that the table did not change."""
    before = ref.snapshot()
    with pytest.raises(RefereeError) as err:
        ref.act(action)
    assert err.value.status == status, err.value.message
    assert contains.lower() in err.value.message.lower(), err.value.message
    after = ref.snapshot()
    assert after == before
    return err.value
