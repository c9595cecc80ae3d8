"""Calls ``janus.jit`` settled on running in Python skip the key walk (``_settle_in_python``),
yet still see a new key or new types and compile them, against plain Python."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import janus
from tests.helpers import assert_same

jit_module = importlib.import_module("janus.frontend.jit")


def scaled(x, k):
    if k > 1:
        return x.real * 2.0  # ``.real`` does not convert: signatures with k > 1 run in Python
    return x * 2.0


def imports(x):
    import math  # no signature converts

    return x + math.pi


@pytest.fixture
def key_walks(monkeypatch) -> list[tuple]:
    """The calls that computed their entry key (``signature.key_and_leaves``)."""
    walked: list[tuple] = []
    walk = jit_module.key_and_leaves

    def counted(positional, dynamic=frozenset()):
        walked.append(positional)
        return walk(positional, dynamic)

    monkeypatch.setattr(jit_module, "key_and_leaves", counted)
    return walked


def test_a_refused_key_runs_in_python_without_the_key_walk_and_new_keys_still_compile(key_walks):
    jf = janus.jit(scaled, warmup=1, fallback="silent")
    x = np.linspace(0.0, 1.0, 6)
    for _ in range(3):
        assert_same(jf(x, 2), scaled(x, 2))
    assert not jf.versions and len(jf.fallbacks) == 1, janus.explain(jf)
    walked = len(key_walks)
    for _ in range(4):
        assert_same(jf(x, 2), scaled(x, 2))
    assert len(key_walks) == walked  # settled: the compiled argument guards alone
    assert_same(jf(x, 0), scaled(x, 0))  # a new key: the full path, compiled
    assert len(jf.versions) == 1 and jf.compiles == 1, janus.explain(jf)
    x32 = x.astype(np.float32)  # new types: a new key again
    assert_same(jf(x32, 0), scaled(x32, 0))
    assert len(jf.versions) == 2, janus.explain(jf)
    for args in [(x, 2), (x, 0), (x32, 0), (x32, 2), (x[:4], 2), (x[:4], 2)]:
        assert_same(jf(*args), scaled(*args))
    assert_same(jf(x, k=2), scaled(x, k=2))  # keywords: the full path
    assert "array attribute .real is not supported" in janus.explain(jf)


def test_a_settled_key_is_keyed_afresh_once_dims_are_relaxed():
    """A relaxation changes what key the arguments have: the settled check is dropped with it."""
    jf = janus.jit(scaled, warmup=1, fallback="silent")
    for n in (5, 5):
        x = np.ones(n)
        assert_same(jf(x, 2), scaled(x, 2))
    assert jf._settled_python is not None
    for n in (3, 3, 4):
        x = np.ones(n)
        assert_same(jf(x, 0), scaled(x, 0))  # new sizes: relaxed to ?
    assert jf.dynamic and jf._settled_python is None, janus.explain(jf)


def test_a_program_no_signature_converts_runs_in_python_without_keys(key_walks):
    jf = janus.jit(imports, warmup=1, fallback="silent")
    x = np.arange(3.0)
    assert_same(jf(x), imports(x))
    assert jf.imperative and len(key_walks) == 1, janus.explain(jf)
    for y in (x, x.astype(np.float32), 2.0):
        assert_same(jf(y), imports(y))
    assert len(key_walks) == 1


def test_fallback_error_still_raises_on_every_call_of_a_refused_key():
    jf = janus.jit(scaled, warmup=1, fallback="error")
    x = np.ones(3)
    for _ in range(3):
        with pytest.raises(janus.ConversionError, match="runs in Python"):
            jf(x, 2)
