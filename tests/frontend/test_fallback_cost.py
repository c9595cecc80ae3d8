"""Fallbacks that hold for any arguments make a jit function imperative for every call (no
entry keys computed); a failure that depends on the arguments leaves later signatures free
to compile."""

import importlib

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, rand

jit_module = importlib.import_module("janus.frontend.jit")


def imports_first(x):
    import math

    return x * math.pi


def defines_class(x, n):
    class Box:
        pass

    return x * n


def makes_generator(x):
    yield x * 2.0


def imports_on_a_branch(x, flag):
    if flag:
        import math

        return x * math.pi
    return x * 2.0


def matmul(a, b):
    return a @ b


def _no_keys(*args, **kwargs):
    raise AssertionError("an entry key was computed")


@pytest.mark.parametrize("fn, reason", [(imports_first, "imports run imperatively"),
                                        (defines_class, "class definitions run imperatively")])
def test_certain_failure_makes_every_call_imperative(fn, reason, monkeypatch):
    jf = janus.jit(fn, warmup=1)
    args = (rand(3),) if fn is imports_first else (rand(3), 2)
    assert_same(jf(*args), fn(*args))
    assert jf.imperative and not jf.versions
    text = janus.explain(jf)
    assert "imperative: (any arguments)" in text and reason in text and "no entry keys computed" in text
    monkeypatch.setattr(jit_module, "key_and_leaves", _no_keys)
    for new in [(rand(5, 2),), (rand(4).astype(np.float32),)] if fn is imports_first else [(rand(2), 3), (rand(6), 7)]:
        assert_same(jf(*new), fn(*new))
    assert jf.profile.runs == 1  # never profiled again


def test_generator_function_is_imperative_for_any_arguments():
    jf = janus.jit(makes_generator, warmup=1)
    for _ in range(2):
        assert_same(list(jf(rand(3))), list(makes_generator(rand(3))))
    assert jf.imperative and "generator" in janus.explain(jf)


def test_unsupported_construct_on_a_branch_still_compiles_the_other_side():
    jf = janus.jit(imports_on_a_branch, warmup=1)
    x = rand(4)
    for _ in range(2):
        assert_same(jf(x, True), imports_on_a_branch(x, True))
    assert not jf.imperative and "IMPORT_NAME" in janus.explain(jf)
    for _ in range(3):
        assert_same(jf(x, False), imports_on_a_branch(x, False))
    (version,) = jf.versions.values()
    assert version.calls >= 1


def test_signature_dependent_failure_still_compiles_a_later_signature():
    jf = janus.jit(matmul, warmup=1)
    a3, b3 = rand(2, 3, 4) > 0, rand(2, 4, 5) > 0  # NumPy multiplies bools; the op table does not
    for _ in range(2):
        assert_same(jf(a3, b3), matmul(a3, b3))
    assert not jf.imperative and not jf.versions and "bool matmul" in janus.explain(jf)
    a, b = rand(3, 4), rand(4, 5)
    for _ in range(3):
        assert_same(jf(a, b), matmul(a, b))
    (version,) = jf.versions.values()
    assert version.calls >= 1
