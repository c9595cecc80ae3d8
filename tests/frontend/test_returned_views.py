"""A function returning a view of an argument (``x.T``, ``x[1:]``, ``x.reshape(-1)``)
returns, compiled as in Python, an array sharing the caller's memory: NumPy makes the view
of the caller's array after the call instead of the graph returning a copy. Plain Python is
the oracle: values, types, and which results share memory with the argument."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import assert_same, compiled


def transposed(x):
    return x.T


def sliced(x):
    return x[1:, ::2]


def reshaped_then_row(x):
    return x.reshape(3, 2).T[0]


def item(x):
    return x[1, 2]


def views_and_a_result(x):
    return np.squeeze(x[None]), np.moveaxis(x, 0, 1), x.ravel(), x[..., 1], x * 2.0


def view_of_a_computed_array(x):
    return (x + 1.0).T


@pytest.mark.parametrize("fn", [transposed, sliced, reshaped_then_row, item, views_and_a_result, view_of_a_computed_array])
def test_returned_views_share_the_callers_memory_as_in_python(fn):
    x = np.arange(6.0).reshape(2, 3)
    jf = compiled(fn, x)
    got, want = jf(x), fn(x)
    assert next(iter(jf.versions.values())).calls >= 1
    assert_same(got, want)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert [type(g) for g in got] == [type(w) for w in want]
    assert [np.shares_memory(g, x) for g in got] == [np.shares_memory(w, x) for w in want]


def test_a_write_through_the_returned_view_reaches_the_argument():
    x = np.arange(6.0).reshape(2, 3)
    jf = compiled(sliced, x)
    view = jf(x)
    view[0, 0] = -1.0
    assert x[1, 0] == -1.0
