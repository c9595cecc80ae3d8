"""A Hopfield network storing +-1 patterns: Hebbian weights from ``np.outer`` summed over the
patterns with the diagonal zeroed by ``np.fill_diagonal``, synchronous recall by ``np.sign``
until the state stops changing (a ``while`` loop with an iteration cap), asynchronous recall
over a shuffled unit order from a ``Generator``, and the energy ``-0.5 * s @ W @ s``."""

import numpy as np


class Hopfield:
    def __init__(self, n_units):
        self.n = n_units
        self.W = np.zeros((n_units, n_units))

    def store(self, patterns):
        for p in patterns:
            self.W += np.outer(p, p)
        np.fill_diagonal(self.W, 0)
        self.W /= len(patterns)

    def energy(self, s):
        return -0.5 * s @ self.W @ s

    def recall(self, s, max_iter=20):
        """Synchronous updates until a fixed point; returns the state and the steps taken."""
        s = s.copy()
        for it in range(max_iter):
            s_new = np.sign(self.W @ s)
            s_new[s_new == 0] = 1
            if np.array_equal(s_new, s):
                return s, it
            s = s_new
        return s, max_iter

    def recall_async(self, s, rng, sweeps=2):
        s = s.copy()
        for _ in range(sweeps):
            for i in rng.permutation(self.n):
                s[i] = 1.0 if self.W[i] @ s >= 0 else -1.0
        return s
