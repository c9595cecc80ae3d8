"""janus-merge-shared-operand-matmuls end to end: a traced filter gradient (matmuls sharing
their right operand) and per-step products of one left operand become one matmul each,
with NumPy's results."""

from __future__ import annotations

import numpy as np

import janus

SHIFTS, ROWS, CHANNELS, FILTERS = 4, 12, 3, 5


@janus.jit
def filter_gradient(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``x[s:s+ROWS].T @ d`` for each shift, as a convolution's backward pass writes it."""
    return np.stack([x[s : s + ROWS].T @ d for s in range(SHIFTS)])


@janus.jit
def projections(a: np.ndarray, bs: np.ndarray) -> np.ndarray:
    """``a @ b_t`` for each t: one left operand shared."""
    return np.stack([a @ bs[t] for t in range(len(bs))])


def test_filter_gradient_is_one_matmul_with_numpys_result() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((ROWS + SHIFTS, CHANNELS)).astype(np.float32)
    d = rng.standard_normal((ROWS, FILTERS)).astype(np.float32)
    expected = filter_gradient.fn(x, d)
    for _ in range(4):  # through profiling into the compiled version
        got = filter_gradient(x, d)
    assert filter_gradient.versions, janus.explain(filter_gradient)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    lowered = filter_gradient.lower(x, d)
    assert lowered.mlir.count("linalg.matmul") == SHIFTS
    assert str(lowered).count("linalg.matmul") == 1


def test_shared_left_operand_is_one_matmul_with_numpys_result() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 7)).astype(np.float32)
    bs = rng.standard_normal((3, 7, 4)).astype(np.float32)
    expected = projections.fn(a, bs)
    for _ in range(4):
        got = projections(a, bs)
    assert projections.versions, janus.explain(projections)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert str(projections.lower(a, bs)).count("linalg.matmul") == 1
