"""A branch whose other side runs in Python (a ``python`` guard) is compiled only when the
profile saw that side on at most half of its runs (issue #15): a tree model's backward
walks a tape whose structure varies, so its inner-node side runs in Python on every call
with a tree of two leaves or more, and compiling it would be paid for and never used.
Plain Python is the oracle."""

from __future__ import annotations

import numpy as np

from janus.frontend import explain, jit
from janus.models.treernn import TreeRNN
from janus.models.trees import TreeModel, make_dataset
from tests.helpers.trees import make_tree, with_tape

EMB = np.random.default_rng(0).standard_normal((16, 4)).astype(np.float32)


def tape_depth(node, tape):
    """Its inner-node side unpacks a tape that is None at leaves: that side runs in Python."""
    if node.word is not None:
        return 0
    _, left_tape, right_tape = tape
    return 1 + max(tape_depth(node.left, left_tape), tape_depth(node.right, right_tape))


def value_and_depth(node, emb):
    value, tape = with_tape(node, emb)
    return value, tape_depth(node, tape)


def check(jf, tree) -> None:
    (got, got_depth), (want, want_depth) = jf(tree, EMB), jf.fn(tree, EMB)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got_depth == want_depth


def test_python_side_taken_on_every_profiled_run_is_not_compiled():
    jf = jit(value_and_depth, fallback="silent")
    rng = np.random.default_rng(1)
    for leaves in (3, 5, 2, 4, 6, 3):
        check(jf, make_tree(leaves, rng))
    assert jf.compiles == 0 and not jf.versions, explain(jf)
    assert "took the side that runs in Python on 3 of 3 profiled runs" in explain(jf), explain(jf)


def test_python_side_seen_on_a_minority_of_runs_still_compiles():
    """Lone leaves take the converted side; one tree in three takes Python's: compiled, and
    the calls with lone leaves run compiled."""
    jf = jit(value_and_depth, fallback="silent")
    rng = np.random.default_rng(2)
    for leaves in (1, 1, 3, 1, 1, 1):
        check(jf, make_tree(leaves, rng))
    assert jf.compiles == 1 and sum(v.calls for v in jf.versions.values()) >= 2, explain(jf)


def test_tree_training_with_a_tape_runs_in_python_without_compiling():
    """The zoo's training step: no compile is wasted on the backward's python guard, and
    the parameters follow Python's."""
    data, labels = make_dataset("quick")
    model, oracle = TreeRNN(8, 50), TreeRNN(8, 50)
    step = jit(TreeModel.train_step.fn, fallback="silent")
    for i in range(5):
        got = step(model, data[i : i + 1], labels[i : i + 1])
        want = TreeModel.train_step.fn(oracle, data[i : i + 1], labels[i : i + 1])
        np.testing.assert_allclose(got, want, rtol=1e-5)
    for name, value in model.parameters().items():
        np.testing.assert_allclose(value, oracle.parameters()[name], rtol=1e-5, atol=1e-6)
    assert step.compiles == 0, explain(step)
    assert "runs in Python on" in explain(step), explain(step)
