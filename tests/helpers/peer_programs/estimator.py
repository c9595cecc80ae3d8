"""A scikit-learn-style estimator: ``fit`` loops over epochs inside, creates its
coefficients with ``np.zeros`` on ``self`` and updates them in place, keeps a loss history
list, prints every few epochs, stops early on a tolerance; ``score`` returns a float."""

import numpy as np


class LogisticRegression:
    def __init__(self, lr=0.1, epochs=40, tol=1e-6, verbose=True):
        self.lr, self.epochs, self.tol, self.verbose = lr, epochs, tol, verbose
        self.coef_ = None
        self.intercept_ = 0.0
        self.loss_history = []

    @staticmethod
    def _sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))

    def fit(self, X, y):
        n, d = X.shape
        self.coef_ = np.zeros(d)
        self.intercept_ = 0.0
        prev = np.inf
        for epoch in range(self.epochs):
            p = self._sigmoid(X @ self.coef_ + self.intercept_)
            loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
            self.coef_ -= self.lr * (X.T @ (p - y) / n)
            self.intercept_ -= self.lr * np.mean(p - y)
            self.loss_history.append(float(loss))
            if self.verbose and epoch % 10 == 0:
                print(f"epoch {epoch}: loss {loss:.5f}")
            if abs(prev - loss) < self.tol:
                break
            prev = loss
        return self

    def predict_proba(self, X):
        return self._sigmoid(X @ self.coef_ + self.intercept_)

    def predict(self, X):
        return (self.predict_proba(X) >= 0.5).astype(int)

    def score(self, X, y):
        return float(np.mean(self.predict(X) == y))
