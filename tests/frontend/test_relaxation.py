"""Shape relaxation: exact shapes first, then one graph with ? dims for sizes that vary."""

from __future__ import annotations

import importlib

import numpy as np

import janus
from janus.frontend.relax import key_diff
from janus.frontend.signature import entry_key
from tests.helpers import assert_same, rand


def mlp(x, W1, b1, W2, b2):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    return np.maximum(z, 0.0), z.sum(axis=1), z.T


def batch(n: int, seed: int = 0) -> np.ndarray:
    return rand(n, 24, seed=seed)  # few features: float32 sums in any order stay within rtol


WEIGHTS = (rand(24, 32) * 0.2, rand(32), rand(32, 10), rand(10))


def test_short_last_batch_gives_one_dynamic_graph():
    jf = janus.jit(mlp)
    for seed in range(3):
        assert_same(jf(batch(64, seed), *WEIGHTS), mlp(batch(64, seed), *WEIGHTS))
    assert jf.compiles == 1
    assert_same(jf(batch(17), *WEIGHTS), mlp(batch(17), *WEIGHTS))  # miss: relaxed, compiled
    assert jf.compiles == 2
    (version,) = jf.versions.values()
    assert "tensor<?x24xf32>" in version.graph.text
    for n in (5, 64, 17, 1, 0):  # no third compile, and the size-1 batch is not broadcast
        assert_same(jf(batch(n, n), *WEIGHTS), mlp(batch(n, n), *WEIGHTS))
    assert jf.compiles == 2 and version.calls == 5 and jf.profile.runs == 4
    assert "x: ndarray[float32, shape=(?, 24)]" in janus.explain(jf)
    wrong = (rand(5, 23), rand(23, 32)) + WEIGHTS[1:]  # another dim varies: relaxed too
    assert_same(jf(*wrong), mlp(*wrong))


def pairwise(x, y):
    return (x - y) * 2.0


def test_relaxed_dims_keep_their_equalities_as_guards():
    jf = janus.jit(pairwise, warmup=1)
    for n in (4, 6, 9):
        assert_same(jf(rand(n, 3), rand(n, 3, seed=1)), pairwise(rand(n, 3), rand(n, 3, seed=1)))
    assert jf.compiles == 2
    # x and y sizes no longer equal: a different key, NumPy broadcasting (1 vs 7) answers
    assert_same(jf(rand(1, 3), rand(7, 3)), pairwise(rand(1, 3), rand(7, 3)))
    assert jf.compiles == 2 and "needs dims known to be equal" in janus.explain(jf)
    assert_same(jf(rand(5, 3), rand(5, 3, seed=2)), pairwise(rand(5, 3), rand(5, 3, seed=2)))
    assert jf.compiles == 2 and len(jf.versions) == 1


def reshaping(x):
    return x.reshape(-1) * 2.0


def test_relaxation_that_the_graph_cannot_take_keeps_exact_shapes():
    jf = janus.jit(reshaping, warmup=1)
    for n in (4, 6, 4, 6):
        assert_same(jf(rand(n, 3)), reshaping(rand(n, 3)))
    assert "? dims not possible" in janus.explain(jf)
    assert jf.compiles == 2 and len(jf.versions) == 2  # one exact version per size


def test_signatures_beyond_the_version_limit_run_imperatively(monkeypatch):
    """Sizes the graph cannot relax compile one version each, up to MAX_VERSIONS; later
    sizes run as plain Python (no profiling, no compile) with the reason."""
    monkeypatch.setattr(importlib.import_module("janus.frontend.jit"), "MAX_VERSIONS", 2)
    jf = janus.jit(reshaping, warmup=1)
    for n in (4, 6, 4, 6):
        assert_same(jf(rand(n, 3)), reshaping(rand(n, 3)))
    profiled = jf.profile.runs
    for n in (8, 8, 10):
        assert_same(jf(rand(n, 3)), reshaping(rand(n, 3)))
    assert jf.compiles == 2 and len(jf.versions) == 2 and jf.profile.runs == profiled
    assert "2 versions are compiled already" in janus.explain(jf)


def decayed(n, x):
    total = x * 0.0
    for _ in range(n):
        total = total * 0.5 + x
    return total


def test_a_size_and_an_int_that_vary_together_are_relaxed_together():
    """An episode's arrays and its length (``Agent.finish``'s resume function): the key
    differs in a dim and an int at once; one relaxed version serves every length."""
    jf = janus.jit(decayed, warmup=1)
    for n in (3, 4, 5, 7, 2):
        assert_same(jf(n, rand(n, 2, seed=n)), decayed(n, rand(n, 2, seed=n)))
    assert jf.compiles == 2 and len(jf.versions) == 1
    assert "n: int (any value), x: ndarray[float32, shape=(?, 2)]" in janus.explain(jf)


