"""Which inputs may share memory (``heap.aliasing.overlaps``, linear in the inputs) gives
``np.may_share_memory``'s answer for every pair, and a version updating arrays in place
through a dict stays right against plain Python whatever the arrays share."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import janus
from janus.frontend.heap.aliasing import overlaps
from janus.frontend.heap.rules import HeapMiss
from tests.helpers import assert_same, rand


def pairwise(values: list[Any]) -> dict[int, set[int]]:
    """The answer ``overlaps`` must give, asked pair by pair."""
    shared: dict[int, set[int]] = {}
    for i, j in itertools.combinations(range(len(values)), 2):
        a, b = values[i], values[j]
        if any(isinstance(v, (int, float, np.generic)) for v in (a, b)):
            continue
        if np.may_share_memory(a, b):
            shared.setdefault(i, set()).add(j)
            shared.setdefault(j, set()).add(i)
    return shared


class Tagged(np.ndarray):
    """An ndarray subclass: an input ``overlaps`` cannot group by its root."""


def foreign(n: int, size: int = 24) -> list[np.ndarray]:
    """Arrays over memory no ndarray owns (as IREE's result mappings), one buffer each."""
    return [np.frombuffer(bytearray(size * 4), np.float32) for _ in range(n)]


base = np.arange(96, dtype=np.float32).reshape(8, 12)
buffer = np.frombuffer(bytearray(400), np.float32)
CASES = {
    "distinct owners": [rand(4, 3), rand(4, 3, seed=1), rand(3, seed=2)],
    "views and slices": [base, base[2], base[3:5], base[:, 1], rand(4), base[7, 11:]],
    "the same array twice": [base, base, rand(3)],
    "a batch of a data set beside its neighbour": [base[0], base[1], base[0, :4]],
    "strided views that interleave": [base[::2], base[1::2], base[:, ::3], base[:, 1::3]],
    "reversed and transposed views": [base[::-1], base.T, base[4:, ::-1], base[:4].T[::-1]],
    "empty arrays and scalars": [base[:0], base, 1.5, 3, np.float32(2.0), np.zeros(0, np.float32)],
    "few foreign buffers": [*foreign(2), rand(4), buffer[:10], buffer[5:20], buffer[50:]],
    "many foreign buffers": [*foreign(6), buffer[:10], buffer[9:12], buffer[12:], buffer[::7], rand(5), base, base[1]],
    "a subclass and a memoryview": [base.view(Tagged), base[3], memoryview(base[5]), rand(2)],
}


@pytest.mark.parametrize("values", CASES.values(), ids=CASES.keys())
def test_overlaps_is_may_share_memory_per_pair(values: list[Any]) -> None:
    assert overlaps(values) == pairwise(values)


def test_overlaps_of_random_views_of_one_buffer() -> None:
    rng = np.random.default_rng(0)
    flat = np.arange(600, dtype=np.float64)
    for _ in range(30):
        values = []
        for _ in range(rng.integers(2, 12)):
            start, stop, step = sorted(rng.integers(0, 600, 2)) + [int(rng.integers(1, 5))]
            view = flat[start:stop:step]
            values.append(view[::-1] if rng.random() < 0.3 else view)
        values += foreign(int(rng.integers(0, 7)))
        assert overlaps(values) == pairwise(values)


def momentum(state: dict, grads: dict) -> Any:
    """A momentum step over a dict of parameters updated in place; the moments are rebound
    (after a call, the larger ones are memory of IREE's, no ndarray's)."""
    state["t"] += 1
    for k in state["params"]:
        g = grads[k]
        state["m"][k] = 0.9 * state["m"][k] + 0.1 * g
        mh = state["m"][k] / (1 - 0.9 ** state["t"])
        state["params"][k] -= 0.01 * mh
    return state["t"]


def make_state(params: dict[str, np.ndarray]) -> dict:
    return {"t": 0, "params": params, "m": {k: np.zeros_like(v) for k, v in params.items()}}


def fresh(shapes: dict[str, tuple], seed: int = 0) -> dict[str, np.ndarray]:
    return {k: rand(*s, seed=seed + i) for i, (k, s) in enumerate(shapes.items())}


SHAPES = {"W1": (8, 4), "b1": (4,), "W2": (4, 64), "b2": (64,), "W3": (64, 80), "b3": (80,)}  # W3: 20 KiB


@pytest.fixture(scope="module")
def jitted() -> Any:
    jf = janus.jit(momentum, fallback="silent")  # the sharing cases miss three times in a row
    state, grads = make_state(fresh(SHAPES)), fresh(SHAPES, seed=10)
    for _ in range(6):
        jf(state, grads)
    for _ in range(3):  # a fresh state's count: the version for any count
        jf(make_state(fresh(SHAPES)), grads)
    assert jf.versions, janus.explain(jf)
    return jf


def run_both(jf: Any, make: Any, calls: int = 3) -> None:
    """``make()`` gives (state, grads) twice over equal values: the compiled calls and plain
    Python must leave the same heap and return the same values."""
    (state, grads), (want_state, want_grads) = make(), make()
    for _ in range(calls):
        assert_same(jf(state, grads), momentum(want_state, want_grads))
        for name in ("params", "m"):
            for k in want_state[name]:
                assert_same(state[name][k], want_state[name][k])
    assert_same(grads, want_grads)


def test_separate_arrays_and_results_of_earlier_calls(jitted: Any) -> None:
    """The steady case: parameters, moments (some the 20 KiB results of the last call,
    memory of IREE's) and gradients share nothing: compiled, no miss."""
    (version,) = jitted.versions.values()
    calls = version.calls
    run_both(jitted, lambda: (make_state(fresh(SHAPES)), fresh(SHAPES, seed=10)), calls=4)
    assert version.calls == calls + 4


def in_one_buffer() -> tuple[dict, dict]:
    """Parameters as views of one flat vector (as a flattened optimizer keeps them): they
    share an owner but no memory."""
    flat = rand(sum(int(np.prod(s)) for s in SHAPES.values()))
    params, at = {}, 0
    for k, s in SHAPES.items():
        n = int(np.prod(s))
        params[k], at = flat[at:at + n].reshape(s), at + n
    return make_state(params), fresh(SHAPES, seed=10)


def gradient_is_a_parameter() -> tuple[dict, dict]:
    state = make_state(fresh(SHAPES))
    grads = fresh(SHAPES, seed=10)
    grads["b2"] = state["params"]["b2"]
    return state, grads


def gradient_views_a_parameter() -> tuple[dict, dict]:
    """A gradient that is its parameter's columns reversed."""
    state = make_state(fresh(SHAPES))
    grads = fresh(SHAPES, seed=10)
    grads["W2"] = state["params"]["W2"][:, ::-1]
    return state, grads


def gradient_views_a_moment() -> tuple[dict, dict]:
    """A gradient that is a view of a moment (rebound, not updated in place): nothing to miss."""
    state = make_state(fresh(SHAPES))
    grads = fresh(SHAPES, seed=10)
    grads["W2"] = state["m"]["W2"][:, :]
    return state, grads


def interleaved_parameters() -> tuple[dict, dict]:
    """Two parameters that interleave in one array (every other column): their bounds overlap."""
    both = rand(64, 160)
    params = fresh(SHAPES)
    params["W3"], params["b3"] = both[:, ::2], both[3, 1::2]
    return make_state(params), fresh(SHAPES, seed=10)


def shared_between_states() -> tuple[dict, dict]:
    """Two states' dicts hold one array: a parameter that is also a moment."""
    state = make_state(fresh(SHAPES))
    state["m"]["b1"] = state["params"]["b1"]
    return state, fresh(SHAPES, seed=10)


def heap_miss(jf: Any, state: dict, grads: dict) -> str:
    """Why the version's heap checks reject these arguments ("" when they pass)."""
    (version,) = jf.versions.values()
    try:
        version.guards.check_heap(version.graph.heap.objects((state, grads)), [])
    except HeapMiss as miss:
        return str(miss)
    return ""


SHARING = {in_one_buffer: "", gradient_is_a_parameter: "state['params']['b2'] is updated in place but shares",
           gradient_views_a_parameter: "state['params']['W2'] is updated in place but shares", gradient_views_a_moment: "",
           interleaved_parameters: "state['params']['W3'] is updated in place but shares",
           shared_between_states: "state['params']['b1'] is updated in place but shares"}


def test_the_steady_version_finds_what_shares_memory(jitted: Any) -> None:
    for make, miss in SHARING.items():
        found = heap_miss(jitted, *make())
        assert miss in found and bool(found) == bool(miss), make.__name__


@pytest.mark.parametrize("make", SHARING)
def test_arrays_that_share_memory(make: Any) -> None:
    """Each case from a version made for separate arrays (a case that shares memory
    misses, runs in Python, and may be compiled again with what it shares)."""
    jf = janus.jit(momentum, fallback="silent")
    state, grads = make_state(fresh(SHAPES)), fresh(SHAPES, seed=10)
    for count in range(5):
        state["t"] = count * 2
        jf(state, grads)
    run_both(jf, make, calls=5)
