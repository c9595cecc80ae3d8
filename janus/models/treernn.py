"""TreeRNN: a node's vector is tanh(W [h_left; h_right] + b)."""

from __future__ import annotations

import numpy as np

from janus.models.nn import F32, init
from janus.models.trees import TreeModel, tree_specs


class TreeRNN(TreeModel):
    def init_node(self, rng: np.random.Generator, hidden: int) -> None:
        self.W = init(rng, 2 * hidden, hidden)
        self.b = np.zeros(hidden, F32)

    def combine(self, left: tuple, right: tuple) -> tuple:
        x = np.concatenate([left[0], right[0]])
        h = np.tanh(self.pre_activation(x))
        return (h,), (x, h)

    def pre_activation(self, x: np.ndarray) -> np.ndarray:
        return x @ self.W + self.b

    def combine_backward(self, cache: tuple, dstate: tuple, grads: dict) -> tuple:
        x, h = cache
        dx = self.pre_activation_backward(x, dstate[0] * (1.0 - h * h), grads)
        half = len(dx) // 2
        return (dx[:half],), (dx[half:],)

    def pre_activation_backward(self, x: np.ndarray, dz: np.ndarray, grads: dict) -> np.ndarray:
        """The gradient w.r.t. ``x``; the parameters' gradients are added to ``grads``."""
        grads["W"] += np.outer(x, dz)
        grads["b"] += dz
        return self.W @ dz

    def parameters(self) -> dict[str, np.ndarray]:
        return {**super().parameters(), "W": self.W, "b": self.b}


SPECS = tree_specs("treernn", TreeRNN, "TreeRNN over binary parse trees", lambda d: 2 * (2 * d) * d)
