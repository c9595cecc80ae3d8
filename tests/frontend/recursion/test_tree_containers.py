"""Tree-shaped data in any container: wrapper objects (``tree.root``, ``tree.label``), lists
of them, n-ary children lists, optional children, shared subtrees, trees mutated between
calls. Plain Python running the same program is the oracle for every answer."""

from __future__ import annotations

import numpy as np

from janus.frontend import explain, jit
from janus.frontend.recursion import trees
from tests.helpers import tree_programs as tp
from tests.helpers.trees import Node

VOCAB, HIDDEN, CLASSES = 12, 6, 3
RNG = np.random.default_rng(11)
EMB = RNG.standard_normal((VOCAB, HIDDEN)).astype(np.float32)
W = (RNG.standard_normal((HIDDEN, HIDDEN)) / HIDDEN).astype(np.float32)
WC = RNG.standard_normal((HIDDEN, CLASSES)).astype(np.float32)


def tree_score(tree, emb, W, Wc):
    """The logit of the tree's label (a wrapper: ``tree.root``, ``tree.label``)."""
    logits = tp.encode(tree.root, emb, W) @ Wc
    return logits[tree.label]


def batch_scores(batch, emb, W, Wc):
    return np.stack([tp.encode(t.root, emb, W) @ Wc * t.label for t in batch])


def run_compiled(jf, calls, *args):
    """Calls ``jf`` on each of ``calls`` (tuples of leading arguments), checking every answer
    against plain Python; returns how many answers the compiled versions gave."""
    before = sum(v.calls for v in jf.versions.values())
    for leading in calls:
        got, want = jf(*leading, *args), jf.fn(*leading, *args)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert np.asarray(got).dtype == np.asarray(want).dtype
    return sum(v.calls for v in jf.versions.values()) - before


def test_wrapper_with_nary_children_compiles_once_for_every_tree_of_its_kind():
    rng = np.random.default_rng(0)
    jf = jit(tree_score)
    calls = [(tp.Tree(tp.make_nary(rng, int(rng.integers(4, 20)), 3, VOCAB), int(rng.integers(CLASSES))),) for _ in range(10)]
    compiled = run_compiled(jf, calls, EMB, W, WC)
    assert jf.compiles == 1 and compiled >= 6, explain(jf)
    assert '"janus.invoke"' in next(iter(jf.versions.values())).graph.text


def test_list_of_wrappers():
    rng = np.random.default_rng(1)
    jf = jit(batch_scores)
    calls = [([tp.Tree(tp.make_nary(rng, int(rng.integers(3, 12)), 2, VOCAB), int(rng.integers(1, 4))) for _ in range(3)],)
             for _ in range(8)]
    assert run_compiled(jf, calls, EMB, W, WC) >= 4 and jf.compiles == 1, explain(jf)


def test_label_changing_type_gets_its_own_version():
    rng = np.random.default_rng(2)
    jf = jit(batch_scores)
    make = lambda label: ([tp.Tree(tp.make_nary(rng, 7, 2, VOCAB), label)],)  # noqa: E731
    assert run_compiled(jf, [make(i % 3 + 1) for i in range(6)], EMB, W, WC) >= 2
    assert run_compiled(jf, [make(0.5 + i) for i in range(6)], EMB, W, WC) >= 2, explain(jf)
    assert len(jf.versions) == 2


def test_leftmost_word_by_len_and_indexing():
    rng = np.random.default_rng(3)
    jf = jit(tp.leftmost_word)
    calls = [(tp.make_nary(rng, int(rng.integers(2, 30)), int(rng.integers(2, 4)), VOCAB),) for _ in range(10)]
    for (tree,) in calls:
        assert jf(tree) == tp.leftmost_word(tree) and type(jf(tree)) is int
    assert jf.versions, explain(jf)


def test_one_and_two_node_trees():
    jf = jit(tree_score)
    one = [(tp.Tree(tp.Leafy(w), w % CLASSES),) for w in range(5)]  # a node class known by its annotations
    assert trees.is_tree(one[0][0].root)
    assert run_compiled(jf, one, EMB, W, WC) >= 2, explain(jf)
    two = [(tp.Tree(tp.Leafy(0, [tp.Leafy(w)]), 1),) for w in range(5)]  # one inner node, one leaf
    assert run_compiled(jf, two, EMB, W, WC) >= 2, explain(jf)


def binary_encode(node, emb, W):
    """Optional children: a missing one (None) contributes nothing."""
    if node.word is not None:
        return np.tanh(emb[node.word])
    h = np.zeros(emb.shape[1], emb.dtype)
    if node.left is not None:
        h = h + binary_encode(node.left, emb, W)
    if node.right is not None:
        h = h + binary_encode(node.right, emb, W)
    return np.tanh(h @ W)


def chain(depth, rng):
    """A linear tree ``depth`` inner nodes deep, each with one leaf and one inner child."""
    node = Node(word=int(rng.integers(VOCAB)))
    for _ in range(depth):
        node = Node(left=Node(word=int(rng.integers(VOCAB))), right=node) if rng.integers(2) else Node(left=node)
    return node


def test_optional_children_and_a_tree_800_deep():
    rng = np.random.default_rng(4)
    jf = jit(binary_encode)
    assert run_compiled(jf, [(chain(int(rng.integers(1, 40)), rng),) for _ in range(6)], EMB, W) >= 3, explain(jf)
    assert run_compiled(jf, [(chain(800, rng),)], EMB, W) == 1, explain(jf)  # within Python's recursion limit


def test_shared_subtree_and_a_tree_mutated_between_calls():
    rng = np.random.default_rng(5)
    jf = jit(binary_encode)
    calls = [(chain(int(rng.integers(2, 10)), rng),) for _ in range(4)]
    assert run_compiled(jf, calls, EMB, W) >= 1
    shared = chain(5, rng)
    dag = Node(left=shared, right=Node(left=shared, right=Node(word=3)))  # one subtree reached twice
    tree = calls[0][0]
    before = jf(tree, EMB, W)
    tree.left, tree.right = Node(word=1), Node(left=Node(word=2), right=Node(word=5))  # mutated in place
    after = run_compiled(jf, [(dag,), (tree,)], EMB, W)
    assert after == 2, explain(jf)
    assert not np.allclose(before, jf(tree, EMB, W))


def test_wrapper_holding_a_non_tree_is_not_linearized():
    class Holder:
        def __init__(self):
            self.weights = np.zeros(3)
    assert not trees.is_tree(Holder())
    assert trees.is_tree(tp.Tree(tp.Leafy(1), 0)) and trees.is_tree(tp.Leafy(1))


def test_iterating_children_of_different_lengths_compiles():
    mixed = tp.Leafy(0, [tp.Leafy(1), tp.Leafy(0, [tp.Leafy(2), tp.Leafy(3), tp.Leafy(4)])])
    assert run_compiled(jit(tp.encode), [(mixed,)] * 4, EMB, W) == 1
