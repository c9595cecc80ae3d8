"""Logistic regression with momentum, its state a namedtuple, the loss specialized with
``functools.partial``, a classmethod constructor and f-string logging."""

import functools
import math
from collections import namedtuple

import numpy as np

from tests.helpers.peer_programs.functional import sigmoid

TrainState = namedtuple("TrainState", ["w", "velocity", "step"])


def loss_and_grad(w, X, y, l2):
    p = sigmoid(X @ w)
    eps = 1e-7
    loss = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + 0.5 * l2 * np.sum(w ** 2)
    grad = X.T @ (p - y) / X.shape[0] + l2 * w
    return loss, grad


class Trainer:
    def __init__(self, lr, momentum, l2):
        self.lr, self.momentum = lr, momentum
        self.objective = functools.partial(loss_and_grad, l2=l2)

    @classmethod
    def default(cls):
        return cls(lr=0.5, momentum=0.9, l2=1e-3)

    def update(self, state, X, y, verbose=False):
        loss, grad = self.objective(state.w, X, y)
        velocity = self.momentum * state.velocity - self.lr * grad
        w = state.w + velocity
        if verbose:
            print(f"step {state.step}: loss={loss:.4f} |w|={math.sqrt(float(w @ w)):.3f}")
        return TrainState(w, velocity, state.step + 1), loss
