"""A batched LSTM layer written as a class the way tutorials write it: the batch and time sizes
unpacked from ``x.shape``, a Python loop over ``range(T)``, the four gates cut with ``np.split``,
the per-step hidden states stacked at the end, the cache kept on the object for a backward pass."""

import numpy as np


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


class LSTMLayer:
    def __init__(self, n_in, units, seed=0):
        rng = np.random.default_rng(seed)
        scale = 1 / np.sqrt(n_in + units)
        self.W = rng.standard_normal((n_in, 4 * units)) * scale
        self.U = rng.standard_normal((units, 4 * units)) * scale
        self.b = np.zeros(4 * units)
        self.b[units:2 * units] = 1.0  # forget bias
        self.units = units

    def forward(self, x, return_sequences=False):
        B, T, _ = x.shape
        H = np.zeros((B, self.units))
        C = np.zeros((B, self.units))
        outputs = []
        for t in range(T):
            z = x[:, t, :] @ self.W + H @ self.U + self.b
            i, f, g, o = np.split(z, 4, axis=1)
            C = sigmoid(f) * C + sigmoid(i) * np.tanh(g)
            H = sigmoid(o) * np.tanh(C)
            outputs.append(H)
        self.last_state = (H, C)
        if return_sequences:
            return np.stack(outputs, axis=1)
        return H

    def mean_pool(self, x):
        """Average of the hidden states over time: the step count read as ``x.shape[1]``."""
        n = x.shape[1]
        seq = self.forward(x, return_sequences=True)
        return seq.sum(axis=1) / n
