"""``math`` functions on traced Python scalars (``trace/math_calls.py``) and branches whose
one side cannot be converted (a ``python`` guard): plain Python is the oracle, values,
types, printed output and the exceptions ``math`` raises."""

from __future__ import annotations

import math

import numpy as np

import janus
from tests.helpers import rand
from tests.helpers.coexec import lockstep


def statistics(x):
    m = float(x.mean())
    s = float((x * x).sum())
    return (math.sqrt(s) + math.exp(m) + math.log1p(s) + math.atan(m / 1.5) + math.hypot(m, s)
            + math.pow(s, 0.25) + math.degrees(m) + math.tanh(m) + math.fabs(m)
            + math.log(s + 1.0) + math.sin(m) * math.cos(m))


def test_math_functions_of_traced_scalars_compile_and_return_python_floats():
    jf = janus.jit(statistics, warmup=2)  # two values of each float(): graph floats, not constants
    for seed in range(6):
        x = rand(6, seed=seed)
        got = jf(x)
        assert type(got) is float and got == statistics(x) or abs(got - statistics(x)) <= 1e-12 * abs(statistics(x))
    assert sum(v.calls for v in jf.versions.values()) >= 3, janus.explain(jf)


def root_of_sum(x):
    return math.sqrt(float(x.sum())) * x


def grown(x):
    return math.exp(float(x.max()) * 1000.0)


def test_math_raises_its_own_errors_where_numpy_would_give_nan_or_inf(capsys):
    positive = [lambda state, s=s: (np.abs(rand(4, seed=s)) + 0.1,) for s in range(3)]
    negative = [lambda state: (-np.abs(rand(4)) - 0.1,)]
    jf = lockstep(root_of_sum, [0, 1], positive + negative + positive, capsys, warmup=2)
    assert len(jf.versions) == 1 and next(iter(jf.versions.values())).calls >= 4, janus.explain(jf)
    assert "raise guard" in janus.explain(jf)
    jf = lockstep(grown, [0, 1], [lambda state, s=s: (rand(3, seed=s) * 1e-3,) for s in range(4)] + [lambda state: (np.ones(3, np.float32),)], capsys,
                  warmup=3)
    assert "raise guard" in janus.explain(jf)


def report_when_worse(state, x):
    loss = float((x * x).mean())
    if loss > state["best"] * 1.5:
        print(f"loss {loss:.4f} is worse than {state['best']:.4f}")
    return x * loss


def test_a_branch_whose_one_side_prints_compiles_the_other_side(capsys):
    # one call in three prints: a branch whose Python side most profiled runs take is not compiled
    xs = [rand(5, seed=s) * (3.0 if s % 6 == 0 else 0.5) for s in range(12)]
    calls = [lambda state, x=x: (state, x) for x in xs]
    jf = lockstep(report_when_worse, [{"best": 1.0}, {"best": 1.0}], calls, capsys, warmup=3)
    explained = janus.explain(jf)
    assert "python at" in explained and "the other side runs in Python" in explained, explained
    assert sum(v.calls for v in jf.versions.values()) >= 4, explained
