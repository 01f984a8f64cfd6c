"""The roll reader's tilt net (models/roll_tilt.onnx): what it is given, how bad input fails, how its data
is labelled, and what it decides on rendered throws."""

from __future__ import annotations

import importlib.util
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tablecompanion.calibration import calibrate_from_markers
from tablecompanion.vision.dice import DiceVisionError
from tablecompanion.vision.dice_model import DEFAULT_TILT_NET, TiltNet, load_tilt_net
from tablecompanion.vision.roll_eval import checker_centres, make_cases, render_case
from tablecompanion.vision.roll_reader import TILT_PATCH, TILT_SPAN, RollReader, RollReaderConfig

ROOT = Path(__file__).resolve().parents[2]
needs_net = pytest.mark.skipif(not DEFAULT_TILT_NET.is_file(), reason="no tilt net shipped (models/roll_tilt.onnx)")


def _case(seed: int, index: int, kind: str | None = None, window_glint: float | None = 0.0):
    case = make_cases(index + 1, seed)[index]
    if kind is not None:
        case = replace(case, kind=kind)
    ref, img, truth, scene = render_case(case, window_glint=window_glint)
    return case, ref, img, truth, scene


def _read(case, ref, img, scene, **config):
    reader = RollReader(calibrate_from_markers(ref, home=scene.home), replace(RollReaderConfig(), **config))
    reader.set_reference(ref, checker_centres(scene))
    return reader, reader.read(img, roller=scene.roller, opening=case.kind == "opening")


