"""The shipped dice network: it loads, OpenCV runs it as written, it reads real held-out photos, and it
invents no die on things that are not dice; plus the region reader and the pip-counting fallback."""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablecompanion.vision import dice_model
from tablecompanion.vision.dice import (DEFAULT_CONFIG, DiceReading, DiceVisionError, NetCandidate, _without_weak_finds, big_dice_shrink, die_scale, is_line_drawing, read_dice, read_dice_region,
                                        select_readings)
from tablecompanion.vision.dice_eval import evaluate, load_labels, match, scaled
from tablecompanion.vision.dice_model import DEFAULT_NET, NET_CHANNELS, load_net
from tablecompanion.vision.dice_synth import DieSpec, draw_checker, draw_cube, draw_die, draw_icon, scene, table

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dice"
PIPS = replace(DEFAULT_CONFIG, model="pips")


def _net():
    if not DEFAULT_NET.is_file():
        pytest.fail(f"the dice network is not shipped: {DEFAULT_NET}")
    return load_net("")


def test_shipped_network_is_small_and_gives_stride_4_maps():
    assert DEFAULT_NET.stat().st_size < 3_000_000
    net = _net()
    for h, w in [(100, 130), (720, 1280), (37, 64)]:
        maps = net.maps(np.full((h, w, 3), 128, np.uint8))
        assert maps.shape == (NET_CHANNELS, math.ceil(h / 4), math.ceil(w / 4))
        assert np.isfinite(maps).all()


def _numpy_forward(path: Path, x: np.ndarray) -> np.ndarray:
    """A plain NumPy interpreter for the few ONNX ops the network uses (Conv, Relu, Add, Resize)."""
    try:
        import onnx
    except ImportError:  # the test extra installs it; outside CI, a plain environment may lack it
        if os.environ.get("CI") == "true":
            pytest.fail("onnx is not installed: pip install -e '.[test]'")
        pytest.skip("onnx not installed (pip install -e '.[test]')")
    from onnx import numpy_helper

    model = onnx.load(str(path))
    vals = {i.name: numpy_helper.to_array(i).astype(np.float32) for i in model.graph.initializer}
    vals[model.graph.input[0].name] = x
    for node in model.graph.node:
        a = {at.name: onnx.helper.get_attribute_value(at) for at in node.attribute}
        ins = [vals.get(n) for n in node.input]
        if node.op_type == "Constant":
            out = numpy_helper.to_array(a["value"])
        elif node.op_type == "Relu":
            out = np.maximum(ins[0], 0)
        elif node.op_type == "Add":
            out = ins[0] + ins[1]
        elif node.op_type == "Resize":
            assert a["mode"] == b"nearest" and list(ins[2][2:]) == [2.0, 2.0]
            out = ins[0].repeat(2, axis=2).repeat(2, axis=3)
        elif node.op_type == "Conv":
            out = _conv(ins[0], ins[1], ins[2] if len(ins) > 2 else None, a.get("strides", [1, 1])[0],
                        a.get("pads", [0] * 4)[0], a.get("group", 1))
        else:
            raise AssertionError(f"unexpected op {node.op_type}")
        vals[node.output[0]] = out
    return vals[model.graph.output[0].name]


def _conv(x, w, b, stride, pad, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float32)
    og = o // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * og:(g + 1) * og]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def test_opencv_runs_the_network_as_the_file_says():
    net = _net()
    img = scene([DieSpec(5, 40, 30, 30, 20)], width=96, height=64)
    x = cv2.dnn.blobFromImage(img, 1 / 64.0, mean=(128, 128, 128))
    ref = _numpy_forward(DEFAULT_NET, x)[0]
    got = net.maps(img)
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() < 1e-3 * max(1.0, np.abs(ref).max())


