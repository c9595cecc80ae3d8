"""A dict of local arrays passed down a recursion and updated in place there (the
``grads`` of a hand-written backward pass): threaded through ``janus.invoke`` and
committed to the caller's arrays. Plain Python running the same function is the oracle."""

from __future__ import annotations

import numpy as np

from janus.frontend import explain, jit
from tests.helpers import assert_same, in_python
from tests.helpers import tree_programs as tp
from tests.helpers.trees import Node

VOCAB, HIDDEN = 12, 6
RNG = np.random.default_rng(7)
EMB = RNG.standard_normal((VOCAB, HIDDEN)).astype(np.float32)
W = (RNG.standard_normal((HIDDEN, 2 * HIDDEN)) / HIDDEN).astype(np.float32)
D = RNG.standard_normal(HIDDEN).astype(np.float32)


def backward(node, d, W, grads):
    if node.word is not None:
        grads["E"][node.word] += d
        return
    grads["W"] += np.outer(d, np.concatenate([d, d]))
    down = np.tanh(d @ W)
    backward(node.left, down[:HIDDEN], W, grads)
    backward(node.right, down[HIDDEN:], W, grads)


def gradients(tree, d, E, W):
    grads = {"E": np.zeros_like(E), "W": np.zeros_like(W)}
    backward(tree, d, W, grads)
    return grads


def chain(depth, rng):
    node = Node(word=int(rng.integers(VOCAB)))
    for _ in range(depth):
        leaf = Node(word=int(rng.integers(VOCAB)))
        node = Node(left=leaf, right=node) if rng.integers(2) else Node(left=node, right=leaf)
    return node


def balanced(leaves, rng):
    if leaves == 1:
        return Node(word=int(rng.integers(VOCAB)))
    return Node(left=balanced(leaves // 2, rng), right=balanced(leaves - leaves // 2, rng))


def run_compiled(jf, trees, *args):
    """Every answer checked against plain Python; how many the compiled versions gave."""
    before = sum(v.calls for v in jf.versions.values())
    for tree in trees:
        assert_same(jf(tree, *args), jf.fn(tree, *args))
    return sum(v.calls for v in jf.versions.values()) - before


def test_accumulating_backward_compiles_for_every_tree_and_800_deep():
    rng = np.random.default_rng(1)
    jf = jit(gradients)
    trees = [balanced(int(rng.integers(2, 12)), rng) for _ in range(4)] + [chain(int(rng.integers(1, 30)), rng) for _ in range(3)]
    assert run_compiled(jf, trees, D, EMB, W) >= 4, explain(jf)
    assert run_compiled(jf, [Node(left=Node(word=1), right=Node(word=1)), chain(800, rng)], D, EMB, W) == 2, \
        explain(jf)  # a word twice; 800 deep, within Python's recursion limit
    assert len(jf.versions) == 1
    assert run_compiled(jf, [Node(word=w) for w in (3, 4, 3, 5, 6)], D, EMB, W) >= 1  # one node: a kind of its own


def test_nary_children_and_a_helper_module():
    rng = np.random.default_rng(2)

    def step(tree, d, emb, W):
        grads = {"emb": np.zeros_like(emb), "W": np.zeros_like(W)}
        tp.accumulate(tree.root, d, W, grads)
        return grads

    jf = jit(step)
    trees = [tp.Tree(tp.make_nary(rng, int(rng.integers(4, 20)), 3, VOCAB), 0) for _ in range(7)]
    assert run_compiled(jf, trees, D, EMB, W[:, :HIDDEN]) >= 4, explain(jf)


def rebinding(node, d, grads):
    if node.word is not None:
        grads["E"] = grads["E"] + d  # a new array: the caller's dict sees it, its old alias does not
        return
    rebinding(node.left, d, grads)
    rebinding(node.right, d * 0.5, grads)


def rebinding_step(tree, d, E):
    grads = {"E": np.zeros_like(E[0])}
    old = grads["E"]
    rebinding(tree, d, grads)
    return grads["E"], old


def passed_twice(node, d, grads, again):
    if node.word is not None:
        grads["E"] += d
        return
    passed_twice(node.left, d, grads, again)
    passed_twice(node.right, d, grads, again)


def passed_twice_step(tree, d, E):
    grads = {"E": np.zeros_like(E[0])}
    passed_twice(tree, d, grads, grads["E"])
    return grads["E"]


def test_rebinding_an_item_or_passing_an_array_twice_runs_in_python_with_the_reason():
    rng = np.random.default_rng(3)
    trees = [balanced(int(rng.integers(3, 9)), rng) for _ in range(5)]
    for fn, reason in ((rebinding_step, "rebinds item 'E'"), (passed_twice_step, "passed twice")):
        jf = jit(fn, fallback="silent")
        run_compiled(jf, trees + trees, D, EMB)  # (the rebinding side runs in Python: a python guard, then the call)
        assert in_python(jf) and reason in explain(jf), explain(jf)
