"""The examples in the LED modules' docstrings run."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["tablecompanion.leds", "tablecompanion.leds.protocol",
                                  "tablecompanion.leds.state", "tablecompanion.leds.layout"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