def test_doubling_cubes_and_checkers_give_no_die():
    _net()
    img = table(seed=3)
    for i, text in enumerate(["2", "4", "8", "16", "32", "64"]):
        draw_cube(img, 150 + 180 * i, 200, 50, text)
    for i in range(6):
        colour = (30, 30, 30) if i % 2 else (225, 225, 225)
        draw_checker(img, 150 + 180 * i, 500, radius=45 + 5 * i, colour=colour, ring=(160, 160, 160))
    assert read_dice(img) == []


def test_die_among_cubes_and_checkers_is_the_only_die():
    _net()
    img = table(seed=4)
    draw_cube(img, 300, 300, 50, "64")
    draw_checker(img, 600, 300)
    draw_die(img, DieSpec(4, 450, 450, 44, 15))
    readings = read_dice(img)
    assert [(r.value, r.status) for r in readings] == [(4, "flat")]
    assert math.dist(readings[0].centre, (450, 450)) < 6


def _icon_sheet(seed: int, sizes=(30, 44, 60), paper=(235, 232, 228),
                inks=((20, 20, 20), (120, 40, 20), (30, 30, 170))) -> np.ndarray:
    """A photographed sheet of printed dice icons: paper with a lighting gradient, inks of three colours,
    turned icons, a little blur, noise and JPEG."""
    rng = np.random.default_rng(seed)
    img = np.zeros((720, 1280, 3), np.float32)
    img[:] = paper
    img *= 1 + 0.08 * np.linspace(-1, 1, 1280)[None, :, None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    for row, side in enumerate(sizes):
        for value in range(1, 7):
            draw_icon(img, value, 110 + 200 * (value - 1), 130 + 230 * row, side, float(rng.uniform(0, 45)),
                      inks[(value + row) % 3], 1 + (value % 3))
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    img = np.clip(img.astype(np.float32) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])[1], cv2.IMREAD_COLOR)


def test_printed_dice_icons_give_no_die():
    """A die printed on paper is no die. The networks alone read most icons as dice (drawn dice taught
    them that flat faces are dice); the line-drawing check leaves them out."""
    _net()
    img = _icon_sheet(7)
    assert len(read_dice(img, replace(DEFAULT_CONFIG, drawing_max_step=0.0))) >= 12
    assert read_dice(img) == []


def test_light_icons_on_dark_paper_give_no_die():
    """White, cream and gold lines on black paper (a dice box, a dark score card): the same drawing with
    lightness turned over, and no die either; a black die with white pips on a dark table beside one stays."""
    _net()
    img = _icon_sheet(9, paper=(28, 28, 28), inks=((240, 240, 240), (190, 225, 240), (60, 200, 230)))
    assert len(read_dice(img, replace(DEFAULT_CONFIG, drawing_light_ink=False))) >= 9  # of 18 icons
    assert read_dice(img) == []
    img = table(seed=4, colour=(30, 30, 30))
    draw_icon(img, 4, 400, 360, 44, 10, ink=(235, 235, 235))
    draw_die(img, DieSpec(2, 800, 360, 44, 25, face=(30, 30, 30), pip=(240, 240, 240)))
    readings = read_dice(img)
    assert [(r.value, r.status) for r in readings] == [(2, "flat")]
    assert math.dist(readings[0].centre, (800, 360)) < 6


def test_die_beside_a_printed_icon_is_read():
    """A white die on a light table beside an icon of the same size: the die stays."""
    _net()
    img = table(seed=8, colour=(205, 210, 215))
    draw_icon(img, 5, 400, 360, 44, 10)
    draw_die(img, DieSpec(2, 800, 360, 44, 25, face=(250, 250, 250)))
    readings = read_dice(img)
    assert [(r.value, r.status) for r in readings] == [(2, "flat")]
    assert math.dist(readings[0].centre, (800, 360)) < 6


def test_no_real_die_is_taken_for_a_printed_one():
    """Byler's photos hold white dice on a white table, whose shadow can close off the face: the check
    must not drop them (the whole photo sets: none of 3028 readings dropped, docs/dice.md)."""
    _net()
    root = _dataset("byler")
    for lab in load_labels(root, "test")[:12]:
        img = cv2.imread(str(root / lab.file))
        readings = read_dice(img, replace(DEFAULT_CONFIG, drawing_max_step=0.0))
        assert not [r for r in readings if is_line_drawing(img, r)], lab.file


