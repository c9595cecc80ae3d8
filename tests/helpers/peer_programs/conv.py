"""A tiny conv net: 'same' convolution by ``np.pad`` and a loop over kernel offsets,
2x2 max pooling by reshape, then a linear read-out; float32 throughout."""

import numpy as np

from tests.helpers.peer_programs.functional import relu


def conv2d(x, w, b):
    """x: (N, C, H, W), w: (F, C, kh, kw), stride 1, zero padding to keep H and W."""
    N, C, H, W = x.shape
    F, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2)), mode="constant")
    out = np.zeros((N, F, H, W), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + H, j:j + W]
            out += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return out + b[None, :, None, None]


def max_pool(x):
    N, C, H, W = x.shape
    return x.reshape(N, C, H // 2, 2, W // 2, 2).max(axis=(3, 5))


class ConvNet:
    def __init__(self, channels=3, filters=4, classes=5, size=8, seed=0):
        rng = np.random.default_rng(seed)
        self.w = rng.normal(0, 0.3, (filters, channels, 3, 3)).astype("float32")
        self.b = np.zeros(filters, dtype="float32")
        self.fc = rng.normal(0, 0.1, (filters * (size // 2) ** 2, classes)).astype("float32")

    def predict(self, images):
        x = images.astype(np.float32) / 255.0
        h = max_pool(relu(conv2d(x, self.w, self.b)))
        logits = h.reshape(h.shape[0], -1) @ self.fc
        return logits.argmax(axis=1), logits
