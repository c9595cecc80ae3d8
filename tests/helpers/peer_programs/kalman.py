"""A linear Kalman filter the way tracking tutorials write it: a constant-velocity model with
``F``, ``H``, ``Q``, ``R`` matrices built in ``__init__``, ``predict`` and ``update`` methods
that rebind ``self.x`` and ``self.P`` with ``@`` and ``.T``, the gain from ``np.linalg.inv`` of
the innovation covariance, the Joseph-free covariance update ``(I - K @ H) @ P``, and a
``filter`` method looping over a list of measurements that collects the estimates in a list
and returns ``np.array(estimates)``; and the innovation log-likelihood as a function of the
matrices, solving with ``np.linalg.solve`` instead of inverting."""

import numpy as np


class KalmanFilter:
    def __init__(self, dt=1.0, process_var=0.01, meas_var=0.5):
        self.F = np.array([[1.0, dt], [0.0, 1.0]])
        self.H = np.array([[1.0, 0.0]])
        self.Q = process_var * np.array([[dt**4 / 4, dt**3 / 2], [dt**3 / 2, dt**2]])
        self.R = np.array([[meas_var]])
        self.x = np.zeros((2, 1))
        self.P = np.eye(2) * 10.0

    def predict(self):
        self.x = self.F @ self.x
        self.P = self.F @ self.P @ self.F.T + self.Q
        return self.x

    def update(self, z):
        y = z - self.H @ self.x
        S = self.H @ self.P @ self.H.T + self.R
        K = self.P @ self.H.T @ np.linalg.inv(S)
        self.x = self.x + K @ y
        I = np.eye(self.P.shape[0])
        self.P = (I - K @ self.H) @ self.P
        return float(y[0, 0])

    def step(self, z):
        self.predict()
        innovation = self.update(np.array([[z]]))
        return self.x[0, 0], innovation

    def filter(self, measurements):
        estimates = []
        for z in measurements:
            self.predict()
            self.update(np.array([[z]]))
            estimates.append(self.x.ravel().copy())
        return np.array(estimates)


def log_likelihood(F, H, Q, R, zs, x0, P0):
    """The same filter as a function of its matrices: the Gaussian log-likelihood of the
    innovations, the gain by ``np.linalg.solve`` of the transposed system."""
    x, P = x0, P0
    ll = 0.0
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + Q
        y = z - H @ x
        S = H @ P @ H.T + R
        K = np.linalg.solve(S.T, (P @ H.T).T).T
        x = x + K @ y
        P = P - K @ S @ K.T
        ll += -0.5 * (y.T @ np.linalg.solve(S, y)).item() - 0.5 * np.log(np.linalg.det(2 * np.pi * S))
    return ll
