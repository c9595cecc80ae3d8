"""Optimizer classes over a list of ``(param, grad)`` pairs updated in place: SGD with momentum
(velocities made on the first step), Adam with ``self.m = [0.0] * n`` (Python floats that
become arrays after the first update), a step counter, bias correction in a ``@staticmethod``,
the step size as a ``@property``, and a ``@classmethod`` constructor from a dict."""

import numpy as np


class SGDMomentum:
    def __init__(self, lr=0.1, momentum=0.9):
        self.lr, self.momentum = lr, momentum
        self.velocities = None

    def step(self, pairs):
        if self.velocities is None:
            self.velocities = [np.zeros_like(p) for p, _ in pairs]
        for v, (p, g) in zip(self.velocities, pairs):
            v *= self.momentum
            v -= self.lr * g
            p += v


class Adam:
    def __init__(self, n_params, lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.m = [0.0] * n_params
        self.v = [0.0] * n_params
        self.t = 0

    @classmethod
    def from_config(cls, n_params, cfg):
        return cls(n_params, **cfg)

    @staticmethod
    def corrected(moment, beta, t):
        return moment / (1 - beta ** t)

    @property
    def step_size(self):
        return self.lr * np.sqrt(1 - self.beta2 ** self.t) / (1 - self.beta1 ** self.t)

    def step(self, pairs):
        self.t += 1
        for i, (param, grad) in enumerate(pairs):
            self.m[i] = self.beta1 * self.m[i] + (1 - self.beta1) * grad
            self.v[i] = self.beta2 * self.v[i] + (1 - self.beta2) * grad * grad
            m_hat = self.corrected(self.m[i], self.beta1, self.t)
            v_hat = self.corrected(self.v[i], self.beta2, self.t)
            param -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)

    def step_fused(self, pairs):
        """The same update written with the folded step size."""
        self.t += 1
        size = self.step_size
        for i, (param, grad) in enumerate(pairs):
            self.m[i] = self.beta1 * self.m[i] + (1 - self.beta1) * grad
            self.v[i] = self.beta2 * self.v[i] + (1 - self.beta2) * grad ** 2
            param -= size * self.m[i] / (np.sqrt(self.v[i]) + self.eps)


def quadratic_grads(params, targets):
    """Gradients of ``sum((p - t)**2) / 2`` for each parameter: the pairs an optimizer takes."""
    return [(p, p - t) for p, t in zip(params, targets)]
