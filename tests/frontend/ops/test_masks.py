"""Boolean mask reads ``x[mask]`` compiled with a value-sized ``?`` dim (``ops/masks.py``),
against NumPy: in the function body, in a helper of another module called from a list
comprehension, in a loop body; empty selections; what NumPy refuses; gradients."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import janus
from tests.helpers import assert_same
from tests.helpers.peer_programs import knn
from tests.helpers.peer_state import assert_compiled

RNG = np.random.default_rng(7)
X = RNG.standard_normal((12, 3))
LABELS = np.arange(12) % 3


def selected(x, threshold):
    y = np.tanh(x) * 2.0
    picked = y[y[:, 0] > threshold]
    return picked, picked.sum(axis=0), len(picked), y[y > threshold].mean(), picked.shape[0] * 2


def centers(X, labels, k):
    return np.array([knn.cluster_mean(X, labels, j, X[j]) for j in range(k)])


def looped(X, labels, k):
    total = np.zeros(X.shape[1])
    for j in range(k):
        rows = X[labels == j]
        total = total + rows.sum(axis=0) / (len(rows) + 1)
    return total


def integers(a):
    even = a[a % 2 == 0]
    return even, even * 3


def copied(x):
    part = x[x > 0]
    part *= 10.0  # a copy: the argument is unchanged, as in NumPy
    return part, x.sum()


def empties(x):
    return x[x > 100.0].sum(axis=0), x[x > 100.0].mean()


def mismatched(x, m):
    return x[m > 0].sum()


def calls_match(fn, argument_sets):
    """``fn`` jitted and plain on each argument set: the same results and warnings."""
    jf = janus.jit(fn, warmup=1, fallback="silent")
    for args in argument_sets:
        with warnings.catch_warnings(record=True) as got_warnings:
            warnings.simplefilter("always")
            got = jf(*args)
        with warnings.catch_warnings(record=True) as want_warnings:
            warnings.simplefilter("always")
            want = fn(*args)
        assert_same(got, want)
        assert [str(w.message) for w in got_warnings] == [str(w.message) for w in want_warnings]
    return jf


def test_a_mask_read_in_the_body_compiles_its_length_and_reductions():
    jf = calls_match(selected, [(X, t) for t in (0.0, 0.5, -0.5, 1.0, 0.0)])
    assert_compiled(jf)
    assert sum(v.calls for v in jf.versions.values()) >= 3


def test_mask_reads_in_a_helper_from_a_comprehension_and_in_a_loop_compile():
    jf = calls_match(centers, [(X * s, LABELS, 3) for s in (1.0, 2.0, -1.0)])
    assert_compiled(jf)
    jf = calls_match(looped, [(X * s, LABELS, 3) for s in (1.0, 2.0, -1.0)])
    assert_compiled(jf)


def test_rows_of_a_relaxed_dim_and_integer_arrays_are_selected_as_numpy_does():
    jf = calls_match(selected, [(RNG.standard_normal((n, 3)), 0.2) for n in (4, 5, 6, 7)])
    assert_compiled(jf)
    jf = calls_match(integers, [(np.arange(n, dtype=np.int64) * 3 - 5,) for n in (6, 6, 6)])
    assert_compiled(jf)


def test_the_selection_is_a_copy():
    x = X.copy()
    jf = calls_match(copied, [(x,), (x,), (x,)])
    np.testing.assert_array_equal(x, X)
    assert_compiled(jf)


def test_an_empty_selection_sums_to_zero_and_its_mean_warns_as_in_numpy():
    """The mean over a ``?`` dim is guarded non-empty: NumPy warns there ('Mean of empty
    slice') and gives NaN, so that call runs in Python."""
    jf = calls_match(empties, [(X,), (X,), (X * 1000.0,), (X,)])
    assert any(v.calls for v in jf.versions.values()), janus.explain(jf)
    assert "non-empty slice" in janus.explain(jf)


def test_a_mask_numpy_refuses_raises_numpy_s_error():
    jf = janus.jit(mismatched, warmup=1, fallback="silent")
    for _ in range(2):
        with pytest.raises(IndexError) as got:
            jf(X, np.ones(5))
        with pytest.raises(IndexError) as want:
            mismatched(X, np.ones(5))
        assert str(got.value) == str(want.value)


def test_the_gradient_through_a_mask_reaches_the_selected_entries():
    loss = janus.grad(lambda w: (w[w > 0] ** 2).sum(), warmup=1)
    with pytest.warns(janus.FallbackWarning, match="gradients need static loop sizes"):  # janus-autodiff's reason
        for w in (X, -X, X * 2.0):
            np.testing.assert_allclose(loss(w), 2.0 * w * (w > 0), rtol=1e-12)
