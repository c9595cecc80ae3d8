"""NumPy functions whose result shape depends on the values (``np.unique``, ``np.nonzero``,
``np.argwhere``, ``np.flatnonzero``) have no record in the op table: a call to one is a
segment boundary. The work before it and after it is compiled (after it: with a ``?`` dim
once the length has changed); the function runs in NumPy
between the two segments, and the whole call gives NumPy's answer. (A boolean mask read
``y[y > 0.5]`` compiles, its row count a value: tests/frontend/ops/test_masks.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers.coexec import segment_calls


def with_unique(x):
    y = np.tanh(x) * 2.0
    found = np.unique(np.round(y))
    return found.sum() + y.mean(), np.exp(y).sum(axis=0)


def with_nonzero(x):
    y = np.tanh(x) * 2.0
    rows, cols = np.nonzero(y > 0.5)
    return cols.sum() + y.mean(), np.exp(y).sum(axis=0)


def with_argwhere(x):
    y = np.tanh(x) * 2.0
    found = np.argwhere(y < 0)
    return found.sum() + y.mean(), np.exp(y).sum(axis=0)


def with_flatnonzero(x):
    y = np.tanh(x) * 2.0
    found = np.flatnonzero(y > 0)
    return found.sum() + y.mean(), np.exp(y).sum(axis=0)


CASES = {"unique": with_unique, "nonzero": with_nonzero, "argwhere": with_argwhere, "flatnonzero": with_flatnonzero}
X = np.random.default_rng(2).standard_normal((4, 5))


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_shaped_function_splits_between_compiled_segments(name: str) -> None:
    fn = CASES[name]
    jf = janus.jit(fn, warmup=1, fallback="silent")
    for scale in (1.0, 0.5, 2.0, -1.0) * 2:  # results of changing length: the resume relaxes to a ? dim
        got, want = jf(X * scale), fn(X * scale)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12)
            assert np.asarray(g).dtype == np.asarray(w).dtype
    calls = segment_calls(jf)
    assert len(calls) >= 2 and calls[0] >= 2 and calls[1] >= 1, (calls, janus.explain(jf))
    assert f"python: {name} at" in janus.explain(jf)
