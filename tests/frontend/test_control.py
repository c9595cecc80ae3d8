"""What a user sees and controls: fallback warnings and errors, the ``janus`` loggers,
the global switch, ``clear_cache``, static arguments, ``lower`` and ``explain``."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, rand, with_print


def affine(x, n):
    return x * 2.0 + n


@pytest.fixture
def logs_off():
    yield
    janus.set_logs("")


def test_a_fallback_warns_once_per_reason_naming_explain():
    jf = janus.jit(with_print, warmup=1)
    x = rand(3)
    with pytest.warns(janus.FallbackWarning, match=r"call to print .*janus\.explain\(with_print\)") as record:
        assert_same(jf(x), with_print(x))
    assert issubclass(janus.FallbackWarning, janus.JanusWarning) and issubclass(janus.JanusWarning, UserWarning)
    assert record[0].filename == __file__  # attributed to the user's call, not to janus
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            assert_same(jf(x), with_print(x))


def test_fallback_error_raises_the_reason_and_silent_says_nothing():
    strict = janus.jit(with_print, warmup=1, fallback="error")
    for _ in range(2):  # every call that would run in Python raises, not only the first
        with pytest.raises(janus.ConversionError, match="call to print"):
            strict(rand(3))
    quiet = janus.jit(with_print, warmup=1, fallback="silent")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(quiet(rand(3)), with_print(rand(3)))
    assert "call to print" in janus.explain(quiet)
    with pytest.raises(ValueError, match="fallback"):
        janus.jit(with_print, fallback="loud")


def test_each_log_channel_reports_its_events(caplog, logs_off):
    janus.set_logs("all")
    x = rand(4)
    with caplog.at_level(logging.INFO, logger="janus"):
        jf = janus.jit(affine, warmup=1)
        assert_same(jf(x, 1.0), affine(x, 1.0))
        janus.jit(with_print, warmup=1, fallback="silent")(x)
    by_channel = {r.name: r.getMessage() for r in caplog.records}
    assert "compiled version 1" in by_channel["janus.recompiles"]
    assert "took" in by_channel["janus.compile_time"]
    assert "arg 0 (x): ndarray float32 shape (4,)" in by_channel["janus.guards"]
    assert "func.func @affine" in by_channel["janus.graph"]
    assert "call to print" in by_channel["janus.fallbacks"]
    janus.set_logs("")
    assert all(logging.getLogger(f"janus.{c}").level == logging.NOTSET for c in janus.frontend.logs.CHANNELS)
    with pytest.raises(ValueError, match="unknown janus log channel"):
        janus.set_logs("fallbacks,dynamo")


def test_environment_variables_are_read_at_import():
    code = ("import logging, janus; from janus.frontend.logs import SWITCH; "
            "print(logging.getLogger('janus.graph').level, logging.getLogger('janus.guards').level, SWITCH.enabled)")
    env = {**os.environ, "JANUS_LOGS": "graph,recompiles", "JANUS_DISABLE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == [str(logging.INFO), str(logging.NOTSET), "False"]


def test_disabled_calls_run_plain_python_unprofiled():
    jf = janus.jit(affine, warmup=1)
    x = rand(3)
    with janus.disabled():
        for _ in range(3):
            assert_same(jf(x, 1.0), affine(x, 1.0))
    janus.disable()
    try:
        assert_same(jf(x, 1.0), affine(x, 1.0))
    finally:
        janus.enable()
    assert jf.profile.runs == 0 and not jf.versions and not jf.warm
    assert_same(jf(x, 1.0), affine(x, 1.0))
    assert jf.profile.runs == 1 and jf.versions


def test_clear_cache_forgets_versions_and_warms_up_again():
    jf = janus.jit(affine, warmup=1)
    x = rand(3)
    jf(x, 1.0)
    assert jf.versions and jf.compiles == 1
    jf.clear_cache()
    assert not jf.versions and jf.profile.runs == 0 and jf.compiles == 0 and not jf.events
    assert_same(jf(x, 1.0), affine(x, 1.0))
    assert jf.compiles == 1 and jf.profile.runs == 1


def test_static_arguments_are_keyed_by_value_never_relaxed():
    jf = janus.jit(affine, warmup=1, static_argnums=1)
    by_name = janus.jit(affine, warmup=1, static_argnames="n")
    x = rand(3)
    for n in (1, 2, 1):
        assert_same(jf(x, n), affine(x, n))
        assert_same(by_name(x, n=n), affine(x, n))
    assert sorted(jf.specializations) == [(1,), (2,)]
    inner = jf.specializations[(1,)]
    assert inner.compiles == 1 and next(iter(inner.versions.values())).calls == 1
    assert not any("relaxing" in line for line in janus.explain(jf).splitlines())
    assert "janus.jit affine[n=2]" in janus.explain(jf)
    with pytest.raises(ValueError, match="hashable"):
        jf(x, [1])
    with pytest.raises(ValueError, match="not parameters"):
        janus.jit(affine, static_argnames="m")


def test_lower_gives_the_mlir_before_and_after_the_pipeline_without_compiling():
    jf = janus.jit(affine)
    lowered = jf.lower(rand(3), 2.0)
    assert "func.func @affine(%arg0: tensor<3xf32>)" in lowered.mlir
    assert "func.func @affine" in lowered.lowered and lowered.lowered != lowered.mlir
    assert lowered.pipeline.startswith("builtin.module(") and str(lowered) == lowered.lowered
    assert jf.compiles == 0 and not jf.versions
    with pytest.raises(janus.ConversionError, match="call to print"):
        janus.jit(with_print).lower(rand(3))


class Model:
    def __init__(self) -> None:
        self.w = rand(4)

    @janus.jit(warmup=1)
    def scaled(self, xs):
        return np.tanh(xs[0] * self.w[: xs[0].shape[0]])


def test_explain_takes_bound_methods_names_leaves_and_leaves_out_modules():
    model = Model()
    for n in (2, 3, 4):
        assert_same(model.scaled([rand(n)]), np.tanh(rand(n) * model.w[:n]))
    text = janus.explain(model.scaled)
    assert text.startswith("janus.jit Model.scaled") and "compiled in" in text and "s compiling" in text
    assert "relaxing (xs[0].shape[0]) to ?" in text and "self[0]" not in text, text
    assert "global np" not in text
    assert "global np: the same module numpy" in janus.explain(model.scaled, globals=True)
