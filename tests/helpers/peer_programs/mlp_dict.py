"""A two-layer MLP classifier with its parameters in a dict, backprop written by hand
and plain SGD over ``for k in params:``."""

import numpy as np

from tests.helpers.peer_programs.functional import cross_entropy, relu, softmax


def init_params(n_in, n_hidden, n_out, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "W1": (rng.standard_normal((n_in, n_hidden)) * np.sqrt(2.0 / n_in)).astype(np.float32),
        "b1": np.zeros(n_hidden, dtype=np.float32),
        "W2": (rng.standard_normal((n_hidden, n_out)) * np.sqrt(1.0 / n_hidden)).astype(np.float32),
        "b2": np.zeros(n_out, dtype=np.float32),
    }


def forward(params, X):
    h = relu(X @ params["W1"] + params["b1"])
    return h, h @ params["W2"] + params["b2"]


def train_step(params, X, y, lr=0.1):
    n, k = X.shape[0], params["b2"].shape[0]
    h, logits = forward(params, X)
    loss = cross_entropy(logits, y)
    dlogits = (softmax(logits) - np.eye(k)[y]) / n
    grads = {"W2": h.T @ dlogits, "b2": dlogits.sum(axis=0)}
    dh = dlogits @ params["W2"].T
    dh[h <= 0] = 0
    grads["W1"] = X.T @ dh
    grads["b1"] = dh.sum(axis=0)
    for k in params:
        params[k] -= lr * grads[k]
    acc = (np.argmax(logits, axis=1) == y).mean()
    return loss, acc
