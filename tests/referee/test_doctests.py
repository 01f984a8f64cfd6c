"""The examples in the referee's and the record's docstrings run and are right."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["tablecompanion.referee", "tablecompanion.referee.referee", "tablecompanion.referee.hall",
           "tablecompanion.referee.clock", "tablecompanion.referee.settings", "tablecompanion.record.store",
           "tablecompanion.record.stats"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
