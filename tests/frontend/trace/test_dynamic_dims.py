"""Python ints that stand for ``?`` dims: ``x.shape`` unpacked (``T, d = x.shape``), its dims
as loop bounds, ``reversed(range(len(x)))``, traced indices into a ``?`` dim (read and write),
``np.zeros_like`` of an array with ``?`` dims. Each function runs every size in one relaxed
version (before, ``x.shape`` of a ``?`` dim stopped the relaxation: a version per size)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import janus
from tests.helpers import assert_same


def row_sum_by_shape(x):
    T, d = x.shape
    acc = np.zeros(d)
    for t in range(T):
        acc = acc + x[t] * (t + 1)
    return acc / x.shape[0]


def column_loop_by_shape(x):
    total = 0.0
    for j in range(x.shape[1]):
        total = total + x[:, j].sum() * j
    return total


def discounted_sum(rewards, gamma=0.9):
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
    return running


def last_index_wins(x):
    return x[len(x) - 1] - x[-len(x)]


def centered_copy(x):
    out = np.ones_like(x)
    return out * x.mean(axis=0) + np.zeros_like(x, dtype=np.float32) + np.full_like(x, 2.5)


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("fn, make", [
    (row_sum_by_shape, lambda n: rand(n, 3, seed=n)),
    (column_loop_by_shape, lambda n: rand(3, n, seed=n)),
    (discounted_sum, lambda n: rand(n, seed=n)),
    (last_index_wins, lambda n: rand(n, 3, seed=n)),
    (centered_copy, lambda n: rand(n, 3, seed=n)),
])
def test_dims_of_a_size_that_varies_run_in_one_relaxed_version(fn: Callable, make: Callable[[int], np.ndarray]):
    jf = janus.jit(fn, warmup=1, specialize=False)
    for n in (4, 7, 2, 5):
        assert_same(jf(make(n)), fn(make(n)))
    (version,) = jf.versions.values()
    assert version.calls == 3 and "?" in janus.explain(jf), janus.explain(jf)


def test_a_shape_dim_relaxed_after_a_second_size_keeps_one_version():
    jf = janus.jit(row_sum_by_shape, warmup=1)
    for n in (4, 4, 6, 9, 3):
        assert_same(jf(rand(n, 3, seed=n)), row_sum_by_shape(rand(n, 3, seed=n)))
    explained = janus.explain(jf)
    assert "relaxing (x.shape[0]) to ?" in explained and "? dims not possible" not in explained, explained
    assert sum(v.calls for v in jf.versions.values()) >= 2


def test_a_traced_index_past_a_dynamic_dim_raises_index_error_as_python():
    def pick(x, i):
        return x[i]

    jf = janus.jit(pick, warmup=1, specialize=False)
    assert_same(jf(rand(5), 2), pick(rand(5), 2))
    assert_same(jf(rand(3), -3), pick(rand(3), -3))
    with pytest.raises(IndexError):
        pick(rand(4), 4)
    with pytest.raises(IndexError):
        jf(rand(4), 4)


def test_a_float_accumulator_is_a_numpy_scalar_only_when_the_loop_ran():
    """``running = 0.0`` becomes a float64 0-d value in the body: a call with no iteration (Python
    returns the float ``0.0``) fails the trip-count guard and runs in Python."""
    jf = janus.jit(discounted_sum, warmup=1, specialize=False)
    for n in (4, 7, 0, 5, 0):
        got, want = jf(rand(n, seed=n)), discounted_sum(rand(n, seed=n))
        assert type(got) is type(want)
        assert_same(got, want)
    assert "trip_count at the loop runs at least once" in janus.explain(jf), janus.explain(jf)


def discounted_returns(rewards, gamma=0.9):
    out = np.zeros_like(rewards)
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        out[t] = running
    return (out - out.mean()) / (out.std() + 1e-8)


def test_a_fresh_array_written_by_index_in_a_loop_over_a_dynamic_dim():
    """``out[t] = v`` in an ``scf.for``: the fresh array is carried and updated in place; ``std``
    divides by the ``?`` count."""
    jf = janus.jit(discounted_returns, warmup=1, specialize=False)
    for n in (4, 7, 2, 5):
        assert_same(jf(rand(n, seed=n)), discounted_returns(rand(n, seed=n)))
    (version,) = jf.versions.values()
    assert version.calls == 3, janus.explain(jf)


def written_through_an_alias(x):
    out = np.zeros(x.shape[0])
    alias = out
    for t in range(len(x)):
        out[t] = x[t].sum()
    return alias


def written_with_a_live_view(x):
    out = np.zeros(x.shape[0])
    head = out[:1]
    for t in range(len(x)):
        out[t] = x[t].sum()
    return head


@pytest.mark.parametrize("fn", [written_through_an_alias, written_with_a_live_view])
def test_an_array_seen_through_another_name_is_not_updated_in_a_loop_region(fn: Callable):
    """The update in place of a carried array would not reach the alias or view: these loops
    unroll or the dims stay exact, never a stale alias."""
    jf = janus.jit(fn, warmup=1, specialize=False)
    for n in (4, 7, 2, 70):
        assert_same(jf(rand(n, 3, seed=n)), fn(rand(n, 3, seed=n)))


def accumulated_in_float32(x32):
    running = 0.0
    for t in range(len(x32)):
        running = (x32[t] * 3.1 + running).astype(np.float64)
    return running


def test_a_python_float_meeting_float32_in_the_loop_is_not_made_a_float64_scalar():
    """The first iteration adds the Python float to float32 (float32, then cast), a float64
    scalar would add in float64: not promoted, exact shapes (unrolled) instead."""
    jf = janus.jit(accumulated_in_float32, warmup=1, specialize=False)
    for n in (4, 7, 5):
        x = rand(n, seed=n).astype(np.float32)
        got, want = jf(x), accumulated_in_float32(x)
        assert type(got) is type(want)
        assert_same(got, want)
    assert "computes in a narrower type" in janus.explain(jf), janus.explain(jf)
