"""Tuples of graph arrays written to the heap (``self.state = (h, c)``), against plain Python.

An LSTM-like model keeps its state as a tuple across calls: each compiled call must leave
a *new* tuple of the arrays it computed (identities as in Python), read it back on the
next call under the per-call checks, and leave the old tuple untouched when a guard fails.
"""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers import assert_same, rand

SEEN: list[tuple] = []


def note(state):
    SEEN.append(state)


class LSTMish:
    """A gated cell whose state ``(h, c)`` lives in ``self.state``; returns h (the object
    stored in the new tuple) and the mean of c."""

    def __init__(self):
        self.W, self.U = rand(3, 8, seed=1), rand(4, 8, seed=2) * 0.5
        self.state = (np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32))

    def __call__(self, x):
        start = self.state
        h, c = self.state
        z = x @ self.W + h @ self.U
        c = np.tanh(z[:, :4]) * 0.5 + c * 0.5
        h = np.tanh(c) * (1.0 / (1.0 + np.exp(-z[:, 4:])))
        self.state = (h, c)
        again = self.state[0] + 0.0  # a read after the write sees the written tuple
        if x.sum() > 12.0:
            note(start)
        return h, again, c.mean()


class JitLSTMish(LSTMish):
    __call__ = janus.jit(LSTMish.__call__, warmup=2)


def test_tuple_state_matches_python_over_five_calls_then_a_guard_failure():
    plain, jitted = LSTMish(), JitLSTMish()
    SEEN.clear()
    for call in range(5):
        x = rand(2, 3, seed=10 + call)
        old = jitted.state
        want, got = plain(x), jitted(x)
        assert_same(got, want)
        assert_same(jitted.state, plain.state)  # a tuple of two float32 arrays, as in Python
        assert jitted.state is not old and got[0] is jitted.state[0]  # `return h`: the stored object
    (version,) = JitLSTMish.__call__.versions.values()
    assert version.calls == 3 and not SEEN
    text = version.graph.text
    assert '"janus.get_item"' in text and '"janus.set_attr"' not in text  # leaves are results
    explained = janus.explain(JitLSTMish.__call__)
    assert "heap self.state: tuple object of length 2" in explained
    assert "heap self.state[0]: ndarray[float32, shape=(2, 4)]" in explained

    before = jitted.state
    items = tuple(a.copy() for a in before)
    x = rand(2, 3, seed=20) + 3.0  # the branch goes the other way: the guard fails after the write
    got = jitted(x)
    assert len(SEEN) == 1 and SEEN[0] is before  # the re-run started from the untouched tuple
    assert all(np.array_equal(a, b) for a, b in zip(before, items))
    assert_same(got, plain(x))
    assert_same(jitted.state, plain.state)


def swap(model, x):
    h, c = model.pair
    model.pair = [c + x, h]  # a list: Python stores this new list, `h` itself as item 1
    return model.pair[0]  # (the list itself: ``test_returning_a_list_also_stored_on_the_heap_runs_in_python``)


class Holder:
    def __init__(self):
        self.pair = [np.ones(3, np.float32), np.zeros(3, np.float32)]


def test_list_of_arrays_keeps_passed_along_items_and_returned_identity():
    plain, jitted = Holder(), Holder()
    jf = janus.jit(swap, warmup=1)
    for call in range(4):
        x = rand(3, seed=call)
        passed = jitted.pair[0]
        want, got = swap(plain, x), jf(jitted, x)
        assert_same(got, want)
        assert_same(jitted.pair, plain.pair)
        assert jitted.pair[1] is passed  # only passed along: that very array
        assert got is jitted.pair[0]
    assert list(jf.versions.values())[0].calls >= 2


def store_mixed(model, x):
    model.pair = (x * 2.0, 3.0)


def test_a_tuple_holding_a_python_number_stays_imperative_with_reason():
    holder = Holder()
    jf = janus.jit(store_mixed, warmup=1)
    for _ in range(3):
        store_mixed_want = (np.ones(3, np.float32) * 2.0, 3.0)
        jf(holder, np.ones(3, np.float32))
        assert_same(holder.pair, store_mixed_want)
    assert not jf.versions
    assert "writing a float inside a model.pair structure" in janus.explain(jf)


