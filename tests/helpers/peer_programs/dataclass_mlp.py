"""An MLP whose parameters live in a ``@dataclass`` (fields ``W1, b1, W2, b2``, ``classmethod``
initializers and a ``params()`` list), trained by a loop whose
loss, gradient and metric come from another module (``metrics``): forward with ReLU, manual
backprop through the smoothed cross-entropy, SGD with momentum kept in a second dataclass of
the same shape, and an evaluation returning a dict of metrics."""

from dataclasses import dataclass

import numpy as np

from .metrics import smoothed_cross_entropy, smoothed_cross_entropy_grad, top_k_accuracy


@dataclass
class Params:
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray

    @classmethod
    def init(cls, n_in, n_hidden, n_out, seed=0):
        rng = np.random.default_rng(seed)
        return cls(
            rng.standard_normal((n_in, n_hidden)) * np.sqrt(2.0 / n_in),
            np.zeros(n_hidden),
            rng.standard_normal((n_hidden, n_out)) * np.sqrt(2.0 / n_hidden),
            np.zeros(n_out),
        )

    @classmethod
    def zeros_like(cls, other):
        return cls(*(np.zeros_like(p) for p in other.params()))

    def params(self):
        return [self.W1, self.b1, self.W2, self.b2]


class Trainer:
    def __init__(self, n_in, n_hidden, n_out, lr=0.1, momentum=0.9, smoothing=0.1):
        self.p = Params.init(n_in, n_hidden, n_out)
        self.v = Params.zeros_like(self.p)
        self.lr, self.momentum, self.smoothing = lr, momentum, smoothing

    def forward(self, X):
        h = np.maximum(0, X @ self.p.W1 + self.p.b1)
        return h, h @ self.p.W2 + self.p.b2

    def train_step(self, X, y):
        h, logits = self.forward(X)
        loss = smoothed_cross_entropy(logits, y, self.smoothing)
        dlogits = smoothed_cross_entropy_grad(logits, y, self.smoothing)
        dW2 = h.T @ dlogits
        db2 = dlogits.sum(axis=0)
        dh = dlogits @ self.p.W2.T * (h > 0)
        grads = Params(X.T @ dh, dh.sum(axis=0), dW2, db2)
        for name in ("W1", "b1", "W2", "b2"):
            v = self.momentum * getattr(self.v, name) - self.lr * getattr(grads, name)
            setattr(self.v, name, v)
            setattr(self.p, name, getattr(self.p, name) + v)
        return loss

    def evaluate(self, X, y):
        _, logits = self.forward(X)
        return {
            "loss": float(smoothed_cross_entropy(logits, y, self.smoothing)),
            "acc": float(np.mean(np.argmax(logits, axis=1) == y)),
            "top2": float(top_k_accuracy(logits, y, k=2)),
        }
