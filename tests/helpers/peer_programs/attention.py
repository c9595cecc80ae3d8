"""A pre-norm self-attention block over a batch of sequences, one class holding the
weights as attributes; layer norm is a staticmethod."""

import math

import numpy as np

from tests.helpers.peer_programs.functional import softmax


class AttentionBlock:
    def __init__(self, d_model, n_heads, seed=0):
        rng = np.random.default_rng(seed)
        self.d, self.h = d_model, n_heads
        scale = 1.0 / math.sqrt(d_model)
        self.Wq, self.Wk, self.Wv, self.Wo = (
            (rng.standard_normal((d_model, d_model)) * scale).astype(np.float32) for _ in range(4))
        self.gamma = np.ones(d_model, np.float32)
        self.beta = np.zeros(d_model, np.float32)

    @staticmethod
    def layer_norm(x, gamma, beta, eps=1e-5):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return gamma * (x - mu) / np.sqrt(var + eps) + beta

    def split_heads(self, x):
        B, T, _ = x.shape
        return np.swapaxes(x.reshape(B, T, self.h, self.d // self.h), 1, 2)

    def __call__(self, x, causal=True):
        B, T, D = x.shape
        xn = self.layer_norm(x, self.gamma, self.beta)
        q, k, v = (self.split_heads(xn @ W) for W in (self.Wq, self.Wk, self.Wv))
        scores = np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(D // self.h)
        if causal:
            mask = np.triu(np.ones((T, T), dtype=bool), k=1)
            scores = np.where(mask, -1e9, scores)
        att = softmax(scores.reshape(-1, T)).reshape(scores.shape)
        out = np.swapaxes(att @ v, 1, 2).reshape(B, T, D)
        return x + out @ self.Wo
