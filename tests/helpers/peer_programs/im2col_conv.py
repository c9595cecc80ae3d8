"""A convolution layer by ``im2col`` as CS231n-style code writes it: ``N, C, H, W = x.shape``,
output sizes computed with ``//``, a patch matrix filled by Python loops over the output
positions, ``np.pad`` for the border, then one matmul; a max-pool by loops over windows."""

import numpy as np


class Conv2D:
    def __init__(self, c_in, c_out, k=3, stride=1, pad=1, seed=0):
        rng = np.random.default_rng(seed)
        self.w = rng.standard_normal((c_out, c_in, k, k)) * np.sqrt(2 / (c_in * k * k))
        self.b = np.zeros(c_out)
        self.k, self.stride, self.pad = k, stride, pad

    def im2col(self, x):
        N, C, H, W = x.shape
        k, s = self.k, self.stride
        xp = np.pad(x, ((0, 0), (0, 0), (self.pad, self.pad), (self.pad, self.pad)))
        out_h = (H + 2 * self.pad - k) // s + 1
        out_w = (W + 2 * self.pad - k) // s + 1
        cols = np.zeros((N, C * k * k, out_h * out_w))
        for i in range(out_h):
            for j in range(out_w):
                patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
                cols[:, :, i * out_w + j] = patch.reshape(N, -1)
        return cols, out_h, out_w

    def forward(self, x):
        N = x.shape[0]
        cols, out_h, out_w = self.im2col(x)
        out = self.w.reshape(self.w.shape[0], -1) @ cols + self.b[:, None]
        return np.maximum(out.reshape(N, -1, out_h, out_w), 0)


def max_pool(x, size=2):
    N, C, H, W = x.shape
    out = np.zeros((N, C, H // size, W // size))
    for i in range(H // size):
        for j in range(W // size):
            out[:, :, i, j] = x[:, :, i * size:(i + 1) * size, j * size:(j + 1) * size].max(axis=(2, 3))
    return out
