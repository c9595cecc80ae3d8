"""RNTN (recursive neural tensor network): a TreeRNN whose node adds a bilinear term
x^T V[k] x per unit."""

from __future__ import annotations

import numpy as np

from janus.models.nn import init
from janus.models.trees import tree_specs
from janus.models.treernn import TreeRNN


class RNTN(TreeRNN):
    def init_node(self, rng: np.random.Generator, hidden: int) -> None:
        super().init_node(rng, hidden)
        self.V = init(rng, hidden, 2 * hidden, 2 * hidden, fan_in=4 * hidden * hidden)

    def pre_activation(self, x: np.ndarray) -> np.ndarray:
        return (self.V @ x) @ x + super().pre_activation(x)

    def pre_activation_backward(self, x: np.ndarray, dz: np.ndarray, grads: dict) -> np.ndarray:
        grads["V"] += dz[:, None, None] * np.outer(x, x)
        S = np.tensordot(dz, self.V, axes=1)  # sum_k dz_k V_k
        return super().pre_activation_backward(x, dz, grads) + (S + S.T) @ x

    def parameters(self) -> dict[str, np.ndarray]:
        return {**super().parameters(), "V": self.V}


# per inner node: V @ x (2 d (2d)^2), then @ x, plus the W term
SPECS = tree_specs("rntn", RNTN, "RNTN over binary parse trees",
                   lambda d: 2 * d * (2 * d) ** 2 + 2 * d * 2 * d + 2 * (2 * d) * d, bound="compute")
