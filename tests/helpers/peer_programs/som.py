"""A self-organizing map (Kohonen) as tutorials write it: a grid of weight vectors kept as an
``(rows * cols, dim)`` array with the grid coordinates beside it, the best matching unit by
``np.argmin(np.linalg.norm(W - x, axis=1))``, a Gaussian neighbourhood around it, learning rate
and radius decayed with ``np.exp(-t / tau)`` from a step counter on the object, and the
quantization error of a data set."""

import numpy as np


class SOM:
    def __init__(self, rows, cols, dim, lr=0.5, sigma=None, tau=50.0, seed=0):
        rng = np.random.default_rng(seed)
        self.rows, self.cols = rows, cols
        self.W = rng.random((rows * cols, dim))
        self.grid = np.array([[i, j] for i in range(rows) for j in range(cols)], dtype=float)
        self.lr0 = lr
        self.sigma0 = sigma if sigma is not None else max(rows, cols) / 2
        self.tau = tau
        self.t = 0

    def best_matching_unit(self, x):
        return np.argmin(np.linalg.norm(self.W - x, axis=1))

    def update(self, x):
        """One online step on sample ``x``; returns the winning unit's grid position."""
        bmu = self.best_matching_unit(x)
        lr = self.lr0 * np.exp(-self.t / self.tau)
        sigma = self.sigma0 * np.exp(-self.t / self.tau)
        d2 = np.sum((self.grid - self.grid[bmu]) ** 2, axis=1)
        h = np.exp(-d2 / (2 * sigma ** 2))
        self.W += lr * h[:, np.newaxis] * (x - self.W)
        self.t += 1
        return np.unravel_index(bmu, (self.rows, self.cols))

    def train_epoch(self, data):
        for x in data:
            self.update(x)
        return self.quantization_error(data)

    def quantization_error(self, data):
        dists = np.linalg.norm(data[:, None, :] - self.W[None, :, :], axis=2)
        return dists.min(axis=1).mean()
