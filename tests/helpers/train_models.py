"""Training loops with parameters in object attributes: each model has a plain train step
and a subclass whose step is ``janus.jit``-ed (used by tests/models/test_train_loops.py and
benchmarks/train_bench.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

import janus

STEPS = 50
F32 = np.float32


def mlp_loss(model: "MLP", x: np.ndarray, y: np.ndarray) -> Any:
    h = np.tanh(x @ model.W1 + model.b1)
    d = h @ model.W2 + model.b2 - y
    return np.mean(d * d)


class MLP:
    """4-16-2 MLP; ``lr`` is a Python float attribute (a constant of the graph, checked)."""

    def __init__(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.W1 = (rng.standard_normal((4, 16)) * 0.5).astype(F32)
        self.b1 = np.zeros(16, F32)
        self.W2 = (rng.standard_normal((16, 2)) * 0.5).astype(F32)
        self.b2 = np.zeros(2, F32)
        self.lr = 0.1

    def train_step(self, x: np.ndarray, y: np.ndarray) -> Any:
        loss, g = janus.value_and_grad(mlp_loss)(self, x, y)
        if np.sum(x) > 0:  # speculated: the test breaks it once
            gW1 = g["W1"]
        else:
            gW1 = 0.5 * g["W1"]
        self.W1 -= self.lr * gW1
        self.b1 -= self.lr * g["b1"]
        self.W2 = self.W2 - self.lr * g["W2"]
        self.b2 = self.b2 - self.lr * g["b2"]
        return loss


class JitMLP(MLP):
    train_step = janus.jit(MLP.train_step, warmup=2)


MLP_PARAMS = ["W1", "b1", "W2", "b2"]


def mlp_batch(rng: np.random.Generator, sign: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    x = rng.standard_normal((32, 4)).astype(F32)
    x = x if np.sign(x.sum()) == sign else -x
    return x, np.stack([np.sin(x[:, 0] + x[:, 1]), x[:, 2] * x[:, 3]], axis=1).astype(F32)


def sigmoid(z: np.ndarray) -> Any:
    return 0.5 * np.tanh(0.5 * z) + 0.5


class LSTM:
    """One LSTM layer (hidden 32, batch 4) and a linear read-out, trained by truncated BPTT
    on segments of 8 steps: the state carried between calls is ``self.h`` / ``self.c``."""

    def __init__(self, seed: int, n_in: int = 3, hidden: int = 32, batch: int = 4) -> None:
        rng = np.random.default_rng(seed)
        self.hidden = hidden
        self.Wx = (rng.standard_normal((n_in, 4 * hidden)) / np.sqrt(n_in)).astype(F32)
        self.Wh = (rng.standard_normal((hidden, 4 * hidden)) / np.sqrt(hidden)).astype(F32)
        self.b = np.zeros(4 * hidden, F32)
        self.Wy = (rng.standard_normal((hidden, 1)) / np.sqrt(hidden)).astype(F32)
        self.by = np.zeros(1, F32)
        self.h = np.zeros((batch, hidden), F32)
        self.c = np.zeros((batch, hidden), F32)

    def loss(self, Wx: np.ndarray, Wh: np.ndarray, b: np.ndarray, Wy: np.ndarray, by: np.ndarray,
             xs: np.ndarray, ys: np.ndarray) -> tuple:
        n, h, c = self.hidden, self.h, self.c  # the state: read inside, not differentiated
        total = 0.0
        for t in range(xs.shape[0]):
            z = xs[t] @ Wx + h @ Wh + b
            i, f, o = sigmoid(z[:, :n]), sigmoid(z[:, n:2 * n] + 1.0), sigmoid(z[:, 2 * n:3 * n])
            c = f * c + i * np.tanh(z[:, 3 * n:])
            h = o * np.tanh(c)
            d = h @ Wy + by - ys[t]
            total = total + np.mean(d * d)
        return total / xs.shape[0], (h, c)

    def train_step(self, xs: np.ndarray, ys: np.ndarray) -> Any:
        (loss, (h, c)), grads = janus.value_and_grad(self.loss, argnums=(0, 1, 2, 3, 4), has_aux=True)(
            self.Wx, self.Wh, self.b, self.Wy, self.by, xs, ys)
        gWx, gWh, gb, gWy, gby = grads
        self.Wx -= 0.5 * gWx
        self.Wh -= 0.5 * gWh
        self.b -= 0.5 * gb
        self.Wy = self.Wy - 0.5 * gWy
        self.by = self.by - 0.5 * gby
        self.h, self.c = h, c
        return loss


class JitLSTM(LSTM):
    train_step = janus.jit(LSTM.train_step, warmup=2)


LSTM_STATE = ["Wx", "Wh", "b", "Wy", "by", "h", "c"]


def lstm_segments(seq: int = 8, batch: int = 4) -> list[tuple[np.ndarray, np.ndarray]]:
    """A stream of noisy sine waves (one phase per batch row), cut into segments; the
    target is the next value of the first input channel."""
    rng = np.random.default_rng(11)
    t = np.arange(STEPS * seq + 1)[:, None] * 0.3 + rng.uniform(0, 6, batch)
    wave = np.sin(t)
    inputs = np.stack([wave, np.cos(t), rng.normal(0, 0.05, wave.shape)], axis=-1).astype(F32)
    return [(inputs[k * seq:(k + 1) * seq], wave[k * seq + 1:(k + 1) * seq + 1, :, None].astype(F32))
            for k in range(STEPS)]
