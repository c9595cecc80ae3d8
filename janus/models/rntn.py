"""RNTN (recursive neural tensor network): a node adds a bilinear term x^T V[k] x per unit."""

from __future__ import annotations

import numpy as np

from janus.models.nn import F32, init
from janus.models.trees import TreeModel, tree_specs


class RNTN(TreeModel):
    def init_node(self, rng: np.random.Generator, hidden: int) -> None:
        self.W = init(rng, 2 * hidden, hidden)
        self.b = np.zeros(hidden, F32)
        self.V = init(rng, hidden, 2 * hidden, 2 * hidden, fan_in=4 * hidden * hidden)

    def combine(self, left: tuple, right: tuple) -> tuple:
        x = np.concatenate([left[0], right[0]])
        h = np.tanh((self.V @ x) @ x + x @ self.W + self.b)
        return (h,), (x, h)

    def combine_backward(self, cache: tuple, dstate: tuple, grads: dict) -> tuple:
        x, h = cache
        dz = dstate[0] * (1.0 - h * h)
        grads["W"] += np.outer(x, dz)
        grads["b"] += dz
        grads["V"] += dz[:, None, None] * np.outer(x, x)
        S = np.tensordot(dz, self.V, axes=1)  # sum_k dz_k V_k
        dx = self.W @ dz + (S + S.T) @ x
        half = len(dx) // 2
        return (dx[:half],), (dx[half:],)

    def parameters(self) -> dict[str, np.ndarray]:
        return {**super().parameters(), "W": self.W, "b": self.b, "V": self.V}


# per inner node: V @ x (2 d (2d)^2), then @ x, plus the W term
SPECS = tree_specs("rntn", RNTN, "RNTN over binary parse trees",
                   lambda d: 2 * d * (2 * d) ** 2 + 2 * d * 2 * d + 2 * (2 * d) * d, bound="compute")
