"""Recursion profiled with quiet frames unobserved (``profiler.QUIET_FRAMES``): the graphs are
the ones a full profile gives, and a side only unobserved frames took is a guard that fails
into Python's answer, not a wrong one."""

from __future__ import annotations

import pytest

from janus.frontend import explain, jit, profiler
from janus.frontend.generate import generate
from janus.frontend.profiler import Profile, run_profiled
from tests.frontend.recursion.test_recursion_jit import ackermann, fib, tak


def graph_text(fn, args, quiet, monkeypatch) -> str:
    monkeypatch.setattr(profiler, "QUIET_FRAMES", quiet)
    p = Profile()
    for _ in range(3):
        run_profiled(fn, args, {}, p)
    assert bool(p.unobserved) == (quiet is not None)
    return generate(fn, args, p).text


@pytest.mark.parametrize("fn, args", [(fib, (16,)), (ackermann, (2, 3)), (tak, (12, 8, 4))],
                         ids=["fib", "ackermann", "tak"])
def test_a_quiet_profile_generates_the_graph_of_a_full_one(fn, args, monkeypatch):
    assert graph_text(fn, args, 20, monkeypatch) == graph_text(fn, args, None, monkeypatch)


def late_side(n, root, right):
    """A binary recursion whose root's right subtree (``right`` 1) is a chain taking the
    ``right > 0`` side: it starts after the whole left subtree, 2**n - 1 frames."""
    if n == 0:
        return 1
    if right > 0:
        return late_side(n - 1, 0, right) + 3
    return late_side(n - 1, 0, right) + late_side(n - 1, 0, right + root)


def test_a_side_only_unobserved_frames_take_fails_a_guard_into_pythons_answer(monkeypatch):
    """The profile never sees ``right > 0`` taken (the chain runs after the code went quiet):
    the compiled graph guards against it, the guard fails, Python answers; after the guard
    failed MAX_FAILURES times the site is no longer speculated and the compiled call answers."""
    monkeypatch.setattr(profiler, "QUIET_FRAMES", 20)
    expected = late_side(7, 1, 0)
    jf = jit(late_side, warmup=1)
    for _ in range(6):
        assert jf(7, 1, 0) == expected
    assert late_side.__code__ in jf.profile.unobserved
    assert any("failed" in event for event in jf.events), explain(jf)
    assert any("no longer speculated" in event for event in jf.events), explain(jf)
    (version,) = jf.versions.values()
    calls = version.calls
    assert jf(7, 1, 0) == expected and version.calls == calls + 1
