"""The ``>>>`` examples in the games/matches/records modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tablecompanion.rules.actions",
    "tablecompanion.rules.cube",
    "tablecompanion.rules.scoring",
    "tablecompanion.rules.game",
    "tablecompanion.rules.match",
    "tablecompanion.rules.chouette",
    "tablecompanion.rules.matfile",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
