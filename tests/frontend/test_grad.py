"""janus.grad / janus.value_and_grad: the eager tape against central finite differences
(float64, the case of each op-table entry with a VJP rule in tests/helpers/grad_cases.py),
compiled gradients against the eager tape, gradients inside jitted train steps, and a
50-step MLP training loop run compiled and imperatively."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import janus
from janus import nn
from janus.frontend.ops import registry
from janus.frontend.grad import GradFunction
from janus.frontend.tape import Tape, TapeError
from tests.helpers.grad_cases import CASES, LIMIT_CASES, central_differences, signed

RNG = np.random.default_rng(7)
#: every tape rule on a case of its op, and on the argument forms only the tape differentiates
TAPE_CASES = [pytest.param(name, case, id=name + suffix) for suffix, cases in (("", CASES), ("-limit", LIMIT_CASES))
              for name, case in sorted(cases.items()) if registry.OPS[name].vjp is not None]


def scalar_loss(fn: Callable[..., Any], weights: np.ndarray) -> Callable[..., Any]:
    """``<weights, fn(*args)>``: a scalar whose cotangent for ``fn``'s result is ``weights``."""
    return lambda *args: np.sum(fn(*args) * weights)


@pytest.mark.parametrize("name, case", TAPE_CASES)
def test_tape_rule_against_finite_differences(name: str, case: tuple) -> None:
    fn, args = case
    weights = RNG.uniform(-1, 1, np.shape(fn(*args)))
    loss = scalar_loss(fn, weights)
    tape = Tape()
    inputs = [tape.input(a) for a in args]
    with tape:
        out = loss(*inputs)
    assert name in {node.op.name for node in tape.nodes if node.op is not None}, "the case does not use the op"
    grads = tape.backward(out, inputs)
    for i, g in enumerate(grads):
        assert g.dtype == np.float64 and g.shape == np.shape(args[i])
        np.testing.assert_allclose(g, central_differences(loss, args, i), rtol=1e-6, atol=1e-8, err_msg=f"argument {i}")


# ---- the API, eager ---------------------------------------------------------------------------
def stacked_loss(x: np.ndarray, y: np.ndarray) -> Any:
    v = np.array([x[0] * y, y, np.sum(x)])  # traced scalars, a number-free list: the array op
    return np.sum(v * v) + np.array([[1.0, 2.0]]).sum()  # a constant: NumPy's own np.array


def test_np_array_of_traced_values_on_the_tape() -> None:
    numpy_array = np.array
    x, y = signed(3), np.float64(0.7)
    dx, dy = janus.grad(stacked_loss, argnums=(0, 1))(x, y)
    assert np.array is numpy_array  # put back after the call
    np.testing.assert_allclose(dx, central_differences(stacked_loss, [x, y], 0), rtol=1e-6, atol=1e-9)
    assert type(dy) is np.float64
    assert dy == pytest.approx(float(central_differences(stacked_loss, [x, y], 1)), rel=1e-6)


def test_np_array_the_tape_cannot_record_raises_and_restores_numpy() -> None:
    numpy_array = np.array
    with pytest.raises(TapeError, match="np.asarray"):  # nested: NumPy's own np.array, __array__ refuses
        janus.grad(lambda x: np.sum(np.array([[x[0], x[1]]])))(signed(2))
    with pytest.raises(TapeError, match="np.array of traced values"):
        janus.grad(lambda x: np.sum(np.array([x[0], x[1]], ndmin=2)))(signed(2))
    assert np.array is numpy_array


def tree_loss(params: dict, scale: float, x: np.ndarray) -> Any:
    h = np.tanh(x @ params["W"] + params["b"][0])
    return np.mean(h * h) * scale + params["b"][1].sum()


def test_pytrees_argnums_and_scalars() -> None:
    x = signed(5, 3)
    params = {"W": signed(3, 2), "b": [signed(2), signed(4)]}
    g = janus.grad(tree_loss, argnums=(0, 1))
    (dparams, dscale) = g(params, 1.5, x)
    assert not g.versions  # a dict argument: eager tape
    assert type(dparams) is dict and type(dparams["b"]) is list and type(dscale) is float
    for key, i, value in (("W", None, params["W"]), ("b", 0, params["b"][0]), ("b", 1, params["b"][1])):
        def partial(v: np.ndarray) -> Any:
            p = {"W": params["W"], "b": list(params["b"])}
            if i is None:
                p["W"] = v
            else:
                p["b"][i] = v
            return tree_loss(p, 1.5, x)

        got = dparams[key] if i is None else dparams[key][i]
        np.testing.assert_allclose(got, central_differences(partial, [value], 0), rtol=1e-6, atol=1e-9)
    assert dscale == pytest.approx(float(np.mean(np.tanh(x @ params["W"] + params["b"][0]) ** 2)))


