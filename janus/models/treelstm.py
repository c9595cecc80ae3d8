"""Binary TreeLSTM (Tai et al. 2015): input, two forget, output gates and a candidate per node."""

from __future__ import annotations

import numpy as np

from janus.models.nn import F32, init, sigmoid
from janus.models.trees import TreeModel, tree_specs


class TreeLSTM(TreeModel):
    def init_node(self, rng: np.random.Generator, hidden: int) -> None:
        self.W = init(rng, 2 * hidden, 5 * hidden)
        self.b = np.zeros(5 * hidden, F32)

    def leaf(self, word: int) -> tuple:
        h = self.E[word]
        return (h, np.zeros_like(h))

    def combine(self, left: tuple, right: tuple) -> tuple:
        d = len(left[0])
        x = np.concatenate([left[0], right[0]])
        z = x @ self.W + self.b
        i, fl, fr, o = (sigmoid(z[k * d : (k + 1) * d]) for k in range(4))
        u = np.tanh(z[4 * d :])
        c = i * u + fl * left[1] + fr * right[1]
        tc = np.tanh(c)
        return (o * tc, c), (x, i, fl, fr, o, u, left[1], right[1], tc)

    def combine_backward(self, cache: tuple, dstate: tuple, grads: dict) -> tuple:
        x, i, fl, fr, o, u, cl, cr, tc = cache
        dh, dc = dstate
        dc = dc + dh * o * (1.0 - tc * tc)
        dz = np.concatenate([dc * u * i * (1.0 - i), dc * cl * fl * (1.0 - fl), dc * cr * fr * (1.0 - fr),
                             dh * tc * o * (1.0 - o), dc * i * (1.0 - u * u)])
        grads["W"] += np.outer(x, dz)
        grads["b"] += dz
        dx = self.W @ dz
        d = len(dh)
        return (dx[:d], dc * fl), (dx[d:], dc * fr)

    def parameters(self) -> dict[str, np.ndarray]:
        return {**super().parameters(), "W": self.W, "b": self.b}


SPECS = tree_specs("treelstm", TreeLSTM, "binary TreeLSTM over parse trees", lambda d: 2 * (2 * d) * (5 * d))
