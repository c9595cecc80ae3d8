"""A small variational autoencoder in NumPy: encoder and decoder weights in dicts, the
reparameterization trick drawing from a ``Generator`` kept on the model, a KL term, a
``@property`` for the latent size, ``@staticmethod`` helpers, a ``@classmethod`` constructor
from a config dict, and the decoder's output layer also reachable as ``self.out`` (two
attributes naming one object)."""

import numpy as np


class Linear:
    def __init__(self, n_in, n_out, rng):
        self.W = rng.standard_normal((n_in, n_out)) * np.sqrt(1.0 / n_in)
        self.b = np.zeros(n_out)

    def __call__(self, x):
        return x @ self.W + self.b


class VAE:
    def __init__(self, n_in=8, n_hidden=16, n_latent=2, seed=0):
        self.rng = np.random.default_rng(seed)
        self.enc = Linear(n_in, n_hidden, self.rng)
        self.mu_head = Linear(n_hidden, n_latent, self.rng)
        self.logvar_head = Linear(n_hidden, n_latent, self.rng)
        self.dec = [Linear(n_latent, n_hidden, self.rng), Linear(n_hidden, n_in, self.rng)]
        self.out = self.dec[-1]
        self.beta = 1.0

    @classmethod
    def from_config(cls, cfg):
        return cls(cfg["n_in"], cfg.get("n_hidden", 16), cfg.get("n_latent", 2), cfg.get("seed", 0))

    @property
    def latent_dim(self):
        return self.mu_head.W.shape[1]

    @staticmethod
    def softplus(x):
        return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)

    @staticmethod
    def kl_divergence(mu, logvar):
        return -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar), axis=1)

    def encode(self, x):
        h = np.tanh(self.enc(x))
        return self.mu_head(h), self.logvar_head(h)

    def reparameterize(self, mu, logvar):
        eps = self.rng.standard_normal(mu.shape)
        return mu + np.exp(0.5 * logvar) * eps

    def decode(self, z):
        h = np.tanh(self.dec[0](z))
        return self.out(h)

    def loss(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        logits = self.decode(z)
        recon = np.sum(self.softplus(logits) - x * logits, axis=1)
        return np.mean(recon + self.beta * self.kl_divergence(mu, logvar))

    def sample(self, n):
        z = self.rng.standard_normal((n, self.latent_dim))
        return 1.0 / (1.0 + np.exp(-self.decode(z)))

    def shrink_output(self, factor):
        """Weight decay on the output layer, through ``self.out`` (the same layer as ``self.dec[-1]``)."""
        self.out.W *= factor
        return np.abs(self.dec[-1].W).sum()
