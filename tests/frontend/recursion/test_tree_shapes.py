"""Tree inference of the zoo's TreeRNN through ``janus.jit`` on the tree shapes issue #15
names (one node, the smallest inner node, a linear tree 800 deep, a balanced tree, a
batch of trees of different shapes), against the same method run by Python."""

from __future__ import annotations

import numpy as np
import pytest

from janus.frontend import explain, jit
from janus.models.treernn import TreeRNN
from janus.models.trees import Tree, TreeModel, make_tree

HIDDEN, VOCAB = 8, 50


@pytest.fixture(scope="module")
def model() -> TreeRNN:
    return TreeRNN(HIDDEN, VOCAB, seed=3)


def _tree(leaves: int, shape: str, seed: int) -> Tree:
    return make_tree(np.random.default_rng(seed), leaves, shape, VOCAB)


def assert_compiled_matches_python(model: TreeRNN, trees: list[Tree]) -> None:
    """``infer`` under a fresh ``janus.jit``: warm-up calls, then a compiled call whose
    probabilities match Python's."""
    jf = jit(TreeModel.infer.fn)
    want = TreeModel.infer.fn(model, trees)
    for _ in range(jf.warmup + 1):
        got = jf(model, trees)
    assert jf.versions and sum(v.calls for v in jf.versions.values()) >= 1, explain(jf)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "trees",
    [
        pytest.param(lambda: [Tree(left=Tree(word=1), right=Tree(word=2))], id="three-nodes"),
        pytest.param(lambda: [_tree(801, "linear", 0)], id="linear-800-deep"),
        pytest.param(lambda: [_tree(64, "balanced", 1)], id="balanced-64-leaves"),
        pytest.param(lambda: [_tree(5, "linear", 2), _tree(16, "balanced", 3), _tree(9, "moderate", 4)],
                     id="batch-of-three-shapes"),
    ],
)
def test_tree_inference_matches_python(model, trees):
    assert_compiled_matches_python(model, trees())


def test_a_lone_leaf_gives_pythons_answer(model):
    """A one-node tree has no attribute holding a node of its class, so it is not
    recognized as a tree and the call runs in Python (a gap of #15's first deliverable):
    the answer is still Python's."""
    jf = jit(TreeModel.infer.fn, fallback="silent")
    trees = [Tree(word=7)]
    for _ in range(jf.warmup + 1):
        np.testing.assert_allclose(jf(model, trees), TreeModel.infer.fn(model, trees), rtol=1e-6)
