"""A reduction read at two indices by one elementwise expression: ``sq[:, None] + sq[None, :]``
(the pairwise squared distances of kNN, RBF kernels, t-SNE). IREE 3.13's llvm-cpu code fused the
row sums into that expression's dispatch and left every off-diagonal element zero on an AVX-512
host (``janus-isolate-reductions-read-twice`` keeps the reduction in a dispatch of its own)."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers import assert_same


def pairwise_sq(X):
    sq = (X ** 2).sum(1)
    return sq[:, None] + sq[None, :] - 2 * X @ X.T


def keepdims_transposed(X):
    sq = np.sum(X * X, axis=1, keepdims=True)
    return sq + sq.T - 2 * X @ X.T


def rbf_kernel(X):
    sq = np.einsum("ij,ij->i", X, X)
    return np.exp(-0.5 * (sq[:, None] + sq[None, :] - 2 * X @ X.T))


def tsne_affinities(Y):
    sum_Y = np.sum(np.square(Y), 1)
    num = -2.0 * np.dot(Y, Y.T)
    num = 1.0 / (1.0 + np.add(np.add(num, sum_Y).T, sum_Y))
    num[range(len(Y)), range(len(Y))] = 0.0
    return num / np.sum(num)


def column_sums_twice(X):
    s = X.sum(0)
    return s[:, None] * s[None, :] + X.T @ X


@pytest.mark.parametrize("fn", [pairwise_sq, keepdims_transposed, rbf_kernel, tsne_affinities, column_sums_twice])
def test_a_reduction_read_at_two_indices_compiles_right(fn) -> None:
    jf = janus.jit(fn, warmup=1)
    rng = np.random.default_rng(3)
    for _ in range(3):
        X = rng.standard_normal((6, 3))
        assert_same(jf(X), fn(X))
    assert jf.versions and not jf.fallbacks, janus.explain(jf)
