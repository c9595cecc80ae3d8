"""Training loops with parameters kept in object attributes (issue #6, point 2).

Each model class has a plain train-step method and a subclass whose train step is
``janus.jit`` of the same method; two instances built from one seed train side by side on
the same data, one compiled and one by plain Python (gradients from the eager tape), and
must give the same loss curve and the same final attributes. Each test also checks that
the compiled version ran (its call count) and what its graph holds."""

from __future__ import annotations

from typing import Any

import numpy as np

import janus
from tests.helpers import in_python
from tests.helpers.train_models import (LSTM, LSTM_STATE, MLP, MLP_PARAMS, STEPS, JitLSTM, JitMLP, lstm_segments,
                                         mlp_batch, mlp_loss)

F32 = np.float32


def assert_same_state(got: Any, want: Any, names: list[str], rtol: float) -> None:
    for name in names:
        a, b = getattr(got, name), getattr(want, name)
        assert type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape, name
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, err_msg=name)


def only_version(jf: Any) -> Any:
    assert len(jf.versions) == 1, janus.explain(jf)
    return next(iter(jf.versions.values()))


# ---- an MLP: the object is the differentiated argument ------------------------------------------
def test_object_gradients_on_the_tape() -> None:
    """The differentiated object's gradient is a dict of its float array attributes,
    equal to the gradient with respect to the same arrays passed as a list."""
    model, (x, y) = MLP(5), mlp_batch(np.random.default_rng(5))
    model.count = np.arange(3)  # an int array: not a parameter
    lr = model.lr
    value, g = janus.value_and_grad(mlp_loss)(model, x, y)
    assert list(g) == MLP_PARAMS and model.lr is lr

    def list_loss(params: list, x: np.ndarray, y: np.ndarray) -> Any:
        W1, b1, W2, b2 = params
        d = np.tanh(x @ W1 + b1) @ W2 + b2 - y
        return np.mean(d * d)

    want_value, want = janus.value_and_grad(list_loss)([getattr(model, n) for n in MLP_PARAMS], x, y)
    assert value == want_value
    for name, w in zip(MLP_PARAMS, want):
        assert g[name].dtype == F32
        np.testing.assert_array_equal(g[name], w)


def test_mlp_training_compiled_and_imperative() -> None:
    """50 steps: same loss curve and parameters. At step 30 the speculated branch goes the
    other way: the guard fails, nothing is committed (the parameters after that step equal
    the imperative ones: no update applied twice), the imperative re-run updates them, and
    the regenerated version holds an scf.if."""
    jf = JitMLP.train_step
    compiled, imperative = JitMLP(0), MLP(0)
    rng = np.random.default_rng(1)
    curves: tuple[list, list] = ([], [])
    calls = []  # compiled calls of the current version after each step
    for step in range(STEPS):
        x, y = mlp_batch(rng, sign=-1.0 if step == 30 else 1.0)
        before = compiled.W1.copy()
        curves[0].append(compiled.train_step(x, y))
        curves[1].append(imperative.train_step(x, y))
        calls.append(only_version(jf).calls if jf.versions else 0)
        if step == 30:
            assert not np.array_equal(compiled.W1, before)
            assert_same_state(compiled, imperative, MLP_PARAMS, rtol=1e-5)
    # 2 profiled runs, version 1 for steps 2-29, the failed step 30 runs imperatively and
    # its profile regenerates version 2 at once, which runs steps 31-49
    assert calls[29] == 28 and calls[30] == 0 and calls[-1] == 19, janus.explain(jf)
    assert sum("failed" in e for e in jf.events) == 1
    version = only_version(jf)
    assert "scf.if" in version.graph.text
    text = version.graph.text
    assert "janus.grad = {argnums" in text and "call @mlp_loss_d" in text and '"janus.set_attr"' in text
    assert all(type(c) is F32 for c in curves[0])
    np.testing.assert_allclose(curves[0], curves[1], rtol=1e-4)
    assert curves[1][-1] < 0.5 * curves[1][0]  # it trains
    assert_same_state(compiled, imperative, MLP_PARAMS, rtol=1e-4)


def test_writes_inside_the_differentiated_function_fall_back() -> None:
    """The differentiated function must be pure: a heap write in it is not converted (its
    call runs in Python, between compiled segments of the step around it)."""

    def writing_loss(model: MLP, x: np.ndarray, y: np.ndarray) -> Any:
        model.last = x @ model.W1
        return np.mean(model.last)

    def step(model: MLP, x: np.ndarray, y: np.ndarray) -> Any:
        loss, g = janus.value_and_grad(writing_loss)(model, x, y)
        model.W1 = model.W1 - 0.1 * g["W1"]
        return loss

    jf = janus.jit(step, warmup=1)
    a, b = MLP(2), MLP(2)
    x, y = mlp_batch(np.random.default_rng(2))
    for _ in range(3):
        assert jf(a, x, y) == step(b, x, y)
    assert in_python(jf) and "inside a janus.grad function" in janus.explain(jf)
    assert_same_state(a, b, MLP_PARAMS, rtol=0)
    assert not hasattr(a, "last")  # the function wrote to its copy of the model


# ---- an LSTM keeping self.h / self.c: bound method, attribute values as arguments --------------
def test_lstm_truncated_bptt_compiled_and_imperative() -> None:
    jf = JitLSTM.train_step
    compiled, imperative = JitLSTM(0), LSTM(0)
    curves: tuple[list, list] = ([], [])
    for xs, ys in lstm_segments():
        curves[0].append(compiled.train_step(xs, ys))
        curves[1].append(imperative.train_step(xs, ys))
    version = only_version(jf)
    assert version.calls == STEPS - 2, janus.explain(jf)
    text = version.graph.text
    assert "janus.grad = {argnums" in text and "call @loss_d" in text
    assert 'name = "h"' in text and '"janus.set_attr"' in text
    assert all(type(c) is F32 for c in curves[0])
    np.testing.assert_allclose(curves[0], curves[1], rtol=1e-4)
    assert curves[1][-1] < 0.5 * curves[1][0]  # it trains
    assert_same_state(compiled, imperative, LSTM_STATE, rtol=1e-4)


def test_grad_of_a_bound_method_called_directly_runs_on_the_tape() -> None:
    """Outside a jitted caller the object is no heap argument: the tape, with the reason."""
    model, (xs, ys) = LSTM(3), lstm_segments()[0]
    args = (model.Wx, model.Wh, model.b, model.Wy, model.by, xs, ys)
    g = janus.value_and_grad(model.loss, argnums=(0, 4), has_aux=True)
    (value, (h, c)), (gWx, gby) = g(*args)
    want = g.spec(*args)
    assert value == want[0][0] and gWx.shape == model.Wx.shape and gby.dtype == F32
    np.testing.assert_array_equal(gWx, want[1][0])
    assert not g.versions and "a bound method" in janus.explain(g)


def test_compiled_argnums_out_of_order_and_repeated_arrays() -> None:
    """Gradients come back in ``argnums`` order, one per position even for one array
    passed twice (compiled against the tape)."""

    def loss(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> Any:
        return np.sum(np.tanh(a * x) * b)

    g = janus.grad(loss, argnums=(2, 0, 1), warmup=1)
    a, x = np.float32([0.5, -1.0, 2.0]), np.float32([1.0, 0.3, -0.7])
    for b in (a, a, a * 2):  # profiled, then compiled twice
        got, want = g(a, b, x), g.spec(a, b, x)
        for u, w in zip(got, want):
            np.testing.assert_allclose(u, w, rtol=1e-6)
    assert only_version(g).calls == 2
