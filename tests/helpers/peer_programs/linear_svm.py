"""A linear support vector machine trained by stochastic subgradient descent on the hinge loss,
the way a from-scratch classifier tutorial writes it: labels mapped to ``{-1, +1}`` with
``np.where``, an epoch shuffles with a ``Generator``'s ``permutation``, minibatches by
``range(0, n, batch_size)`` slices, the margin mask ``margins < 1`` used as a float weight, an
L2 term ``lam * w``, and ``predict`` returning ``np.sign`` as ints."""

import numpy as np


class LinearSVM:
    def __init__(self, n_features, lr=0.1, lam=0.01, batch_size=4):
        self.w = np.zeros(n_features)
        self.b = 0.0
        self.lr, self.lam, self.batch_size = lr, lam, batch_size

    def hinge_loss(self, X, y):
        margins = y * (X @ self.w + self.b)
        return np.mean(np.maximum(0, 1 - margins)) + 0.5 * self.lam * np.dot(self.w, self.w)

    def sgd_step(self, Xb, yb):
        margins = yb * (Xb @ self.w + self.b)
        active = (margins < 1).astype(float)
        grad_w = self.lam * self.w - (active * yb) @ Xb / len(yb)
        grad_b = -np.sum(active * yb) / len(yb)
        self.w -= self.lr * grad_w
        self.b -= self.lr * grad_b
        return self.hinge_loss(Xb, yb)

    def epoch(self, X, labels, rng):
        y = np.where(labels > 0, 1.0, -1.0)
        order = rng.permutation(len(X))
        total = 0.0
        for start in range(0, len(X), self.batch_size):
            idx = order[start : start + self.batch_size]
            total += self.sgd_step(X[idx], y[idx])
        return total

    def predict(self, X):
        return np.sign(X @ self.w + self.b).astype(int)

    def accuracy(self, X, labels):
        y = np.where(labels > 0, 1, -1)
        return float(np.mean(self.predict(X) == y))
