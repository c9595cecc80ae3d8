"""A linear-chain conditional random field the way sequence-labelling tutorials write it:
emission scores ``X @ W`` per token, a transition matrix plus start and end vectors as
attributes, the partition function by the forward algorithm in log space (``alpha[:, None] +
self.transitions + emissions[t]`` reduced by a hand-written ``log_sum_exp`` over axis 0), the
score of a gold tag path by indexing ``self.transitions[tags[t - 1], tags[t]]``, the negative
log-likelihood, and Viterbi decoding with back-pointers kept in a Python list of arrays."""

import numpy as np


def log_sum_exp(scores, axis=0):
    m = scores.max(axis=axis)
    return m + np.log(np.exp(scores - np.expand_dims(m, axis)).sum(axis=axis))


class LinearChainCRF:
    def __init__(self, n_features, n_tags, seed=0):
        rng = np.random.default_rng(seed)
        self.W = rng.normal(0, 0.1, (n_features, n_tags))
        self.transitions = rng.normal(0, 0.1, (n_tags, n_tags))
        self.start = np.zeros(n_tags)
        self.end = np.zeros(n_tags)

    def emissions(self, X):
        return X @ self.W

    def log_partition(self, X):
        em = self.emissions(X)
        alpha = self.start + em[0]
        for t in range(1, em.shape[0]):
            alpha = log_sum_exp(alpha[:, None] + self.transitions + em[t][None, :], axis=0)
        return log_sum_exp(alpha + self.end, axis=0)

    def path_score(self, X, tags):
        em = self.emissions(X)
        score = self.start[tags[0]] + em[0, tags[0]]
        for t in range(1, len(tags)):
            score += self.transitions[tags[t - 1], tags[t]] + em[t, tags[t]]
        return score + self.end[tags[-1]]

    def nll(self, X, tags):
        return self.log_partition(X) - self.path_score(X, tags)

    def decode(self, X):
        em = self.emissions(X)
        delta = self.start + em[0]
        backpointers = []
        for t in range(1, em.shape[0]):
            scores = delta[:, None] + self.transitions
            backpointers.append(np.argmax(scores, axis=0))
            delta = scores.max(axis=0) + em[t]
        delta = delta + self.end
        best = [int(np.argmax(delta))]
        for bp in reversed(backpointers):
            best.append(int(bp[best[-1]]))
        best.reverse()
        return best, float(delta.max())
