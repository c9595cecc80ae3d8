"""A helper module the idiom tests call into as "another module" (``mathlib.softplus(x)``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

SCALE = 2.0
OFFSET = np.arange(4, dtype=np.float32)  # a mutable module attribute: a heap read


def softplus(x):
    return np.log(1.0 + np.exp(x))


def doubled(x):
    return x * 2.0


class Out(NamedTuple):
    loss: np.ndarray
    grad: np.ndarray

    @property
    def total(self):
        return self.grad.sum() + self.loss
