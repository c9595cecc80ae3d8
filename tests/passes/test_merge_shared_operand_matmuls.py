"""janus-merge-shared-operand-matmuls end to end: a traced filter gradient (matmuls sharing
their right operand), per-step products of one left operand and an RNN's output layer
(met at the last step) become one matmul each, with NumPy's results."""

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


@janus.jit
def rnn_outputs(x: np.ndarray, U: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An RNN whose output layer ``h_t @ V`` feeds a running loss but not the recurrence."""
    h = np.zeros((x.shape[1], U.shape[1]), np.float32)
    loss = np.zeros((), np.float32)
    for t in range(len(x)):
        h = np.tanh(x[t] + h @ U)
        y = h @ V
        loss = loss + np.exp(y - y.max(axis=1, keepdims=True)).sum()
    return h, loss


def test_output_layer_meets_at_the_last_step_with_numpys_result() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 3, 4)).astype(np.float32)
    U = (0.5 * rng.standard_normal((4, 4))).astype(np.float32)
    V = rng.standard_normal((4, 6)).astype(np.float32)
    expected = rnn_outputs.fn(x, U, V)
    for _ in range(4):
        got = rnn_outputs(x, U, V)
    assert rnn_outputs.versions, janus.explain(rnn_outputs)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-5)
    lowered = str(rnn_outputs.lower(x, U, V))
    assert lowered.count("linalg.matmul") == 5 + 1  # the recurrence's h @ U stays per step
    assert "tensor<15x4xf32>, tensor<4x6xf32>" in lowered  # the five h_t @ V as one


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
