"""Node attributes the program writes (``node.h = ...``): per-node columns committed to the
node objects after the call. Plain Python on a deep copy of the same tree is the oracle for
the result and for every node's attributes."""

from __future__ import annotations

import copy

import numpy as np

from janus.frontend import explain, jit
from tests.helpers.trees import Node

EMB = np.random.default_rng(0).standard_normal((10, 4)).astype(np.float32)


def nodes(root):
    """Every node, depth first."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(child for child in (node.left, node.right) if child is not None)
    return found


def same_trees(a, b):
    for x, y in zip(nodes(a), nodes(b), strict=True):
        assert vars(x).keys() == vars(y).keys()
        if "h" in vars(x):
            np.testing.assert_allclose(x.h, y.h, rtol=1e-6)
            assert x.h.dtype == y.h.dtype


def compare(jf, trees, *args):
    """Each tree through ``jf`` and through Python on a copy; returns the compiled calls."""
    before = sum(v.calls for v in jf.versions.values())
    for tree in trees:
        twin = copy.deepcopy(tree)
        np.testing.assert_allclose(jf(tree, *args), jf.fn(twin, *args), rtol=1e-6)
        same_trees(tree, twin)
    return sum(v.calls for v in jf.versions.values()) - before


def store_and_read(node, emb):
    node.h = emb[node.left.word] * 2.0
    node.right.h = emb[node.right.word] + node.h  # reads the value written above
    return node.right.h.sum()


def test_writes_are_committed_to_the_nodes_written():
    jf = jit(store_and_read)
    trees = [Node(left=Node(word=i % 10), right=Node(word=(i + 3) % 10)) for i in range(7)]
    assert compare(jf, trees, EMB) >= 3, explain(jf)
    assert not hasattr(trees[-1].left, "h")  # never written: still absent


def branch_store(node, emb):
    if node.left.word > 4:  # data-dependent when the profile saw both sides
        node.h = emb[node.left.word] * 3.0
    else:
        node.h = -emb[node.right.word]
        node.left.h = emb[0] + 1.0
    return node.h.sum()


def test_writes_behind_a_speculated_branch_compile():
    jf = jit(branch_store)
    trees = [Node(left=Node(word=w), right=Node(word=9 - w)) for w in (5, 7, 6, 8, 9, 5)]  # always > 4
    assert compare(jf, trees, EMB) >= 2, explain(jf)


def test_writes_on_both_sides_of_a_data_dependent_branch_run_in_python_with_the_reason():
    jf = jit(branch_store, fallback="silent")
    trees = [Node(left=Node(word=w), right=Node(word=9 - w)) for w in (1, 7, 2, 8, 3, 9, 0, 5)]
    assert compare(jf, trees, EMB) == 0
    assert "inside a data-dependent branch" in explain(jf), explain(jf)


def store_then_update(node, emb):
    h = emb[node.left.word] * 1.0
    node.h = h
    h += 1.0  # NumPy updates node.h too (the same array): refused, runs in Python
    return h.sum()


def test_in_place_update_of_a_stored_array_runs_in_python():
    jf = jit(store_then_update, fallback="silent")
    trees = [Node(left=Node(word=i), right=Node(word=1)) for i in range(5)]
    assert compare(jf, trees, EMB) == 0
    assert "stored on a tree node" in explain(jf)


def forward(node, emb):
    if node.word is not None:
        node.h = np.tanh(emb[node.word])
    else:
        forward(node.left, emb)
        forward(node.right, emb)
        node.h = np.tanh(node.left.h + node.right.h)
    return node.h


def test_writes_inside_a_recursive_function_run_in_python_with_the_reason():
    jf = jit(forward, fallback="silent")
    trees = [Node(left=Node(word=i), right=Node(left=Node(word=2), right=Node(word=3))) for i in range(5)]
    assert compare(jf, trees, EMB) == 0
    why = explain(jf)  # the leaf side's write (a data-dependent branch) or the recursive call
    assert "node writes compile outside recursive functions only" in why or "inside a data-dependent branch" in why, why


class Labeled:
    def __init__(self, root, label):
        self.root, self.label = root, label


def label_roots(batch, emb):
    """Writes through wrappers in a list: each tree's root gets its label's embedding."""
    for tree in batch:
        tree.root.h = emb[tree.label] + emb[tree.root.left.word]
    return len(batch)


def test_writes_through_a_list_of_wrappers():
    jf = jit(label_roots)
    for i in range(6):
        batch = [Labeled(Node(left=Node(word=(i + k) % 10), right=Node(word=k)), (i * k) % 10) for k in range(3)]
        twins = copy.deepcopy(batch)
        assert jf(batch, EMB) == label_roots(twins, EMB)
        for tree, twin in zip(batch, twins):
            same_trees(tree.root, twin.root)
    assert sum(v.calls for v in jf.versions.values()) >= 3, explain(jf)


def read_then_store(node, emb):
    """Reads what an earlier call stored (``node.h``: on some nodes only), then stores again."""
    old = node.h * 0.5
    node.right.h = node.right.h + old
    node.h = emb[node.left.word] + old
    return node.h.sum()


def test_attributes_set_by_earlier_calls_on_some_nodes_only():
    jf = jit(read_then_store)
    trees = [Node(left=Node(word=i), right=Node(word=9 - i)) for i in range(4)]
    for tree in trees:
        tree.h, tree.right.h = EMB[1] * 1.0, EMB[2] * 1.0  # on two of the three nodes
    twins = copy.deepcopy(trees)
    for _ in range(5):  # the same trees again: each call reads what the last one stored
        for tree, twin in zip(trees, twins):
            np.testing.assert_allclose(jf(tree, EMB), read_then_store(twin, EMB), rtol=1e-6)
            same_trees(tree, twin)
    assert sum(v.calls for v in jf.versions.values()) >= 8, explain(jf)
    assert not hasattr(trees[0].left, "h")


def store_view(node, emb):
    node.h = emb[node.left.word]  # a view of an argument: Python stores that view
    return node.h.sum()


def store_and_return(node, emb):
    node.h = emb[node.left.word] * 2.0
    return node.h  # the node's very object in Python


def test_stores_python_would_alias_run_in_python_with_the_reason():
    for fn, reason in ((store_view, "not made fresh by this call"), (store_and_return, "very object")):
        jf = jit(fn, fallback="silent")
        trees = [Node(left=Node(word=i), right=Node(word=1)) for i in range(5)]
        assert compare(jf, trees, EMB) == 0
        assert reason in explain(jf), explain(jf)
