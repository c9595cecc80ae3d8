"""A variable that is a Python scalar on one side of a data-dependent branch and a graph value
on the other (``trace/either.py``): operators and conditional jumps on it compile, results and
dtypes as Python gives them; any other use (return, print) runs the call in Python."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, in_python, rand


def discounted(r):
    out = np.zeros_like(r, dtype=float)
    running = 0
    for t in reversed(range(r.size)):
        if r[t] != 0:
            running = 0
        running = running * 0.9 + r[t]
        out[t] = running
    return out


def reset_and_accumulate(r):
    acc = 0
    for t in range(r.size):
        if r[t] == 0:
            acc = 0
        acc += r[t]
        acc *= 0.5
    return acc


def compared(r):
    x = 0
    if r[0] > 0:
        x = r[1]
    if x > 0.5:  # Python compares int 0 or a NumPy float: the truth of either
        return r * 2
    return r * 3


def returned(r):
    x = 0
    if r[0] > 0:
        x = r[1]
    return x * 2  # an int or a NumPy float: which one only Python knows


def printed(r):
    x = 0
    if r[0] > 0:
        x = r[1]
    print(x)
    return r + 1


def divided(r):
    x = 0
    if r[0] > 0:
        x = r[1]
    return r / (x + 1) + 1 / x if r[0] > 5 else r  # ``1 / 0`` raises in Python: not converted


CONVERTED = [
    (discounted, [np.array([0.0, 0.0, 1.0, 0.0, -1.0]), np.array([1.0, 0.0, 0.0, 0.0, 0.0]), np.zeros(5)]),
    (discounted, [np.array([0, 2, 0, -1]), np.array([1, 1, 1, 1])]),  # int rewards: float returns
    (reset_and_accumulate, [np.array([1.0, 0.0, 3.0]), np.array([0.0, 2.0, 0.0]), np.ones(3)]),
    (compared, [np.array([1.0, 2.0]), np.array([1.0, 0.2]), np.array([-1.0, 2.0])]),
]


@pytest.mark.parametrize("fn, inputs", CONVERTED, ids=[f"{fn.__name__}-{inputs[0].dtype}" for fn, inputs in CONVERTED])
def test_a_python_scalar_joined_with_an_array_value_compiles(fn, inputs):
    jf = janus.jit(fn, warmup=1)
    for x in inputs * 2:
        assert_same(jf(x), fn(x))
    assert jf.versions and not in_python(jf), janus.explain(jf)
    assert sum(v.calls for v in jf.versions.values()) >= len(inputs), janus.explain(jf)


@pytest.mark.parametrize("fn, reason", [(returned, "returning a Either"), (printed, "a Either is live at the boundary")])
def test_other_uses_of_either_value_run_in_python(fn, reason, capsys):
    jf = janus.jit(fn, warmup=1, fallback="silent")
    for x in (np.array([1.0, 2.0]), np.array([-1.0, 2.0])) * 2:
        got, got_out = jf(x), capsys.readouterr().out
        assert_same(got, fn(x))
        assert got_out == capsys.readouterr().out
    assert "imperative: r: ndarray[float64, shape=(2,)]: " in janus.explain(jf) and reason in janus.explain(jf), janus.explain(jf)


def test_an_operator_raising_for_the_python_scalar_is_not_converted():
    jf = janus.jit(divided, warmup=1, fallback="silent")
    for x in (np.array([6.0, 2.0]), np.array([1.0, 2.0]), np.array([-1.0, 2.0])) * 2:
        assert_same(jf(x), divided(x))
    assert "may be a Python scalar raises for it (ZeroDivisionError)" in janus.explain(jf), janus.explain(jf)


def signed_units(W, s, order):
    """A Hopfield network's asynchronous sweep: each unit set to one of two Python floats."""
    s = s.copy()
    for i in order:
        s[i] = 1.0 if W[i] @ s >= 0 else -1.0
    return s


def counted(x):
    k = 3 if x.sum() > 0 else 7  # a Python int either way: NumPy's weak promotion keeps float32
    return x * k, k


def test_two_python_scalars_of_one_type_join_as_one_python_scalar():
    W, order = rand(6, 6, dtype=np.float64), np.array([3, 1, 0, 5, 2, 4])
    sweep = janus.jit(signed_units, warmup=1)
    for seed in range(4):
        s = np.where(rand(6, dtype=np.float64, seed=seed) > 0, 1.0, -1.0)
        assert_same(sweep(W, s, order), signed_units(W, s, order))
    count = janus.jit(counted, warmup=2)
    for x in (rand(4), -np.abs(rand(4)), np.abs(rand(4)), -np.abs(rand(4, seed=2))):
        got, want = count(x), counted(x)
        assert_same(got, want)
        assert type(got[1]) is int
    for jf in (sweep, count):
        (version,) = jf.versions.values()
        assert version.calls >= 2 and not jf.fallbacks and "scf.if" in version.graph.text, janus.explain(jf)
