"""Image batch statistics and augmentation on uint8 images, written the way a
vision person writes it: integer pixel arithmetic, a histogram of intensities by
comparison, flips and crops by slicing, per-channel standardization in float32."""

import numpy as np


def augment(images, flip):
    """images: (N, H, W, C) uint8."""
    out = images[:, :, ::-1, :] if flip else images
    return np.ascontiguousarray(out[:, 1:-1, 1:-1, :])


def to_gray(images):
    weights = np.array([299, 587, 114], dtype=np.uint32)
    return ((images.astype(np.uint32) * weights).sum(axis=-1) // 1000).astype(np.uint8)


def brightness_bins(gray, n_bins=4):
    edges = (np.arange(1, n_bins) * (256 // n_bins)).astype(np.uint8)
    return (gray[..., None] >= edges).sum(axis=-1)


def standardize(images):
    x = images.astype(np.float32) / 255.0
    mean = x.mean(axis=(0, 1, 2))
    std = x.std(axis=(0, 1, 2)) + 1e-6
    return (x - mean) / std


def batch_stats(images):
    gray = to_gray(images)
    bins = brightness_bins(gray)
    inverted = 255 - images
    darker = np.minimum(images, inverted)
    contrast = gray.max(axis=(1, 2)).astype(np.int16) - gray.min(axis=(1, 2)).astype(np.int16)
    return standardize(images), gray, bins, darker, contrast, (gray > 127).mean()