def test_the_patch_is_the_die_on_the_top_plane_with_a_flat_die_outline():
    """Frame, reference and outline, centred on the die's top: the outline of a flat die seen from the
    top camera is its top square (the patch is TILT_SPAN sides across) and the little of its side faces a
    camera straight above the board's middle sees off the middle."""
    case, ref, img, truth, scene = _case(0, 0)
    assert case.preset == "top" and case.kind == "flat"
    reader, rr = _read(case, ref, img, scene, tilt_net=None)
    d = next(d for d in rr.dice if "g_centre_mm" in d.features)
    patch = reader.tilt_patch(img, d.features["g_centre_mm"], 0.0)
    assert patch.shape == (TILT_PATCH, TILT_PATCH, 7) and patch.dtype == np.uint8
    share = np.count_nonzero(patch[..., 6] > 127) / TILT_PATCH ** 2
    assert 0.95 / TILT_SPAN ** 2 < share < 1.6 / TILT_SPAN ** 2
    # the die is in the frame's channels, not in the reference's: they differ at the centre
    c = slice(TILT_PATCH // 2 - 4, TILT_PATCH // 2 + 4)
    assert np.abs(patch[c, c, :3].astype(int) - patch[c, c, 3:6].astype(int)).mean() > 20
    assert "tilt_p" not in d.features  # no net, no word from it


def test_a_missing_or_wrong_net_is_a_clear_error(tmp_path):
    with pytest.raises(DiceVisionError, match="no tilt net"):
        load_tilt_net(str(tmp_path / "absent.onnx"))
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(DiceVisionError, match="cannot load tilt net"):
        TiltNet(bad)


@needs_net
def test_a_patch_of_the_wrong_shape_is_refused():
    net = load_tilt_net("")
    with pytest.raises(DiceVisionError, match=r"\(h, w, 7\)"):
        net.p_tilted(np.zeros((TILT_PATCH, TILT_PATCH, 3), np.uint8))
    p = net.p_tilted(np.full((TILT_PATCH, TILT_PATCH, 7), 128, np.uint8))
    assert 0.0 <= p <= 1.0


def _die_at(rr, truth_die):
    """The die read nearest where the render's truth puts ``truth_die``'s top."""
    return min(rr.dice, key=lambda d: math.dist(d.centre, truth_die["top_centre_px"]))


def _tools_module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_training_labels_call_only_dice_off_the_board_plane_not_flat():
    """A die across the bar, in the wrong half or off the board lies flat: its roll is void for where it
    lies, and the net must not learn that such a die looks tilted (the first labels did)."""
    not_flat = _tools_module("roll_tilt_data").not_flat
    for state in ("flat", "across-bar", "wrong-half", "off-board"):
        assert not_flat(state, 0.0) == 0
    for state in ("cocked", "leaning-on-checker", "against-edge", "on-checker"):
        assert not_flat(state, 0.0) == 1
    assert not_flat("flat", 12.0) == 1 and not math.isnan(not_flat("flat", 3.0))


def test_the_training_data_can_be_drawn_from_chosen_cameras_and_dice(tmp_path):
    """The tilts the net misses most lie under the steep camera and on black dice: the data tool renders
    those alone when asked, and says so when asked for a camera or dice set it does not know."""
    data = _tools_module("roll_tilt_data")
    out = tmp_path / "steep.npz"
    assert data.main(["--seeds", "53000-53000", "--per", "2", "--tilted-share", "1", "--kinds", "cocked",
                      "--presets", "steep", "--dice-styles", "black-white-pips", "--out", str(out)]) == 0
    meta = np.load(out, allow_pickle=True)["meta"]
    assert len(meta) >= 2
    assert {(m[2], m[3], m[4]) for m in meta} == {("cocked", "steep", "black-white-pips")}
    with pytest.raises(SystemExit):
        data.main(["--seeds", "1-1", "--out", str(out), "--presets", "fisheye"])


def test_the_training_weighs_the_dice_the_net_answers_for():
    """The loss weighs the dice left touching a checker or the edge (the net vouches for them) and the dice
    every other rule read flat (the net may call them cocked) as asked, the rest 1."""
    loss_weights = _tools_module("train_roll_tilt").loss_weights
    meta = [(0, 0, "flat", "top", "white", "flat", 0.0, "flat", ""),
            (0, 1, "cocked", "top", "white", "cocked", 24.0, "flat", ""),
            (0, 2, "flat", "top", "white", "flat", 0.0, "unclear", "touching a checker: it may lean on it"),
            (0, 3, "cocked", "top", "white", "cocked", 24.0, "cocked", "tilted (its pips are not square)")]
    assert list(loss_weights(meta)) == [1, 1, 1, 1]
    assert list(loss_weights(meta, touch_weight=4, flat_weight=2)) == [2, 2, 4, 1]


def test_the_scores_count_what_each_threshold_decides():
    """The net's two calls scored apart: 'cocked' on the dice every other rule read flat, 'flat' on those left
    touching the edge or beside checkers alone, each against its own threshold."""
    score = _tools_module("roll_tilt_score").score
    meta = [(0, 0, "flat", "top", "white", "flat", 0.0, "flat", ""),
            (0, 1, "cocked", "steep", "black", "cocked", 24.0, "flat", ""),
            (0, 2, "cocked", "steep", "black", "cocked", 19.0, "flat", ""),
            (0, 3, "flat", "top", "white", "flat", 0.0, "unclear", "touching a checker: it may lean on it"),
            (0, 4, "leaning-on-checker", "top", "white", "leaning-on-checker", 20.0, "unclear",
             "touching a checker: it may lean on it"),
            (0, 5, "flat", "top", "white", "flat", 0.0, "unclear", "touching the board's edge: it may lean on it"),
            (0, 6, "cocked", "top", "white", "cocked", 30.0, "cocked", "tilted (its pips are not square)")]
    y = np.array([0, 1, 1, 0, 1, 0, 1])
    p = np.array([0.96, 0.97, 0.5, 0.2, 0.25, 0.01, 0.1])
    r = score(p, y, meta, cocked=(0.95,), flat=0.004, flat_checker=0.30)
    assert r["read_flat"] == {"flat": 1, "tilted": 2}
    assert r["cocked_at"]["0.95"] == {"flat_voided": 1, "tilted_caught": 1}
    assert (r["beside_checkers"]["flat_vouched"], r["beside_checkers"]["tilted_vouched"]) == (1, 1)
    assert r["beside_checkers"]["lowest_p_tilted"] == 0.25
    assert (r["touching"]["flat"], r["touching"]["flat_vouched"], r["touching"]["lowest_p_tilted"]) == (1, 0, None)


@needs_net
@pytest.mark.parametrize("index, support", [(129, "a checker"), (172, "a checker"), (17, "the board's edge")])
def test_a_flat_die_beside_a_support_is_accepted_on_the_nets_word(index, support):
    """Seed 0's cases 129 (the default camera, a leather board) and 172 (the top camera), a die lying flat
    against a checker, and 17 (the default camera), one 0.84 sides from the board's edge (P 0.01: put to
    the players until the net was retrained for the dice it vouches for, at 0.003): a good roll put to the
    players ("touching ...: it may lean on it") without the net; the net is sure it lies flat, and the
    roll is read."""
    case, ref, img, truth, scene = _case(0, index)
    assert case.kind == "flat"
    _, old = _read(case, ref, img, scene, tilt_net=None)
    assert old.verdict == "unclear" and f"touching {support}" in old.reason
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict == "valid", rr.reason
    assert sorted(rr.values) == sorted(d["value"] for d in truth["dice"])
    touching = [d for d in rr.dice if d.features.get("support") == support]
    assert touching and all(d.features["tilt_p"] <= RollReaderConfig().tilt_net_flat for d in touching)


@needs_net
@pytest.mark.parametrize("index, kind", [(129, "leaning-on-checker"), (172, "leaning-on-checker"),
                                         (10, "against-edge"), (24, "against-edge")])
def test_a_leaning_die_is_never_accepted_on_the_nets_word(index, kind):
    """The boards of cases 129 and 172 with a die leaning on a checker, and seed 0's cases 10 (the top
    camera) and 24 (default, a translucent die): a die leaning 23 degrees against the board's edge with
    square pips and no body beyond a flat outline, which only the net could vouch for. It does not."""
    case, ref, img, truth, scene = _case(0, index, kind=kind)
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict != "valid", rr.reason
    leaning = next(t for t in truth["dice"] if t["state"] == kind)
    die = _die_at(rr, leaning)
    config = RollReaderConfig()
    vouching = config.tilt_net_flat_checker if kind == "leaning-on-checker" else config.tilt_net_flat
    assert die.features.get("tilt_p", 1.0) > vouching


@needs_net
def test_the_net_does_not_answer_where_a_die_lies():
    """Seed 0's case 25: a die lying flat across the bar, its centre just inside the roller's board. The
    net rightly sees it flat, but "touching the bar's edge" is a doubt about where it lies: still unclear."""
    case, ref, img, truth, scene = _case(0, 25)
    assert case.kind == "across-bar"
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict != "valid", rr.reason


@needs_net
def test_a_die_beside_a_checker_and_the_bars_edge_is_not_vouched_for():
    """Seed 15's case 109 (`roll eval`, the steep camera): a die lying flat across the bar, beside a checker
    too. The net vouches that it lies flat, which answers the checker; the bar's edge is a doubt about where
    it lies, which it does not answer (the first version of the retrained net accepted this roll: the
    checker, found first, hid the bar's edge)."""
    case, ref, img, truth, scene = _case(15, 109, window_glint=None)
    assert case.kind == "across-bar"
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict != "valid", rr.reason
    assert "touching the bar's edge" in rr.reason


@needs_net
@pytest.mark.parametrize("index", [175, 315])
def test_a_die_tilted_in_open_space_that_the_outline_passes_is_called_tilted_by_the_net(index):
    """Seed 0's cases 175 (the top camera) and 315 (tilted), `roll eval`'s renders: a die tilted in open space
    whose side face the camera already sees, so its body lies within a flat die's outline and its pips are
    not a pattern that shows the tilt. Every other rule accepts the roll; the net is sure the die is tilted
    (P >= tilt_net_cocked, 0.95), and the roll is void."""
    case, ref, img, truth, scene = _case(0, index, window_glint=None)
    assert case.kind == "cocked"
    _, old = _read(case, ref, img, scene, tilt_net_cocked=2.0, tilt_net_unsure=2.0)
    assert old.verdict == "valid", old.reason
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict == "void" and "tilt net" in rr.reason, rr.reason
    tilted = next(t for t in truth["dice"] if t["state"] == "cocked")
    die = _die_at(rr, tilted)
    assert die.status == "cocked" and die.features["tilt_p"] >= RollReaderConfig().tilt_net_cocked


@needs_net
def test_the_net_leaves_good_rolls_read_flat_alone():
    """The first good roll of seed 0 under each camera: now that the net is asked about every die read flat,
    none of these scores near the threshold that calls a die tilted."""
    cases = make_cases(44, 0)
    seen = set()
    for case in cases:
        if case.kind != "flat" or case.preset in seen:
            continue
        seen.add(case.preset)
        _, ref, img, truth, scene = _case(0, case.index, window_glint=None)
        _, rr = _read(case, ref, img, scene)
        assert rr.verdict == "valid", (case.index, rr.reason)
        assert all(d.features["tilt_p"] < 0.5 * RollReaderConfig().tilt_net_cocked for d in rr.dice), case.index
    assert len(seen) == 4


@needs_net
def test_a_little_body_beyond_the_outline_is_cleared_when_the_net_is_sure_the_die_lies_flat():
    """Seed 7's case 44 (`roll eval`, a good roll under the steep camera, translucent dice, in a room without a
    window): the 5 leaves 5.75 mm^2 of body beyond a flat 5's outline in this one frame, over the tilt test's 4,
    and the roll was void. The net is sure it lies flat (P <= tilt_net_flat), the body is within what one
    frame's noise leaves (the second look's band), and the roll is read. (The case first found, seed 14's 48
    with 4.5 mm^2, reads right without the net under OpenCV 5.1's render; this one leaves 5.75 under 5.0 and
    5.1 alike.)"""
    case, ref, img, truth, scene = _case(7, 44, window_glint=0.0)
    assert case.kind == "flat" and case.preset == "steep"
    _, old = _read(case, ref, img, scene, tilt_net=None)
    assert old.verdict == "void" and "body shows" in old.reason, old.reason
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict == "valid", rr.reason
    assert sorted(rr.values) == sorted(t["top_value"] for t in truth["dice"])
    cleared = [d for d in rr.dice if d.features.get("body_cleared")]
    config = RollReaderConfig()
    assert len(cleared) == 1
    f = cleared[0].features
    assert config.max_beyond_area < f["beyond_mm2"] <= config.second_look_mm2 and f["tilt_p"] <= config.tilt_net_flat


@needs_net
def test_a_tilted_die_with_a_little_body_beyond_the_outline_stays_cocked():
    """Seed 0's case 161 (the steep camera): a die tilted in open space leaving 10.5 mm^2 beyond the flat
    outline, within the band the net may clear; the net sees it tilted, and the roll stays void."""
    case, ref, img, truth, scene = _case(0, 161, window_glint=None)
    assert case.kind == "cocked"
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict == "void" and "body shows" in rr.reason, rr.reason
    tilted = next(t for t in truth["dice"] if t["state"] == "cocked")
    die = _die_at(rr, tilted)
    assert die.status == "cocked" and not die.features.get("body_cleared")
    assert die.features["beyond_mm2"] <= RollReaderConfig().second_look_mm2
    assert die.features["tilt_p"] > RollReaderConfig().tilt_net_flat


@needs_net
def test_beside_checkers_alone_the_net_vouches_further_than_beside_the_edge():
    """Dice leaning on checkers alone score far higher than dice leaning on the board's edge (the lowest of 128
    held-out ones 0.62, of the edge's 0.008, with the thirty-sixth session's net), so beside checkers alone
    the net vouches up to tilt_net_flat_checker. Seed 5's case 56 (the top camera): a flat 5 beside a checker,
    read; at the edge's threshold it is put to the players. Seed 1's case 210 (steep): a flat die beside the
    board's edge, P about 0.006, still put to the players."""
    config = RollReaderConfig()
    case, ref, img, truth, scene = _case(5, 56, window_glint=None)
    assert case.kind == "flat"
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict == "valid", rr.reason
    assert sorted(rr.values) == sorted(t["top_value"] for t in truth["dice"])
    beside = [d for d in rr.dice if d.features.get("support") == "a checker"]
    assert beside and all(config.tilt_net_flat < d.features["tilt_p"] <= config.tilt_net_flat_checker for d in beside)
    _, strict = _read(case, ref, img, scene, tilt_net_flat_checker=config.tilt_net_flat)
    assert strict.verdict == "unclear" and "touching a checker" in strict.reason

    case, ref, img, truth, scene = _case(1, 210, window_glint=None)
    assert case.kind == "flat"
    _, rr = _read(case, ref, img, scene)
    assert rr.verdict == "unclear" and "touching the board's edge" in rr.reason, rr.reason
    edge = [d for d in rr.dice if d.features.get("support") == "the board's edge"]
    assert edge and all(config.tilt_net_flat < d.features["tilt_p"] <= config.tilt_net_flat_checker for d in edge)


@needs_net
def test_the_net_calls_cocked_on_its_views_median_and_vouches_on_their_mean():
    """Seed 2's case 108 (the steep camera): a red die leaning 15 degrees on the board's edge, its four views
    0.018, 0.001, 0.006 and 0.002. Their median is within tilt_net_flat, their mean is not: the net vouches
    on the mean, so the roll is put to the players, not accepted (it was, when both took the median). The
    cocked call takes the median: one view of four that sees the die otherwise does not decide it."""
    case, ref, img, truth, scene = _case(2, 108, window_glint=None)
    assert case.kind == "against-edge"
    reader, rr = _read(case, ref, img, scene)
    assert rr.verdict == "unclear" and "touching the board's edge" in rr.reason, rr.reason
    die = next(d for d in rr.dice if d.features.get("support") == "the board's edge")
    assert die.features["tilt_p_median"] <= reader.config.tilt_net_flat < die.features["tilt_p"]
    split = {"g_centre_mm": (0.0, 0.0), "tilt_p": 0.90, "tilt_p_median": 0.96}
    assert reader._net_calls_cocked(img, dict(split))
    reader.config = replace(reader.config, tilt_net_cocked_median=False)
    assert not reader._net_calls_cocked(img, dict(split))


@needs_net
@pytest.mark.parametrize("seed,index", [(0, 49), (15, 273)])
def test_a_tilt_the_net_is_unsure_of_is_put_to_the_players_not_accepted(seed, index):
    """`roll eval`'s two open-space tilts under the steep camera that every rule accepted until the fortieth
    session: seed 0's case 49 (a black 1 tilted 25 degrees, P 0.88) and seed 15's 273 (a 3 tilted 19 degrees,
    P 0.39). The net is not sure enough to call them cocked (tilt_net_cocked), but between tilt_net_unsure and
    it the die is unclear and its value goes to the players, who can see it lean."""
    case, ref, img, truth, scene = _case(seed, index, window_glint=None)
    assert case.kind == "cocked"
    _, old = _read(case, ref, img, scene, tilt_net_unsure=2.0)
    assert old.verdict == "valid", old.reason
    reader, rr = _read(case, ref, img, scene)
    assert rr.verdict == "unclear" and "cannot tell that it lies flat" in rr.reason, rr.reason
    tilted = next(t for t in truth["dice"] if t["state"] == "cocked")
    die = _die_at(rr, tilted)
    assert die.status == "unclear" and die.value is None and die.proposed == tilted["top_value"]
    assert reader.config.tilt_net_unsure <= die.features["tilt_p_median"] < reader.config.tilt_net_cocked
    assert sorted(rr.proposal) == sorted(t["top_value"] for t in truth["dice"])


@needs_net
def test_the_net_is_unsure_between_its_two_thresholds_on_the_median():
    """The band is the median's, as the cocked call: below tilt_net_unsure the die is flat, from it up to
    tilt_net_cocked unsure, from there cocked (not unsure); above 1 the band is off."""
    case, ref, img, truth, scene = _case(0, 49, window_glint=None)
    reader, _ = _read(case, ref, img, scene)
    c = reader.config
    f = lambda mean, median: {"g_centre_mm": (0.0, 0.0), "tilt_p": mean, "tilt_p_median": median}  # noqa: E731
    assert not reader._net_unsure(img, f(0.5, c.tilt_net_unsure - 0.01))
    assert reader._net_unsure(img, f(0.1, c.tilt_net_unsure))
    assert reader._net_unsure(img, f(0.99, c.tilt_net_cocked - 0.01))
    assert reader._net_calls_cocked(img, f(0.99, c.tilt_net_cocked))
    reader.config = replace(c, tilt_net_unsure=2.0)
    assert not reader._net_unsure(img, f(0.5, 0.5))
