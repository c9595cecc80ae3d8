"""Multi-head self-attention as "from scratch" posts write it: ``B, T, D = x.shape``, heads cut
with ``reshape``/``transpose``, a causal mask from ``np.triu``, softmax with ``keepdims``, the
attention weights kept on the object for inspection."""

import numpy as np


class MultiHeadAttention:
    def __init__(self, d_model, n_heads, seed=0):
        assert d_model % n_heads == 0
        rng = np.random.default_rng(seed)
        self.d_model, self.n_heads = d_model, n_heads
        self.d_head = d_model // n_heads
        self.Wq, self.Wk, self.Wv, self.Wo = (rng.standard_normal((d_model, d_model)) / np.sqrt(d_model)
                                              for _ in range(4))

    def split_heads(self, x):
        B, T, D = x.shape
        return x.reshape(B, T, self.n_heads, self.d_head).transpose(0, 2, 1, 3)

    def __call__(self, x, causal=True):
        B, T, D = x.shape
        q = self.split_heads(x @ self.Wq)
        k = self.split_heads(x @ self.Wk)
        v = self.split_heads(x @ self.Wv)
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(self.d_head)
        if causal:
            mask = np.triu(np.ones((T, T)), k=1).astype(bool)
            scores = np.where(mask, -1e9, scores)
        scores = scores - scores.max(axis=-1, keepdims=True)
        w = np.exp(scores)
        w /= w.sum(axis=-1, keepdims=True)
        self.attn = w
        out = (w @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
        return out @ self.Wo
