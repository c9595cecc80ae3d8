"""A tree model written apart from the zoo's, for the wavefront (level-batched) recursion tests:
nodes with optional ``left``/``right``, a sentence object holding the root, parameters in an
object, and the combination in a helper function of this module."""

from __future__ import annotations

import numpy as np


class Node:
    def __init__(self, word: int = 0, left: "Node | None" = None, right: "Node | None" = None) -> None:
        self.word, self.left, self.right = word, left, right


class Sentence:
    def __init__(self, root: Node) -> None:
        self.root = root


class Params:
    def __init__(self, hidden: int, vocab: int, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.E = rng.standard_normal((vocab, hidden)).astype(np.float32)
        self.W1 = (rng.standard_normal((hidden, hidden)) / hidden).astype(np.float32)
        self.W2 = (rng.standard_normal((hidden, hidden)) / hidden).astype(np.float32)
        self.b = rng.standard_normal(hidden).astype(np.float32)


def compose(p: Params, h: np.ndarray) -> np.ndarray:
    return np.tanh(h + p.b)


def encode(node: Node, p: Params) -> np.ndarray:
    """A leaf is its word's row; an inner node mixes one or two children (``right`` optional)."""
    if node.left is None:
        return p.E[node.word]
    h = p.W1 @ encode(node.left, p)
    if node.right is not None:
        h = h + p.W2 @ encode(node.right, p)
    return compose(p, h)


def sentence_vector(sentence: Sentence, p: Params) -> np.ndarray:
    return encode(sentence.root, p)


def chain(depth: int, rng: np.random.Generator, vocab: int) -> Node:
    """A linear tree ``depth`` inner nodes deep (every right child a leaf), built without recursion."""
    node = Node(word=int(rng.integers(vocab)))
    for _ in range(depth):
        node = Node(left=node, right=Node(word=int(rng.integers(vocab))))
    return node


def balanced(leaves: int, rng: np.random.Generator, vocab: int) -> Node:
    if leaves == 1:
        return Node(word=int(rng.integers(vocab)))
    return Node(left=balanced(leaves // 2, rng, vocab), right=balanced(leaves - leaves // 2, rng, vocab))


def forest_vectors(sentences: list[Sentence], p: Params) -> np.ndarray:
    """Each sentence's vector, one per row: a loop over a list of wrappers."""
    return np.stack([encode(s.root, p) for s in sentences])


def forest_roots(roots: list[Node], p: Params) -> np.ndarray:
    """Each tree's vector, one per row: a loop over a list of nodes."""
    return np.stack([encode(root, p) for root in roots])



def mark_roots(roots: list[Node], p: Params) -> float:
    """Stores a vector on each root (no recursion): node writes on a forest."""
    total = 0.0
    for root in roots:
        root.h = p.E[root.word] * 2.0
        total += float(root.h.sum())
    return total
