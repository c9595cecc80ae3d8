"""The cost rule of compiled versions: a version whose calls are clearly slower than the plain
function's on the same key gives the key to Python, with both times in ``janus.explain``;
one that is faster, or too quick to be worth timing, stays. The clock is patched (no timing
assertions): each read advances it by the time the reading call is to take."""

from __future__ import annotations

import importlib
import sys
import types

import numpy as np
import pytest

import janus
from janus.runtime import host_modules
from janus.runtime.entry_choice import COMPILED_TRIAL_CALLS, COMPILED_TRIAL_SECONDS
from tests.helpers import assert_same
from tests.helpers.peer_programs import returns
from tests.helpers.peer_state import lockstep

jit_module = importlib.import_module("janus.frontend.jit")
RNG = np.random.default_rng(0)
US = 1e-6


@pytest.fixture
def call_times(monkeypatch) -> dict[str, float]:
    """The rule on, and ``compiled`` and ``plain`` set (seconds per call) for the calls it times;
    no host module registered (an earlier test's MPI one turns the rule off)."""
    monkeypatch.setattr(jit_module.JitFunction, "COMPILED_COST", True)
    monkeypatch.setattr(host_modules, "ACTIVE", [])
    times = {"compiled": 386 * US, "plain": 44 * US}
    now = [0.0]

    def clock() -> float:
        now[0] += times["plain" if sys._getframe(1).f_code.co_name == "_run_timed_plain" else "compiled"]
        return now[0]

    monkeypatch.setattr(jit_module, "clock", clock)
    return times


def episode(T: int) -> tuple:
    return RNG.standard_normal((T, 4)), RNG.integers(0, 2, T), RNG.random(T)


def test_reinforce_update_slower_compiled_than_in_python_runs_in_python_and_explain_says_why(call_times):
    """The peer REINFORCE ``Agent.update`` (one relaxed version; 385.8 µs compiled, 44.1 µs in
    Python when measured): its key moves to Python, the later calls stay as Python computes them."""
    episodes = [episode(T) for T in (5, 5, 6, 7, 5, 9, 4, 8, 6, 5, 7, 6, 8, 5, 4, 6, 9, 3)]
    update = lockstep(returns.Agent.update, lambda: returns.Agent(4, 2), episodes, fallback="silent")
    explained = janus.explain(update)
    assert not update.versions, explained
    assert ("faster in Python: plain Python takes 44.0 µs per call, the compiled version 386.0 µs" in explained
            and "runs in Python" in explained), explained
    assert update._settled_python is not None  # the settled key: no key walk on later calls


def scale(x):
    return np.tanh(x * 2.0 + 1.0)


def test_a_compiled_version_faster_than_python_stays_after_one_plain_call(call_times):
    call_times.update(compiled=100 * US, plain=400 * US)
    jf = janus.jit(scale, warmup=1, fallback="silent")
    x = np.linspace(0.0, 1.0, 8)
    for _ in range(10):
        assert_same(jf(x), scale(x))
    (version,) = jf.versions.values()
    explained = janus.explain(jf)
    assert version.cost is None and jf._quick is version.quick, explained  # the fused call again, untimed
    assert (f"plain Python takes 400.0 µs per call, the compiled version 100.0 µs (best of 1 and {COMPILED_TRIAL_CALLS + 1}); "
            "the compiled version stays") in explained, explained


def test_a_quick_compiled_version_is_never_timed_against_python(call_times, monkeypatch):
    call_times.update(compiled=COMPILED_TRIAL_SECONDS / 2, plain=1 * US)
    jf = janus.jit(scale, warmup=1, fallback="silent")
    x = np.linspace(0.0, 1.0, 8)
    assert_same(jf(x), scale(x))
    monkeypatch.setattr(jf, "fn", lambda x: pytest.fail("a plain call"))
    for _ in range(2 + COMPILED_TRIAL_CALLS):
        assert_same(jf(x), scale(x))
    (version,) = jf.versions.values()
    assert version.trial is None and version.cost is None and jf._quick is version.quick


def test_a_new_key_after_the_rule_moved_one_to_python_compiles_and_is_timed_afresh(call_times):
    jf = janus.jit(scale, warmup=1, fallback="silent")
    x = np.linspace(0.0, 1.0, 8)
    for _ in range(2 + COMPILED_TRIAL_CALLS + jit_module.JitFunction.COST_CALLS):  # profiled, cold, timed, plain
        assert_same(jf(x), scale(x))
    assert not jf.versions and "faster in Python" in janus.explain(jf)
    x32 = x.astype(np.float32)  # a new key: compiled, and under the rule in its turn
    for _ in range(2):
        assert_same(jf(x32), scale(x32))
    assert len(jf.versions) == 1 and next(iter(jf.versions.values())).trial is not None


def test_no_compiled_version_is_timed_in_a_distributed_run(call_times, monkeypatch):
    """With a host module registered (``janus.distributed``'s MPI one), every rank keeps the
    versions it compiled: each rank's clock deciding alone would part them."""
    monkeypatch.setattr(jit_module, "host_modules", types.SimpleNamespace(active=lambda: ["mpi"]))  # as jit.py sees it
    jf = janus.jit(scale, warmup=1, fallback="silent")
    x = np.linspace(0.0, 1.0, 8)
    for _ in range(2 + COMPILED_TRIAL_CALLS + jit_module.JitFunction.COST_CALLS):
        assert_same(jf(x), scale(x))
    (version,) = jf.versions.values()
    assert version.trial is None and version.cost is None and jf.timed_plain == 0


@janus.jit(specialize=False, fallback="silent")
def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def test_a_recursive_function_is_timed_plain_all_the_way_down(call_times):
    """The plain call the rule times calls the jitted function itself: those inner calls run
    plain, untimed (before, each was timed in turn, and the first to settle dropped the
    version under the others: a KeyError from the call)."""
    call_times.update(compiled=100 * US, plain=400 * US)
    for _ in range(fib.warmup + 1 + COMPILED_TRIAL_CALLS + 2):  # profiled, cold, timed, plain, compiled
        assert fib(12) == 144
    (version,) = fib.versions.values()
    assert fib.timed_plain == 1 and version.cost is None
    assert "the compiled version stays" in janus.explain(fib)
