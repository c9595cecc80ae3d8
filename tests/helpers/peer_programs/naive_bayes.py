"""Gaussian naive Bayes the way a scikit-learn look-alike writes it: ``fit`` finds the classes
with ``np.unique`` and stores per-class means, variances (plus ``var_smoothing``) and log
priors by a loop over ``X[y == c]``; the joint log-likelihood is
``-0.5 * np.sum(np.log(2 * np.pi * var)) - 0.5 * np.sum((X - mu) ** 2 / var, axis=1)`` per class,
stacked as columns, normalized by a hand-written log-sum-exp, and ``predict`` maps
``np.argmax`` back through ``self.classes_``."""

import numpy as np


def logsumexp(a, axis=None):
    a_max = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - a_max), axis=axis, keepdims=True)) + a_max
    return np.squeeze(out, axis=axis)


class GaussianNB:
    def __init__(self, var_smoothing=1e-9):
        self.var_smoothing = var_smoothing

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        n_classes, n_features = len(self.classes_), X.shape[1]
        self.theta_ = np.zeros((n_classes, n_features))
        self.var_ = np.zeros((n_classes, n_features))
        self.class_log_prior_ = np.zeros(n_classes)
        eps = self.var_smoothing * np.var(X, axis=0).max()
        for i, c in enumerate(self.classes_):
            Xc = X[y == c]
            self.theta_[i, :] = Xc.mean(axis=0)
            self.var_[i, :] = Xc.var(axis=0) + eps
            self.class_log_prior_[i] = np.log(Xc.shape[0] / X.shape[0])
        return self

    def _joint_log_likelihood(self, X):
        jll = []
        for i in range(np.size(self.classes_)):
            n_ij = -0.5 * np.sum(np.log(2.0 * np.pi * self.var_[i, :]))
            n_ij -= 0.5 * np.sum(((X - self.theta_[i, :]) ** 2) / self.var_[i, :], axis=1)
            jll.append(self.class_log_prior_[i] + n_ij)
        return np.array(jll).T

    def predict_log_proba(self, X):
        jll = self._joint_log_likelihood(X)
        return jll - np.atleast_2d(logsumexp(jll, axis=1)).T

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        return self.classes_[np.argmax(self._joint_log_likelihood(X), axis=1)]
