"""In-place updates of arrays the caller passed in (``for p, g in zip(params, grads): p -= lr * g``):
the compiled call copies the new values into the caller's very arrays after it succeeded, as
NumPy's in-place operators leave them; arrays sharing memory, read-only arrays and updates
before a segment boundary run in Python."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers import assert_same, rand


def sgd(params, grads, lr):
    for p, g in zip(params, grads):
        p -= lr * g
    return params[0]


def scale_in_place(x, factor):
    x *= factor
    x += 1
    return x.sum()


def fresh() -> tuple[list, list]:
    return [rand(3, seed=1), rand(2, 2, seed=2)], [rand(3, seed=3), rand(2, 2, seed=4)]


def test_argument_arrays_updated_in_place_as_in_python():
    jf = janus.jit(sgd, warmup=1)
    for _ in range(3):
        (got_params, grads), (want_params, _) = fresh(), fresh()
        arrays = list(got_params)
        got = jf(got_params, grads, 0.5)
        want = sgd(want_params, grads, 0.5)
        assert_same(got, want)
        assert_same(got_params, want_params)
        assert all(a is b for a, b in zip(got_params, arrays)) and got is got_params[0]  # the caller's arrays
    assert sum(v.calls for v in jf.versions.values()) == 2 and not jf.fallbacks, janus.explain(jf)
    assert "argument array 0: updated in place, writeable, shares no memory with other inputs" in janus.explain(jf)


def test_two_updates_of_one_argument_and_a_python_scalar_result():
    jf = janus.jit(scale_in_place, warmup=1)
    for factor in (2.0, 2.0, 2.0):
        got_x, want_x = rand(4, seed=5), rand(4, seed=5)
        assert_same(jf(got_x, factor), scale_in_place(want_x, factor))
        assert_same(got_x, want_x)
    assert sum(v.calls for v in jf.versions.values()) == 2, janus.explain(jf)


def test_arguments_sharing_memory_or_read_only_run_in_python():
    jf = janus.jit(sgd, warmup=1, fallback="silent")
    for _ in range(2):
        params, grads = fresh()
        jf(params, grads, 0.5)
    got, want = fresh()[0], fresh()[0]
    # the gradient is the parameter itself: the update reads it as it changes
    assert_same(jf(got, [got[0], got[1]], 0.5), sgd(want, [want[0], want[1]], 0.5))
    assert_same(got, want)
    assert "argument array 0 is updated in place but shares memory with another input" in janus.explain(jf)
    results = []
    for fn in (jf, sgd):
        params, grads = fresh()
        params[1].flags.writeable = False
        try:
            fn(params, grads, 0.5)
        except ValueError as e:  # Python updates the first array, then raises on the second
            results.append((str(e), params[0]))
    assert len(results) == 2 and results[0][0] == results[1][0]
    assert_same(results[0][1], results[1][1])
    assert "argument array 1 is updated in place but is read-only" in janus.explain(jf)


def test_an_update_before_a_segment_boundary_runs_in_python(capsys):
    def noisy(x):
        x *= 2.0
        print("scaled")
        return x + 1

    jf = janus.jit(noisy, warmup=1, fallback="silent")
    for _ in range(3):
        got_x, want_x = rand(3), rand(3)
        assert_same(jf(got_x), noisy(want_x))
        assert_same(got_x, want_x)
    assert "an argument array updated in place before a segment boundary" in janus.explain(jf)


def update_then_write(x):
    x *= 2.0
    x[0] = 7.0  # a write into the array ``x *= 2`` updated: still the caller's array
    return x.sum()


def write_then_update(x):
    x[1:3] = 0.0
    np.add(x, 1.0, out=x)
    x.fill(x[0])
    x[-1] += 1.0
    return x


def rebinds_then_writes(x):
    x[0] = 1.0
    x = x * 2.0  # a new array: the caller's keeps x[0] = 1 only
    x[1] = 5.0
    return x


def write_then_read_view(x):
    view = x[2:]
    x[3] = 9.0  # NumPy's write reaches the view: refused, runs in Python
    return view.sum()


def test_every_in_place_write_into_an_argument_reaches_the_callers_array():
    """Item assignment, ``out=`` and ndarray methods on an argument, before or after an
    in-place operator, update the caller's array as NumPy does (the write after ``x *= 2`` was
    lost: the call returned the right sum and left ``x[0]`` at its doubled value)."""
    for fn in (update_then_write, write_then_update, rebinds_then_writes):
        jf = janus.jit(fn, warmup=1)
        for seed in range(3):
            got_x, want_x = rand(5, seed=seed), rand(5, seed=seed)
            assert_same(jf(got_x), fn(want_x))
            assert_same(got_x, want_x)
        assert sum(v.calls for v in jf.versions.values()) == 2 and not jf.fallbacks, janus.explain(jf)


def test_a_write_into_an_argument_with_a_live_view_runs_in_python():
    jf = janus.jit(write_then_read_view, warmup=1, fallback="silent")
    for seed in range(3):
        got_x, want_x = rand(6, seed=seed), rand(6, seed=seed)
        assert_same(jf(got_x), write_then_read_view(want_x))
        assert_same(got_x, want_x)
    assert "the array has a live view" in janus.explain(jf), janus.explain(jf)