def test_region_reader_offsets_and_filters():
    img = scene([DieSpec(3, 300, 300, 40, 10), DieSpec(6, 900, 400, 40, 30)])
    full = read_dice(img)
    inside = read_dice_region(img, (200, 200, 300, 250))
    assert [r.value for r in inside] == [3]
    same = [r for r in full if r.value == 3][0]
    assert math.dist(inside[0].centre, same.centre) < 3
    assert read_dice_region(img, (0, 0, 0, 10)) == []  # empty box: no dice
    assert read_dice_region(img, (5000, 5000, 100, 100)) == []  # outside the frame
    with pytest.raises(DiceVisionError):
        read_dice_region(img, "right half")


def test_missing_network_falls_back_to_pip_counting(monkeypatch, tmp_path):
    img = scene([DieSpec(5, 300, 300, 44)])
    load_net.cache_clear()
    monkeypatch.setattr(dice_model, "DEFAULT_NET", tmp_path / "gone.onnx")
    try:
        assert [r.value for r in read_dice(img)] == [5]  # pip counting still reads a clear die
    finally:
        load_net.cache_clear()
    with pytest.raises(DiceVisionError, match="no dice network"):
        read_dice(img, replace(DEFAULT_CONFIG, model=str(tmp_path / "nope.onnx")))
    assert [r.value for r in read_dice(img, PIPS)] == [5]


def _dataset(name: str) -> Path:
    root = DATA / name
    if not (root / "labels.csv").is_file():
        pytest.skip(f"shared dice photos not found: {root}")
    return root


# Regression floors, not the goal: the figures measured on the full held-out splits (docs/dice.md:
# byler test 97.1 %, 1 false die; matteo valid 99.6 %, 7 false dice) less a small margin. The target
# is 99.5 %: met on matteo valid, not on byler test (whose two contradicted labels cap it at 99.35 %).
@pytest.mark.parametrize("name, split, floor, max_false", [("byler", "test", 0.96, 4), ("matteo", "valid", 0.99, 12)])
def test_held_out_split_accuracy(name, split, floor, max_false):
    _net()
    res = evaluate(_dataset(name), split)
    assert res.accuracy >= floor, res.format()
    assert res.false_dice <= max_false, res.format()


def test_dice_far_larger_than_the_network_learned_are_read_on_a_smaller_frame():
    """A close camera: dice 130 px across, where the network learned 14-64 px and the full-scale pass
    takes their pips for dice. The frame is shrunk first, and the dice are given in its own pixels."""
    net, cls = _net(), dice_model.load_classifier("")
    big = [DieSpec(6, 300, 360, 130, 10), DieSpec(5, 700, 300, 130, 35), DieSpec(2, 1000, 450, 130, 60)]
    img = scene(big)
    assert big_dice_shrink(img, net, cls, DEFAULT_CONFIG) < 0.6
    readings = read_dice(img)
    assert sorted((r.value, r.status) for r in readings) == [(2, "flat"), (5, "flat"), (6, "flat")]
    for r in readings:
        die = next(d for d in big if d.value == r.value)
        assert math.dist(r.centre, (die.x, die.y)) < 0.15 * die.side
        assert 0.6 * die.side < r.size < 2.0 * die.side
    # dice of the size the network knows are read on the frame as it is
    assert big_dice_shrink(scene([replace(d, side=44) for d in big]), net, cls, DEFAULT_CONFIG) == 1.0


