"""An MLP written as free functions in a module of their own, its parameters a tuple
unpacked at the top of each function; the training script (``mlp_train``) imports the module
and calls into it, as a ``nets.py`` + ``train.py`` pair would."""

import numpy as np


def init_params(sizes, seed=0):
    rng = np.random.default_rng(seed)
    n_in, n_hidden, n_out = sizes
    W1 = rng.normal(0.0, np.sqrt(2.0 / n_in), (n_in, n_hidden))
    b1 = np.zeros(n_hidden)
    W2 = rng.normal(0.0, np.sqrt(1.0 / n_hidden), (n_hidden, n_out))
    b2 = np.zeros(n_out)
    return W1, b1, W2, b2


def forward(params, X):
    W1, b1, W2, b2 = params
    z1 = X @ W1 + b1
    a1 = np.where(z1 > 0, z1, 0.01 * z1)
    logits = a1 @ W2 + b2
    return logits, (X, z1, a1)


def softmax_cross_entropy(logits, labels):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=-1, keepdims=True)
    n = logits.shape[0]
    loss = -np.log(probs[range(n), labels]).mean()
    dlogits = probs.copy()
    dlogits[range(n), labels] -= 1
    return loss, dlogits / n


def backward(params, cache, dlogits):
    _, _, W2, _ = params
    X, z1, a1 = cache
    dW2 = a1.T @ dlogits
    db2 = dlogits.sum(axis=0)
    da1 = dlogits @ W2.T
    dz1 = da1 * np.where(z1 > 0, 1.0, 0.01)
    dW1 = X.T @ dz1
    db1 = dz1.sum(axis=0)
    return dW1, db1, dW2, db2


def accuracy(logits, labels):
    return (logits.argmax(axis=1) == labels).mean()
