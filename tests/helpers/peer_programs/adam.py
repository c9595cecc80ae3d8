"""An Adam optimizer class with ``m``/``v`` dicts and bias correction, training a linear
regression whose gradient is written by hand."""

import numpy as np


class Adam:
    def __init__(self, params, lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.m = {k: np.zeros_like(p) for k, p in params.items()}
        self.v = {k: np.zeros_like(p) for k, p in params.items()}
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        for name in params:
            g = grads[name]
            self.m[name] = self.beta1 * self.m[name] + (1 - self.beta1) * g
            self.v[name] = self.beta2 * self.v[name] + (1 - self.beta2) * g ** 2
            m_hat = self.m[name] / (1 - self.beta1 ** self.t)
            v_hat = self.v[name] / (1 - self.beta2 ** self.t)
            params[name] = params[name] - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


def mse_grads(params, X, y):
    err = X @ params["w"] + params["b"] - y
    loss = float(np.mean(err ** 2))
    return loss, {"w": 2 * X.T @ err / len(y), "b": 2 * err.mean(keepdims=True)}


def fit_step(opt, params, X, y):
    loss, grads = mse_grads(params, X, y)
    opt.step(params, grads)
    return loss
