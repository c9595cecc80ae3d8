"""Recursive functions returning tuples (nested) of arrays and Python scalars: several
results of one generated function. A position that is ``None`` at some calls and a tuple
at others (a tape) is no result: unused it is dropped, used it falls back. Plain Python
is the oracle."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from janus.frontend import explain
from janus.models.treernn import TreeRNN
from janus.models.trees import TreeModel, make_dataset
from tests.helpers.trees import make_tree, with_tape

HIDDEN = 4


def stats(node, emb):
    """(sum of leaf vectors, (leaf count, inner nodes)), a nested tuple of an array and ints."""
    if node.word is not None:
        return emb[node.word], (1, 0)
    ls, (ln, ld) = stats(node.left, emb)
    rs, (rn, rd) = stats(node.right, emb)
    return ls + rs, (ln + rn, ld + rd + 1)


@janus.jit
def summary(node, emb):
    total, (count, depth) = stats(node, emb)
    return total / count, depth


@janus.jit
def tape_unused(node, emb):
    return with_tape(node, emb)[0] * 2.0


@janus.jit
def tape_held_while_mutating(node, emb):
    """The dropped tape sits in a local while a local array is updated in place (whose
    alias check walks every local)."""
    value, tape = with_tape(node, emb)
    out = value * 2.0
    out[1:] += value[1:]
    return out


def tape_depth(tape):
    return 0 if tape is None else 1 + max(tape_depth(tape[1]), tape_depth(tape[2]))


@janus.jit
def tape_used(node, emb):
    value, tape = with_tape(node, emb)
    return value, tape_depth(tape)


EMB = np.random.default_rng(0).standard_normal((16, HIDDEN)).astype(np.float32)


def trees(seed, sizes):
    rng = np.random.default_rng(seed)
    return [make_tree(n, rng) for n in sizes]


def generated(jf) -> str:
    (version,) = jf.versions.values()
    return version.graph.text


def test_nested_tuple_result_compiles_and_matches_python():
    for tree in trees(1, (3, 5, 2, 9, 4, 13, 6)):
        got_mean, got_depth = summary(tree, EMB)
        want_mean, want_depth = summary.fn(tree, EMB)
        np.testing.assert_allclose(got_mean, want_mean, rtol=1e-5, atol=1e-6)
        assert got_depth == want_depth and type(got_depth) is int
    text = generated(summary)
    assert '"janus.invoke"' in text and "-> (tensor<4xf32>, i64, i64)" in text, text


def test_unused_varying_result_is_dropped():
    for tree in trees(2, (3, 5, 2, 9, 4, 13)):
        np.testing.assert_allclose(tape_unused(tree, EMB), tape_unused.fn(tree, EMB), rtol=1e-5, atol=1e-6)
    text = generated(tape_unused)
    assert '"janus.invoke"' in text and "-> (tensor<4xf32>)" in text, text


def test_unused_varying_result_held_in_a_local_is_dropped():
    for tree in trees(4, (3, 5, 2, 9, 4, 13)):
        np.testing.assert_allclose(tape_held_while_mutating(tree, EMB), tape_held_while_mutating.fn(tree, EMB),
                                   rtol=1e-5, atol=1e-6)
    assert '"janus.invoke"' in generated(tape_held_while_mutating)


def test_used_varying_result_falls_back_with_the_reason():
    for tree in trees(3, (3, 5, 2, 9, 4, 13)):
        (got, got_depth), (want, want_depth) = tape_used(tree, EMB), tape_used.fn(tree, EMB)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert got_depth == want_depth
    assert not tape_used.versions
    assert "structure varies between calls" in explain(tape_used)


def test_tree_rnn_inference_through_self_compiles():
    data, _ = make_dataset("quick")
    model, oracle = TreeRNN(8, 50), TreeRNN(8, 50)
    for i in range(8):
        np.testing.assert_allclose(model.infer(data[i : i + 1]), TreeModel.infer.fn(oracle, data[i : i + 1]),
                                   rtol=1e-5, atol=1e-6)
    (version,) = TreeModel.infer.versions.values()
    assert version.calls >= 4, explain(TreeModel.infer)
    assert '"janus.invoke"' in version.graph.text
