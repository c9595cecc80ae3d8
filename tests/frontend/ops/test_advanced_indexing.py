"""Advanced (integer-array) indexing (``advanced``): gathers and last-write-wins scatters,
negative indices wrapped, out-of-range indices sent to Python's IndexError by a guard."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, check_compiled, compiled, rand
from tests.helpers.arrays import placed


def embed(table, ids):
    return table[ids] * 2.0


def pick(p, cols):
    rows = np.arange(len(cols))
    return np.log(p[rows, cols])


def policy_grad(p, actions, returns):
    """The REINFORCE pattern: gather, copy, scatter-subtract, scale in place."""
    rows = np.arange(len(actions))
    d = p.copy()
    d[rows, actions] -= 1.0
    d *= returns[:, None] / len(actions)
    return d


def assign_duplicates(x, idx, v):
    a = x * 1.0
    a[idx] = v
    b = x * 1.0
    b[idx] -= v
    return a, b


IDS = np.array([[0, 3, -1], [2, 2, 4]])


def test_gather_rows_with_negative_ids():
    jf = check_compiled(embed, rand(5, 3), IDS)
    assert "tensor.extract" in next(iter(jf.versions.values())).graph.text


def test_gather_pairs():
    check_compiled(pick, np.abs(rand(6, 2)) + 0.1, np.array([0, 1, 1, 0, 1, -2]))


def test_scatter_subtract_and_in_place_scale():
    check_compiled(policy_grad, np.abs(rand(5, 2)), np.array([1, 0, 0, 1, 1]), rand(5))


def test_scatter_last_write_wins_with_duplicates():
    check_compiled(assign_duplicates, rand(5, 2), np.array([1, 3, 1, -4]), rand(4, 2))


def test_out_of_range_raises_the_same_index_error():
    jf = compiled(embed, rand(5, 3), IDS)
    bad = np.array([[0, 5, 1], [0, 0, 0]])
    with pytest.raises(IndexError) as want:
        embed(rand(5, 3), bad)
    with pytest.raises(IndexError) as got:
        jf(rand(5, 3), bad)
    assert str(got.value) == str(want.value)
    (version,) = jf.versions.values()
    assert "IndexError" in version.graph.text  # the guard sent the call to Python


def add_at(x, ids, v):
    d = np.zeros_like(x)
    np.add.at(d, ids, v)
    return d


def test_add_at_accumulates_duplicates():
    jf = check_compiled(add_at, rand(5, 3), np.array([4, 0, 4, -1]), rand(4, 3))
    assert "iree_linalg_ext.scatter" in next(iter(jf.versions.values())).graph.text


@pytest.mark.parametrize("dtype", [np.int64, np.bool_])
def test_add_at_of_ints_and_bools(dtype):
    """Ints add (wrapping as NumPy does); bools ``or`` (True + True is True in NumPy)."""
    values = rand(5, dtype=dtype) if dtype is np.int64 else np.ones(5, bool)  # True twice: not xor
    check_compiled(add_at, rand(6, dtype=dtype), np.array([1, 1, 5, 0, -6]), values)


def assign_pairs(x, rows, cols, v):
    a = x * 1.0
    a[rows, cols] = v
    a[rows, cols] += 1.0
    return a


def test_scatter_pairs_with_duplicates():
    """Index pairs, the same pair written twice: the last value wins, then ``+=`` reads it."""
    check_compiled(assign_pairs, rand(4, 5), np.array([0, 3, 0, 2, 0]), np.array([1, 4, 1, -1, 2]), rand(5))


def index_arrays_apart_or_before_an_ellipsis(x):
    return x[np.array([0, 1]), :, np.array([0, 1])], x[np.array([0, 1]), ...]


def test_index_arrays_apart_or_before_an_ellipsis_run_imperatively_with_the_reason():
    """Forms the gather does not take: Python's results, and a reason (not NumPy's
    ``ValueError`` from comparing an index array with ``slice(None)`` or ``...``)."""
    x = rand(2, 3, 4)
    jf = janus.jit(index_arrays_apart_or_before_an_ellipsis, warmup=1, fallback="silent")
    for _ in range(2):
        assert_same(jf(x), index_arrays_apart_or_before_an_ellipsis(x))
    assert not jf.versions
    assert "advanced indexing other than full slices, then int arrays on adjacent axes" in janus.explain(jf)


def im2col_like(x, w):
    """Columns gathered after a full slice (im2col), and scattered back with np.add.at into
    an array made from static values (col2im); ``range`` as an index array."""
    k = np.repeat(np.arange(2), 4).reshape(-1, 1)
    i = np.tile(np.repeat(np.arange(2), 2), 2).reshape(-1, 1) + np.repeat(np.arange(2), 2).reshape(1, -1)
    j = np.tile(np.arange(2), 4).reshape(-1, 1) + np.tile(np.arange(2), 2).reshape(1, -1)
    cols = x[:, k, i, j]
    back = np.zeros(x.shape)
    np.add.at(back, (slice(None), k, i, j), cols * w)
    written = x * 1.0
    written[:, 1, [2, 0]] = w[0, :2, :1]
    return cols, back, written, cols[0][range(3), 1]


def test_index_arrays_after_full_slices_gather_and_scatter():
    check_compiled(im2col_like, rand(2, 2, 3, 3), rand(2, 8, 4))


def scatter_into_copy_returning_the_argument(x, v):
    y = x.copy()
    y[np.array([0, 2])] = v
    return y, x


def add_at_returning_the_argument(x):
    y = x * 1.0
    np.add.at(y, np.array([0, 0, 1]), 5.0)
    return y, x


def scatter_into_copy_returning_a_view_of_the_argument(x, v):
    y = x.copy()
    y[np.array([0, 2])] = v
    return y, x.reshape(-1)


@pytest.mark.parametrize("rows", [3, 4096])  # staged; >= 16 KiB and aligned: importable without a copy
@pytest.mark.parametrize("fn", [scatter_into_copy_returning_the_argument, add_at_returning_the_argument])
def test_a_returned_argument_is_the_callers_array_untouched_by_a_scatter(fn, rows):
    """IREE 3.13 runs these scatters in place on the argument's buffer: the argument is
    copied (``FunctionInfo.writes_arguments``) and returned as the caller's own array."""
    x = placed(np.arange(rows * 4.0).reshape(rows, 4), 0)
    args = (x, np.full(4, 9.0))[: fn.__code__.co_argcount]
    kept = x.copy()
    jf = compiled(fn, *args)
    got = jf(*args)
    assert next(iter(jf.versions.values())).calls >= 1
    assert_same(got, fn(*args))
    assert got[1] is x and np.array_equal(x, kept)  # Python returns the very object


