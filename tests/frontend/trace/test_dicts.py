"""Dicts built by the traced code (``{}``, ``{k: v}``, comprehensions, ``{**d}``): plain
Python containers of the trace, as lists are; plain Python is the oracle."""

from __future__ import annotations

import numpy as np

import janus
from tests.helpers import assert_same, check_compiled, rand


def grads_like(w, b, x):
    """The accumulate-into-a-dict-of-zeros pattern of hand-written training steps."""
    params = {"w": w, "b": b}
    grads = {name: np.zeros_like(value) for name, value in params.items()}
    grads["w"] = grads["w"] + x.reshape(3, 1) * x[:2]
    grads["b"] = grads["b"] + x[:2]
    merged = {**grads, "scale": 2.0}
    return merged["w"] * merged["scale"], merged["b"] + len(merged)


def const_keys(x):
    table = {1: x, (2, "a"): x * 3.0, None: x + 1.0}
    return table[(2, "a")] - table[None] + table.get(1)


def test_dicts_local_to_the_trace():
    jf = check_compiled(grads_like, rand(3, 2), rand(2), rand(3, seed=2))
    assert "linalg" in next(iter(jf.versions.values())).graph.text


def test_build_const_key_map_with_tuple_and_none_keys():
    check_compiled(const_keys, rand(4))


def array_key(x, k):
    table = {k: x}
    return table[k] * 2.0


def test_dict_key_that_is_a_graph_value_runs_imperatively():
    jf = janus.jit(array_key, warmup=1)
    x, k = rand(3), np.float32(1.0)
    for _ in range(3):
        assert_same(jf(x, k), array_key(x, k))
    assert not jf.versions
    assert "dict key" in janus.explain(jf)


class Model:
    def __init__(self):
        self.params = {"w": rand(2)}

    def scaled(self, x):
        return {**self.params}["w"] * x


def test_update_from_a_heap_dict_runs_imperatively():
    m, x = Model(), rand(2)
    jf = janus.jit(Model.scaled, warmup=1)
    for _ in range(3):
        assert_same(jf(m, x), m.scaled(x))
    assert not jf.versions
    assert "only dicts built in the traced code" in janus.explain(jf)