def test_key_diff_numbers_array_leaves_as_the_relaxed_key_does():
    """The int before the array becomes leaf 0 when relaxed, so the array's dim is leaf 1's."""
    exact = [entry_key((n, rand(n, 2))) for n in (3, 4)]
    assert key_diff(*exact) == {("int", (0,)), (1, 0)}
    relaxed = entry_key((4, rand(4, 2)), frozenset(key_diff(*exact)))
    assert relaxed == entry_key((9, rand(9, 2)), frozenset(key_diff(*exact)))
    assert key_diff(exact[0], entry_key((3, rand(3, 2), "a"))) is None  # another structure
    assert key_diff(exact[0], entry_key((3.0, rand(4, 2)))) is None  # another type


class Chooser:
    """A policy-gradient step written the usual NumPy way: the episode's length decides
    every shape, ``len()`` and ``np.arange`` of it index the taken actions."""

    def __init__(self) -> None:
        self.W, self.lr = rand(5, 3) * 0.5, 0.1

    def learn(self, states, taken, advantages):
        logits = states @ self.W
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        rows = np.arange(len(taken))
        loss = -(advantages * np.log(p[rows, taken])).mean()
        g = p.copy()
        g[rows, taken] -= 1.0
        g *= advantages[:, None] / len(taken)
        self.W -= self.lr * (states.T @ g)
        return loss


def episode_batch(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    return rng.standard_normal((n, 5)).astype(np.float32), rng.integers(0, 3, n), rand(n, seed=n)


def test_an_episode_length_that_varies_is_one_version_of_a_policy_update():
    jf, compiled, plain = janus.jit(Chooser.learn), Chooser(), Chooser()
    lengths = [5, 9, 14, 3, 21, 9, 2, 30, 17, 6] * 3
    for n in lengths:
        args = episode_batch(n)
        np.testing.assert_allclose(jf(compiled, *args), Chooser.learn(plain, *args), rtol=1e-5)
        np.testing.assert_allclose(compiled.W, plain.W, rtol=1e-5, atol=1e-6)
    assert len(jf.versions) == 1 and jf.compiles <= 2, janus.explain(jf)
    (version,) = jf.versions.values()
    assert version.calls >= len(lengths) - 4 and "shape=(?, 5)" in janus.explain(jf)


def test_an_action_out_of_range_raises_as_python_does_from_the_relaxed_version():
    jf, compiled, plain = janus.jit(Chooser.learn), Chooser(), Chooser()
    for n in (4, 7, 11, 6):
        jf(compiled, *episode_batch(n))
        Chooser.learn(plain, *episode_batch(n))
    states, taken, advantages = episode_batch(8)
    taken[3] = 3  # past the 3 actions: NumPy's IndexError, and the parameters stay as they were
    before = compiled.W.copy()
    with np.testing.assert_raises(IndexError):
        Chooser.learn(plain, states, taken, advantages)
    with np.testing.assert_raises(IndexError):
        jf(compiled, states, taken, advantages)
    np.testing.assert_array_equal(compiled.W, before)
    taken[3] = -1  # negative indices count from the end, as in NumPy
    np.testing.assert_allclose(jf(compiled, states, taken, advantages), Chooser.learn(plain, states, taken, advantages),
                               rtol=1e-5)
    np.testing.assert_allclose(compiled.W, plain.W, rtol=1e-5, atol=1e-6)
    assert len(jf.versions) == 1


def discounted_then_printed(x, n):
    weights = (0.9 ** np.arange(n)).astype(np.float32)  # a constant for an exact n; no graph for a relaxed one
    y = x * weights.sum()
    print("total", float(y.sum()))  # where the exact graphs split
    return y * 2.0


def test_a_relaxation_that_would_split_earlier_than_the_exact_shapes_is_not_made(capsys):
    """The int ``n`` varies, but as a graph input ``np.arange(n)`` would end the segment
    before the array work the exact versions compile: exact versions are kept."""
    jf = janus.jit(discounted_then_printed, warmup=1)
    for n in (3, 4, 5, 3, 4, 5):
        got, printed = jf(rand(4), n), capsys.readouterr().out
        assert_same(got, discounted_then_printed(rand(4), n))
        assert printed == capsys.readouterr().out
    assert "not possible" in janus.explain(jf) and len(jf.versions) == 3, janus.explain(jf)
    assert all(v.graph.boundary.description == "print" for v in jf.versions.values()), janus.explain(jf)
    assert sum(v.calls for v in jf.versions.values()) >= 2


def sums_and_returns_the_list(xs, h):
    for x in xs:
        h = h + x
    return h, xs


def test_a_relaxed_list_returned_is_the_callers_list_not_its_stacked_stand_in():
    """A list argument relaxed to a stacked input (``relax.SymList``) and returned: Python
    returns the list itself; the graph cannot, so those calls keep the exact length."""
    jf = janus.jit(sums_and_returns_the_list, warmup=1)
    for n in (2, 3, 4, 5, 3):
        xs = [np.full(2, float(i)) for i in range(n)]
        h, returned = jf(xs, np.zeros(2))
        assert returned is xs
        assert_same(h, sums_and_returns_the_list(xs, np.zeros(2))[0])
