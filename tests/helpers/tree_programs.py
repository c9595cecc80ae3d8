"""A small TreeRNN written apart from the zoo: n-ary nodes whose children are in a list,
trees wrapped in a ``Tree`` object with a label, helpers in this module (not the test's)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Leafy:
    """An n-ary node: a word at leaves, children in a list (empty at leaves)."""

    word: int = 0
    children: list[Leafy] = field(default_factory=list)


@dataclass
class Tree:
    """A parse tree as data sets hand it out: a root node and a label."""

    root: Leafy
    label: int | float


def encode(node: Leafy, emb: np.ndarray, W: np.ndarray) -> np.ndarray:
    if not node.children:
        return np.tanh(emb[node.word])
    total = np.zeros_like(emb[0])
    for child in node.children:
        total = total + encode(child, emb, W)
    return np.tanh(total @ W)


def leftmost_word(node: Leafy) -> int:
    """The word of the leftmost leaf, through ``len`` and indexing (``children[0]``)."""
    if len(node.children) == 0:
        return node.word
    return leftmost_word(node.children[0])


def make_nary(rng: np.random.Generator, leaves: int, arity: int, vocab: int) -> Leafy:
    """A tree of ``leaves`` leaves where every inner node has ``arity`` children."""
    if leaves <= 1:
        return Leafy(int(rng.integers(vocab)))
    parts = np.array_split(np.arange(leaves), arity)
    return Leafy(0, [make_nary(rng, max(len(p), 1), arity, vocab) for p in parts])


def accumulate(node: Leafy, d: np.ndarray, W: np.ndarray, grads: dict[str, np.ndarray]) -> None:
    """A hand-written backward pass over ``node``: gradients added into ``grads`` in place."""
    if not node.children:
        grads["emb"][node.word] += d
        return
    grads["W"] += np.outer(d, d)
    down = np.tanh(d @ W)
    for child in node.children:
        accumulate(child, down, W, grads)
