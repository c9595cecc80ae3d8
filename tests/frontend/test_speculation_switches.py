"""janus.jit's speculation switches: each one changes the generated graph, and every
setting gives the imperative answer."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers import assert_same, rand


def sign_step(x):
    if x.sum() > 0:
        return x * 2.0
    return x - 1.0


def five_steps(x):
    for i in range(5):
        x = x * 0.5 + i
    return x


def repeat(x, n):
    for _ in range(n):
        x = x * 0.5 + 1.0
    return x


def _run(jf, fn, calls) -> None:
    for args in calls:
        assert_same(jf(*args), fn(*args))


def _only_text(jf) -> str:
    (version,) = jf.versions.values()
    return version.graph.text


def test_speculate_off_keeps_the_branch_as_scf_if():
    calls = [(rand(4, seed=s) + 2.0,) for s in range(4)]
    full, off = janus.jit(sign_step), janus.jit(sign_step, speculate=False)
    _run(full, sign_step, calls)
    _run(off, sign_step, calls)
    assert "janus.guard" in _only_text(full) and "scf.if" not in _only_text(full)
    assert "scf.if" in _only_text(off) and not list(off.versions.values())[0].graph.guards
    _run(off, sign_step, [(-rand(4, seed=9) - 2.0,)])  # the other direction, in the same graph
    assert off.compiles == 1 and "off: speculate" in janus.explain(off)


def test_unroll_off_gives_scf_for():
    calls = [(rand(3, seed=s),) for s in range(4)]
    full, off = janus.jit(five_steps), janus.jit(five_steps, unroll=False)
    _run(full, five_steps, calls)
    _run(off, five_steps, calls)
    assert "scf.for" not in _only_text(full) and "scf.for" in _only_text(off)


def test_specialize_off_relaxes_dims_and_ints_from_the_first_compile():
    calls = [(rand(4, seed=s), 3) for s in range(3)]
    full, off = janus.jit(repeat), janus.jit(repeat, specialize=False)
    _run(full, repeat, calls)
    _run(off, repeat, calls)
    assert "tensor<4xf32>" in _only_text(full) and "scf.for" not in _only_text(full)
    assert "tensor<?xf32>" in _only_text(off) and "scf.for" in _only_text(off)
    _run(off, repeat, [(rand(7, seed=5), 6), (rand(2, seed=6), 0)])  # served by the same version
    assert off.compiles == 1 and list(off.versions.values())[0].calls == 2


def test_specialize_off_keeps_exact_shapes_the_graph_needs():
    def zeros_like_n(x, n):
        return x + np.zeros(n, np.float32)

    jf = janus.jit(zeros_like_n, specialize=False)
    for s in range(7):
        assert_same(jf(rand(4, seed=s), 4), zeros_like_n(rand(4, seed=s), 4))
    assert jf.versions and "? dims not possible" in janus.explain(jf)
