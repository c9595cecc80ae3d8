"""Lists a loop in the graph appends to (``trace.stacking``): one array per iteration of a
``for`` over a ``?`` dim, stacked in the ``scf.for``, so one version serves every length;
where Python could tell the difference (other holders of the list, items from before the
loop, in-place updates, an empty loop) the answer is Python's. Each result is compared with
the same function run by plain Python."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from tests.helpers import assert_same

RNG = np.random.default_rng(7)
W = RNG.standard_normal((3, 3)) * 0.5


def run_lengths(fn, lengths, *rest):
    """``fn`` jitted, called on sequences of these lengths beside plain Python; the jit function."""
    jf = janus.jit(fn, warmup=1)
    for T in lengths:
        x = RNG.standard_normal((2, T, 3))
        assert_same(jf(x, *rest), fn(x, *rest))
    return jf


def states(x):
    T = x.shape[1]
    h = np.zeros((x.shape[0], 3))
    hs = []
    for t in range(T):
        h = np.tanh(x[:, t, :] @ W + h)
        hs.append(h)
    return np.stack(hs, axis=1), np.stack(hs), np.stack(hs, -1), len(hs), h


def test_a_list_appended_per_step_of_a_loop_over_a_dynamic_dim_is_stacked_for_every_length():
    jf = run_lengths(states, (4, 5, 3, 7, 2, 6))
    assert len(jf.versions) == 1, janus.explain(jf)
    (version,) = jf.versions.values()
    assert "scf.for" in version.graph.text and "tensor.insert_slice" in version.graph.text
    assert version.calls >= 4 and jf.compiles == 2, janus.explain(jf)


def backwards(x):
    out = []
    for t in reversed(range(x.shape[1])):
        out.append(x[:, t, :] * t)
    total = np.zeros((x.shape[0], 3))
    for row in out:  # a for over the stacked list: its rows in append order
        total = total * 0.5 + row
    return np.stack(out, axis=1), total


def test_a_reversed_loop_stacks_in_append_order_and_a_for_reads_the_rows_back():
    jf = run_lengths(backwards, (3, 4, 6, 2))
    assert len(jf.versions) == 1, janus.explain(jf)


def test_an_empty_loop_raises_as_python_does():
    jf = run_lengths(states, (3, 4, 5))
    x = np.zeros((2, 0, 3))
    with pytest.raises(ValueError, match="need at least one array to stack"):
        states(x)
    with pytest.raises(ValueError, match="need at least one array to stack"):
        jf(x)
    assert_same(jf(np.ones((2, 3, 3))), states(np.ones((2, 3, 3))))


def into_given(x, log):
    for t in range(x.shape[1]):
        log.append(x[:, t, :].sum())
    return np.stack(log)


def prefilled(x):
    hs = [x[:, 0, :]]
    for t in range(x.shape[1]):
        hs.append(x[:, t, :] * 2.0)
    return np.stack(hs)


def aliased(x):
    hs = []
    alias = hs
    for t in range(x.shape[1]):
        hs.append(x[:, t, :] + 1.0)
    return np.stack(alias), len(alias)


def counted_by_alias(x):
    hs = []
    alias = hs
    for t in range(x.shape[1]):
        hs.append(x[:, t, :] + 1.0)
    return np.stack(hs), len(alias)


def updated_in_place(x):
    h = np.zeros((x.shape[0], 3))
    hs = []
    for t in range(x.shape[1]):
        h[:, 0] += x[:, t, 0]  # the list holds h each time: Python's rows are all the last h
        hs.append(h)
    return np.stack(hs)


@pytest.mark.parametrize("fn", [prefilled, aliased, counted_by_alias, updated_in_place])
def test_lists_python_could_tell_apart_from_a_stack_keep_python_answers(fn):
    run_lengths(fn, (3, 4, 5, 3))


def test_a_list_the_caller_holds_gets_its_items_as_in_python():
    jf = janus.jit(into_given, warmup=1)
    for T in (3, 4, 5):
        x = RNG.standard_normal((2, T, 3))
        mine, theirs = [], []
        assert_same(jf(x, mine), into_given(x, theirs))
        assert len(mine) == len(theirs) and all(np.array_equal(a, b) for a, b in zip(mine, theirs))
