"""An MLP built from a list of layers, weights and biases in parallel lists walked with
``zip``, in-place ReLU by a mask, inverted dropout from a Generator kept on the model."""

import numpy as np


class Dense:
    def __init__(self, n_in, n_out, rng):
        self.W = rng.standard_normal((n_in, n_out)).astype(np.float32) / np.float32(np.sqrt(n_in))
        self.b = np.zeros(n_out, np.float32)


class MLP:
    def __init__(self, sizes, dropout=0.2, seed=0):
        self.rng = np.random.default_rng(seed)
        self.layers = [Dense(a, b, self.rng) for a, b in zip(sizes[:-1], sizes[1:])]
        self.weights = [layer.W for layer in self.layers]
        self.biases = [layer.b for layer in self.layers]
        self.p = dropout
        self.training = True

    def forward(self, x):
        for i, (W, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ W + b
            if i < len(self.weights) - 1:
                x[x < 0] = 0
                if self.training:
                    keep = self.rng.random(x.shape) >= self.p
                    x = x * keep / (1 - self.p)
        return x
