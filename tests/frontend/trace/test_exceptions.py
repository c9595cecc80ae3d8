"""raise, assert, try and with in converted code, each checked against plain Python.

A raise becomes a guard (kind raise): compiled calls that do not raise stay compiled,
and a call that would raise fails the guard and raises the real exception from Python.
"""

from __future__ import annotations

import dis
from contextlib import nullcontext

import numpy as np
import pytest

import janus
from janus.frontend.trace import exceptions
from janus.frontend.generate import generate
from janus.frontend.profiler import Profile
from janus.frontend.values import NotConvertible
from tests.helpers.programs import checked_log
from tests.helpers import assert_same, compiled, in_python, rand


def same_exception(jf, fn, *args) -> None:
    """``jf(*args)`` raises what ``fn(*args)`` raises: same type, same message."""
    with pytest.raises(Exception) as want:
        fn(*args)
    with pytest.raises(want.type) as got:
        jf(*args)
    assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


def raise_kinds(jf) -> list[str]:
    (version,) = jf.versions.values()
    return [kind for _, kind, _ in version.graph.guards if kind == "raise"]


# ---- raise behind a speculated branch --------------------------------------------------------
def bounded(x):
    y = np.tanh(x) * 3.0
    if y.sum() > 4.0:
        raise ValueError("activation sum above 4")
    return y + 1.0


def test_raise_behind_a_speculated_branch_surfaces_the_real_exception():
    small, big = rand(3) * 0.1, np.full(3, 2.0, np.float32)
    jf = compiled(bounded, small)
    (version,) = jf.versions.values()
    assert raise_kinds(jf) == ["raise"] and '"janus.guard"' in version.graph.text
    assert_same(jf(small * 2), bounded(small * 2))
    assert version.calls == 1  # the compiled version served the call that did not raise
    same_exception(jf, bounded, big)
    assert jf.versions[version.key] is version  # kept: the graph is right for calls that do not raise
    assert_same(jf(small), bounded(small))
    assert version.calls == 2 and "raise guard" in janus.explain(jf)


# ---- raise seen while profiling: the fork becomes a raise guard ----------------------------------
def positive_sqrt(x):
    if x.min() <= 0:
        raise ValueError(f"min {x.min()} is not positive")  # f-string of an array: not traceable
    return np.sqrt(x)


@pytest.mark.parametrize("fn", [checked_log, positive_sqrt])
def test_raise_seen_while_profiling_becomes_a_raise_guard(fn):
    good, bad = np.abs(rand(4)) + 0.5, rand(4) - 3.0
    jf = janus.jit(fn, warmup=2)
    assert_same(jf(good), fn(good))
    same_exception(jf, fn, bad)  # profiled: the branch went both ways
    assert_same(jf(good * 2), fn(good * 2))
    assert raise_kinds(jf) == ["raise"], janus.explain(jf)
    (version,) = jf.versions.values()
    assert "scf.if" not in version.graph.text  # not forked: the raising side is never traced
    assert_same(jf(good), fn(good))
    assert version.calls == 1
    same_exception(jf, fn, bad)


def fail(message):
    raise ValueError(message)


def normalized(x):
    total = x.sum()
    if total < 0:
        fail("negative total")
    return x / total


def test_raise_inside_an_inlined_helper_is_found_by_tracing_the_side():
    pos, neg = np.abs(rand(5)) + 0.1, -np.abs(rand(5)) - 0.1
    assert not exceptions.raises(normalized.__code__, 0)  # not visible statically: the helper raises
    jf = janus.jit(normalized, warmup=2)
    assert_same(jf(pos), normalized(pos))
    same_exception(jf, normalized, neg)
    assert_same(jf(pos * 3), normalized(pos * 3))
    assert raise_kinds(jf) == ["raise"], janus.explain(jf)
    assert_same(jf(pos), normalized(pos))
    assert next(iter(jf.versions.values())).calls == 1
    same_exception(jf, normalized, neg)


def always_raises(x):
    y = x + 1
    raise RuntimeError("not implemented for arrays")


def test_a_raise_reached_on_the_traced_path_is_not_convertible():
    with pytest.raises(NotConvertible, match="raise RuntimeError at .* always raises"):
        generate(always_raises, (rand(2),), Profile())


# ---- try/finally and try/except --------------------------------------------------------------
def finally_scaled(x):
    try:
        if x.max() > 50.0:
            raise OverflowError("input above 50")
        y = np.tanh(x)
    finally:
        scale = 2.0
    return y * scale


def test_try_finally_is_converted_and_a_raise_inside_it_is_a_guard():
    x = rand(3, 2)
    jf = compiled(finally_scaled, x)
    assert raise_kinds(jf) == ["raise"]
    assert_same(jf(x + 1), finally_scaled(x + 1))
    same_exception(jf, finally_scaled, x + 100)
    assert next(iter(jf.versions.values())).calls == 1


