"""A tiny CNN on single-channel images without any layer classes: convolution as
``sliding_window_view`` + ``einsum``, 2x2 max pooling by reshape, a dense head and a
plain-function SGD step whose gradient of the head is written out by hand."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def init(n_filters=4, k=3, size=8, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    pooled = (size - k + 1) // 2
    return {
        "filters": rng.standard_normal((n_filters, k, k)) * 0.3,
        "W": rng.standard_normal((n_filters * pooled * pooled, n_classes)) * 0.1,
        "b": np.zeros(n_classes),
    }


def conv2d(images, filters):
    k = filters.shape[-1]
    windows = sliding_window_view(images, (k, k), axis=(1, 2))
    return np.einsum("nhwij,fij->nfhw", windows, filters)


def max_pool(x):
    n, f, h, w = x.shape
    h2, w2 = h // 2, w // 2
    x = x[:, :, :h2 * 2, :w2 * 2]
    return x.reshape(n, f, h2, 2, w2, 2).max(axis=(3, 5))


def features(net, images):
    fmap = np.maximum(conv2d(images, net["filters"]), 0)
    return max_pool(fmap).reshape(len(images), -1)


def head_step(net, images, labels, lr=0.05):
    """Train the dense head on frozen conv features; returns the loss."""
    feats = features(net, images)
    logits = feats @ net["W"] + net["b"]
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    onehot = np.eye(probs.shape[1])[labels]
    loss = -np.sum(onehot * np.log(probs + 1e-9)) / len(images)
    dlogits = (probs - onehot) / len(images)
    net["W"] -= lr * feats.T @ dlogits
    net["b"] -= lr * dlogits.sum(axis=0)
    return loss
