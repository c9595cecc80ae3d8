"""``int()``, ``float()`` and ``.item()`` of traced arrays inside expressions (not stored
in a local, so the profiler never records their values), and NumPy's shape queries
``np.size``/``np.shape``/``np.ndim`` of traced arrays; plain Python is the oracle."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers import assert_same, in_python


def run(fn, calls, fallback="warn"):
    jf = janus.jit(fn, warmup=1, fallback=fallback)
    for args in calls:
        assert_same(jf(*args), fn(*args))
    return jf


def ran_compiled(jf) -> bool:
    return not in_python(jf) and not jf.fallbacks and sum(v.calls for v in jf.versions.values()) >= 2


def quadratic_form(y, S):
    return -0.5 * (y.T @ np.linalg.solve(S, y)).item() + 1.0


def test_item_of_a_one_by_one_array_in_an_expression_compiles():
    """``(y.T @ S^-1 y).item()`` of a (1, 1) array, used at once: its element as a Python float."""
    rng = np.random.default_rng(0)
    calls = [(rng.standard_normal((2, 1)), np.eye(2) * s) for s in (1.0, 2.0, 3.0, 4.0)]
    jf = run(quadratic_form, calls)
    assert ran_compiled(jf), janus.explain(jf)
    assert type(jf(*calls[0])) is float


def item_of_a_corner(m):
    return m[0:1, 0:1].item() * 2.0 + m.sum(keepdims=True).item() + int(m.argmax(keepdims=True).item())


def test_item_of_a_one_element_2d_array_in_an_expression_compiles():
    calls = [(np.arange(6.0).reshape(2, 3) * k,) for k in (1.0, 2.0, -3.0)]
    jf = run(item_of_a_corner, calls)
    assert ran_compiled(jf), janus.explain(jf)


def row_update(table, rows, k):
    total = 0.0
    for j in range(rows.shape[0]):
        total += table[int(rows[j, 0])] * rows[j, 1]  # an index taken as int() of a float column
    return total * k


def test_int_of_a_float_passed_on_at_once_is_a_graph_int_truncated_as_python_does():
    table = np.arange(5.0) * 10
    calls = [(table, np.array([[0.0, 1.0], [3.7, 2.0], [-0.5, 1.0]]), k) for k in (1.0, 2.0, 3.0)]
    calls += [(table, np.array([[4.9, 1.0], [2.2, 3.0], [1.0, 1.0]]), 3.0)]
    jf = run(row_update, calls)
    assert ran_compiled(jf), janus.explain(jf)


def test_int_of_a_float_outside_int64_or_nan_runs_in_python_with_pythons_answer_or_error():
    def scaled(x):
        return [0, 1][int(x[0]) % 2] + 1

    jf = janus.jit(scaled, warmup=1, fallback="silent")
    for x in (np.array([2.5]), np.array([3.5])):
        assert jf(x) == scaled(x)
    assert jf(np.array([1e30])) == scaled(np.array([1e30]))  # Python's int of it keeps growing
    for bad in (np.nan, np.inf):
        try:
            scaled(np.array([bad]))
        except (ValueError, OverflowError) as e:
            expected = type(e)
        try:
            jf(np.array([bad]))
        except expected:
            pass
        else:
            raise AssertionError(f"int({bad}) did not raise")


def classes_loop(classes, X):
    out = []
    for i in range(np.size(classes)):
        out.append(X.sum(axis=1) * classes[i])
    rows, cols = np.shape(X)
    return np.array(out).T, rows * cols + np.ndim(X) + np.size(X, 1) + np.size(X, axis=-2) + np.size(X)


def test_np_size_shape_and_ndim_of_traced_arrays():
    X = np.arange(6.0).reshape(2, 3)
    jf = run(classes_loop, [(np.array([1.0, 2.0]), X)] * 3)
    assert ran_compiled(jf), janus.explain(jf)


def test_np_size_of_an_array_with_a_relaxed_dim_runs_in_python_with_the_reason():
    def count(x):
        return x.sum() / np.size(x)

    jf = run(count, [(np.ones(n),) for n in (2, 3, 4, 5)], fallback="silent")
    assert "np.size of an array with ? dims" in janus.explain(jf)
