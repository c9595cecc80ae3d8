"""LeNet-5 trained by SGD on synthetic 28x28 images (NHWC; convolutions as sums of shifted
matrix products, 2x2 max pooling by reshape)."""

from __future__ import annotations

import numpy as np

import janus
from janus.models.nn import F32, cross_entropy, init, softmax
from janus.models.workload import ModelSpec, Size, Workload

SIZES = {"full": (64, 8), "quick": (8, 6)}  # batch, steps
CLASSES = 10


def conv(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Valid convolution of (B, H, W, C) by (k, k, C, F)."""
    B, H, Wd, C = x.shape
    k, F = W.shape[0], W.shape[3]
    Ho, Wo = H - k + 1, Wd - k + 1
    out = np.zeros((B * Ho * Wo, F), F32) + b
    for i in range(k):
        for j in range(k):
            out += x[:, i : i + Ho, j : j + Wo, :].reshape(-1, C) @ W[i, j]
    return out.reshape(B, Ho, Wo, F)


def conv_backward(x: np.ndarray, W: np.ndarray, dout: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of ``conv`` with respect to x, W and b."""
    B, H, Wd, C = x.shape
    k, F = W.shape[0], W.shape[3]
    Ho, Wo = H - k + 1, Wd - k + 1
    d = dout.reshape(-1, F)
    dx, dW = np.zeros_like(x), np.zeros_like(W)
    for i in range(k):
        for j in range(k):
            dW[i, j] = x[:, i : i + Ho, j : j + Wo, :].reshape(-1, C).T @ d
            dx[:, i : i + Ho, j : j + Wo, :] += (d @ W[i, j].T).reshape(B, Ho, Wo, C)
    return dx, dW, d.sum(axis=0)


def pool(x: np.ndarray) -> np.ndarray:
    B, H, W, C = x.shape
    return x.reshape(B, H // 2, 2, W // 2, 2, C).max(axis=(2, 4))


def pool_backward(x: np.ndarray, pooled: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Routes each gradient to the maxima of its window (to every tied maximum)."""
    B, H, W, C = x.shape
    window = x.reshape(B, H // 2, 2, W // 2, 2, C)
    mask = window == pooled[:, :, None, :, None, :]
    return (mask * dout[:, :, None, :, None, :]).reshape(B, H, W, C)


class LeNet5:
    def __init__(self, seed: int = 0, lr: float = 0.05) -> None:
        rng = np.random.default_rng(seed)
        self.W1, self.b1 = init(rng, 5, 5, 1, 6, fan_in=25), np.zeros(6, F32)
        self.W2, self.b2 = init(rng, 5, 5, 6, 16, fan_in=150), np.zeros(16, F32)
        self.W3, self.b3 = init(rng, 400, 120), np.zeros(120, F32)
        self.W4, self.b4 = init(rng, 120, 84), np.zeros(84, F32)
        self.W5, self.b5 = init(rng, 84, CLASSES), np.zeros(CLASSES, F32)
        self.lr = lr

    @janus.jit
    def train_step(self, images: np.ndarray, labels: np.ndarray) -> float:
        """One SGD step on a batch of (B, 28, 28, 1) images; returns the mean loss."""
        x0 = np.pad(images, ((0, 0), (2, 2), (2, 2), (0, 0)))
        a1 = np.maximum(conv(x0, self.W1, self.b1), 0.0)
        p1 = pool(a1)
        a2 = np.maximum(conv(p1, self.W2, self.b2), 0.0)
        p2 = pool(a2)
        f = p2.reshape(len(images), -1)
        a3 = np.maximum(f @ self.W3 + self.b3, 0.0)
        a4 = np.maximum(a3 @ self.W4 + self.b4, 0.0)
        loss, dlogits = cross_entropy(softmax(a4 @ self.W5 + self.b5), labels)
        dW5, db5 = a4.T @ dlogits, dlogits.sum(axis=0)
        d4 = (dlogits @ self.W5.T) * (a4 > 0)
        dW4, db4 = a3.T @ d4, d4.sum(axis=0)
        d3 = (d4 @ self.W4.T) * (a3 > 0)
        dW3, db3 = f.T @ d3, d3.sum(axis=0)
        dp2 = (d3 @ self.W3.T).reshape(p2.shape)
        da2 = pool_backward(a2, p2, dp2) * (a2 > 0)
        dp1, dW2, db2 = conv_backward(p1, self.W2, da2)
        da1 = pool_backward(a1, p1, dp1) * (a1 > 0)
        _, dW1, db1 = conv_backward(x0, self.W1, da1)
        grads = (dW1, db1, dW2, db2, dW3, db3, dW4, db4, dW5, db5)
        for param, grad in zip(self.parameters().values(), grads):
            param -= self.lr * grad
        return loss

    def parameters(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in ("W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4", "W5", "b5")}


def workload(size: Size) -> Workload:
    batch, steps = SIZES[size]
    model = LeNet5()
    rng = np.random.default_rng(1)
    # ten class prototypes plus noise: a task the network can learn
    prototypes = rng.standard_normal((CLASSES, 28, 28, 1)).astype(F32)
    labels = rng.integers(0, CLASSES, (steps, batch))
    images = prototypes[labels] + 0.5 * rng.standard_normal((steps, batch, 28, 28, 1)).astype(F32)

    def step(i: int) -> float:
        return model.train_step(images[i % steps], labels[i % steps])

    forward = 2 * (28 * 28 * 6 * 25 * 1 + 10 * 10 * 16 * 25 * 6 + 400 * 120 + 120 * 84 + 84 * CLASSES)
    return Workload(step, model.parameters, steps, 4, "images", batch, 3.0 * batch * forward)


SPECS = [ModelSpec("lenet5", "LeNet-5 training on synthetic 28x28 images", "compute", workload, (__name__,))]
