"""Principal components by power iteration with deflation, the way linear-algebra homework
writes it: center the data with ``X.mean(axis=0)``, the covariance ``Xc.T @ Xc / (n - 1)``, a
fixed number of iterations of ``v = C @ v; v /= np.linalg.norm(v)``, the eigenvalue as the
Rayleigh quotient ``v @ C @ v``, deflation by ``C -= lam * np.outer(v, v)``, components stacked
with ``np.vstack``, and the projection / reconstruction error of new data."""

import numpy as np


def power_iteration(C, v, n_iter=50):
    for _ in range(n_iter):
        v = C @ v
        v = v / np.linalg.norm(v)
    return v @ C @ v, v


def top_components(X, k, n_iter=50):
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / (X.shape[0] - 1)
    components, values = [], []
    for i in range(k):
        v0 = np.ones(C.shape[0]) / np.sqrt(C.shape[0])
        lam, v = power_iteration(C, v0, n_iter)
        components.append(v)
        values.append(lam)
        C = C - lam * np.outer(v, v)
    return np.vstack(components), np.array(values)


class PCA:
    def __init__(self, n_components):
        self.k = n_components
        self.components = None
        self.mean = None

    def fit(self, X):
        self.mean = X.mean(axis=0)
        self.components, self.explained = top_components(X, self.k)
        return self

    def transform(self, X):
        return (X - self.mean) @ self.components.T

    def reconstruction_error(self, X):
        Z = self.transform(X)
        X_hat = Z @ self.components + self.mean
        return np.mean(np.sum((X - X_hat) ** 2, axis=1))
