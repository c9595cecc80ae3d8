"""LSTM language model trained by truncated backpropagation through time.

The recurrent state lives in ``self.state`` and is carried (not differentiated) from one
training step to the next; gradients are written out by hand.
"""

from __future__ import annotations

import numpy as np

import janus
from janus.models.nn import F32, cross_entropy, init, sigmoid, softmax
from janus.models.workload import ModelSpec, Size, Workload

SIZES = {  # vocab, embedding, hidden, seq, batch, steps
    "full": (1000, 128, 256, 20, 32, 10),
    "quick": (100, 16, 32, 5, 4, 8),
}


class LSTMLanguageModel:
    def __init__(self, vocab: int, embed: int, hidden: int, batch: int, seed: int = 0, lr: float = 0.5) -> None:
        rng = np.random.default_rng(seed)
        self.E = init(rng, vocab, embed)
        self.W = init(rng, embed + hidden, 4 * hidden)
        self.b = np.zeros(4 * hidden, F32)
        self.V = init(rng, hidden, vocab)
        self.c = np.zeros(vocab, F32)
        self.state = (np.zeros((batch, hidden), F32), np.zeros((batch, hidden), F32))
        self.lr = lr

    @janus.jit
    def train_step(self, tokens: np.ndarray, targets: np.ndarray) -> float:
        """One SGD step on a (seq, batch) window of token ids; returns the mean loss."""
        H = self.V.shape[0]
        embed = self.E.shape[1]
        h, c = self.state
        tape = []
        loss = 0.0
        for t in range(len(tokens)):
            xh = np.concatenate([self.E[tokens[t]], h], axis=1)
            z = xh @ self.W + self.b
            i, f, o, g = sigmoid(z[:, :H]), sigmoid(z[:, H : 2 * H]), sigmoid(z[:, 2 * H : 3 * H]), np.tanh(z[:, 3 * H :])
            c_new = f * c + i * g
            h_new = o * np.tanh(c_new)
            step_loss, dlogits = cross_entropy(softmax(h_new @ self.V + self.c), targets[t])
            loss += step_loss
            tape.append((xh, i, f, o, g, c, c_new, h_new, dlogits))
            h, c = h_new, c_new
        T = len(tokens)
        dE, dW, db = np.zeros_like(self.E), np.zeros_like(self.W), np.zeros_like(self.b)
        dV, dc = np.zeros_like(self.V), np.zeros_like(self.c)
        dh_next, dc_next = np.zeros_like(h), np.zeros_like(c)
        for t in reversed(range(T)):
            xh, i, f, o, g, c_prev, c_t, h_t, dlogits = tape[t]
            dlogits = dlogits / T
            dV += h_t.T @ dlogits
            dc += dlogits.sum(axis=0)
            dh = dlogits @ self.V.T + dh_next
            tc = np.tanh(c_t)
            dct = dh * o * (1.0 - tc * tc) + dc_next
            dz = np.concatenate(
                [dct * g * i * (1.0 - i), dct * c_prev * f * (1.0 - f), dh * tc * o * (1.0 - o), dct * i * (1.0 - g * g)],
                axis=1,
            )
            dc_next = dct * f
            dW += xh.T @ dz
            db += dz.sum(axis=0)
            dxh = dz @ self.W.T
            dh_next = dxh[:, embed:]
            np.add.at(dE, tokens[t], dxh[:, :embed])
        for param, grad in ((self.E, dE), (self.W, dW), (self.b, db), (self.V, dV), (self.c, dc)):
            param -= self.lr * grad
        self.state = (h, c)
        return loss / T

    def parameters(self) -> dict[str, np.ndarray]:
        return {"E": self.E, "W": self.W, "b": self.b, "V": self.V, "c": self.c, "h": self.state[0], "c_state": self.state[1]}


def workload(size: Size) -> Workload:
    vocab, embed, hidden, seq, batch, steps = SIZES[size]
    model = LSTMLanguageModel(vocab, embed, hidden, batch)
    rng = np.random.default_rng(1)
    # a stream with structure to learn: each token mostly follows a fixed successor
    successor = rng.permutation(vocab)
    stream = np.empty((steps * seq + 1, batch), np.int64)
    stream[0] = rng.integers(0, vocab, batch)
    for t in range(1, len(stream)):
        noise = rng.integers(0, vocab, batch)
        stream[t] = np.where(rng.random(batch) < 0.8, successor[stream[t - 1]], noise)

    def step(i: int) -> float:
        window = stream[i % steps * seq : (i % steps + 1) * seq + 1]
        return model.train_step(window[:-1], window[1:])

    per_token = 2 * batch * ((embed + hidden) * 4 * hidden + hidden * vocab)
    return Workload(step, model.parameters, steps, 4, "sequences", batch, 3.0 * seq * per_token)


SPECS = [ModelSpec("lstm-lm", "LSTM language model, truncated BPTT, state in self.state", "compute", workload, (__name__,))]