def aux_loss(w: np.ndarray, x: np.ndarray) -> tuple:
    y = x * w
    return np.sum(y * y), (y, "label")


def test_value_and_grad_with_aux_keeps_dtypes() -> None:
    w, x = np.float32([0.5, -2.0]), np.float32([3.0, 1.0])
    (value, (y, label)), dw = janus.value_and_grad(aux_loss, has_aux=True)(w, x)
    assert type(value) is np.float32 and value == np.float32(np.sum((x * w) ** 2))
    assert label == "label" and type(y) is np.ndarray and y.dtype == np.float32
    assert dw.dtype == np.float32
    np.testing.assert_allclose(dw, 2 * x * x * w, rtol=1e-6)
    dw2, aux = janus.grad(aux_loss, has_aux=True)(w, x)
    np.testing.assert_array_equal(dw2, dw) and np.testing.assert_array_equal(aux[0], y)


def test_errors_name_the_problem() -> None:
    x = signed(3)
    with pytest.raises(TapeError, match="np.nancumsum is not in the op table"):
        janus.grad(lambda v: np.sum(np.nancumsum(v)))(x)
    with pytest.raises(TypeError, match="scalar float"):
        janus.grad(lambda v: v * 2.0)(x)
    with pytest.raises(TapeError, match="float\\(\\) of a traced value"):
        janus.grad(lambda v: float(np.sum(v)))(x)
    with pytest.raises(TapeError, match="np.asarray|would drop its gradient"):
        janus.grad(lambda v: np.sum(np.asarray(v)))(x)
    with pytest.raises(TypeError, match="float arrays"):
        janus.grad(lambda v: np.sum(v * 1.0))(np.arange(3))
    with pytest.raises(TypeError, match="argnums"):
        janus.grad(lambda v: np.sum(v), argnums=1)(x)
    with pytest.raises(TapeError, match="ndarray.compress\\(\\) is not in the op table"):
        janus.grad(lambda v: v.compress([True, False, True]).sum())(x)


@pytest.mark.parametrize("name", sorted(registry.METHODS))
def test_every_table_method_is_recorded_on_the_tape(name: str) -> None:
    """The tape's ndarray methods are the op table's: each is recorded as its op, so
    ``x.var()`` in a loss differentiates like ``np.var(x)``."""
    tape = Tape()
    x = tape.input(signed(3, 4))
    assert callable(getattr(x, name))
    assert getattr(type(x), name, None) is None  # not a hand-kept list on the class


def test_tape_methods_against_finite_differences() -> None:
    def loss(v):
        return (v.ravel() ** 2).sum() + v.var() + v.clip(-0.5, 0.5).sum() + v.mean(axis=0).std() + v.squeeze().prod()

    x = signed(3, 4)
    tape = Tape()
    inputs = [tape.input(x)]
    (got,) = tape.backward(loss(*inputs), inputs)
    np.testing.assert_allclose(got, central_differences(loss, [x], 0), rtol=1e-6, atol=1e-8)


def test_python_control_flow_on_traced_values() -> None:
    def piecewise(x: np.ndarray) -> Any:
        total = 0.0
        for row in x:
            if row.sum() > 0:
                total = total + np.sum(row * row)
            else:
                total = total - np.sum(row)
        return total

    x = signed(4, 3)
    np.testing.assert_allclose(janus.grad(piecewise)(x), central_differences(piecewise, [x], 0), rtol=1e-6, atol=1e-9)


# ---- compiled gradients -----------------------------------------------------------------------
def mlp_loss(params: list, x: np.ndarray, y: np.ndarray) -> Any:
    W1, b1, W2, b2 = params
    h = np.tanh(x @ W1 + b1)
    d = h @ W2 + b2 - y
    return np.mean(d * d)


def init_mlp(dtype: Any = np.float32, seed: int = 0) -> tuple[list, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal((4, 16)) * 0.5, np.zeros(16), rng.standard_normal((16, 2)) * 0.5, np.zeros(2)]
    x = rng.standard_normal((32, 4))
    y = np.stack([np.sin(x[:, 0] + x[:, 1]), x[:, 2] * x[:, 3]], axis=1)
    return [p.astype(dtype) for p in params], x.astype(dtype), y.astype(dtype)


