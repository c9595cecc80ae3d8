"""A decoder-only transformer layer written functionally: weights in a dict, ``einsum``
everywhere, a causal mask from ``np.triu`` filled with ``np.finfo(dtype).min``, RMS norm
through ``np.linalg.norm``, a GELU with ``np.tanh``, logits through ``np.tensordot``."""

import numpy as np


def init(d_model=16, n_heads=2, d_ff=32, vocab=11, seed=0):
    rng = np.random.default_rng(seed)
    shapes = {"wqkv": (d_model, 3, n_heads, d_model // n_heads), "wo": (n_heads, d_model // n_heads, d_model),
              "w1": (d_model, d_ff), "w2": (d_ff, d_model), "unembed": (d_model, vocab)}
    params = {k: (rng.standard_normal(s) / np.sqrt(s[0])).astype(np.float32) for k, s in shapes.items()}
    params["g1"] = np.ones(d_model, np.float32)
    params["g2"] = np.ones(d_model, np.float32)
    return params


def rms_norm(x, g, eps=1e-6):
    rms = np.linalg.norm(x, axis=-1, keepdims=True) / np.sqrt(x.shape[-1])
    return g * x / (rms + eps)


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(x, p):
    T = x.shape[1]
    qkv = np.einsum("btd,dshe->sbhte", x, p["wqkv"])
    q, k, v = qkv[0], qkv[1], qkv[2]
    scores = np.einsum("bhqe,bhke->bhqk", q, k) / np.sqrt(q.shape[-1])
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(mask, np.finfo(scores.dtype).min, scores)
    out = np.einsum("bhqk,bhke->bhqe", softmax(scores), v)
    return np.einsum("bhte,hed->btd", out, p["wo"])


def layer(p, x):
    x = x + attention(rms_norm(x, p["g1"]), p)
    x = x + gelu(rms_norm(x, p["g2"]) @ p["w1"]) @ p["w2"]
    logits = np.tensordot(x, p["unembed"], axes=([2], [0]))
    return logits, np.argmax(logits, axis=-1)
