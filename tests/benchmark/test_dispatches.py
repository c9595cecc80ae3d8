"""The per-dispatch profile: a compiled call captured, replayed under IREE's HAL profiler,
its dispatches named, counted and given the FLOPs their names spell out."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from janus.benchmark.dispatches import Captured, DispatchRow, NotReplayable, capturing, dispatch_flops, profile, table
from janus.runtime.values import INDEX_ARRAY

STEPS = 3


@janus.jit
def recurrent(xs: np.ndarray, W: np.ndarray) -> np.ndarray:
    """A recurrence: each step's matmul needs the last one's result, so none are merged."""
    h = np.tanh(xs[0])
    for t in range(STEPS):
        h = np.tanh(h @ W + xs[t])
    return h


@pytest.mark.parametrize("name, flops", [
    ("f_dispatch_2_matmul_64x128x784_f32", 2 * 64 * 128 * 784),
    ("f_dispatch_7_batch_matmul_4x8x16x32_f32", 2 * 4 * 8 * 16 * 32),
    ("f_dispatch_1_matmul_like_32x1024x384_f32", 2 * 32 * 1024 * 384),
    ("f_dispatch_12_elementwise_64x128_f32", None),
    ("f_dispatch_10_softmax_32x1000xf32_dispatch_tensor_store", None),
])
def test_flops_from_dispatch_names(name: str, flops: int | None) -> None:
    assert dispatch_flops(name) == flops


def test_captured_call_replays_with_every_dispatch_timed() -> None:
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((STEPS, 8, 32)).astype(np.float32)
    W = rng.standard_normal((32, 32)).astype(np.float32)
    with capturing() as calls:
        for _ in range(4):  # profiled runs, then compiled calls
            recurrent(xs, W)
    assert list(calls) == ["recurrent"]
    call = calls["recurrent"]
    # xs, W, then storage for the (8, 32) result, which IREE writes in place (result_storage)
    assert isinstance(call, Captured) and len(call.inputs) == 3
    np.testing.assert_array_equal(call.inputs[0], xs)
    assert call.inputs[2].shape == (8, 32) and not call.inputs[2].any()
    rows = profile(call, repetitions=2)
    matmuls = [r for r in rows if "matmul" in r.name]
    assert matmuls and sum(r.count for r in matmuls) == STEPS
    assert all(r.flops == r.count * 2 * 8 * 32 * 32 for r in matmuls)
    assert all(r.seconds > 0 for r in rows)
    # local-sync runs every workgroup on the calling thread: busy exactly while the dispatch runs
    assert all(r.workgroups >= 1 and r.cores() == pytest.approx(1.0, rel=1e-6) for r in rows)
    assert rows == sorted(rows, key=lambda r: -r.seconds)


def test_table_sums_the_dispatches_left_out() -> None:
    rows = [DispatchRow("a_matmul_2x2x2_f32", 1, 2e-3, 16.0), DispatchRow("b", 2, 1e-3, None),
            DispatchRow("c", 3, 1e-3, None)]
    text = table("m", "step", rows, peak=100.0, top=1)
    assert "4.00 ms of dispatches per call" in text
    assert "| `(2 more)` | 5 |  |  | 2.000 | 50.0 |" in text


def test_table_shows_workgroups_and_the_cores_they_kept_busy() -> None:
    rows = [DispatchRow("a_matmul_64x64x64_f32", 1, 1e-3, 2.0 * 64**3, workgroups=16, busy_seconds=1.9e-3),
            DispatchRow("b_elementwise_64_f32", 4, 1e-3, None, workgroups=1, busy_seconds=1e-3)]
    text = table("m", "step", rows, peak=100.0)
    assert "| `a_matmul_64x64x64_f32` | 1 | 16 | 1.90 | 1.000 | 50.0 | 0.5 | 0.5 | 0.5 |" in text
    assert "| `b_elementwise_64_f32` | 4 | 1 | 1.00 | 1.000 | 50.0 |  |  |  |" in text


def test_a_call_taking_tree_index_arrays_is_not_replayable() -> None:
    call = Captured("infer", b"", [np.zeros(3, np.int64)], (INDEX_ARRAY,))
    with pytest.raises(NotReplayable, match="!util.buffer"):
        profile(call)
