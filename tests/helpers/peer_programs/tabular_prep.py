"""Tabular preprocessing the way a data scientist writes it in a notebook turned script:
impute missing values with column means (``np.nanmean``), winsorize at the 1st/99th
percentiles, robust-scale with the median and the interquartile range, bin one feature with
``np.digitize``, count outliers, and score rows with a linear model."""

import numpy as np

BINS = np.linspace(-3.0, 3.0, 7)


def impute(X):
    col_means = np.nanmean(X, axis=0)
    missing = np.isnan(X)
    X = np.where(missing, col_means, X)
    return X, np.count_nonzero(missing, axis=0)


def winsorize(X, lo=1.0, hi=99.0):
    low = np.percentile(X, lo, axis=0)
    high = np.percentile(X, hi, axis=0)
    return np.clip(X, low, high)


def robust_scale(X):
    med = np.median(X, axis=0)
    q1, q3 = np.quantile(X, [0.25, 0.75], axis=0)
    iqr = q3 - q1
    iqr = np.where(iqr == 0, 1.0, iqr)
    return (X - med) / iqr


def preprocess(X, w, b):
    X, n_missing = impute(X)
    X = winsorize(X)
    Z = robust_scale(X)
    outliers = np.count_nonzero(np.abs(Z) > 2.5)
    bucket = np.digitize(Z[:, 0], BINS)
    spread = np.ptp(Z, axis=0)
    score = 1.0 / (1.0 + np.exp(-(Z @ w + b)))
    return score, bucket, n_missing, outliers, spread, np.nanmax(X, axis=0)
