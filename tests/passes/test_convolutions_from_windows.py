"""janus-convolutions-from-windows end to end: a convolution written as shifted matmuls
(LeNet-5's way) computes NumPy's result once its taps are one im2col matmul (one input
channel) or one ``linalg.conv_2d_nhwc_hwcf`` (three)."""

from __future__ import annotations

import numpy as np
import pytest

import janus


@janus.jit
def shifted_conv(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A valid convolution of (B, H, W, C) by (k, k, C, F) as k*k shifted matmuls."""
    B, H, Wd, C = x.shape
    k = W.shape[0]
    Ho, Wo = H - k + 1, Wd - k + 1
    out = np.zeros((B * Ho * Wo, W.shape[3]), np.float32) + b
    for i in range(k):
        for j in range(k):
            out += x[:, i : i + Ho, j : j + Wo, :].reshape(-1, C) @ W[i, j]
    return np.maximum(out.reshape(B, Ho, Wo, -1), 0.0)


@pytest.mark.parametrize(("channels", "lowered_to"), [(1, "linalg.matmul"), (3, "linalg.conv_2d_nhwc_hwcf")])
def test_shifted_matmuls_become_one_contraction_with_numpy_result(channels: int, lowered_to: str) -> None:
    rng = np.random.default_rng(channels)
    x = rng.standard_normal((2, 8, 7, channels)).astype(np.float32)
    W = rng.standard_normal((3, 3, channels, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    expected = shifted_conv.fn(x, W, b)
    for _ in range(4):  # through profiling into the compiled version
        got = shifted_conv(x, W, b)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert shifted_conv.versions, janus.explain(shifted_conv)
    lowered = str(shifted_conv.lower(x, W, b))
    contractions = lowered.count("linalg.matmul") + lowered.count("linalg.conv_2d_nhwc_hwcf")
    assert contractions == 1 and lowered_to in lowered
    assert "tensor.concat" not in lowered
