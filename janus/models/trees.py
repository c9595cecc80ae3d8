"""Recursive models over binary parse trees: the trees, the shared root classifier, and the
inference and training loops that recurse over ``Tree`` objects.

A model subclass says how a node combines its children's states (a tuple of vectors whose
first item is the hidden vector ``h``) and how gradients flow back through that; leaves
look their word up in the embedding ``E``. Gradients are written out by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import janus
from janus.models.nn import F32, cross_entropy, init, softmax
from janus.models.workload import ModelSpec, Size, Workload

SHAPES = ("balanced", "moderate", "linear")
SIZES = {  # hidden, vocab, (min, max) leaves, trees in the data set, steps
    "full": (128, 5000, (16, 48), 100, 8),
    "quick": (8, 50, (4, 8), 50, 6),
}
CLASSES = 2


@dataclass
class Tree:
    """A leaf (``word`` set) or an inner node with two children."""

    word: int | None = None
    left: "Tree | None" = None
    right: "Tree | None" = None

    def leaves(self) -> int:
        return 1 if self.word is not None else self.left.leaves() + self.right.leaves()


def make_tree(rng: np.random.Generator, leaves: int, shape: str, vocab: int) -> Tree:
    """A tree over ``leaves`` words: halves (balanced), a random split (moderate) or a
    chain (linear: every left child is a leaf)."""
    if leaves == 1:
        return Tree(word=int(rng.integers(vocab)))
    split = {"balanced": leaves // 2, "moderate": int(rng.integers(1, leaves)), "linear": 1}[shape]
    return Tree(left=make_tree(rng, split, shape, vocab), right=make_tree(rng, leaves - split, shape, vocab))


def make_dataset(size: Size, seed: int = 1) -> tuple[list[Tree], np.ndarray]:
    """Trees cycling through the three shapes, with random labels, from a fixed seed."""
    _, vocab, (low, high), count, _ = SIZES[size]
    rng = np.random.default_rng(seed)
    trees = [make_tree(rng, int(rng.integers(low, high + 1)), SHAPES[i % 3], vocab) for i in range(count)]
    return trees, rng.integers(0, CLASSES, count)


class TreeModel:
    """Embedding, root classifier, and the recursion; subclasses define ``combine``."""

    def __init__(self, hidden: int, vocab: int, seed: int = 0, lr: float = 0.1) -> None:
        rng = np.random.default_rng(seed)
        self.E = init(rng, vocab, hidden)
        self.Wc = init(rng, hidden, CLASSES)
        self.bc = np.zeros(CLASSES, F32)
        self.lr = lr
        self.init_node(rng, hidden)

    # subclasses: the node's parameters, its function and backward, and ``parameters``
    def init_node(self, rng: np.random.Generator, hidden: int) -> None:
        raise NotImplementedError

    def combine(self, left: tuple, right: tuple) -> tuple[tuple, Any]:
        raise NotImplementedError

    def combine_backward(self, cache: Any, dstate: tuple, grads: dict) -> tuple[tuple, tuple]:
        raise NotImplementedError

    def leaf(self, word: int) -> tuple:
        return (self.E[word],)

    def encode(self, tree: Tree) -> tuple[tuple, Any]:
        """The state of ``tree`` and the tape its backward pass needs."""
        if tree.word is not None:
            return self.leaf(tree.word), None
        left, left_tape = self.encode(tree.left)
        right, right_tape = self.encode(tree.right)
        state, cache = self.combine(left, right)
        return state, (cache, left_tape, right_tape)

    def backward(self, tree: Tree, tape: Any, dstate: tuple, grads: dict) -> None:
        if tree.word is not None:
            grads["E"][tree.word] += dstate[0]
            return
        cache, left_tape, right_tape = tape
        dleft, dright = self.combine_backward(cache, dstate, grads)
        self.backward(tree.left, left_tape, dleft, grads)
        self.backward(tree.right, right_tape, dright, grads)

    @janus.jit
    def infer(self, trees: list[Tree]) -> np.ndarray:
        """Class probabilities of each tree's root."""
        roots = [self.encode(tree)[0][0] for tree in trees]
        return softmax(np.stack(roots) @ self.Wc + self.bc)

    @janus.jit
    def train_step(self, trees: list[Tree], labels: np.ndarray) -> float:
        """One SGD step on a batch of trees; returns the mean loss."""
        grads = {name: np.zeros_like(value) for name, value in self.parameters().items()}
        loss = 0.0
        for tree, label in zip(trees, labels):
            state, tape = self.encode(tree)
            h = state[0]
            tree_loss, dlogits = cross_entropy(softmax((h @ self.Wc + self.bc)[None]), np.array([label]))
            loss += tree_loss
            grads["Wc"] += np.outer(h, dlogits[0])
            grads["bc"] += dlogits[0]
            dstate = (dlogits[0] @ self.Wc.T,) + tuple(np.zeros_like(s) for s in state[1:])
            self.backward(tree, tape, dstate, grads)
        for name, value in self.parameters().items():
            value -= self.lr / len(trees) * grads[name]
        return loss / len(trees)

    def parameters(self) -> dict[str, np.ndarray]:
        return {"E": self.E, "Wc": self.Wc, "bc": self.bc}


def tree_specs(name: str, model: type[TreeModel], description: str, node_flops: Callable[[int], float],
               bound: str = "overhead") -> list[ModelSpec]:
    """Inference and training, batches of 1 and 25 trees, for one tree model.

    ``node_flops(hidden)`` is the forward cost of one inner node; training counts 3x.
    """

    def spec(mode: str, batch: int) -> ModelSpec:
        def build(size: Size) -> Workload:
            hidden, vocab, _, count, steps = SIZES[size]
            m = model(hidden, vocab)
            trees, labels = make_dataset(size)

            def batch_of(i: int) -> slice:
                start = (i * batch) % count
                return slice(start, start + batch)

            if mode == "infer":
                def step(i: int) -> Any:
                    return m.infer(trees[batch_of(i)])
            else:
                def step(i: int) -> Any:
                    return m.train_step(trees[batch_of(i)], labels[batch_of(i)])
            inner = sum(t.leaves() - 1 for t in trees) / count  # mean inner nodes per tree
            flops = batch * inner * node_flops(hidden) * (1 if mode == "infer" else 3)
            return Workload(step, m.parameters, steps, 4, "trees", batch, flops)

        return ModelSpec(f"{name}-{mode}-b{batch}", f"{description}: {mode}, {batch} tree(s) per step", bound,
                         build, (__name__, model.__module__))

    return [spec(mode, batch) for mode in ("infer", "train") for batch in (1, 25)]
