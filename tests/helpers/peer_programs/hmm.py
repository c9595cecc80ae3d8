"""A discrete hidden Markov model the way course code writes it: the scaled forward algorithm
with ``alpha[t] = (alpha[t - 1] @ A) * B[:, obs[t]]`` and a scale factor per step, the
log-likelihood as ``np.sum(np.log(c))``, the backward pass with the same scales, posterior
state marginals, and Viterbi decoding in log space with a back-pointer table followed
backwards by ``for t in range(T - 2, -1, -1)``."""

import numpy as np


class HMM:
    def __init__(self, pi, A, B):
        self.pi, self.A, self.B = pi, A, B
        self.n_states = A.shape[0]

    def forward(self, obs):
        T = len(obs)
        alpha = np.zeros((T, self.n_states))
        c = np.zeros(T)
        alpha[0] = self.pi * self.B[:, obs[0]]
        c[0] = alpha[0].sum()
        alpha[0] /= c[0]
        for t in range(1, T):
            alpha[t] = (alpha[t - 1] @ self.A) * self.B[:, obs[t]]
            c[t] = alpha[t].sum()
            alpha[t] /= c[t]
        return alpha, c

    def log_likelihood(self, obs):
        _, c = self.forward(obs)
        return np.sum(np.log(c))

    def posterior(self, obs):
        alpha, c = self.forward(obs)
        T = len(obs)
        beta = np.ones((T, self.n_states))
        for t in range(T - 2, -1, -1):
            beta[t] = self.A @ (self.B[:, obs[t + 1]] * beta[t + 1]) / c[t + 1]
        gamma = alpha * beta
        return gamma / gamma.sum(axis=1, keepdims=True)

    def viterbi(self, obs):
        T = len(obs)
        logA, logB = np.log(self.A), np.log(self.B)
        delta = np.log(self.pi) + logB[:, obs[0]]
        psi = np.zeros((T, self.n_states), dtype=int)
        for t in range(1, T):
            scores = delta[:, None] + logA
            psi[t] = np.argmax(scores, axis=0)
            delta = np.max(scores, axis=0) + logB[:, obs[t]]
        path = np.zeros(T, dtype=int)
        path[-1] = np.argmax(delta)
        for t in range(T - 2, -1, -1):
            path[t] = psi[t + 1, path[t + 1]]
        return path, delta.max()
