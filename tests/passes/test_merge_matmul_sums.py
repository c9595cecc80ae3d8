"""janus-merge-matmul-sums end to end: the merged graph computes NumPy's sum of matmuls
(to float32 rounding: the rewrite reassociates the sum), and a traced BPTT-style loop is
merged into one matmul; outer products (K = 1) merge as matmuls, and running sums along one
dimension (a bias gradient ``db += dz_t.sum(axis=0)``) into one sum."""

from __future__ import annotations

import numpy as np

import janus
from janus.ir import parse_module
from janus.passes import run_pipeline
from janus.passes.matmuls import blocks
from janus.runtime.module import CompiledModule

STEPS, BATCH, IN, OUT = 5, 3, 7, 4


@janus.jit
def weight_gradient(xs: np.ndarray, ds: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``dW += x_t.T @ d_t`` over the steps, as backpropagation through time writes it."""
    dW = np.zeros_like(W)
    for t in range(len(xs)):
        dW += xs[t].T @ ds[t]
    return W - 0.5 * dW


def test_traced_accumulation_matches_numpy_and_merges() -> None:
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((STEPS, BATCH, IN)).astype(np.float32)
    ds = rng.standard_normal((STEPS, BATCH, OUT)).astype(np.float32)
    W = rng.standard_normal((IN, OUT)).astype(np.float32)
    expected = weight_gradient.fn(xs, ds, W)
    for _ in range(4):  # through profiling into the compiled version
        got = weight_gradient(xs, ds, W)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert weight_gradient.versions, janus.explain(weight_gradient)
    lowered = weight_gradient.lower(xs, ds, W)
    assert lowered.mlir.count("linalg.matmul") == STEPS
    assert str(lowered).count("linalg.matmul") == 1
    # the steps' x_t.T: one transpose of the stacked x_t, not one per step
    assert lowered.mlir.count("linalg.transpose") == STEPS
    assert str(lowered).count("linalg.transpose") == 1


@janus.jit
def shared_weight_gradient(x1: np.ndarray, x2: np.ndarray, d1: np.ndarray, d2: np.ndarray, W: np.ndarray) -> np.ndarray:
    """A weight applied to two batches (a GAN's discriminator on real and generated ones):
    its gradient is a sum of two products and no base."""
    return W - 0.5 * (x1.T @ d1 + x2.T @ d2)


def test_sum_of_two_products_matches_numpy_and_merges() -> None:
    rng = np.random.default_rng(4)
    x1, x2 = (rng.standard_normal((BATCH + i, IN)).astype(np.float32) for i in range(2))
    d1, d2 = (rng.standard_normal((BATCH + i, OUT)).astype(np.float32) for i in range(2))
    W = rng.standard_normal((IN, OUT)).astype(np.float32)
    expected = shared_weight_gradient.fn(x1, x2, d1, d2, W)
    for _ in range(4):  # through profiling into the compiled version
        got = shared_weight_gradient(x1, x2, d1, d2, W)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert shared_weight_gradient.versions, janus.explain(shared_weight_gradient)
    lowered = shared_weight_gradient.lower(x1, x2, d1, d2, W)
    assert lowered.mlir.count("linalg.matmul") == 2
    assert str(lowered).count("linalg.matmul") == 1 and str(lowered).count("linalg.transpose") == 1


@janus.jit
def bias_gradients(ds: np.ndarray, counts: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-step sums as backpropagation through time writes them: along rows (a bias
    gradient), along columns, and of integers."""
    db = np.zeros_like(b)
    per_row = np.zeros(ds.shape[1], ds.dtype)
    total = np.zeros(counts.shape[2], counts.dtype)
    for t in range(len(ds)):
        db += ds[t].sum(axis=0)
        per_row += ds[t].sum(axis=1)
        total += counts[t].sum(axis=0)
    return b - 0.5 * db, per_row, total


def test_traced_running_sums_match_numpy_and_merge() -> None:
    rng = np.random.default_rng(5)
    ds = rng.standard_normal((STEPS, BATCH, OUT)).astype(np.float32)
    counts = rng.integers(-9, 9, (STEPS, BATCH, IN))  # int64: int32 sums are int64, cast back at each +=
    b = rng.standard_normal(OUT).astype(np.float32)
    expected = bias_gradients.fn(ds, counts, b)
    for _ in range(4):  # through profiling into the compiled version
        got = bias_gradients(ds, counts, b)
    assert bias_gradients.versions, janus.explain(bias_gradients)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[2], expected[2])
    lowered = str(bias_gradients.lower(ds, counts, b))
    # each running sum is one sum over the stacked steps
    for stacked in (f"tensor<{STEPS * BATCH}x{OUT}xf32>", f"tensor<{BATCH}x{STEPS * OUT}xf32>", f"tensor<{STEPS * BATCH}x{IN}xi64>"):
        assert stacked in lowered, stacked
    assert lowered.count('iterator_types = ["reduction", "parallel"]') == 2
    assert lowered.count('iterator_types = ["parallel", "reduction"]') == 1


CHAIN = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x1: tensor<4x2xf32>, %x2: tensor<4x2xf32>, %d1: tensor<2x5xf32>, %d2: tensor<2x5xf32>, %w: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m1 = linalg.matmul ins(%x1, %d1 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %m1 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %m2 = linalg.matmul ins(%x2, %d2 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m2, %s1 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  return %s2 : tensor<4x5xf32>
}
"""


def test_merged_chain_runs_to_numpy_result() -> None:
    module = parse_module(CHAIN)
    run_pipeline(module, "janus-merge-matmul-sums")
    assert str(module).count("linalg.matmul") == 1
    rng = np.random.default_rng(1)
    x1, x2 = (rng.standard_normal((4, 2)).astype(np.float32) for _ in range(2))
    d1, d2 = (rng.standard_normal((2, 5)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal((4, 5)).astype(np.float32)
    got = CompiledModule.from_mlir(str(module), pipeline="canonicalize")["f"](x1, x2, d1, d2, w)
    np.testing.assert_allclose(got, w + x1 @ d1 + x2 @ d2, rtol=1e-6, atol=1e-6)


OUTER_CHAIN = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
#row = affine_map<(d0, d1) -> (0, d1)>
func.func @f(%a1: tensor<4x1xf32>, %a2: tensor<4x1xf32>, %b1: tensor<1x5xf32>, %b2: tensor<1x5xf32>, %w: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %e = tensor.empty() : tensor<4x5xf32>
  %p1 = linalg.generic {indexing_maps = [#col, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%a1, %b1 : tensor<4x1xf32>, tensor<1x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %p1 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %p2 = linalg.generic {indexing_maps = [#col, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%a2, %b2 : tensor<4x1xf32>, tensor<1x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %y, %x : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s1, %p2 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  return %s2 : tensor<4x5xf32>
}
"""


def test_outer_products_merge_into_one_matmul_with_numpy_result() -> None:
    """K = 1 products (how the frontend emits a one-channel convolution's taps) are matmuls too."""
    module = parse_module(OUTER_CHAIN)
    run_pipeline(module, "janus-merge-matmul-sums")
    assert str(module).count("linalg.matmul") == 1 and "arith.mulf" not in str(module)
    rng = np.random.default_rng(3)
    a1, a2 = (rng.standard_normal((4, 1)).astype(np.float32) for _ in range(2))
    b1, b2 = (rng.standard_normal((1, 5)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal((4, 5)).astype(np.float32)
    got = CompiledModule.from_mlir(str(module), pipeline="canonicalize")["f"](a1, a2, b1, b2, w)
    np.testing.assert_allclose(got, w + a1 @ b1 + a2 @ b2, rtol=1e-6, atol=1e-6)


def test_blocks_skip_the_bodies_of_linalg_ops_the_passes_erase() -> None:
    """A body listed before its op is erased would be freed memory when visited (a crash)."""
    module = parse_module(CHAIN)
    listed = list(blocks(module.operation))
    assert len(listed) == 2  # the module's and the function's, not the adds' or matmuls' bodies
    assert [b.owner.operation.name for b in listed] == ["builtin.module", "func.func"]