def test_a_returned_view_of_a_scattered_argument_is_made_of_the_callers_array():
    """Not a graph result at all (which IREE would alias with the scattered buffer): NumPy
    makes the view of the caller's array after the call, sharing its memory as in Python."""
    x, v = np.arange(12.0).reshape(3, 4), np.full(4, 9.0)
    kept = x.copy()
    jf = compiled(scatter_into_copy_returning_a_view_of_the_argument, x, v)
    got = jf(x, v)
    assert next(iter(jf.versions.values())).calls >= 1
    assert_same(got, scatter_into_copy_returning_a_view_of_the_argument(x, v))
    assert np.shares_memory(got[1], x) and np.array_equal(x, kept)


def mean_pick(p, cols):
    return pick(p, cols).mean(), p[:, None, :] * 2.0


@pytest.mark.parametrize("fn, args", [
    (mean_pick, lambda n: (np.abs(rand(n, 3, seed=n)) + 0.1, np.arange(n) % 3 - 1)),
    (policy_grad, lambda n: (np.abs(rand(n, 4, seed=n)) + 0.1, np.arange(n) % 4, rand(n, seed=n))),
    (assign_duplicates, lambda n: (rand(7, 3), np.arange(n) % 4 - 2, rand(n, 3, seed=n))),
])
def test_index_arrays_of_a_size_that_varies_run_in_one_relaxed_version(fn, args):
    """``len()`` of a ``?`` dim, ``np.arange`` of it, gathers, last-write-wins scatters (the
    duplicates' count unknown), ``[:, None]`` and a mean over the ``?`` axis. (No size
    repeats another dim's: the relaxed key tells equal sizes apart, a version each.)"""
    jf = janus.jit(fn, warmup=1, specialize=False)
    for n in (5, 9, 2, 13, 1):
        assert_same(jf(*args(n)), fn(*args(n)))
    (version,) = jf.versions.values()
    assert version.calls == 4 and "?" in janus.explain(jf)
    first, _, *rest = args(11)
    with pytest.raises(IndexError) as want:
        fn(first, np.full(11, 9), *rest)
    with pytest.raises(IndexError) as got:
        jf(first, np.full(11, 9), *rest)
    assert str(got.value) == str(want.value)
