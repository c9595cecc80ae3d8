"""Recursive methods that pass ``self`` down (``self.encode(tree.left)``): the arrays they
read from ``self`` are read once in the entry function and passed to the generated
recursive function as invariant parameters. Plain Python is the oracle."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from janus.frontend import explain
from tests.helpers.trees import make_tree

VOCAB, HIDDEN = 16, 8


class Model:
    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.E = rng.standard_normal((VOCAB, HIDDEN)).astype(np.float32)
        self.W = (rng.standard_normal((2 * HIDDEN, HIDDEN)) / 4).astype(np.float32)
        self.b = (0.1 * rng.standard_normal(HIDDEN)).astype(np.float32)
        self.scale = 2.0

    def encode(self, node):
        if node.word is not None:
            return self.E[node.word]
        x = np.concatenate([self.encode(node.left), self.encode(node.right)])
        return np.tanh(x @ self.W + self.b)

    @janus.jit
    def root(self, node):
        return self.encode(node) * self.scale

    def encode_writing(self, node):
        self.b = self.b + 1.0
        if node.word is not None:
            return self.E[node.word]
        return self.encode_writing(node.left) + self.encode_writing(node.right)

    @janus.jit
    def root_writing(self, node):
        return self.encode_writing(node)


@pytest.fixture(scope="module")
def model():
    m = Model()
    rng = np.random.default_rng(3)
    for _ in range(4):
        m.root(make_tree(int(rng.integers(3, 9)), rng))
    return m


def test_recursive_method_with_self_compiles_and_matches_python(model):
    jf = Model.root
    rng = np.random.default_rng(11)
    for leaves in (2, 5, 13, 21):
        tree = make_tree(leaves, rng)
        want = Model.encode(model, tree) * model.scale
        np.testing.assert_allclose(model.root(tree), want, rtol=1e-5, atol=1e-6)
    (version,) = jf.versions.values()
    assert version.calls >= 4, explain(jf)
    text = version.graph.text
    assert '"janus.invoke"' in text and "func.func private" in text
    private = text[text.index("func.func private"):]
    assert "janus.get_attr" not in private.split("func.func", 2)[1]  # reads hoisted to the entry function


def test_new_weights_are_read_on_each_call(model):
    rng = np.random.default_rng(5)
    tree = make_tree(7, rng)
    old = model.W.copy()
    try:
        model.W = (model.W * 0.5).astype(np.float32)
        np.testing.assert_allclose(model.root(tree), Model.encode(model, tree) * model.scale, rtol=1e-5, atol=1e-6)
    finally:
        model.W = old


def test_heap_write_inside_recursion_falls_back(model):
    rng = np.random.default_rng(2)
    m = Model(1)
    trees = [make_tree(4, rng) for _ in range(5)]
    expected = Model(1)
    for tree in trees:
        np.testing.assert_allclose(m.root_writing(tree), Model.encode_writing(expected, tree), rtol=1e-6)
        np.testing.assert_array_equal(m.b, expected.b)
    assert "inside a recursive function" in explain(Model.root_writing)
