"""An MLP GAN (G 64-128-784, D 784-128-1) with its parameters as object attributes; the
non-saturating losses, one discriminator and one generator SGD step per batch."""

from __future__ import annotations

import numpy as np

import janus
from janus.models.nn import F32, init, sigmoid, softplus
from janus.models.workload import ModelSpec, Size, Workload

SIZES = {  # noise, hidden, image, batch, steps
    "full": (64, 128, 784, 64, 12),
    "quick": (8, 16, 32, 8, 8),
}


class GAN:
    def __init__(self, noise: int, hidden: int, image: int, seed: int = 0, lr: float = 0.05) -> None:
        rng = np.random.default_rng(seed)
        self.G1, self.g1 = init(rng, noise, hidden), np.zeros(hidden, F32)
        self.G2, self.g2 = init(rng, hidden, image), np.zeros(image, F32)
        self.D1, self.d1 = init(rng, image, hidden), np.zeros(hidden, F32)
        self.D2, self.d2 = init(rng, hidden, 1), np.zeros(1, F32)
        self.lr = lr

    def generate(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.maximum(z @ self.G1 + self.g1, 0.0)
        return np.tanh(h @ self.G2 + self.g2), h

    def discriminate(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.maximum(x @ self.D1 + self.d1, 0.0)
        return (h @ self.D2 + self.d2)[:, 0], h

    def discriminator_backward(self, x: np.ndarray, h: np.ndarray, dlogit: np.ndarray) -> tuple:
        """Gradients of D's parameters and of its input for the logit gradient ``dlogit``."""
        dh = (dlogit[:, None] @ self.D2.T) * (h > 0)
        return x.T @ dh, dh.sum(axis=0), h.T @ dlogit[:, None], dlogit.sum(keepdims=True), dh @ self.D1.T

    @janus.jit
    def train_step(self, z: np.ndarray, real: np.ndarray) -> tuple[float, float]:
        """Returns the discriminator's and the generator's loss."""
        n = len(z)
        fake, _ = self.generate(z)
        real_logit, real_h = self.discriminate(real)
        fake_logit, fake_h = self.discriminate(fake)
        d_loss = softplus(-real_logit).mean() + softplus(fake_logit).mean()
        real_grads = self.discriminator_backward(real, real_h, -sigmoid(-real_logit) / n)
        fake_grads = self.discriminator_backward(fake, fake_h, sigmoid(fake_logit) / n)
        for param, g_real, g_fake in zip((self.D1, self.d1, self.D2, self.d2), real_grads, fake_grads):
            param -= self.lr * (g_real + g_fake)
        fake, gh = self.generate(z)
        logit, h = self.discriminate(fake)
        g_loss = softplus(-logit).mean()
        dfake = self.discriminator_backward(fake, h, -sigmoid(-logit) / n)[4] * (1.0 - fake * fake)
        dgh = (dfake @ self.G2.T) * (gh > 0)
        grads = (z.T @ dgh, dgh.sum(axis=0), gh.T @ dfake, dfake.sum(axis=0))
        for param, grad in zip((self.G1, self.g1, self.G2, self.g2), grads):
            param -= self.lr * grad
        return d_loss, g_loss

    def parameters(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in ("G1", "g1", "G2", "g2", "D1", "d1", "D2", "d2")}


def workload(size: Size) -> Workload:
    noise, hidden, image, batch, steps = SIZES[size]
    model = GAN(noise, hidden, image)
    rng = np.random.default_rng(1)
    modes = np.tanh(2.0 * rng.standard_normal((4, image))).astype(F32)  # the "real" images: four modes + noise
    real = np.clip(modes[rng.integers(0, 4, (steps, batch))] + 0.1 * rng.standard_normal((steps, batch, image)), -1, 1)
    real = real.astype(F32)
    z = rng.standard_normal((steps, batch, noise)).astype(F32)

    def step(i: int) -> tuple[float, float]:
        return model.train_step(z[i % steps], real[i % steps])

    g_fwd, d_fwd = 2 * batch * (noise * hidden + hidden * image), 2 * batch * (image * hidden + hidden)
    # D step: G forward, D forward+backward on real and fake; G step: G and D forward, D and G backward
    flops = g_fwd + 2 * 3 * d_fwd + g_fwd + d_fwd + 2 * d_fwd + 2 * g_fwd
    return Workload(step, model.parameters, steps, 4, "images", batch, flops)


SPECS = [ModelSpec("gan", "MLP GAN, parameters as object attributes", "overhead", workload, (__name__,))]
