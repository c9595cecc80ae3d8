"""Generators consumed whole run eagerly at trace time; others run imperatively."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, check_compiled, rand


def unpack_genexpr(z):
    d = len(z) // 4
    i, f, g, o = (np.tanh(z[k * d : (k + 1) * d]) for k in range(4))
    return i * f + g - o


def builtin_consumers(x):
    rows = tuple(r * 2.0 for r in x)
    return sum(k * k for k in range(len(x))) * rows[1] + np.stack(list(r + 1.0 for r in x))[0]


def halves(x):
    yield x[:2]
    yield x[2:] * 3.0


def generator_function(x):
    a, b = halves(x)
    return a + b


@pytest.mark.parametrize("fn,x", [(unpack_genexpr, rand(8)), (builtin_consumers, rand(3, 4)), (generator_function, rand(4))])
def test_generator_consumed_whole_compiles(fn, x) -> None:
    jf = check_compiled(fn, x)
    assert jf.versions


def loop_over_genexpr(x):
    total = x[0]
    for r in (r * 2.0 for r in x):
        total = total + r
    return total


def partial_consumer(x):
    return any(r > 0 for r in [1.0, -1.0]) + x


@pytest.mark.parametrize("fn,x,why", [(loop_over_genexpr, rand(3, 2), "a for loop over <genexpr>"),
                                      (partial_consumer, rand(2), "not consumed whole by any")])
def test_other_generator_uses_run_imperatively(fn, x, why) -> None:
    jf = janus.jit(fn, warmup=1)
    for _ in range(2):
        assert_same(jf(x), fn(x))
    assert not jf.versions
    assert why in janus.explain(jf)


def _counter(n):
    for i in range(n):
        yield i


def last_scaled(x, n):
    y = x  # dead where the loop body starts (rebound there), live after the loop
    for i in _counter(n):
        y = x * i
    return y


def test_a_local_live_only_after_a_generator_loop_reaches_the_code_after_it() -> None:
    """Each step of a loop over a generator is a boundary with two continuations (the next
    item, or none left): a local the loop body rebinds but the code after the loop reads is
    passed to both (it came back as None when only the body's liveness was asked)."""
    jf = janus.jit(last_scaled, warmup=1, fallback="silent")
    for n in (3, 3, 3, 4, 3, 3, 3, 2):
        assert_same(jf(rand(3), n), last_scaled(rand(3), n))
