"""Functions with ``assert`` statements, kept out of test modules: pytest rewrites the
asserts of those into different bytecode."""

from __future__ import annotations

import numpy as np


def checked_log(x):
    assert x.min() > 0, "log of a non-positive value"
    return np.log(x)
