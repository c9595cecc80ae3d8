"""Loss and metric helpers kept in their own module, the way a project's ``losses.py`` is:
label-smoothed cross-entropy over log-probabilities picked with ``np.take_along_axis``, its
gradient, and top-k accuracy with ``np.argsort``; the training loop in ``dataclass_mlp``
imports them by name (``from .metrics import ...``)."""

import numpy as np


def log_softmax(logits):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def smoothed_cross_entropy(logits, labels, smoothing=0.1):
    logp = log_softmax(logits)
    nll = -np.take_along_axis(logp, labels[:, None], axis=-1).squeeze(-1)
    uniform = -logp.mean(axis=-1)
    return np.mean((1.0 - smoothing) * nll + smoothing * uniform)


def smoothed_cross_entropy_grad(logits, labels, smoothing=0.1):
    n, k = logits.shape
    target = np.full((n, k), smoothing / k)
    np.put_along_axis(target, labels[:, None], 1.0 - smoothing + smoothing / k, axis=-1)
    return (np.exp(log_softmax(logits)) - target) / n


def top_k_accuracy(logits, labels, k=2):
    top = np.argsort(logits, axis=-1)[:, -k:]
    return np.mean(np.any(top == labels[:, None], axis=-1))