def test_big_dice_in_real_photos_twice_their_size():
    """Matteo's photos at twice their size (dice about 130 px): read about as at their own size, without
    most of the pips the full-scale pass finds; and no byler photo, whose dice are 30-50 px, is shrunk.
    Measured on these 40 photos: at their own size 64 of 64 right, 3 false dice; twice as large 64 and 10,
    and 58 and 65 before the frame was shrunk. Nor at half and three quarters of their size, where the
    network found one large "die" over a few small ones in two photos (the classifier says it is none)."""
    net, cls = _net(), dice_model.load_classifier("")
    res = evaluate(_dataset("matteo"), "valid", limit=40, scale=2.0)
    assert res.accuracy >= 0.98 and res.false_dice <= 20, res.format()
    root = _dataset("byler")
    for lab, f in itertools.product(load_labels(root, "test"), (1.0, 0.75, 0.5)):
        img = cv2.resize(cv2.imread(str(root / lab.file)), None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        assert big_dice_shrink(img, net, cls, DEFAULT_CONFIG) == 1.0, (lab.file, f)


def test_small_dice_are_read_on_an_enlarged_frame():
    """A far camera or a photo shrunk for the web: a byler photo at half its size (six dice of 15-22 px; as it
    is, one is missed and a 5 read as a 3), under what the networks read well. The frame is enlarged first
    (at most twice), and the dice are given in its own pixels. (Drawn dice make no such test: the network,
    which never saw one, sizes them 15-95 % too large.) The classifier shipped since the forty-first session
    still reads that 5 as a 3 enlarged (the one before read it right; on byler test at half size it reads
    301 of 308 dice right, that one 297); since the forty-third session the value reader overrules that
    hedged 3, enlarged or not, so the enlarging's own gain is measured with that second opinion off."""
    net, cls = _net(), dice_model.load_classifier("")
    root = _dataset("byler")
    label = scaled(next(lab for lab in load_labels(root, "test") if lab.file.endswith("095915.jpg")), 0.5)
    img = cv2.resize(cv2.imread(str(root / label.file)), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    resize, passes = die_scale(img, net, cls, DEFAULT_CONFIG)
    assert 1.5 < resize <= 2.0 and passes is None
    readings = read_dice(img)
    pairs, misses, false = match(label, readings)
    assert not misses and not false
    assert sum(readings[j].value == label.values[i] for i, j in pairs) == len(label.values)

    def right(config):
        found = read_dice(img, config)
        return sum(found[j].value == label.values[i] for i, j in match(label, found)[0])

    unchecked = replace(DEFAULT_CONFIG, value_check=0.0)
    assert right(unchecked) >= 5 and right(unchecked) > right(replace(unchecked, small_die_max_size=1))
    # a camera frame of the working size with such dice (a far camera) is enlarged too, up to
    # small_die_max_size px along its longer side, and read in its own pixels
    canvas = np.full((720, 1280, 3), 200, np.uint8)
    canvas[100:100 + img.shape[0], 500:500 + img.shape[1]] = img
    assert 1.5 < die_scale(canvas, net, cls, DEFAULT_CONFIG)[0] <= 2.0
    assert die_scale(canvas, net, cls, replace(DEFAULT_CONFIG, small_die_max_size=1280))[0] == 1.0
    moved = replace(label, centres=tuple((x + 500, y + 100) for x, y in label.centres))
    pairs, misses, false = match(moved, read_dice(canvas))
    assert not misses and not false


def test_dice_of_an_ordinary_size_are_read_with_the_passes_the_sizing_made():
    """The sizing's full- and half-scale passes are the reader's own: the same readings as without it."""
    net, cls = _net(), dice_model.load_classifier("")
    img = scene([DieSpec(2, 300, 300, 44), DieSpec(4, 700, 420, 40, 20), DieSpec(6, 1000, 200, 48, 70)])
    resize, passes = die_scale(img, net, cls, DEFAULT_CONFIG)
    assert resize == 1.0 and set(passes) == {1.0, 0.5}
    assert read_dice(img) == read_dice(img, replace(DEFAULT_CONFIG, big_die=0.0, small_die=0.0))


def test_small_dice_in_real_photos_at_half_their_size():
    """Byler's photos at half their size (dice of 15-25 px) read fewer values wrong enlarged than as they
    are (the whole test split: 7 wrong against 11)."""
    _net()
    root = _dataset("byler")
    sized = evaluate(root, "test", limit=25, scale=0.5)
    unsized = evaluate(root, "test", replace(DEFAULT_CONFIG, small_die=0.0), limit=25, scale=0.5)
    assert sized.wrong < unsized.wrong and sized.correct >= unsized.correct, (sized.format(), unsized.format())


def _cand(x, y, side=30.0, heat=0.9, p_none=0.02, value=5, p_value=0.9, p_cocked=0.0):
    """A network candidate with the classifier's probabilities: P(no die), P(value), P(cocked), the rest
    spread over the other values."""
    rest = (1.0 - p_none - p_value - p_cocked) / 5
    probs = [p_none] + [p_value if v == value else rest for v in range(1, 7)] + [p_cocked]
    return NetCandidate(x, y, side, heat, tuple(probs))


def test_selection_keeps_the_most_die_like_of_finds_on_one_die():
    """A side face (or a few pips) found beside a die's top face is one die, not two: within suppression's
    reach the top face, the more die-like, stays; beyond it a side face the classifier doubts (P(die) under
    ``cls_min_die``) goes."""
    top = _cand(100, 100, p_none=0.01, value=3)
    close = _cand(100, 100 + 0.4 * 30, p_none=0.2, value=4)
    assert [(r.value, r.centre) for r in select_readings([close, top], DEFAULT_CONFIG)] == [(3, (100, 100))]
    side_face = _cand(100, 100 + 0.6 * 30, p_none=0.35, value=4)
    readings = select_readings([side_face, top], DEFAULT_CONFIG)
    assert [(r.value, r.centre) for r in readings] == [(3, (100, 100))]
    sure_side = _cand(100, 100 + 0.6 * 30, p_none=0.2, value=4)  # beyond reach and sure: a second die
    assert len(select_readings([sure_side, top], DEFAULT_CONFIG)) == 2


def test_a_weak_find_is_a_die_only_with_a_value():
    """A find the detector is hardly sure of (a stack of checkers on a board) is dropped when it is called
    cocked or unclear or read as a 1, kept when the classifier reads another value on it; sure finds stay."""
    weak_cocked = _cand(100, 100, heat=0.25, p_value=0.0, p_cocked=0.95)
    weak_flat = _cand(300, 100, heat=0.25, value=4, p_value=0.95)
    sure_cocked = _cand(500, 100, heat=0.8, p_value=0.0, p_cocked=0.95)
    weak_one = _cand(700, 100, heat=0.25, value=1, p_value=0.95)  # a checker's moulded centre
    sure_one = _cand(900, 100, heat=0.8, value=1, p_value=0.95)
    found = select_readings([weak_cocked, weak_flat, sure_cocked, weak_one, sure_one], DEFAULT_CONFIG)
    assert [(r.status, round(r.heat, 2)) for r in found] == [("cocked", 0.25), ("flat", 0.25), ("cocked", 0.8),
                                                             ("flat", 0.25), ("flat", 0.8)]
    kept = _without_weak_finds(found, DEFAULT_CONFIG)
    assert [(r.centre[0], r.status) for r in kept] == [(300, "flat"), (500, "cocked"), (900, "flat")]
    assert _without_weak_finds(found, replace(DEFAULT_CONFIG, net_weak_heat=0.0, net_weak_cocked_heat=0.0)) == found


def test_a_die_called_cocked_wants_a_surer_find():
    """Stacks of checkers called cocked were found at heat 0.35-0.44 on the simulator's boards, tilted dice at
    0.47 or more: a cocked call on a find under net_weak_cocked_heat is dropped, a value read there is kept."""
    heat = (DEFAULT_CONFIG.net_weak_heat + DEFAULT_CONFIG.net_weak_cocked_heat) / 2
    stack = _cand(100, 100, heat=heat, p_value=0.0, p_cocked=0.95)
    flat = _cand(300, 100, heat=heat, value=5, p_value=0.95)
    tilted = _cand(500, 100, heat=DEFAULT_CONFIG.net_weak_cocked_heat + 0.02, p_value=0.0, p_cocked=0.95)
    found = select_readings([stack, flat, tilted], DEFAULT_CONFIG)
    assert [r.status for r in found] == ["cocked", "flat", "cocked"]
    kept = _without_weak_finds(found, DEFAULT_CONFIG)
    assert [(r.centre[0], r.status) for r in kept] == [(300, "flat"), (500, "cocked")]
    assert _without_weak_finds(found, replace(DEFAULT_CONFIG, net_weak_cocked_heat=0.0)) == found


def test_a_value_on_a_weak_find_must_be_the_value_readers_too():
    """Two stacked checkers are a "2" to the classifier on a weak find; the value reader, asked about the same
    place, reads a single round spot. A value read on a weak find stands only when the value reader agrees;
    a sure find keeps its value whatever the value reader says."""
    img = table(seed=3)
    draw_die(img, DieSpec(5, 300, 300, 44, 10))
    weak = DiceReading(5, (300.0, 300.0), (), 0.9, "flat", 44.0, heat=0.2)
    assert _without_weak_finds([weak], DEFAULT_CONFIG, img) == [weak]
    misread = replace(weak, value=2)
    assert _without_weak_finds([misread], DEFAULT_CONFIG, img) == []
    assert _without_weak_finds([misread], DEFAULT_CONFIG) == [misread]  # no frame: no second read
    assert _without_weak_finds([misread], replace(DEFAULT_CONFIG, net_weak_value_check=False), img) == [misread]
    sure = replace(misread, heat=0.9)
    assert _without_weak_finds([sure], DEFAULT_CONFIG, img) == [sure]


def test_a_weak_find_much_smaller_than_the_sure_dice_is_no_die_of_theirs():
    """Dice of one roll are one size: a find the detector hardly believes in at half the sure dice's side (a
    USB stick at a photo's edge read as a 4 by both readers) is dropped; a weak find near their size stays,
    and so does a small sure find (a small die in a mixed set)."""
    sure = [DiceReading(v, (100.0 * v, 100.0), (), 0.95, "flat", side, heat=0.8)
            for v, side in ((2, 80.0), (3, 84.0), (5, 76.0))]
    least = DEFAULT_CONFIG.net_weak_min_rel * 80.0  # the median sure side
    small_weak = DiceReading(4, (600.0, 100.0), (), 0.86, "flat", least - 2.0, heat=0.29)
    near_weak = replace(small_weak, centre=(700.0, 100.0), size=least + 2.0)
    small_sure = replace(small_weak, centre=(800.0, 100.0), heat=0.6)
    kept = _without_weak_finds(sure + [small_weak, near_weak, small_sure], DEFAULT_CONFIG)
    assert [r.centre[0] for r in kept] == [200.0, 300.0, 500.0, 700.0, 800.0]
    off = replace(DEFAULT_CONFIG, net_weak_min_rel=0.0)
    assert small_weak in _without_weak_finds(sure + [small_weak], off)
    assert _without_weak_finds([small_weak], DEFAULT_CONFIG) == [small_weak]  # no sure dice to measure by


def test_selection_keeps_two_dice_lying_apart():
    readings = select_readings([_cand(100, 100, value=6), _cand(100 + 1.6 * 30, 100, value=2)], DEFAULT_CONFIG)
    assert sorted(r.value for r in readings) == [2, 6]


class _ScaledNet:
    """A detector that finds one die per scale, where the test says (in full-frame pixels)."""

    def __init__(self, finds):
        self.finds = finds  # {scale: (x, y, side, heat)}

    def detect(self, img, min_heat):
        k = img.shape[1] / 640
        x, y, side, heat = self.finds[round(k, 2)]
        return [dice_model.NetDie(x * k, y * k, side * k, heat, np.full(6, 1 / 6), 0.0)]


def test_one_die_found_at_two_scales_keeps_the_finer_scales_place_and_both_sizes():
    """A half-scale cell is 8 px of the frame: its centre can be a cell out, and a crop that far off shows
    the die's edge. The stronger half-scale find gives the heat, the full-scale one the place."""
    from tablecompanion.vision.dice import net_candidates

    net = _ScaledNet({1.0: (300.0, 200.0, 50.0, 0.8), 0.5: (307.0, 200.0, 80.0, 0.9)})
    (c,) = net_candidates(np.zeros((480, 640, 3), np.uint8), net, replace(DEFAULT_CONFIG, net_small_side=10.0))
    assert (c.x, c.y, c.heat) == (300.0, 200.0, 0.9)
    class Classifier:  # the last crop tried (the full-scale guess at its largest size) looks most like a die
        def predict(self, crops):
            p = np.array([[0.5] + [1 / 14] * 7] * len(crops))
            p[-4:] = [0.0] + [1 / 7] * 7  # its four quarter turns
            return p

    (c,) = net_candidates(np.zeros((480, 640, 3), np.uint8), net, replace(DEFAULT_CONFIG, net_small_side=10.0), Classifier())
    assert (c.x, c.y) == (300.0, 200.0) and c.side == 50.0 * max(DEFAULT_CONFIG.cls_sizes)


def test_a_size_barely_more_die_like_loses_to_the_detectors_own_with_cls_size_tie():
    """byler test's black 1: the classifier is sure of it at every size and takes the 1.25x crop by a hair;
    at that size the find reaches the small die beside it. With ``cls_size_tie`` the sizes within it of the
    most die-like count as one, and the detector's own size wins; a size clearly more die-like still wins."""
    from tablecompanion.vision.dice import net_candidates

    net = _ScaledNet({1.0: (300.0, 200.0, 40.0, 0.9), 0.5: (300.0, 200.0, 40.0, 0.0)})
    frame = np.zeros((480, 640, 3), np.uint8)
    config = replace(DEFAULT_CONFIG, cls_sizes=(0.8, 1.0, 1.25), net_small_side=100.0, cls_size_tie=0.0)

    class Classifier:  # P(no die) of each crop, in the order tried (0.8, 1, 1.25 x the guess), 4 turns each
        def __init__(self, no_die):
            self.no_die = no_die

        def predict(self, crops):
            rows = [p for p in self.no_die for _ in range(4)]
            assert len(crops) == len(rows)
            return np.array([[p, 1 - p] + [0.0] * 6 for p in rows])

    sure = Classifier([0.0004, 0.0003, 0.0001])  # sure at every size; the largest by a hair
    (c,) = net_candidates(frame, net, config, sure)
    assert c.side == 50.0  # without: the most die-like alone (one scale's finds: net_small_side)
    (c,) = net_candidates(frame, net, replace(config, cls_size_tie=DEFAULT_CONFIG.cls_size_tie), sure)
    assert DEFAULT_CONFIG.cls_size_tie > 0 and c.side == 40.0 and c.probs[0] == pytest.approx(0.0003)
    clear = Classifier([0.3, 0.2, 0.001])  # the largest crop is clearly the most die-like
    (c,) = net_candidates(frame, net, replace(config, cls_size_tie=0.01), clear)
    assert c.side == 50.0
    (c,) = net_candidates(frame, net, replace(config, cls_size_tie=0.25), clear)  # 0.2 within a wide tie
    assert c.side == 40.0


def test_the_classifier_alone_judges_the_tilt():
    """The detector's cocked head learned from simulator dice only; with a classifier its word is not taken."""
    flat = replace(_cand(50, 50, value=4, p_value=0.95), net_cocked=0.9)
    r, = select_readings([flat], DEFAULT_CONFIG)
    assert (r.value, r.status) == (4, "flat")
    r, = select_readings([replace(flat, probs=None, net_values=(0, 0, 0, 1.0, 0, 0))], DEFAULT_CONFIG)
    assert r.status == "cocked"  # without a classifier, the head is all there is


def test_selection_never_gives_a_value_to_a_cocked_die():
    r, = select_readings([_cand(50, 50, p_value=0.3, p_cocked=0.6, value=6)], DEFAULT_CONFIG)
    assert (r.value, r.status) == (None, "cocked")


def test_selection_drops_what_the_classifier_calls_no_die_and_doubts_unsure_values():
    assert select_readings([_cand(50, 50, p_none=0.9, p_value=0.1)], DEFAULT_CONFIG) == []
    unsure = 0.9 * DEFAULT_CONFIG.net_min_value  # P(value | die) under the floor
    r, = select_readings([_cand(50, 50, p_none=0.0, p_value=unsure)], DEFAULT_CONFIG)
    assert (r.value, r.status) == (None, "unclear")
    assert select_readings([_cand(50, 50, heat=0.5 * DEFAULT_CONFIG.net_min_heat)], DEFAULT_CONFIG) == []


def test_selection_gives_a_die_back_the_pip_read_as_a_small_one():
    """A pip of a 2 found alone reads as a small, sure 1 and outscores the die: the die takes its place."""
    pip = _cand(100, 94, side=12, p_none=0.0, value=1, p_value=0.98)
    die = _cand(102, 100, side=32, p_none=0.05, value=2, p_value=0.85)
    assert [(r.value, r.centre) for r in select_readings([pip, die], DEFAULT_CONFIG)] == [(2, (102, 100))]
    # the old choice, with the rule off: the pip wins
    off = replace(DEFAULT_CONFIG, net_pip_frac=0.0)
    assert [r.value for r in select_readings([pip, die], off)] == [1]


def test_selection_keeps_small_dice_that_show_more_than_one_pip():
    """A find spanning a cluster of dice does not swallow a smaller die that shows a 5: a pip never does."""
    small = _cand(100, 100, side=16, p_none=0.0, value=5, p_value=0.95)
    cluster = _cand(104, 104, side=40, p_none=0.05, value=3, p_value=0.9)
    assert [r.value for r in select_readings([small, cluster], DEFAULT_CONFIG)] == [5]
    # nor is a small find a pip of a die the classifier doubts, or of a cocked one
    pip = _cand(100, 94, side=12, p_none=0.0, value=1, p_value=0.98)
    doubted = _cand(102, 100, side=32, p_none=0.3, value=2, p_value=0.85)
    assert [r.value for r in select_readings([pip, doubted], DEFAULT_CONFIG)] == [1]
    cocked = _cand(102, 100, side=32, p_none=0.02, value=2, p_value=0.2, p_cocked=0.7)
    assert [r.value for r in select_readings([pip, cocked], DEFAULT_CONFIG)] == [1]


def test_boards_without_dice_are_scored(capsys):
    """`dice boards` renders the simulator's empty boards (each camera in turn) and counts what the reader
    reports on them: nothing, and not because the detector finds nothing there."""
    import json

    from tablecompanion.cli import main
    from tablecompanion.vision.dice_boards import evaluate_boards

    _net()
    res = evaluate_boards(4, seed=0)
    assert res.frames == 4 and set(res.by_preset) == {"top", "default", "tilted", "steep"}
    assert res.invented == sum(res.by_status.values()) == sum(d for _, d in res.by_preset.values())
    assert res.invented == 0  # the target (the classifier learned these boards' kind since the forty-first session)
    # the dice invented before it came from the detector's finds on stacks of checkers, which the classifier
    # now turns down: with its floor for a die lowered they come back
    loose = evaluate_boards(4, seed=0, config=replace(DEFAULT_CONFIG, cls_min_die=0.05, net_weak_heat=0.0,
                                                        net_weak_cocked_heat=0.0))
    assert loose.invented > 0
    assert main(["dice", "boards", "--frames", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["frames"] == 1 and {"dice_invented", "by_status", "by_board_style", "by_camera"} <= set(out)
    assert main(["dice", "boards", "--frames", "0"]) == 2
