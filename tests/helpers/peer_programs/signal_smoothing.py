"""A 1-d signal model written as plain functions: moving-average and triangular smoothing by
``np.convolve``, a lag estimate by ``np.correlate``, a robust noise level from the median
absolute deviation, and a covariance of smoothed channels (``np.cov``)."""

import numpy as np


def moving_average(s, k=5):
    kernel = np.ones(k) / k
    return np.convolve(s, kernel, mode="same")


def triangular(s):
    return np.convolve(s, [0.25, 0.5, 0.25], "same")


def estimate_lag(a, b, max_lag=8):
    xc = np.correlate(a - a.mean(), b - b.mean(), mode="full")
    mid = len(b) - 1
    window = xc[mid - max_lag: mid + max_lag + 1]
    return np.argmax(window) - max_lag, window


def noise_level(s):
    resid = s - triangular(s)
    mad = np.median(np.abs(resid - np.median(resid)))
    return 1.4826 * mad


def analyse(a, b):
    sa, sb = moving_average(a), moving_average(b)
    lag, xc = estimate_lag(sa, sb)
    sigma = noise_level(a)
    C = np.cov(np.stack([sa, sb, triangular(b)]))
    edges = np.convolve(sa, [1.0, -1.0], mode="valid")
    return lag, xc, sigma, C, np.abs(edges).max()
