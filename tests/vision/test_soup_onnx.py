"""tools/soup_onnx.py, which made the shipped value reader: the weighted mean of networks' weights, run by
``cv2.dnn`` as any exported network is, and a clear stop when the networks are not one graph."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx comes with the test extra (pip install -e '.[test]')")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from soup_onnx import main, parse_part, soup  # noqa: E402


def _dense(path: Path, weight: np.ndarray, bias: np.ndarray) -> Path:
    """A one-layer network y = x W^T + b, as the tools export their last layer (Gemm, transB)."""
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)
    graph = helper.make_graph(
        [node], "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, weight.shape[1]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, weight.shape[0]])],
        [numpy_helper.from_array(weight.astype(np.float32), "w"), numpy_helper.from_array(bias.astype(np.float32), "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setInput(x.astype(np.float32))
    return net.forward()


def test_the_soup_is_the_weighted_mean_and_runs_in_opencv(tmp_path):
    rng = np.random.default_rng(0)
    w1, w2 = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    b1, b2 = rng.normal(size=3), rng.normal(size=3)
    a = _dense(tmp_path / "a.onnx", w1, b1)
    b = _dense(tmp_path / "b.onnx", w2, b2)
    out = tmp_path / "soup.onnx"
    assert main([str(out), f"3:{a}", str(b)]) == 0
    x = rng.normal(size=(1, 4))
    want = x @ ((3 * w1 + w2) / 4).T + (3 * b1 + b2) / 4
    np.testing.assert_allclose(_run(out, x), want, rtol=1e-5, atol=1e-5)
    # a network averaged with itself is itself; the first network's file is left as it was
    np.testing.assert_allclose(_run(a, x), x @ w1.T + b1, rtol=1e-5, atol=1e-5)
    same = soup([(1.0, str(a)), (2.0, str(a))])
    np.testing.assert_allclose(numpy_helper.to_array(same.graph.initializer[0]), w1.astype(np.float32), rtol=1e-6)


def test_networks_of_another_shape_are_refused(tmp_path):
    a = _dense(tmp_path / "a.onnx", np.ones((3, 4)), np.zeros(3))
    wider = _dense(tmp_path / "wider.onnx", np.ones((5, 4)), np.zeros(5))
    with pytest.raises(SystemExit, match="is \\(5, 4\\), not \\(3, 4\\)"):
        soup([(1.0, str(a)), (1.0, str(wider))])


def test_a_weight_must_be_a_positive_number():
    assert parse_part("net.onnx") == (1.0, "net.onnx")
    assert parse_part("2.5:/tmp/net.onnx") == (2.5, "/tmp/net.onnx")
    for bad in ("x:net.onnx", "0:net.onnx", "-1:net.onnx"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_part(bad)
