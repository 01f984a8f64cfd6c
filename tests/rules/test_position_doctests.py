"""The ``>>>`` examples in the core rules modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tablecompanion.rules",
    "tablecompanion.rules.position",
    "tablecompanion.rules.notation",
    "tablecompanion.rules.ids",
    "tablecompanion.rules.xgid",
    "tablecompanion.rules.movegen",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
