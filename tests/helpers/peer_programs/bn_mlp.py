"""A two-layer MLP with batch normalization, written with a ``training`` flag and running
statistics in a dict updated by momentum, parameters in a dict, ``print`` of the loss every
few steps, and a cross-entropy over integer labels picked with ``np.arange(n)``."""

import numpy as np


class BNNet:
    def __init__(self, n_in, n_hidden, n_out, seed=1):
        rng = np.random.RandomState(seed)
        self.params = {
            "W1": rng.randn(n_in, n_hidden) * np.sqrt(2.0 / n_in), "b1": np.zeros(n_hidden),
            "gamma": np.ones(n_hidden), "beta": np.zeros(n_hidden),
            "W2": rng.randn(n_hidden, n_out) * 0.01, "b2": np.zeros(n_out),
        }
        self.bn = {"mean": np.zeros(n_hidden), "var": np.ones(n_hidden)}
        self.momentum = 0.9
        self.step = 0

    def forward(self, X, training=True):
        p = self.params
        h = X @ p["W1"] + p["b1"]
        if training:
            mu, var = h.mean(axis=0), h.var(axis=0)
            self.bn["mean"] = self.momentum * self.bn["mean"] + (1 - self.momentum) * mu
            self.bn["var"] = self.momentum * self.bn["var"] + (1 - self.momentum) * var
        else:
            mu, var = self.bn["mean"], self.bn["var"]
        xhat = (h - mu) / np.sqrt(var + 1e-5)
        a = np.maximum(0, p["gamma"] * xhat + p["beta"])
        cache = (X, h, mu, var, xhat, a)
        return a @ p["W2"] + p["b2"], cache

    def train_step(self, X, y, lr=0.1):
        n = X.shape[0]
        logits, (X, h, mu, var, xhat, a) = self.forward(X)
        logits = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        loss = -np.log(probs[np.arange(n), y]).mean()
        d = probs.copy()
        d[np.arange(n), y] -= 1
        d /= n
        p = self.params
        grads = {"W2": a.T @ d, "b2": d.sum(axis=0)}
        da = d @ p["W2"].T * (a > 0)
        grads["gamma"] = (da * xhat).sum(axis=0)
        grads["beta"] = da.sum(axis=0)
        dxhat = da * p["gamma"]
        inv = 1 / np.sqrt(var + 1e-5)
        dh = inv / n * (n * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0))
        grads["W1"] = X.T @ dh
        grads["b1"] = dh.sum(axis=0)
        for k in p:
            p[k] -= lr * grads[k]
        self.step += 1
        if self.step % 2 == 0:
            print(f"step {self.step}: loss {loss:.4f}")
        return loss
