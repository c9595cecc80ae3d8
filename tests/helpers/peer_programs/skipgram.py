"""Skip-gram word vectors with negative sampling, written as a small class: rows of the
input and output embedding matrices picked by integer index, a sigmoid helper, gradients
written back with ``np.add.at`` and negatives drawn from a ``Generator``."""

import numpy as np


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


class SkipGram:
    def __init__(self, vocab_size, dim, negatives=3, seed=0):
        self.rng = np.random.default_rng(seed)
        self.W_in = (self.rng.random((vocab_size, dim)) - 0.5) / dim
        self.W_out = np.zeros((vocab_size, dim))
        self.vocab_size = vocab_size
        self.negatives = negatives

    def pair_loss(self, center, context, negs):
        """Loss and gradients of one (center, context) pair against ``negs``."""
        v = self.W_in[center]
        u_pos = self.W_out[context]
        u_neg = self.W_out[negs]
        s_pos = sigmoid(u_pos @ v)
        s_neg = sigmoid(-(u_neg @ v))
        loss = -np.log(s_pos) - np.sum(np.log(s_neg))
        grad_v = (s_pos - 1) * u_pos + (1 - s_neg) @ u_neg
        grad_pos = (s_pos - 1) * v
        grad_neg = np.outer(1 - s_neg, v)
        return loss, grad_v, grad_pos, grad_neg

    def train_pairs(self, pairs, lr=0.05):
        """SGD over a list of (center, context) tuples; returns the mean loss."""
        total = 0.0
        for center, context in pairs:
            negs = self.rng.integers(0, self.vocab_size, self.negatives)
            loss, grad_v, grad_pos, grad_neg = self.pair_loss(center, context, negs)
            self.W_in[center] -= lr * grad_v
            self.W_out[context] -= lr * grad_pos
            np.add.at(self.W_out, negs, -lr * grad_neg)
            total += loss
        return total / len(pairs)

    def most_similar(self, word, k=3):
        norms = np.linalg.norm(self.W_in, axis=1, keepdims=True)
        unit = self.W_in / (norms + 1e-8)
        scores = unit @ unit[word]
        scores[word] = -np.inf
        return np.argsort(-scores)[:k]
