"""Python ints and floats on the heap (``self.t += 1``, ``self.lr *= 0.5``) cross the
compiled function's boundary as VM scalars (``i64``/``f64``), not 0-d tensors: no buffer
each way, no device round trip before the host computes with them. Checked against Python
after every call: values and types (a Python int stays an int, a NumPy float64 a NumPy
float64), and at the 64-bit edge, where Python's ints keep growing."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

import janus


class State:
    pass


def step(s: State, x: np.ndarray) -> np.ndarray:
    s.t += 1
    s.lr = s.lr * 0.5
    s.acc = s.acc + x.sum()
    return x * s.t + s.lr * (1 - 0.9**s.t)


def _state(t: int) -> State:
    s = State()
    s.t, s.lr, s.acc = t, 1.0, np.float64(0.0)
    return s


def _assert_same(s: State, expected: State) -> None:
    for name in ("t", "lr", "acc"):
        got, want = getattr(s, name), getattr(expected, name)
        assert type(got) is type(want) and got == want, (name, got, want)


def _run(jitted: janus.JitFunction, start: int, calls: int) -> State:
    s, x = _state(start), np.arange(6.0).reshape(2, 3)
    expected = copy.deepcopy(s)
    for _ in range(calls):
        got, want = jitted(s, x), step(expected, x)
        _assert_same(s, expected)
        np.testing.assert_allclose(got, want, rtol=1e-15)
    return s


def test_python_scalars_on_the_heap_are_vm_scalars_with_pythons_values() -> None:
    jitted = janus.jit(step, fallback="silent")
    s = _run(jitted, 0, 16)
    assert sum(v.calls for v in jitted.versions.values()) >= 4, janus.explain(jitted)
    lowered = str(jitted.lower(s, np.zeros((2, 3))))
    signature = re.search(r"func\.func @step\((.*?)\) -> \((.*?)\)", lowered)
    assert signature is not None, lowered
    inputs, results = signature.groups()
    assert re.search(r": i64\b", inputs) and re.search(r": f64\b", inputs), inputs  # s.t, s.lr
    assert "tensor<f64>" in inputs  # s.acc, a NumPy float64: a 0-d array of the graph
    assert re.search(r"(^|, )i64(,|$)", results) and re.search(r"(^|, )f64(,|$)", results), results


def test_counter_at_the_64_bit_edge_matches_python() -> None:
    jitted = janus.jit(step, fallback="silent")
    _run(jitted, 2**63 - 6, 10)  # passes 2**63 - 1: the overflow guard hands the call to Python
    _run(jitted, 2**64, 3)  # beyond i64 from the start


def bias_correction(s: State) -> None:
    s.t += 1
    s.c = s.b**s.t


def test_float_power_of_a_heap_counter_has_pythons_bits_and_errors() -> None:
    """``b ** t`` of heap scalars, computed by the host in f64: the very bits Python's
    float pow gives, for each t; an overflow raises as in Python (after ``s.t += 1``: the
    raise guard hands the call to Python). The first base varies ``s.b`` into a graph input."""
    jitted = janus.jit(bias_correction, fallback="silent")
    s = State()
    for base, start, calls in ((-0.9, 0, 40), (0.999, 0, 1500), (0.9, 10**6, 5), (1.7, 2000, 1)):
        s.b, s.t = base, start
        for _ in range(calls):
            if start == 2000:
                with pytest.raises(OverflowError):
                    jitted(s)
                assert s.t == 2001
                continue
            jitted(s)
            expected = base**s.t
            assert type(s.c) is float and s.c == expected, (base, s.t, s.c.hex(), expected.hex())
    assert sum(v.calls for v in jitted.versions.values()) > 1400, janus.explain(jitted)


def refit(s: State, g: np.ndarray) -> np.ndarray:
    s.b = 0.0  # a Python float first: the location crosses as a VM scalar ...
    s.b -= 0.1 * np.mean(g)  # ... and the NumPy float64 written after it follows, committed as one
    return g * s.b


def test_a_location_written_as_a_python_float_then_a_numpy_scalar_compiles_and_keeps_the_numpy_type():
    jf = janus.jit(refit, warmup=1)
    got, want = State(), State()
    for i in range(4):
        g = np.arange(3.0) + i
        np.testing.assert_array_equal(jf(got, g), refit(want, g))
        assert type(got.b) is type(want.b) is np.float64 and got.b == want.b
    assert sum(v.calls for v in jf.versions.values()) >= 2, janus.explain(jf)


class Bias:
    def __init__(self, b):
        self.w, self.b = np.zeros(3), b

    def update(self, x):
        self.b -= 0.1 * x.sum()  # a NumPy float64: ``-=`` makes a new scalar and rebinds the attribute
        self.w -= 0.1 * x * self.b
        return self.b


def test_in_place_op_on_a_varying_numpy_scalar_attribute_rebinds_it_and_compiles():
    jf = janus.jit(Bias.update, warmup=1)
    for i in range(5):  # a fresh object per call, its NumPy float64 bias different each time: a graph input
        got, want, x = Bias(np.float64(0.1 * i)), Bias(np.float64(0.1 * i)), np.arange(3.0) + i
        result = jf(got, x)
        assert type(result) is np.float64 and result == pytest.approx(want.update(x), rel=1e-15)
        assert type(got.b) is np.float64 and got.b == pytest.approx(want.b, rel=1e-15)
        np.testing.assert_allclose(got.w, want.w, rtol=1e-15)
    assert sum(v.calls for v in jf.versions.values()) >= 2 and not jf.fallbacks, janus.explain(jf)
