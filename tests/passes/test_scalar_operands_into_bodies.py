"""janus-scalar-operands-into-bodies end to end: a hand-written Adam step with bias
correction (``m / (1 - 0.9 ** t)``, Python scalars on the heap) computes what Python does,
heap state included, and its traced scalars reach the elementwise op as body values, not
as rank-0 tensors of their own."""

from __future__ import annotations

import copy

import numpy as np

import janus


class State:
    pass


def adam_step(s: State, p: np.ndarray, g: np.ndarray) -> None:
    s.t += 1
    s.m = 0.9 * s.m + 0.1 * g
    s.v = 0.999 * s.v + 0.001 * g**2
    mhat = s.m / (1 - 0.9**s.t)
    vhat = s.v / (1 - 0.999**s.t)
    p -= 0.01 * mhat / (np.sqrt(vhat) + 1e-8)


def scaled(x: np.ndarray, t: int) -> np.ndarray:
    """A float64 array times a traced f64 scalar. (Compiled elementwise chains may contract
    a multiply and an add into one rounding: within 1 ulp of NumPy, not bit for bit.)"""
    return x * (1.0 - 0.9**t) + 0.5**t


def _state(dtype: type) -> tuple[State, np.ndarray]:
    s = State()
    s.t = 0
    s.m = np.zeros((4, 5), dtype)
    s.v = np.zeros((4, 5), dtype)
    return s, np.ones((4, 5), dtype)


def test_adam_with_bias_correction_matches_python_heap_included() -> None:
    rng = np.random.default_rng(0)
    grads = rng.standard_normal((12, 4, 5)).astype(np.float32)
    step = janus.jit(adam_step, fallback="silent")
    s, p = _state(np.float32)
    ref_s, ref_p = copy.deepcopy(s), p.copy()
    for g in grads:
        step(s, p, g)
        adam_step(ref_s, ref_p, g)
        assert type(s.t) is int and s.t == ref_s.t
        assert s.m.dtype == s.v.dtype == np.float32
        np.testing.assert_allclose(s.m, ref_s.m, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(s.v, ref_s.v, rtol=1e-5, atol=1e-9)
        np.testing.assert_allclose(p, ref_p, rtol=1e-5)
    assert step.versions and any(v.calls for v in step.versions.values()), janus.explain(step)
    lowered = str(step.lower(s, p, grads[0])).splitlines()
    # the two bias corrections are body values; s.t's new value (a heap result) stays a tensor
    assert not [line for line in lowered if "tensor.from_elements" in line and "tensor<f64>" in line]


def test_traced_f64_scalar_in_body_matches_numpy() -> None:
    x = np.linspace(-3.0, 3.0, 24).reshape(4, 6)
    f = janus.jit(scaled, fallback="silent")
    for t in [*range(8), 50, 333, 1000, 7]:
        got, expected = f(x, t), scaled(x, t)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=1e-16)
    assert f.versions and any(v.calls for v in f.versions.values()), janus.explain(f)
    assert "tensor.from_elements" not in str(f.lower(x, 9))
