"""A recommender by matrix factorization trained with SGD over ``(user, item, rating)``
triples, the way Funk-SVD blog posts write it: user and item factor matrices and bias vectors
as attributes, a global mean, per-triple updates that copy the user row before updating
(``pu = self.P[u].copy()``), an L2 ``reg`` term, an epoch over the triples in the order a
``Generator`` shuffles, the RMSE over all ratings with fancy indexing, and a vectorized
full-batch variant whose gradients scatter with ``np.add.at``."""

import numpy as np


class MatrixFactorization:
    def __init__(self, n_users, n_items, k=3, lr=0.05, reg=0.02, seed=0):
        rng = np.random.default_rng(seed)
        self.P = rng.normal(0, 0.1, (n_users, k))
        self.Q = rng.normal(0, 0.1, (n_items, k))
        self.bu = np.zeros(n_users)
        self.bi = np.zeros(n_items)
        self.mu = 0.0
        self.lr, self.reg = lr, reg

    def predict(self, u, i):
        return self.mu + self.bu[u] + self.bi[i] + self.P[u] @ self.Q[i]

    def sgd_update(self, u, i, r):
        err = r - self.predict(u, i)
        self.bu[u] += self.lr * (err - self.reg * self.bu[u])
        self.bi[i] += self.lr * (err - self.reg * self.bi[i])
        pu = self.P[u].copy()
        self.P[u] += self.lr * (err * self.Q[i] - self.reg * pu)
        self.Q[i] += self.lr * (err * pu - self.reg * self.Q[i])
        return err**2

    def epoch(self, ratings, rng):
        total = 0.0
        for idx in rng.permutation(len(ratings)):
            u, i, r = ratings[idx]
            total += self.sgd_update(int(u), int(i), r)
        return np.sqrt(total / len(ratings))

    def rmse(self, users, items, values):
        pred = self.mu + self.bu[users] + self.bi[items] + np.sum(self.P[users] * self.Q[items], axis=1)
        return np.sqrt(np.mean((values - pred) ** 2))

    def full_batch_step(self, users, items, values):
        pred = self.mu + self.bu[users] + self.bi[items] + np.sum(self.P[users] * self.Q[items], axis=1)
        err = values - pred
        gP = np.zeros_like(self.P)
        gQ = np.zeros_like(self.Q)
        np.add.at(gP, users, -err[:, None] * self.Q[items])
        np.add.at(gQ, items, -err[:, None] * self.P[users])
        self.P -= self.lr * (gP / len(values) + self.reg * self.P)
        self.Q -= self.lr * (gQ / len(values) + self.reg * self.Q)
        return np.mean(err**2)
