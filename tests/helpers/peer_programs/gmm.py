"""A Gaussian mixture fitted by expectation maximization, the way a machine-learning course
writes it: a multivariate normal density from ``np.linalg.det`` and ``np.linalg.inv`` with an
``einsum`` for the Mahalanobis term, responsibilities normalized per row, the M-step by a Python
loop over components writing ``self.means[k]`` and ``self.covs[k]`` (regularized by ``1e-6 *
np.eye``), the mixing weights from ``Nk / n``, and the log-likelihood for a stopping test."""

import numpy as np


def gaussian_pdf(X, mean, cov):
    d = X.shape[1]
    diff = X - mean
    inv = np.linalg.inv(cov)
    norm = 1.0 / np.sqrt((2 * np.pi) ** d * np.linalg.det(cov))
    return norm * np.exp(-0.5 * np.einsum("ij,jk,ik->i", diff, inv, diff))


class GMM:
    def __init__(self, X, n_components):
        self.K = n_components
        self.means = X[:n_components].copy()
        self.covs = np.array([np.eye(X.shape[1]) for _ in range(n_components)])
        self.weights = np.full(n_components, 1.0 / n_components)

    def e_step(self, X):
        resp = np.zeros((X.shape[0], self.K))
        for k in range(self.K):
            resp[:, k] = self.weights[k] * gaussian_pdf(X, self.means[k], self.covs[k])
        total = resp.sum(axis=1, keepdims=True)
        return resp / total, np.sum(np.log(total))

    def m_step(self, X, resp):
        n, d = X.shape
        Nk = resp.sum(axis=0)
        for k in range(self.K):
            self.means[k] = resp[:, k] @ X / Nk[k]
            diff = X - self.means[k]
            self.covs[k] = (resp[:, k, None] * diff).T @ diff / Nk[k] + 1e-6 * np.eye(d)
        self.weights = Nk / n

    def step(self, X):
        resp, ll = self.e_step(X)
        self.m_step(X, resp)
        return ll

    def fit(self, X, n_iter=20, tol=1e-6):
        prev = -np.inf
        for i in range(n_iter):
            ll = self.step(X)
            if abs(ll - prev) < tol:
                break
            prev = ll
        return ll, i