class Recorder:
    """Keeps the one-hot inputs it made (``np.zeros`` filled by index) and its states in lists."""

    def __init__(self):
        self.W = rand(5, 3, seed=4)
        self.xs, self.hs = [], []

    def run(self, tokens):
        self.xs, self.hs = [], []
        for i in tokens:
            x = np.zeros(5, np.float32)
            x[i] = 1.0
            self.xs.append(x)
            self.hs.append(np.tanh(x @ self.W))
        return float(np.sum(self.hs[-1]))

    def run_returning(self, tokens):
        self.run(tokens)
        return self.hs


def test_arrays_the_trace_made_are_stored_in_heap_lists_as_in_python():
    jf = janus.jit(Recorder.run, warmup=1)
    plain, jitted = Recorder(), Recorder()
    for tokens in ([1, 3], [0, 4], [1, 3]):
        assert_same(jf(jitted, tokens), plain.run(tokens))
        assert_same(jitted.xs, plain.xs)
        assert_same(jitted.hs, plain.hs)
        assert jitted.xs[0] is not jitted.xs[1]
    assert sum(v.calls for v in jf.versions.values()) >= 1 and not jf.fallbacks, janus.explain(jf)


def test_returning_a_list_also_stored_on_the_heap_runs_in_python():
    jf = janus.jit(Recorder.run_returning, warmup=1, fallback="silent")
    jitted = Recorder()
    for _ in range(3):
        assert jf(jitted, [1, 2]) is jitted.hs
    assert "returns a list it also stores on the heap" in janus.explain(jf)


# ---- dicts of graph arrays (``self.cache = {...}``) and containers stored in two places ---------------
class Cached:
    """A layer that keeps its forward values in a dict on itself, as numpy-ml and CS231n code do."""

    def __init__(self):
        self.W = rand(3, 4, seed=5)
        self.cache = {}
        self.other = None

    def forward(self, x):
        z = x @ self.W
        self.cache = {"x": x, "z": z}
        self.cache["a"] = np.tanh(self.cache["z"])  # an item written through the new dict
        return self.cache["a"].sum()

    def twice(self, x):
        d = {"z": x @ self.W}
        self.cache = d
        self.other = [d]
        return x.sum()

    def twice_list(self, x):
        hs = [x @ self.W]
        self.other = hs
        self.cache = hs
        return x.sum()

    def split_then_append(self, x):
        hs = [x @ self.W]
        self.cache = hs
        print(len(hs))
        hs.append(x + 1.0)
        return x.sum()

    def split_then_mutate(self, x):
        d = {"z": x @ self.W}
        self.cache = d
        print(list(d))  # Python between segments: it would see (and the rest changes) that very dict
        d["y"] = x + 1.0
        return x.sum()


def run_both(method, calls: int = 3):
    jf = janus.jit(getattr(Cached, method), warmup=1, fallback="silent")
    jitted, plain = Cached(), Cached()
    for call in range(calls):
        x = rand(2, 3, seed=20 + call)
        assert_same(jf(jitted, x), getattr(plain, method)(x))
        assert_same(jitted.cache, plain.cache)
        assert type(jitted.other) is type(plain.other)
    return jf, jitted, x


def test_a_dict_of_graph_arrays_written_to_an_attribute_compiles_and_holds_the_argument_itself():
    jf, jitted, x = run_both("forward")
    (version,) = jf.versions.values()
    assert version.calls == 2 and version.graph.boundary is None and not jf.fallbacks, janus.explain(jf)
    assert type(jitted.cache) is dict and list(jitted.cache) == ["x", "z", "a"]
    assert jitted.cache["x"] is x  # a leaf only passed along is the caller's array


def test_a_container_stored_in_two_heap_places_stays_one_object():
    jf, jitted, _ = run_both("twice")
    assert jitted.other[0] is jitted.cache
    assert "stored in two places" in janus.explain(jf)


def test_a_list_stored_in_two_heap_places_stays_one_list():
    jf, jitted, _ = run_both("twice_list")
    assert jitted.other is jitted.cache  # a list in two places: one list, as in Python
    assert "holds a list that is stored in two places" in janus.explain(jf)


def test_a_dict_stored_on_the_heap_and_live_at_a_boundary_is_not_rebuilt(capsys):
    jf, jitted, _ = run_both("split_then_mutate")
    assert list(jitted.cache) == ["z", "y"]
    assert "a dict stored on the heap is live at the boundary" in janus.explain(jf)


def test_a_list_stored_on_the_heap_and_appended_to_after_a_boundary_keeps_the_append(capsys):
    jf, jitted, _ = run_both("split_then_append")
    assert len(jitted.cache) == 2
    assert "a list stored on the heap is live at the boundary" in janus.explain(jf)
