"""A vanilla RNN language model trained with truncated backprop through time: the forward
pass keeps its states in lists on the object (``self.hs.append(h)``), the backward pass walks
``reversed(range(...))`` over the last ``bptt`` steps, gradients clipped with ``np.clip(out=)``,
SGD on the weights, the final state carried to the next chunk."""

import numpy as np


class RNN:
    def __init__(self, vocab=6, hidden=10, bptt=4, seed=1):
        rng = np.random.default_rng(seed)
        self.Wxh = rng.standard_normal((hidden, vocab)) * 0.1
        self.Whh = rng.standard_normal((hidden, hidden)) * 0.1
        self.Why = rng.standard_normal((vocab, hidden)) * 0.1
        self.bh = np.zeros((hidden, 1))
        self.by = np.zeros((vocab, 1))
        self.vocab, self.hidden, self.bptt = vocab, hidden, bptt
        self.h = np.zeros((hidden, 1))
        self.lr = 0.1

    def one_hot(self, i):
        v = np.zeros((self.vocab, 1))
        v[i] = 1.0
        return v

    def forward(self, inputs):
        self.xs, self.hs, self.ps = [], [self.h], []
        for i in inputs:
            x = self.one_hot(i)
            h = np.tanh(self.Wxh @ x + self.Whh @ self.hs[-1] + self.bh)
            y = self.Why @ h + self.by
            p = np.exp(y - y.max())
            self.xs.append(x)
            self.hs.append(h)
            self.ps.append(p / p.sum())
        return self.ps

    def train_chunk(self, inputs, targets):
        ps = self.forward(inputs)
        loss = 0.0
        for t, target in enumerate(targets):
            loss += -np.log(ps[t][target, 0])
        dWxh, dWhh, dWhy = np.zeros_like(self.Wxh), np.zeros_like(self.Whh), np.zeros_like(self.Why)
        dbh, dby = np.zeros_like(self.bh), np.zeros_like(self.by)
        dh_next = np.zeros_like(self.h)
        T = len(inputs)
        for t in reversed(range(max(0, T - self.bptt), T)):
            dy = ps[t].copy()
            dy[targets[t]] -= 1
            dWhy += dy @ self.hs[t + 1].T
            dby += dy
            dh = self.Why.T @ dy + dh_next
            draw = (1 - self.hs[t + 1] ** 2) * dh
            dbh += draw
            dWxh += draw @ self.xs[t].T
            dWhh += draw @ self.hs[t].T
            dh_next = self.Whh.T @ draw
        for param, grad in zip([self.Wxh, self.Whh, self.Why, self.bh, self.by], [dWxh, dWhh, dWhy, dbh, dby]):
            np.clip(grad, -5, 5, out=grad)
            param -= self.lr * grad
        self.h = self.hs[-1]
        return loss / T
