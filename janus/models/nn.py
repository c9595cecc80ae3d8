"""Small NumPy helpers the models share, written as a researcher would (plain functions,
so the graph generator inlines them)."""

from __future__ import annotations

import numpy as np

F32 = np.float32


def init(rng: np.random.Generator, *shape: int, fan_in: int | None = None) -> np.ndarray:
    """Weights drawn from N(0, 1/fan_in) as float32 (fan-in: the first dim unless given)."""
    return (rng.standard_normal(shape) / np.sqrt(fan_in or shape[0])).astype(F32)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, shifted by the max for stability."""
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + exp(x)) without overflow; its derivative is ``sigmoid``."""
    return np.maximum(x, 0.0) + np.log(1.0 + np.exp(-np.abs(x)))


def cross_entropy(probs: np.ndarray, labels: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean negative log-likelihood of integer ``labels`` under row-wise ``probs``, and its
    gradient with respect to the logits that gave ``probs``."""
    rows = np.arange(len(labels))
    loss = -np.log(probs[rows, labels]).mean()
    dlogits = probs.copy()
    dlogits[rows, labels] -= 1.0
    return loss, dlogits / len(labels)
