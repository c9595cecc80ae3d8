"""Recursion through ``janus.jit``: recursive calls become ``janus.invoke`` of generated
functions (eliminated into explicit-stack loops), trees are linearized into index arrays.
Plain Python (and the recursive NumPy reference) is the oracle for every answer."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from janus.frontend import explain, jit
from janus.runtime.targets import TARGETS


def fib(n):
    return 1 if n < 2 else fib(n - 1) + fib(n - 2)


def ackermann(m, n):
    if m == 0:
        return n + 1
    return ackermann(m - 1, 1 if n == 0 else ackermann(m, n - 1))


def tak(x, y, z):
    if y < x:
        return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
    return z


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def power_of_two(n):
    return 1 if n == 0 else 2 * power_of_two(n - 1)


def compiled_call(fn, *args, warmup=3):
    """``fn(*args)`` through a fresh ``janus.jit`` after its warm-up calls, with the
    function object (so tests can check the compiled path was taken)."""
    jf = jit(fn, warmup=warmup)
    for _ in range(warmup):
        assert jf(*args) == fn(*args)
    assert jf.versions, explain(jf)
    return jf(*args), jf


def assert_recursive_graph(jf):
    (version,) = jf.versions.values()
    assert version.calls >= 1
    assert '"janus.invoke"' in version.graph.text and "func.func private" in version.graph.text


@pytest.mark.parametrize(
    "fn, args, expected",
    [(fib, (20,), 10946), (ackermann, (2, 3), 9), (tak, (18, 12, 6), 7), (is_even, (21,), False), (is_odd, (21,), True)],
    ids=["fib", "ackermann", "tak", "is_even", "is_odd"],
)
def test_scalar_recursion_matches_cpython(fn, args, expected):
    got, jf = compiled_call(fn, *args)
    assert got == fn(*args) == expected
    assert type(got) is type(expected)  # a Python int/bool, as CPython returns
    assert_recursive_graph(jf)


def test_mutual_recursion_generates_both_functions():
    _, jf = compiled_call(is_even, 10, warmup=1)
    text = next(iter(jf.versions.values())).graph.text
    assert "@is_even_rec" in text and "@is_odd_rec" in text


def test_int_overflow_falls_back_to_python_ints():
    """2**70 leaves int64: the overflow guard fails and Python gives the exact int."""
    jf = jit(power_of_two, warmup=1)
    assert jf(70) == 2**70  # profiled, then compiled
    assert jf.versions
    assert jf(70) == 2**70  # compiled: guard fails, imperative rerun
    assert any("(type)" in event and "64 bits" in event for event in jf.events), jf.events
    assert jf(40) == 2**40


def test_recursion_deeper_than_the_stack_limit_falls_back(monkeypatch):
    cpu = TARGETS["cpu"]
    monkeypatch.setitem(TARGETS, "cpu", dataclasses.replace(cpu, pipeline=f"{cpu.pipeline}{{max-stack-entries=64}}"))
    jf = jit(is_even, warmup=1)
    assert jf(20) is True and jf.versions  # profiled, then compiled with a 64-entry stack
    assert jf(20) is True
    assert jf(300) is True  # profiled and compiled
    assert jf(300) is True  # compiled: the stack_depth guard fails, Python answers
    assert any("stack_depth" in event for event in jf.events), jf.events


# -- TreeRNN over Python tree objects -------------------------------------------------------

VOCAB, HIDDEN = 32, 16


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right
        self.is_leaf = left is None


def encode(node, emb, W, b):
    if node.is_leaf:
        return np.tanh(emb[node.word])
    h = np.concatenate([encode(node.left, emb, W, b), encode(node.right, emb, W, b)])
    return np.tanh(h @ W + b)


def reference(node, emb, W, b):
    """The recursive NumPy TreeRNN, in float64."""
    if node.left is None:
        return np.tanh(emb[node.word].astype(np.float64))
    h = np.concatenate([reference(node.left, emb, W, b), reference(node.right, emb, W, b)])
    return np.tanh(h @ W.astype(np.float64) + b.astype(np.float64))


def make_tree(shape, leaves, rng):
    if leaves == 1:
        return Node(word=int(rng.integers(VOCAB)))
    left = {"balanced": leaves // 2, "linear": 1, "moderate": int(rng.integers(1, leaves))}[shape]
    if rng.integers(2) and shape == "linear":
        left = leaves - 1
    return Node(left=make_tree(shape, left, rng), right=make_tree(shape, leaves - left, rng))


def count_leaves(node):
    return 1 if node.left is None else count_leaves(node.left) + count_leaves(node.right)


@pytest.fixture(scope="module")
def weights():
    rng = np.random.default_rng(7)
    emb = rng.standard_normal((VOCAB, HIDDEN)).astype(np.float32)
    W = (rng.standard_normal((2 * HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32)
    b = (0.1 * rng.standard_normal(HIDDEN)).astype(np.float32)
    return emb, W, b


@pytest.fixture(scope="module")
def tree_rnn(weights):
    """``encode`` under ``janus.jit``, warmed up (compiled) on three trees."""
    jf = jit(encode)
    rng = np.random.default_rng(0)
    for shape in ("balanced", "moderate", "linear"):
        jf(make_tree(shape, 20, rng), *weights)
    assert jf.versions, explain(jf)
    return jf


@pytest.mark.parametrize("leaves", [16, 31, 48])
@pytest.mark.parametrize("shape", ["balanced", "moderate", "linear"])
def test_tree_rnn_matches_numpy(tree_rnn, weights, shape, leaves):
    tree = make_tree(shape, leaves, np.random.default_rng(leaves))
    assert count_leaves(tree) == leaves
    (version,) = tree_rnn.versions.values()
    calls = version.calls
    got = tree_rnn(tree, *weights)
    assert version.calls == calls + 1  # the compiled graph answered
    assert got.shape == (HIDDEN,) and got.dtype == np.float32
    np.testing.assert_allclose(got, reference(tree, *weights), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(encode(tree, *weights).shape, got.shape)


def test_tree_stream_compiles_a_handful_of_times(weights):
    jf = jit(encode)
    rng = np.random.default_rng(1)
    shapes = ["balanced", "moderate", "linear"]
    for i in range(50):
        tree = make_tree(shapes[i % 3], int(rng.integers(16, 49)), rng)
        np.testing.assert_allclose(jf(tree, *weights), reference(tree, *weights), rtol=1e-5, atol=1e-6)
    print(f"50 differently shaped trees: {jf.compiles} compile(s), {len(jf.versions)} version(s)")
    assert 1 <= jf.compiles <= 5
    assert sum(v.calls for v in jf.versions.values()) >= 40


class PropertyNode:
    """A tree whose leaves are found by ``is None`` tests in a property; recursion through a method."""

    def __init__(self, vec, children=(None, None)):
        self.vec, (self.left, self.right) = vec, children

    @property
    def is_leaf(self):
        return self.left is None and self.right is None

    def total(self, scale):
        if self.is_leaf:
            return self.vec * scale
        return self.vec + self.left.total(scale) + self.right.total(scale)


def tree_total(node, scale):
    return node.total(scale)


def make_vector_tree(leaves, rng):
    vec = rng.standard_normal(4).astype(np.float32)
    if leaves == 1:
        return PropertyNode(vec)
    left = int(rng.integers(1, leaves))
    return PropertyNode(vec, (make_vector_tree(left, rng), make_vector_tree(leaves - left, rng)))


def test_properties_methods_and_is_none_on_tree_nodes():
    rng = np.random.default_rng(3)
    jf = jit(tree_total)
    for leaves in (5, 9, 17, 12, 30, 2):
        tree = make_vector_tree(leaves, rng)
        got, expected = jf(tree, 0.5), tree_total(tree, 0.5)
        assert got.dtype == expected.dtype == np.float32  # a Python float scale stays weak
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert jf.compiles == 1 and jf.versions, explain(jf)
    assert next(iter(jf.versions.values())).calls == 3


class WordNode:
    """A parse tree as models write it: leaves hold a word (an int), inner nodes ``word=None``."""

    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right


def word_sum(node, emb):
    if node.word is not None:
        return emb[node.word]
    return np.tanh(word_sum(node.left, emb) + word_sum(node.right, emb))


def word_sum_is_op(node, emb):
    leaf = node.word is None
    if not leaf:
        return emb[node.word]
    return word_sum_is_op(node.left, emb) * 0.5 + word_sum_is_op(node.right, emb)


def make_word_tree(leaves, rng):
    if leaves == 1:
        return WordNode(int(rng.integers(10)))
    split = int(rng.integers(1, leaves))
    return WordNode(None, make_word_tree(split, rng), make_word_tree(leaves - split, rng))


@pytest.mark.parametrize("fn", [word_sum, word_sum_is_op])
def test_optional_field_tested_against_none_needs_no_guard(fn):
    """``node.word is not None`` reads the presence column (one guard per read would fail
    on every inner node: the graph was regenerated on every call)."""
    emb = np.random.default_rng(0).standard_normal((10, 4)).astype(np.float32)
    rng = np.random.default_rng(5)
    jf = jit(fn)
    for leaves in (3, 7, 4, 12, 9, 5):
        tree = make_word_tree(leaves, rng)
        np.testing.assert_allclose(jf(tree, emb), fn(tree, emb), rtol=1e-5, atol=1e-6)
    assert jf.compiles == 1 and jf.versions, explain(jf)
    assert next(iter(jf.versions.values())).calls == 3
    assert not any("failed" in e for e in jf.events), explain(jf)


def root_word(node, emb):
    word = node.word  # read as a value (not a None test): guarded to be present
    return emb[0] * 2.0 if word is None else emb[word]


def test_guard_without_a_branch_site_failing_again_goes_imperative():
    """A presence guard that fails on every call used to regenerate the same graph forever."""
    emb = np.random.default_rng(0).standard_normal((10, 4)).astype(np.float32)
    rng = np.random.default_rng(6)
    jf = jit(root_word)
    for i in range(12):
        tree = make_word_tree(4 + i % 3, rng)  # an inner root: word is None
        np.testing.assert_allclose(jf(tree, emb), root_word(tree, emb))
    assert jf.compiles == 3 and not jf.versions, explain(jf)
    assert any("failed 3 times" in reason for reason in jf.fallbacks.values()), explain(jf)