def assert_close(got: Any, want: Any, rtol: float) -> None:
    """Same structure, types and dtypes; values within ``rtol``."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_close(g, w, rtol)
    elif isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    else:
        assert got == want


def compiled_grad(g: GradFunction, *args: Any) -> GradFunction:
    """``g`` warmed up on ``args`` until it compiled (fails with the report otherwise)."""
    for _ in range(g.warmup):
        g(*args)
    assert g.versions, janus.explain(g)
    return g


@pytest.fixture(scope="module")
def mlp_grad() -> GradFunction:
    return compiled_grad(janus.value_and_grad(mlp_loss, warmup=1), *init_mlp())


def test_compiled_gradients_equal_the_tape(mlp_grad: GradFunction) -> None:
    args = init_mlp(seed=1)
    (version,) = mlp_grad.versions.values()
    calls = version.calls
    got = mlp_grad(*args)
    assert version.calls == calls + 1
    assert "janus.grad = {argnums" in version.graph.text and "call @mlp_loss_d0_grad" in version.graph.text
    assert_close(got, mlp_grad.spec(*args), rtol=1e-5)


def test_compiled_float64_gradients_match_finite_differences() -> None:
    def loss(w: np.ndarray, x: np.ndarray) -> Any:
        z = x @ w
        return np.sum(np.maximum(z, 0.0) * z) / np.sqrt(np.sum(w * w))

    w, x = signed(3, 2), signed(4, 3)
    g = compiled_grad(janus.grad(loss, warmup=1), w, x)
    got = g(w, x)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, g.spec(w, x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, central_differences(loss, [w, x], 0), rtol=1e-6, atol=1e-8)


def test_compiled_gradient_through_in_place_operators() -> None:
    """``p /= p.sum(...)`` (the usual softmax) and ``y -= y.mean(0)`` in a differentiated
    function compile: an in-place operator on a local array only renames the SSA value
    (it ran in Python: "in-place /= on a local array inside a loop region")."""
    def loss(x: np.ndarray, w: np.ndarray) -> Any:
        p = np.exp(x - x.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        y = p * w
        y -= y.mean(axis=0)
        return np.sum(y * y)

    x, w = signed(3, 4), signed(3, 4)
    g = compiled_grad(janus.grad(loss, argnums=(0, 1), warmup=1), x, w)
    assert not g.fallbacks, janus.explain(g)
    got = g(x, w)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], central_differences(loss, [x, w], i), rtol=1e-6, atol=1e-8)


def aliased_update(x: np.ndarray) -> Any:
    y = x * 1.0
    z = y  # the same array: NumPy's in-place updates of y reach it
    y *= 2.0
    y += x
    y /= 3.0
    y -= 0.5
    y **= 2
    return np.sum(z * x)


def rebound_scalar(x: np.ndarray) -> Any:
    s = x.sum()
    t = s  # a NumPy scalar is immutable: ``s += 1`` rebinds s only
    s += 1.0
    return s * t


def test_in_place_operators_on_the_tape_update_every_alias_as_numpy_does() -> None:
    """The eager tape's ``y *= 2`` rebound the name only, so ``z = y`` kept the old value
    (value and gradient wrong on the profiled calls, right once compiled)."""
    x = signed(5)
    vg = janus.value_and_grad(aliased_update, warmup=2)
    want = central_differences(aliased_update, [x], 0)
    for _ in range(4):  # two on the tape, then compiled
        value, grad = vg(x)
        np.testing.assert_allclose(value, aliased_update(x), rtol=1e-12)
        np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-8)
    assert vg.versions and not vg.fallbacks, janus.explain(vg)
    value, grad = janus.value_and_grad(rebound_scalar)(x)
    np.testing.assert_allclose(value, rebound_scalar(x), rtol=1e-12)
    np.testing.assert_allclose(grad, central_differences(rebound_scalar, [x], 0), rtol=1e-6, atol=1e-8)


def update_with_a_view(x: np.ndarray) -> Any:
    y = x * 1.0
    view = y[1:]
    y *= 2.0  # NumPy doubles the view too
    return view.sum()


def item_assignment(x: np.ndarray) -> Any:
    y = x * 1.0
    y[0] = 3.0
    return y.sum()


def update_of_the_argument(x: np.ndarray) -> Any:
    x *= 2.0  # the caller's array
    return x.sum()


@pytest.mark.parametrize("fn, message", [
    (update_with_a_view, "in-place multiply of a traced array that shares memory with another"),
    (item_assignment, "item assignment into a traced array is not differentiated on the tape"),
    (update_of_the_argument, "in-place multiply of a differentiated argument"),
])
def test_in_place_updates_the_tape_cannot_follow_raise_a_tape_error(fn: Callable[..., Any], message: str) -> None:
    with pytest.raises(TapeError, match=message):
        janus.grad(fn)(signed(4))


def test_compiled_gradient_through_outer() -> None:
    def loss(u: np.ndarray, v: np.ndarray) -> Any:
        return np.sum(np.tanh(np.outer(u, v)) * np.outer(v, u).T)

    u, v = signed(4).astype(np.float32), signed(3).astype(np.float32)
    g = compiled_grad(janus.grad(loss, argnums=(0, 1), warmup=1), u, v)
    (version,) = g.versions.values()
    calls = version.calls
    got = g(u, v)
    assert version.calls == calls + 1
    assert_close(got, g.spec(u, v), rtol=1e-5)


def test_guarded_branches_in_the_differentiated_function() -> None:
    """A speculated branch inside the loss: a guard failure reruns on the tape; once the
    branch varies too often it becomes an scf.if that the gradient goes through."""

    def branchy(x: np.ndarray, w: np.ndarray) -> Any:
        if np.sum(x) > 0:
            return np.sum(np.tanh(x * w))
        return np.sum(x * x * w)

    g = compiled_grad(janus.grad(branchy, argnums=(0, 1), warmup=1), np.ones(3, np.float32), np.full(3, 0.5, np.float32))
    for sign in [1, -1] * 4:
        x, w = sign * np.float32([0.5, 1.0, 2.0]), np.float32([0.3, -0.2, 0.9])
        assert_close(g(x, w), g.spec(x, w), rtol=1e-5)
    assert any("failed" in e for e in g.events)
    (version,) = g.versions.values()
    assert "scf.if" in version.graph.text and version.calls >= 2, janus.explain(g)


def test_compiled_value_and_grad_with_aux() -> None:
    w, x = np.float32([0.5, -2.0]), np.float32([3.0, 1.0])
    g = compiled_grad(janus.value_and_grad(aux_loss, has_aux=True, warmup=1), w, x)
    (version,) = g.versions.values()
    assert_close(g(w, x), g.spec(w, x), rtol=1e-6)
    assert version.calls == 1


def test_unsupported_gradients_fall_back_with_a_reason() -> None:
    def overlapping_pool(x: np.ndarray) -> Any:
        return np.sum(nn.max_pool2d(x, 2, stride=1))

    g = janus.grad(overlapping_pool, warmup=1)
    x = np.float32([[[[1.0, -3.0, 2.0], [0.0, 5.0, -1.0]]]])
    for _ in range(3):
        np.testing.assert_array_equal(g(x), np.float32([[[[0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]]]))
    assert not g.versions and "compilation failed" in janus.explain(g) and "windows that tile the input" in janus.explain(g)


# ---- gradients inside jitted functions, training ---------------------------------------------
def train_step(params: list, x: np.ndarray, y: np.ndarray, lr: float) -> tuple:
    loss, grads = janus.value_and_grad(mlp_loss)(params, x, y)
    return [p - lr * g for p, g in zip(params, grads)], loss


def test_jit_of_grad_is_the_grad_function() -> None:
    g = janus.grad(mlp_loss)
    assert janus.jit(g) is g


def test_mlp_training_loop_compiled_and_imperative() -> None:
    """50 SGD steps: the jitted train step (gradients from janus-autodiff) and the same
    step run by Python (gradients from the eager tape) give the same loss curve."""
    params, x, y = init_mlp(seed=3)
    step = janus.jit(train_step, warmup=2)
    compiled_params, imperative_params = params, params
    compiled_curve, imperative_curve = [], []
    for _ in range(50):
        compiled_params, loss = step(compiled_params, x, y, 0.1)
        compiled_curve.append(loss)
        imperative_params, loss = train_step(imperative_params, x, y, 0.1)
        imperative_curve.append(loss)
    (version,) = step.versions.values()
    assert version.calls == 48 and "call @mlp_loss_d0_grad" in version.graph.text, janus.explain(step)
    assert all(type(c) is np.float32 for c in compiled_curve)
    np.testing.assert_allclose(compiled_curve, imperative_curve, rtol=1e-4)
    assert imperative_curve[-1] < 0.5 * imperative_curve[0]  # it trains
    assert_close(compiled_params, imperative_params, rtol=1e-3)


def test_tape_matches_handwritten_backprop() -> None:
    """The oracle's oracle: the MLP gradient by hand."""
    (W1, b1, W2, b2), x, y = init_mlp(np.float64, seed=4)
    h = np.tanh(x @ W1 + b1)
    d = h @ W2 + b2 - y
    dout = 2 * d / d.size
    dh = dout @ W2.T * (1 - h * h)
    want = [x.T @ dh, dh.sum(0), h.T @ dout, dout.sum(0)]
    got = janus.grad(mlp_loss)([W1, b1, W2, b2], x, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
