"""Functions passed as arguments (``def layer(x, W, act=np.tanh)``, ``activation(x)`` of a
parameter): constants of the graph by identity, one version per function, checked against Python."""

from __future__ import annotations

import numpy as np

import janus
from janus.frontend.signature import entry_key
from tests.helpers import assert_same


def relu(x):
    return np.maximum(x, 0)


def make_leaky(slope):
    def leaky(x):
        return np.where(x > 0, x, slope * x)
    return leaky


def layer(x, W, act=np.tanh):
    return act(x @ W)


def test_function_arguments_compile_one_version_each():
    x, W = np.linspace(-1, 1, 6).reshape(2, 3), np.full((3, 3), 0.3)
    leaky = make_leaky(0.1)
    jf = janus.jit(layer, warmup=1)
    activations = [relu, np.tanh, leaky, np.mean]  # a Python function, a ufunc, a closure, a NumPy function
    for act in activations * 3:
        assert_same(jf(x, W, act), layer(x, W, act))
    assert_same(jf(x, W), layer(x, W))  # the default
    assert len(jf.versions) == len(activations) and not jf.fallbacks, janus.explain(jf)
    assert all(v.calls >= 1 and v.graph.boundary is None for v in jf.versions.values()), janus.explain(jf)
    assert "arg 2 (act): function make_leaky.<locals>.leaky (identity)" in janus.explain(jf)


def test_a_closure_cell_read_by_a_function_argument_is_guarded():
    x, W = np.linspace(-1, 1, 6).reshape(2, 3), np.full((3, 3), 0.3)
    leaky = make_leaky(0.1)
    jf = janus.jit(layer, warmup=1)
    for _ in range(2):
        assert_same(jf(x, W, leaky), layer(x, W, leaky))
    leaky.__closure__[0].cell_contents = 0.5  # the same function, another slope
    assert_same(jf(x, W, leaky), layer(x, W, leaky))


def test_functions_key_by_identity():
    x = np.ones(2)
    assert entry_key((x, relu)) == entry_key((x, relu))
    assert entry_key((x, relu)) != entry_key((x, make_leaky(0.1)))
    assert entry_key((x, np.tanh)) != entry_key((x, np.sin))
