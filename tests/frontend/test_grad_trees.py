"""``janus.grad`` of parameter trees (dicts, lists, tuples, nested, dataclass objects):
compiled, equal to the eager tape and to the gradient written out in NumPy, in the
structure of the parameters; and gradient functions made inside a step are reused."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, rand

X = rand(4, 3)
W, B = rand(3, 2, seed=1), rand(2, seed=2)


def layer(w, b, x):
    return np.tanh(x @ w + b)


def numpy_grads(w, b, x):
    """d/dw, d/db of sum(tanh(x @ w + b) ** 2), by hand."""
    h = np.tanh(x @ w + b)
    dz = 2 * h * (1 - h * h)
    return x.T @ dz, dz.sum(axis=0)


def dict_loss(p, x):
    h = layer(p["w"], p["b"], x)
    return np.sum(h * h)


def nested_loss(p, x):
    h = layer(p["layer"]["w"], p["layer"]["b"], x)
    return np.sum(h * h)


def pair_loss(p, x):
    h = layer(p[0], p[1], x)
    return np.sum(h * h)


@dataclass
class Params:
    w: np.ndarray
    b: np.ndarray


def object_loss(p, x):
    h = layer(p.w, p.b, x)
    return np.sum(h * h)


dw, db = numpy_grads(W, B, X)
CASES = [
    (dict_loss, {"w": W, "b": B}, {"w": dw, "b": db}),
    (nested_loss, {"layer": {"w": W, "b": B}}, {"layer": {"w": dw, "b": db}}),
    (pair_loss, [W, B], [dw, db]),
    (pair_loss, (W, B), (dw, db)),
    (object_loss, Params(W, B), {"w": dw, "b": db}),  # an object's gradient: by attribute name
]


@pytest.mark.parametrize("loss, params, want", CASES, ids=["dict", "nested", "list", "tuple", "dataclass"])
def test_tree_gradients_compile_and_match_numpy_and_the_tape(loss, params, want):
    g = janus.grad(loss, warmup=1)
    assert_same(g.spec(params, X), want)  # the eager tape
    assert_same(g(params, X), want)  # profiled run (tape), then compiled
    assert g.versions, janus.explain(g)
    assert_same(g(params, X), want)
    assert next(iter(g.versions.values())).calls == 1


def test_a_gradient_function_made_inside_a_step_is_reused():
    params = {"w": W, "b": B}
    for _ in range(5):
        value, grads = janus.value_and_grad(dict_loss, warmup=2)(params, X)
        params = {k: params[k] - 0.1 * grads[k] for k in params}
    g = janus.value_and_grad(dict_loss, warmup=2)
    assert g is janus.value_and_grad(dict_loss, warmup=2)
    assert g is not janus.grad(dict_loss, warmup=2) and g is not janus.value_and_grad(dict_loss, has_aux=True, warmup=2)
    assert g.profile.runs == 2 and g.compiles == 1 and next(iter(g.versions.values())).calls == 3
