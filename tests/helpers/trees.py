"""Trees for recursion tests: node objects, and the same shapes as index arrays."""

from __future__ import annotations

import numpy as np


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right


def with_tape(node, emb):
    """A recursion returning its value and a per-tree tape (None at leaves, a nested tuple above)."""
    if node.word is not None:
        return emb[node.word], None
    left, left_tape = with_tape(node.left, emb)
    right, right_tape = with_tape(node.right, emb)
    return left * right, (left, left_tape, right_tape)


def make_tree(leaves, rng, vocab=16):
    if leaves == 1:
        return Node(word=int(rng.integers(vocab)))
    split = int(rng.integers(1, leaves))
    return Node(left=make_tree(split, rng, vocab), right=make_tree(leaves - split, rng, vocab))


def make_tree_arrays(shape: str, leaves: int, rng: np.random.Generator, vocab: int = 32) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """(root, children[n, 2], is_leaf[n], word[n]) of a binary tree with ``leaves`` leaves.

    ``balanced`` halves every span, ``linear`` peels one leaf per level, ``moderate``
    splits at random. Node ids are shuffled so the recursion follows the arrays.
    """
    children: list[list[int]] = []
    words: list[int] = []

    def node(n: int) -> int:
        i = len(children)
        children.append([-1, -1])
        words.append(int(rng.integers(vocab)) if n == 1 else -1)
        if n > 1:
            left = {"balanced": n // 2, "linear": 1, "moderate": int(rng.integers(1, n))}[shape]
            children[i] = [node(left), node(n - left)]
        return i

    root = node(leaves)
    perm = rng.permutation(len(children))
    ch, word = np.asarray(children), np.asarray(words)
    new_children = np.zeros_like(ch)
    new_children[perm] = np.where(ch >= 0, perm[ch], 0)
    new_word = np.zeros_like(word)
    new_word[perm] = np.maximum(word, 0)
    is_leaf = np.zeros(len(ch), np.int64)
    is_leaf[perm] = (word >= 0).astype(np.int64)
    return int(perm[root]), new_children.astype(np.int64), is_leaf, new_word.astype(np.int64)
