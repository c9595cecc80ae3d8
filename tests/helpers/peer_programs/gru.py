"""A GRU cell kept in a dataclass, run over a sequence with its hidden state in an
attribute; gates clipped before the sigmoid, as some people do against overflow."""

from dataclasses import dataclass, field

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))


@dataclass
class GRUCell:
    n_in: int
    n_hidden: int
    seed: int = 0
    h: np.ndarray = field(init=False)

    def __post_init__(self):
        rng = np.random.default_rng(self.seed)
        shape = (self.n_in + self.n_hidden, 3 * self.n_hidden)
        self.W = rng.uniform(-0.3, 0.3, size=shape).astype(np.float32)
        self.b = np.zeros(3 * self.n_hidden, np.float32)
        self.h = np.zeros((1, self.n_hidden), np.float32)

    def reset(self, batch):
        self.h = np.zeros((batch, self.n_hidden), np.float32)

    def step(self, x):
        H = self.n_hidden
        gates = np.concatenate([x, self.h], axis=1) @ self.W + self.b
        z = sigmoid(gates[:, :H])
        r = sigmoid(gates[:, H:2 * H])
        hx = np.hstack([x, r * self.h])
        n = np.tanh(hx @ self.W[:, 2 * H:] + self.b[2 * H:])
        self.h = (1 - z) * n + z * self.h
        return self.h

    def run(self, xs):
        outputs = []
        for t in range(xs.shape[0]):
            outputs.append(self.step(xs[t]))
        return np.stack(outputs), self.h.copy()
