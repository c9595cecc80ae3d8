"""Programs shared by several test modules. Functions with ``assert`` statements live here
too: pytest rewrites the asserts of test modules into different bytecode."""

from __future__ import annotations

import numpy as np


def checked_log(x):
    assert x.min() > 0, "log of a non-positive value"
    return np.log(x)


def halve(x):
    while x.sum() > 1.0:
        x = x * 0.5
    return x
