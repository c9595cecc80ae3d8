"""A random-walk Metropolis-Hastings sampler, the way a Bayesian-statistics notebook writes it:
a log-density of a 2-d banana-shaped target as a plain function, the sampler taking the
target, a start point, a step size and a ``Generator`` argument, a proposal
``x + step * rng.standard_normal(d)``, acceptance by ``np.log(rng.uniform()) < log_p_new -
log_p``, samples preallocated with ``np.empty`` and filled row by row, and the acceptance rate
counted in an int; summaries (mean, covariance) of the chain by ``np.cov(..., rowvar=False)``."""

import numpy as np


def log_banana(x, b=0.1):
    y1 = x[0]
    y2 = x[1] + b * x[0] ** 2 - 100 * b
    return -0.5 * (y1**2 / 100.0 + y2**2)


def log_gauss(x):
    return -0.5 * np.dot(x, x)


def metropolis(log_p, x0, n_samples, step, rng):
    d = len(x0)
    samples = np.empty((n_samples, d))
    x = np.array(x0, dtype=float)
    lp = log_p(x)
    accepted = 0
    for i in range(n_samples):
        proposal = x + step * rng.standard_normal(d)
        lp_new = log_p(proposal)
        if np.log(rng.uniform()) < lp_new - lp:
            x, lp = proposal, lp_new
            accepted += 1
        samples[i] = x
    return samples, accepted / n_samples


def chain_summary(samples, burn_in=10):
    kept = samples[burn_in:]
    return kept.mean(axis=0), np.cov(kept, rowvar=False)
