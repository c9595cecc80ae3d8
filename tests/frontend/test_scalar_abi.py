"""Relaxed int arguments and Python scalar results cross the compiled call as plain
``i64``/``f64``/``i1`` values (``scalar_abi``), and come back as exact Python scalars."""

from __future__ import annotations

import re

import numpy as np
import pytest

import janus
from janus.frontend.jit import explain


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def scalar_stats(n, x):
    total = n * n - 3 * n
    return total, total / 3 + 0.5, total > 4, x * n


def entry_signature(jf) -> tuple[str, str]:
    """The entry function's parameter and result types (MLIR text)."""
    (version,) = jf.versions.values()
    m = re.search(rf"func\.func @{version.graph.func_name}\((.*?)\) -> \(?(.*?)\)? \{{", version.graph.text)
    return re.sub(r"%\w+: ", "", m.group(1)), m.group(2)


@pytest.fixture(scope="module")
def jit_fib():
    jf = janus.jit(fib)
    for n in (5, 6, 7, 8):  # warm up, relax n, compile the relaxed version
        assert jf(n) == fib(n)
    assert jf.versions, explain(jf)
    return jf


@pytest.fixture(scope="module")
def jit_stats():
    jf = janus.jit(scalar_stats)
    x = np.arange(3, dtype=np.float32)
    for n in (3, 4, 5, 6):
        jf(n, x)
    assert jf.versions, explain(jf)
    return jf


def test_relaxed_int_entry_takes_and_returns_i64(jit_fib):
    assert entry_signature(jit_fib) == ("i64", "i64")  # a recursive graph's Python int result too


@pytest.mark.parametrize("n", [0, 1, 2, 10, 20])
def test_relaxed_int_results_are_python_ints(jit_fib, n):
    calls = jit_fib.versions[next(iter(jit_fib.versions))].calls
    result = jit_fib(n)
    assert type(result) is int and result == fib(n)
    assert jit_fib.versions[next(iter(jit_fib.versions))].calls == calls + 1  # the compiled path ran


@pytest.mark.parametrize("n", [0, 1, 7, 30])
def test_int_float_bool_results_are_exact_python_scalars(jit_stats, n):
    x = np.array([1.0, -2.0, 0.25], dtype=np.float32)
    version = next(iter(jit_stats.versions.values()))
    calls = version.calls
    got, expected = jit_stats(n, x), scalar_stats(n, x)
    assert version.calls == calls + 1, explain(jit_stats)
    assert [type(v) for v in got[:3]] == [int, float, bool]
    assert got[:3] == expected[:3]
    assert got[3].dtype == expected[3].dtype and np.array_equal(got[3], expected[3])


def test_scalar_results_are_scalars_and_arrays_stay_tensors(jit_stats):
    assert entry_signature(jit_stats) == ("i64, tensor<3xf32>", "i64, f64, i1, tensor<3xf32>")


def float_meets_float32(p, r):
    """A relaxed Python float against a float32 element (weak typing: compared in f32), and
    truncated to an int: host code IREE's VM cannot convert (f64 -> f32, f64 -> i64)."""
    below = r < p[1]
    return below, int(r * 10.0), p * r


def test_a_relaxed_float_converted_on_the_host_compiles():
    jf = janus.jit(float_meets_float32, warmup=1)
    p = np.array([0.3, 0.6], np.float32)
    for r in (0.1, 0.7, 0.5, 0.65, 2.25):
        got, want = jf(p, r), float_meets_float32(p, r)
        assert type(got[0]) is type(want[0]) and got[0] == want[0] and type(got[1]) is int and got[1] == want[1]
        np.testing.assert_array_equal(got[2], want[2])
        assert got[2].dtype == want[2].dtype
    assert any(v.calls for v in jf.versions.values() if "%scalar_in1: f64" in v.graph.text), explain(jf)
