"""One Lloyd step of k-means (``np.linalg.norm``, ``np.argmin``, ``np.bincount``,
``np.add.at``) and a power-iteration PCA step."""

import numpy as np


def assign(X, centroids):
    dists = np.linalg.norm(X[:, None, :] - centroids[None, :, :], axis=-1)
    return np.argmin(dists, axis=1), dists.min(axis=1)


def kmeans_step(X, centroids):
    labels, d = assign(X, centroids)
    k = centroids.shape[0]
    counts = np.bincount(labels, minlength=k)
    sums = np.zeros_like(centroids)
    np.add.at(sums, labels, X)
    new = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centroids)
    inertia = (d ** 2).sum()
    return new, labels, inertia


def pca_step(X, v, iters=5):
    Xc = X - X.mean(axis=0)
    cov = Xc.T @ Xc / (X.shape[0] - 1)
    for _ in range(iters):
        v = cov @ v
        v = v / np.linalg.norm(v)
    return v, v @ cov @ v
