"""``janus.nn``: each op's NumPy implementation against a loop-level reference, its
compiled graph (float32) against the eager run, and compiled gradients of a small CNN
loss against the eager tape. The tape rules are checked against finite differences in
tests/frontend/test_grad.py, from ``tests.helpers.nn_cases.TAPE_CASES``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import janus
from janus import nn
from janus.frontend.grad import GradFunction
from tests.helpers import check_compiled, rand
from tests.helpers.nn_cases import COMPILED, bias, filters, ids, images, labels, logits, table

# ---- references: the definitions, written out loop by loop --------------------------------
def ref_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    x = np.moveaxis(np.asarray(x, np.float64), axis, -1)
    out = np.array([[np.exp(v) / sum(np.exp(v)) for v in row] for row in x.reshape(-1, 1, x.shape[-1])])
    return np.moveaxis(out.reshape(x.shape), -1, axis)


def ref_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: int, padding: int) -> np.ndarray:
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.zeros((n, c, h + 2 * padding, wd + 2 * padding))
    xp[:, :, padding : padding + h, padding : padding + wd] = x
    oh, ow = (h + 2 * padding - kh) // stride + 1, (wd + 2 * padding - kw) // stride + 1
    out = np.zeros((n, f, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return out if b is None else out + np.asarray(b)[None, :, None, None]


def ref_max_pool2d(x: np.ndarray, k: int, s: int) -> np.ndarray:
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    return np.array([[[[x[a, b, i * s : i * s + k, j * s : j * s + k].max() for j in range(ow)] for i in range(oh)]
                      for b in range(c)] for a in range(n)])


EAGER = {
    "relu": (nn.relu(logits), np.where(logits > 0, logits, 0)),
    "sigmoid": (nn.sigmoid(logits), 1 / (1 + np.exp(-logits.astype(np.float64)))),
    "softmax": (nn.softmax(logits), ref_softmax(logits, -1)),
    "softmax_axis0": (nn.softmax(logits, axis=0), ref_softmax(logits, 0)),
    "log_softmax": (nn.log_softmax(logits), np.log(ref_softmax(logits, -1))),
    "cross_entropy": (nn.cross_entropy(logits, labels),
                      -np.mean([np.log(ref_softmax(logits, -1)[i, t]) for i, t in enumerate(labels)])),
    "embedding": (nn.embedding(table, ids), np.array([[table[i] for i in row] for row in ids])),
    "conv2d": (nn.conv2d(images, filters), ref_conv2d(images, filters, None, 1, 0)),
    "conv2d_bias_stride_pad": (nn.conv2d(images, filters, bias, stride=2, padding=1), ref_conv2d(images, filters, bias, 2, 1)),
    "max_pool2d": (nn.max_pool2d(images, 2), ref_max_pool2d(images, 2, 2)),
    "max_pool2d_overlapping": (nn.max_pool2d(images, 3, stride=1), ref_max_pool2d(images, 3, 1)),
}


@pytest.mark.parametrize("name", sorted(EAGER))
def test_eager_matches_reference(name: str) -> None:
    got, want = EAGER[name]
    assert np.asarray(got).dtype == np.float32 and np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_out_of_range_indices_raise() -> None:
    with pytest.raises(IndexError):
        nn.cross_entropy(logits, np.array([0, 5, 1, 1]))
    with pytest.raises(IndexError):
        nn.embedding(table, np.array([-1]))


# ---- compiled (float32) == eager, through the expected linalg op ---------------------------
@pytest.mark.parametrize("name", sorted(COMPILED))
def test_compiled_matches_eager(name: str) -> None:
    fn, args, marker = COMPILED[name]
    jf = check_compiled(fn, *args)
    (version,) = jf.versions.values()
    assert marker in version.graph.text


def test_out_of_range_labels_fall_back_to_python() -> None:
    """The range guard fails, so the call runs in Python, which raises NumPy's error."""
    fn, args, _ = COMPILED["cross_entropy"]
    jf = check_compiled(fn, *args)
    with pytest.raises(IndexError):
        jf(logits, np.array([0, 1, 5, 2]))
    assert '"janus.guard"' in next(iter(jf.versions.values())).graph.text


# ---- compiled gradients == the tape -------------------------------------------------------
def cnn_loss(w: np.ndarray, v: np.ndarray, x: np.ndarray, t: np.ndarray) -> Any:
    h = nn.max_pool2d(nn.relu(nn.conv2d(x, w, padding=1)), 2)
    return nn.cross_entropy(h.reshape(x.shape[0], -1) @ v, t)


@pytest.fixture(scope="module")
def cnn_grad() -> GradFunction:
    g = janus.grad(cnn_loss, argnums=(0, 1), warmup=1)
    g(*cnn_args(0))
    assert g.versions, janus.explain(g)
    return g


def cnn_args(seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    v = rng.standard_normal((4 * 3 * 3, 5)).astype(np.float32) * 0.3
    x = rng.standard_normal((3, 2, 6, 7)).astype(np.float32)
    return w, v, x, np.array([4, 0, 2])


def test_compiled_cnn_gradient_equals_tape(cnn_grad: GradFunction) -> None:
    args = cnn_args(1)
    (version,) = cnn_grad.versions.values()
    got = cnn_grad(*args)
    want = cnn_grad.spec(*args)
    assert "linalg.pooling_nchw_max" in version.graph.text and "linalg.conv_2d_nchw_fchw" in version.graph.text
    for g, e in zip(got, want):
        assert g.dtype == np.float32 and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_embedding_gradient_compiles_and_adds_repeated_ids() -> None:
    """The gather's compiled rule scatter-adds: a repeated id gets both contributions."""
    t, i = rand(5, 3), np.array([1, 1, 4])
    g = janus.grad(lambda t, i: np.sum(nn.embedding(t, i) * nn.embedding(t, i)), warmup=1)
    want = np.zeros_like(t)
    np.add.at(want, i, 2 * t[i])
    np.testing.assert_allclose(g(t, i), want, rtol=1e-6)
    (version,) = g.versions.values()
    calls = version.calls
    np.testing.assert_allclose(g(t, i), want, rtol=1e-6)
    assert version.calls == calls + 1
