"""The form a matrix product takes in MLIR: a K=1 product (an outer product, a convolution
over one input channel written as shifted matmuls) is elementwise, so IREE fuses it with
the sum it feeds, also inside a function janus-autodiff differentiates."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers import check_compiled, rand


def one_channel_conv(x, w):
    """LeNet's first layer: a 3-tap convolution over one channel as a sum of K=1 matmuls."""
    n = x.shape[0] - 2
    out = x[:n] @ w[0]
    for i in range(1, 3):
        out += x[i : i + n] @ w[i]
    return np.maximum(out, 0.0)


def outer_products(u, v, W):
    return np.outer(u, v) * 2.0 + u[:, None] @ v[None, :] + W @ W.T


def test_k1_matmuls_are_elementwise():
    jf = check_compiled(one_channel_conv, rand(10, 1), rand(3, 1, 4))
    text = next(iter(jf.versions.values())).graph.text
    assert "linalg.matmul" not in text and text.count("arith.mulf") >= 3


def test_outer_products_and_a_real_matmul():
    jf = check_compiled(outer_products, rand(5), rand(5, seed=1), rand(5, 3))
    assert next(iter(jf.versions.values())).graph.text.count("linalg.matmul") == 1  # only W @ W.T


def test_differentiated_k1_matmul_is_elementwise_too():
    """The broadcast product feeds another elementwise op, whose VJP once emitted a
    two-result generic that iree-compile 3.13 rejected (the version fell back)."""

    def loss(u, v):
        return np.sum(np.tanh(np.outer(u, v)) * (v[:, None] * u[None, :]).T)

    u, v = rand(4), rand(4, seed=1)
    g = janus.grad(loss, argnums=(0, 1), warmup=1)
    g(u, v)
    (version,) = g.versions.values()
    assert "linalg.matmul" not in version.graph.text
    for got, want in zip(g(u, v), g.spec(u, v)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
