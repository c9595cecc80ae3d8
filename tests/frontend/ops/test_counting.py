"""``np.bincount`` (a one-hot sum of static length ``minlength``) and where NumPy would do
something else: a value past ``minlength`` (a longer result) or a negative one (NumPy's
ValueError) fails the guard and the call runs in Python; forms without a static length
run in Python from the start."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, in_python


def counts(labels, x):
    return np.bincount(labels, minlength=4) * x.sum(), np.bincount(labels > 1, minlength=2)


def test_bincount_matches_numpy_then_falls_back_where_numpy_differs():
    jf = janus.jit(counts, warmup=1)
    x = np.ones(3, np.float32)
    for labels in ([0, 3, 3, 1, 3], [2, 2, 0, 1, 0]):
        labels = np.array(labels)
        assert_same(jf(labels, x), counts(labels, x))
    (version,) = jf.versions.values()
    assert version.calls == 1 and "linalg.generic" in version.graph.text
    longer = np.array([0, 5, 1, 2, 0])  # NumPy makes 6 bins
    assert_same(jf(longer, x), counts(longer, x))
    assert "np.bincount values in [0, 4)" in janus.explain(jf)
    negative = np.array([0, -1, 1, 2, 0])
    with pytest.raises(ValueError, match="negative"):
        jf(negative, x)


def no_minlength(labels):
    return np.bincount(labels) * 2


def weighted(labels, w):
    return np.bincount(labels, weights=w, minlength=3)


def float_labels(v):
    return np.bincount(v, minlength=3)


@pytest.mark.parametrize("fn, args, reason", [
    (no_minlength, (np.array([0, 1, 1]),), "without a static positive minlength"),
    (weighted, (np.array([0, 1, 1]), np.ones(3, np.float32)), "with weights"),
])
def test_bincount_forms_without_a_static_length_run_in_python(fn, args, reason):
    jf = janus.jit(fn, warmup=1, fallback="silent")
    for _ in range(2):
        assert_same(jf(*args), fn(*args))
    assert in_python(jf) and reason in janus.explain(jf)


def test_bincount_of_floats_raises_numpys_error():
    jf = janus.jit(float_labels, warmup=1, fallback="silent")
    for _ in range(2):
        with pytest.raises(TypeError):
            jf(np.array([0.0, 1.0], np.float32))
