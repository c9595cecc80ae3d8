"""A Bernoulli restricted Boltzmann machine trained by contrastive divergence (CD-k) as
deep-learning tutorials write it: hidden and visible units sampled by comparing
probabilities with ``self.rng.random(p.shape)`` and ``.astype(float)``, a Gibbs chain of ``k``
steps in a ``for`` loop, weight updates from positive and negative associations divided by the
batch size, momentum on the weight increments, a reconstruction error and the free energy
with ``np.logaddexp``."""

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class RBM:
    def __init__(self, n_visible, n_hidden, k=1, lr=0.1, momentum=0.5, seed=0):
        self.rng = np.random.default_rng(seed)
        self.W = 0.01 * self.rng.standard_normal((n_visible, n_hidden))
        self.b = np.zeros(n_visible)
        self.c = np.zeros(n_hidden)
        self.dW = np.zeros_like(self.W)
        self.k, self.lr, self.momentum = k, lr, momentum

    def sample_h(self, v):
        p = sigmoid(v @ self.W + self.c)
        return p, (self.rng.random(p.shape) < p).astype(float)

    def sample_v(self, h):
        p = sigmoid(h @ self.W.T + self.b)
        return p, (self.rng.random(p.shape) < p).astype(float)

    def contrastive_divergence(self, v0):
        ph0, h = self.sample_h(v0)
        for _ in range(self.k):
            pv, v = self.sample_v(h)
            ph, h = self.sample_h(v)
        n = v0.shape[0]
        positive = v0.T @ ph0
        negative = v.T @ ph
        self.dW = self.momentum * self.dW + self.lr * (positive - negative) / n
        self.W += self.dW
        self.b += self.lr * np.mean(v0 - v, axis=0)
        self.c += self.lr * np.mean(ph0 - ph, axis=0)
        return np.mean((v0 - pv) ** 2)

    def free_energy(self, v):
        wx_b = v @ self.W + self.c
        return -v @ self.b - np.sum(np.logaddexp(0, wx_b), axis=1)

    def reconstruct(self, v):
        h = sigmoid(v @ self.W + self.c)
        return sigmoid(h @ self.W.T + self.b)
