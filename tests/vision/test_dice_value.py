"""The value reader: a second look at dice the classifier is sure are dice but cannot read."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tablecompanion.vision import dice
from tablecompanion.vision.dice import DEFAULT_CONFIG, DiceReading, DiceVisionError, read_unclear, second_opinion
from tablecompanion.vision.dice_eval import evaluate
from tablecompanion.vision.dice_model import DEFAULT_VALUE_READER, load_value_reader
from tablecompanion.vision.dice_synth import DieSpec, scene

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dice"
DARK_RED = ((40, 40, 50), (40, 40, 200))  # face, pips (BGR): a dark die with red pips


def _reader():
    if not DEFAULT_VALUE_READER.is_file():
        pytest.fail(f"the dice value reader is not shipped: {DEFAULT_VALUE_READER}")
    return load_value_reader("")


def _unclear(x: float, y: float, side: float) -> DiceReading:
    h = side / 2
    return DiceReading(None, (x, y), ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)), 0.3, "unclear", side)


@pytest.mark.parametrize("face, pip", [((245, 245, 245), (20, 20, 20)), DARK_RED, ((30, 30, 160), (240, 240, 240))])
def test_reads_every_value_of_drawn_dice(face, pip):
    reader = _reader()
    for value in range(1, 7):
        for side in (28.0, 40.0):
            img = scene([DieSpec(value, 200, 200, side, angle=17.0 * value, face=face, pip=pip)], 400, 400)
            p = reader.read(img, 200, 200, side)
            assert p.shape == (6,) and abs(float(p.sum()) - 1.0) < 1e-4
            assert int(p.argmax()) + 1 == value, (value, side, p.round(2))


def test_an_unclear_die_gets_its_value_but_never_a_tilted_or_cocked_one():
    _reader()
    img = scene([DieSpec(4, 200, 200, 36.0, angle=20.0, face=DARK_RED[0], pip=DARK_RED[1])], 400, 400)
    die = _unclear(200.0, 200.0, 36.0)
    (read,) = read_unclear(img, [die])
    assert (read.value, read.status) == (4, "flat") and read.confidence >= DEFAULT_CONFIG.value_min
    assert read_unclear(img, [replace(die, tilt=0.5)]) == [replace(die, tilt=0.5)]  # the classifier saw a tilt
    cocked = replace(die, status="cocked")
    assert read_unclear(img, [cocked]) == [cocked]
    assert read_unclear(img, [die], replace(DEFAULT_CONFIG, value_reader="none")) == [die]
    assert read_unclear(img, [die], replace(DEFAULT_CONFIG, value_min=1.01)) == [die]  # never that sure


def test_a_value_the_classifier_hedges_on_is_checked_and_a_sure_one_left_alone():
    """The classifier reads a small dark 4 with red pips as a 5 at 0.6-0.8; the value reader, sure of the 4,
    overrules a value given with less than ``value_check`` confidence, never one the classifier is sure of,
    and never a die without a value."""
    _reader()
    img = scene([DieSpec(4, 200, 200, 36.0, angle=20.0, face=DARK_RED[0], pip=DARK_RED[1])], 400, 400)
    hedged = replace(_unclear(200.0, 200.0, 36.0), value=5, status="flat", confidence=0.7)
    (read,) = second_opinion(img, [hedged])
    assert (read.value, read.status) == (4, "flat") and read.confidence >= DEFAULT_CONFIG.value_min
    sure = replace(hedged, confidence=0.99)
    assert second_opinion(img, [sure]) == [sure]
    right = replace(hedged, value=4)
    assert second_opinion(img, [right]) == [right]  # the two agree: nothing to change
    for other in (replace(hedged, value=None, status="unclear"), replace(hedged, value=None, status="cocked")):
        assert second_opinion(img, [other]) == [other]
    assert second_opinion(img, [hedged], replace(DEFAULT_CONFIG, value_check=0.0)) == [hedged]
    assert second_opinion(img, [hedged], replace(DEFAULT_CONFIG, value_reader="none")) == [hedged]
    assert second_opinion(img, [hedged], replace(DEFAULT_CONFIG, value_min=1.01)) == [hedged]


@pytest.mark.parametrize("first, value", [(True, 4), (False, 2)])
def test_the_value_reader_reads_an_unclear_die_before_pip_counting(monkeypatch, first, value):
    """Where pip counting and the value reader both read a die the classifier left unclear and disagree,
    the value reader was right on the train splits: with ``value_reader_first`` its value stands and pip
    counting (here made to read the dark 4 as a 2, as it did on byler train) fills only what it left."""
    _reader()
    img = scene([DieSpec(4, 200, 200, 36.0, angle=20.0, face=DARK_RED[0], pip=DARK_RED[1])], 400, 400)
    die = replace(_unclear(200.0, 200.0, 36.0), heat=0.9)
    monkeypatch.setattr(dice, "die_scale", lambda frame, net, classifier, config: (1.0, None))
    monkeypatch.setattr(dice, "read_dice_net", lambda frame, net, config, classifier, passes: [die])

    def pips_misread(net, pips):
        return [replace(n, value=2, status="flat", confidence=0.7) if n.status == "unclear" else n for n in net]

    monkeypatch.setattr(dice, "fill_unclear", pips_misread)
    config = replace(DEFAULT_CONFIG, value_reader_first=first, drawing_max_step=0.0)
    (read,) = dice.read_dice(img, config)
    assert (read.value, read.status) == (value, "flat")


def test_a_named_reader_that_is_not_there_is_an_error(tmp_path):
    img = scene([DieSpec(3, 200, 200, 36.0)], 400, 400)
    with pytest.raises(DiceVisionError, match="no dice value reader"):
        read_unclear(img, [_unclear(200.0, 200.0, 36.0)], replace(DEFAULT_CONFIG, value_reader=str(tmp_path / "x.onnx")))


def test_on_held_out_photos_it_reads_more_dice_and_rarely_a_wrong_value():
    """byler's test split, read with and without the second look: dice the classifier left unclear are now
    read (docs/dice.md: 270 -> 299 of 308), and almost all of those it gives a value are right. Since the
    GPU-trained detector (2026-11-27) it reads one of them wrong, a dark marbled 3 whose middle pip is
    faint, read 2 (the earlier detector's finds left it unclear): at most one in twenty may be. Since the
    classifier fine-tuned on a GPU (forty-second session) leaves fewer dice unclear (13 against 27; it reads
    12), what is asked is a share of those: it reads at least three in four of them. The second opinion on
    values the classifier hedges on (``value_check``, forty-third session) is measured apart: it may not
    read fewer dice right, nor more wrong."""
    root = DATA / "byler"
    if not (root / "labels.csv").is_file():
        pytest.skip(f"shared dice photos not found: {root}")
    _reader()
    without = evaluate(root, "test", replace(DEFAULT_CONFIG, value_reader="none"))
    unclear_only = evaluate(root, "test", replace(DEFAULT_CONFIG, value_check=0.0))
    gained, new_wrong = unclear_only.correct - without.correct, unclear_only.wrong - without.wrong
    assert without.not_flat >= 5, without.format()  # enough unclear dice for the share to mean something
    assert gained >= 0.75 * without.not_flat, (without.format(), unclear_only.format())
    assert 0 <= new_wrong <= (gained + new_wrong) / 20, (without.format(), unclear_only.format())
    assert unclear_only.dice == without.dice and unclear_only.misses == without.misses
    checked = evaluate(root, "test")
    assert DEFAULT_CONFIG.value_check > 0 and checked.misses == unclear_only.misses
    assert checked.correct >= unclear_only.correct and checked.wrong <= unclear_only.wrong, (
        unclear_only.format(), checked.format())