def vector_or_identity(x):
    try:
        if x.ndim != 1:
            raise ValueError("want a vector")
        y = x * 2.0
    except ValueError:
        y = x
    return y


def test_try_except_converts_when_no_raise_is_reached_and_stays_imperative_when_one_is():
    v, m = rand(3), rand(2, 2)
    jf = compiled(vector_or_identity, v)
    assert_same(jf(v), vector_or_identity(v))
    for _ in range(2):
        assert_same(jf(m), vector_or_identity(m))
    assert len(jf.versions) == 1
    assert "raise ValueError" in janus.explain(jf) and "inside try/except or with" in janus.explain(jf)


# ---- with -------------------------------------------------------------------------------------
class HalfScale:
    """A stateless context manager with Python __enter__/__exit__."""

    def __enter__(self):
        return 0.5

    def __exit__(self, exc_type, exc, tb):
        return False


class Recorder:
    def __init__(self):
        self.depth = 0

    def __enter__(self):
        self.depth += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        self.depth -= 1


def with_class(x):
    with HalfScale() as s:
        y = np.tanh(x) * s
    return y + 1.0


def with_numpy_contexts(x):
    with nullcontext(2.0) as k, np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x) * k


def with_raising_errstate(x):
    with np.errstate(divide="raise"):
        return np.log(x)


def with_stateful(x):
    with Recorder():
        return x + 1


@pytest.mark.parametrize("fn, x", [
    (with_class, rand(2, 3)),
    (with_numpy_contexts, np.array([0.0, 1.0, 2.5], np.float32)),
], ids=["python-methods", "nullcontext-errstate"])
def test_with_is_converted(fn, x):
    jf = compiled(fn, x)
    (version,) = jf.versions.values()
    assert_same(jf(x * 2), fn(x * 2))
    assert version.calls == 1


@pytest.mark.parametrize("fn, x, reason", [
    (with_raising_errstate, np.array([1.0, 2.0], np.float32), "does not raise or report floating-point errors"),
    (with_stateful, rand(2), "own __init__"),
], ids=["errstate-raise", "stateful-manager"])
def test_with_stays_imperative_with_a_reason(fn, x, reason):
    jf = janus.jit(fn, warmup=1)
    for _ in range(3):
        assert_same(jf(x), fn(x))
    assert in_python(jf) and reason in janus.explain(jf), janus.explain(jf)


# ---- imperative by design ---------------------------------------------------------------------
def generator(x):
    yield x + 1


def generator_expression(xs):  # a for loop over a generator interleaves with it (a whole consumer such as sum() converts)
    total = 0.0
    for v in (x * 2 for x in xs):
        total = total + v
    return total


def class_definition(x):
    class Box:
        pass

    return x + 1


def inline_import(x):
    import math

    return x * math.pi


@pytest.mark.parametrize("fn, reason", [
    (generator, "generator"),
    (generator_expression, "generator"),
    (class_definition, "class definitions run imperatively"),
    (inline_import, "imports run imperatively"),
], ids=lambda v: getattr(v, "__name__", "reason"))
def test_imperative_by_design_with_a_reason(fn, reason):
    x = rand(3)
    jf = janus.jit(fn, warmup=1)
    for _ in range(2):
        got, want = jf(x), fn(x)
        if fn is generator:
            got, want = list(got), list(want)
        assert_same(got, want)
    assert not jf.versions and reason in janus.explain(jf), janus.explain(jf)


# ---- the exception table ----------------------------------------------------------------------
def long_try(x):
    """Offsets past 63 code units: exception-table numbers of more than one 6-bit chunk."""
    try:
        y = x
        y = y + 0
        y = y + 1
        y = y + 2
        y = y + 3
        y = y + 4
        y = y + 5
        y = y + 6
        y = y + 7
        y = y + 8
        y = y + 9
        y = y + 10
        y = y + 11
        y = y + 12
        y = y + 13
        y = y + 14
        y = y + 15
        y = y + 16
        y = y + 17
        y = y + 18
        y = y + 19
        y = y + 20
        y = y + 21
        y = y + 22
        y = y + 23
        y = y + 24
        y = y + 25
        y = y + 26
        y = y + 27
        y = y + 28
        y = y + 29
        y = y + 30
        y = y + 31
        y = y + 32
        y = y + 33
        y = y + 34
        y = y + 35
        y = y + 36
        y = y + 37
        y = y + 38
        y = y + 39
    except ValueError:
        y = x
    return y


@pytest.mark.parametrize("fn", [finally_scaled, vector_or_identity, with_numpy_contexts, with_class, long_try])
def test_exception_table_matches_dis(fn):
    want = [(e.start, e.end, e.target, e.depth, e.lasti) for e in dis._parse_exception_table(fn.__code__)]
    got = [(h.start, h.end, h.target, h.depth, h.lasti) for h in exceptions.handlers(fn.__code__)]
    assert want and got == want
