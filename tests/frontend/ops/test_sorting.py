"""Sorting where NumPy's default (unstable) kind tells ties apart: the graph guards that
the data has none, and a call with some runs in NumPy, the version kept; plain NumPy is
the oracle (tests/frontend/ops/test_conformance.py covers the tie-free forms)."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers import assert_same, check_compiled


def orders(x):
    return np.argsort(x, axis=1), np.sort(x, axis=0), np.sort(x, kind="stable")


def test_ties_negative_zeros_and_nans_run_in_numpy_the_version_kept():
    jf = janus.jit(orders, warmup=1)
    rng = np.random.default_rng(7)
    distinct = rng.permutation(12).reshape(3, 4) * 0.5 + 1.0
    assert_same(jf(distinct), orders(distinct))
    (version,) = jf.versions.values()
    assert_same(jf(distinct), orders(distinct))
    assert version.calls == 1
    for awkward in ([[1.0, 1.0, 2.0, 0.5]] * 3, [[-0.0, 0.0, 1.0, np.nan], [np.nan, np.nan, 3.0, -1.0], [2.0, 1.0, 0.0, -0.0]]):
        awkward = np.array(awkward)
        assert_same(jf(awkward), orders(awkward))
    assert list(jf.versions.values()) == [version] and version.calls == 1
    assert_same(jf(distinct + 1.0), orders(distinct + 1.0))
    assert version.calls == 2


def sorted_beside_the_argument(x):
    """The sort works in place on its ``outs``: the argument, returned too, must not see it."""
    a = x * 1.0
    a.sort(axis=0, kind="stable")
    return np.sort(x, axis=1, kind="stable"), x, a, np.argsort(x, axis=None, kind="stable")


def test_sorting_leaves_a_returned_argument_unsorted():
    x = np.random.default_rng(3).standard_normal((3, 4))
    check_compiled(sorted_beside_the_argument, x)
