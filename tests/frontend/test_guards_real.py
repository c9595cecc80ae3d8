"""Guards are real: changing what a compiled version assumed gives the imperative answer."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers import assert_same, compiled, rand

SCALE = 2.0
USE_TANH = True


def scaled(x):
    y = x * SCALE
    if USE_TANH:
        return np.tanh(y)
    return y


def test_changing_a_baked_in_global_gives_the_imperative_answer():
    global SCALE, USE_TANH
    x = rand(3, 2)
    jf = compiled(scaled, x)
    (version,) = jf.versions.values()
    saved = SCALE, USE_TANH
    try:
        SCALE = 5.0
        assert_same(jf(x), scaled(x))
        USE_TANH = False
        assert_same(jf(x), scaled(x))
        assert version not in jf.versions.values() and "rebound" in janus.explain(jf)
    finally:
        SCALE, USE_TANH = saved
    assert_same(jf(x), scaled(x))


def affine(x, w):
    return x * w + 1


def test_changing_an_argument_dtype_gives_the_imperative_answer():
    x, w = rand(4), rand(4, seed=1)
    jf = compiled(affine, x, w)
    for a, b in ((x.astype(np.float64), w), (x, w.astype(np.int64)), ((x * 10).astype(np.int64), w.astype(np.int64))):
        assert_same(jf(a, b), affine(a, b))
    (version,) = [v for v in jf.versions.values() if v.key[0][2] == "float32" and v.key[1][2] == "float32"]
    assert version.calls == 0  # never used for the other dtypes
