"""A bootstrap particle filter for a 1-d random walk observed in Gaussian noise, written the way
robotics course notebooks write it: particles and weights as attributes, a ``Generator`` kept
in ``self.rng``, prediction by ``particles + rng.normal(...)``, likelihood weights by
``np.exp(-0.5 * ((z - particles) / sigma) ** 2)`` normalized by their sum, the effective sample
size ``1 / np.sum(w ** 2)``, and systematic resampling with ``np.cumsum`` and
``np.searchsorted`` over ``(rng.random() + np.arange(n)) / n``."""

import numpy as np


def systematic_resample(weights, u):
    n = len(weights)
    positions = (u + np.arange(n)) / n
    cumulative = np.cumsum(weights)
    cumulative[-1] = 1.0
    return np.searchsorted(cumulative, positions)


def estimate(particles, weights):
    mean = np.sum(particles * weights)
    var = np.sum(weights * (particles - mean) ** 2)
    return mean, var


class ParticleFilter:
    def __init__(self, n=64, process_std=0.3, meas_std=0.5, seed=0):
        self.rng = np.random.default_rng(seed)
        self.n = n
        self.process_std, self.meas_std = process_std, meas_std
        self.particles = self.rng.normal(0.0, 1.0, n)
        self.weights = np.full(n, 1.0 / n)

    def reweight(self, z):
        likelihood = np.exp(-0.5 * ((z - self.particles) / self.meas_std) ** 2)
        self.weights = self.weights * likelihood
        self.weights += 1e-300
        self.weights /= np.sum(self.weights)
        return 1.0 / np.sum(self.weights**2)

    def step(self, z):
        self.particles = self.particles + self.rng.normal(0.0, self.process_std, self.n)
        ess = self.reweight(z)
        if ess < self.n / 2:
            idx = systematic_resample(self.weights, self.rng.random())
            self.particles = self.particles[idx]
            self.weights = np.full(self.n, 1.0 / self.n)
        return estimate(self.particles, self.weights)
