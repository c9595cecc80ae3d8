"""janus.jit end to end: models, speculation, guard failures and fallbacks, vs. NumPy."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, compiled, rand, with_print
from tests.helpers.programs import halve

jit_module = importlib.import_module("janus.frontend.jit")


def linear(x, W, b):
    return x @ W + b


def relu(z):
    return np.maximum(z, 0.0)


def mlp(x, W1, b1, W2, b2):
    h = np.tanh(x @ W1 + b1)
    return relu(h @ W2 + b2)


def rnn(xs, h, W, U, b):
    states = []
    for x in xs:
        h = np.tanh(x @ W + h @ U + b)
        states.append(h)
    return h, states


def branchy(x):
    if x.sum() > 0:
        return x * 2.0
    return x - 1.0


def with_generator(xs):  # a for loop over a generator interleaves with it (a whole consumer such as sum() converts)
    total = 0.0
    for v in (x * 2 for x in xs):
        total = total + v
    return total


LIN_ARGS = (rand(4, 3), rand(3, 2), rand(2))


@pytest.fixture(scope="module")
def jit_linear():
    return janus.jit(linear)


def test_linear_model_compiles_after_three_profiled_runs(jit_linear):
    for _ in range(3):
        assert_same(jit_linear(*LIN_ARGS), linear(*LIN_ARGS))
    assert jit_linear.profile.runs == 3 and len(jit_linear.versions) == 1
    for seed in range(3):  # new values, same signature: the cached version answers
        args = (rand(4, 3, seed=seed), rand(3, 2, seed=seed + 1), rand(2, seed=seed + 2))
        assert_same(jit_linear(*args), linear(*args))
    (version,) = jit_linear.versions.values()
    assert version.calls == 3 and jit_linear.profile.runs == 3


def test_kept_results_never_change_under_their_holder():
    jf = compiled(linear, *LIN_ARGS)
    kept = jf(*LIN_ARGS)  # a small result: copied out of the storage later calls write again
    for seed in range(3):
        jf(rand(4, 3, seed=seed), rand(3, 2, seed=seed + 1), rand(2, seed=seed + 2))
    assert_same(kept, linear(*LIN_ARGS))
    assert jf(*LIN_ARGS) is not kept


def test_signature_change_misses_and_answers_imperatively(jit_linear):
    args64 = tuple(a.astype(np.float64) for a in LIN_ARGS)
    assert_same(jit_linear(*args64), linear(*args64))  # dtype miss
    wide = (rand(5, 3), rand(3, 7), rand(7))
    assert_same(jit_linear(*wide), linear(*wide))  # shape miss
    assert len(jit_linear.versions) == 1 and jit_linear.profile.runs == 5
    assert "float32, shape=(4, 3)" in janus.explain(jit_linear)


def test_mlp_forward_inlines_relu():
    args = (rand(8, 5), rand(5, 16), rand(16), rand(16, 3), rand(3))
    jf = compiled(mlp, *args, warmup=3)
    other = (rand(8, 5, seed=9),) + args[1:]
    assert_same(jf(*other), mlp(*other))
    assert "global relu" in janus.explain(jf)


def test_rnn_over_a_python_list_is_unrolled():
    W, U, b = rand(3, 4), rand(4, 4) * 0.5, rand(4)
    xs = [rand(2, 3, seed=s) for s in range(5)]
    args = (xs, np.zeros((2, 4), np.float32), W, U, b)
    jf = compiled(rnn, *args)
    (version,) = jf.versions.values()
    assert version.graph.text.count("linalg.matmul") == 10
    assert_same(jf(*args), rnn(*args))
    shorter = (xs[:2],) + args[1:]  # a different length is a different entry signature
    assert_same(jf(*shorter), rnn(*shorter))
    assert version.calls == 1


def test_fixed_branch_is_pruned_and_its_guard_falls_back():
    x = np.abs(rand(3, 3)) + 0.1
    jf = compiled(branchy, x, warmup=3)
    (version,) = jf.versions.values()
    assert [kind for _, kind, _ in version.graph.guards] == ["branch"]
    assert "arith.subf" not in version.graph.text  # the other side is pruned
    assert_same(jf(x * 3), branchy(x * 3))
    assert_same(jf(-x), branchy(-x))  # the guard fails: the imperative answer
    assert "guard 0 (branch)" in janus.explain(jf)
    assert_same(jf(x), branchy(x))  # the regenerated graph: the branch is an scf.if now
    (version,) = jf.versions.values()
    assert "scf.if" in version.graph.text and version.calls == 1
    assert_same(jf(-x), branchy(-x))
    assert version.calls == 2


def clipped_update(h, x, W):
    z = x @ W
    if z.sum() > 0:
        h = np.tanh(z + h)
        scale = 2.0
    else:
        h = h * 0.5
        scale = 2.0
    out = []
    out.append(h * scale)
    return h, out


def test_varying_branch_becomes_scf_if():
    h, W = rand(2, 4), rand(3, 4)
    pos, neg = np.abs(rand(2, 3)), -np.abs(rand(2, 3, seed=1))
    jf = janus.jit(clipped_update, warmup=2)
    W = np.abs(W)
    for x in (pos, neg):  # profiled both ways
        assert_same(jf(h, x, W), clipped_update(h, x, W))
    (version,) = jf.versions.values()
    assert "scf.if" in version.graph.text and not version.graph.guards
    for x in (neg, pos, pos * 2, neg * 3):
        assert_same(jf(h, x, W), clipped_update(h, x, W))
    assert version.calls == 4 and jf.profile.runs == 2


def row_or_zeros(E, i, x):
    e = E[i] if x.sum() > 0 else np.zeros(E.shape[1], E.dtype)  # an array the trace made on one side
    return np.tanh(e + x)


def test_a_branch_joining_a_graph_array_with_an_array_the_trace_made():
    E, pos, neg = rand(5, 3), np.abs(rand(3)), -np.abs(rand(3, seed=1))
    jf = janus.jit(row_or_zeros, warmup=2)
    for x in (pos, neg):  # profiled both ways
        assert_same(jf(E, 2, x), row_or_zeros(E, 2, x))
    (version,) = jf.versions.values()
    assert "scf.if" in version.graph.text, janus.explain(jf)
    for x in (neg, pos * 2, neg * 3, pos):
        assert_same(jf(E, 2, x), row_or_zeros(E, 2, x))
    assert version.calls == 4


def early_return(x):
    if x.max() > 1.0:
        return x / x.max(), True
    return x, False


def test_varying_branch_with_returns_on_both_sides_is_converted_or_explained():
    jf = janus.jit(early_return, warmup=2)
    small, big = np.abs(rand(4)) * 0.1, np.abs(rand(4)) + 2.0
    for x in (small, big, small, big):
        assert_same(jf(x), early_return(x))
    # the sides return different Python bools: a Python bool either way, joined in the graph
    (version,) = jf.versions.values()
    assert version.calls == 2 and not jf.fallbacks, janus.explain(jf)
    assert all(type(jf(x)[1]) is bool for x in (small, big))


@pytest.mark.parametrize(
    "fn, args, reason",
    [
        (with_generator, ([rand(3), rand(3)],), "generator"),
        (with_print, (rand(3),), "call to print"),
    ],
)
def test_unsupported_construct_stays_imperative_with_reason(fn, args, reason, capsys):
    jf = janus.jit(fn, warmup=1)
    for _ in range(3):
        assert_same(jf(*args), fn(*args))
    assert not jf.versions and reason in janus.explain(jf)
    assert jf.profile.runs == 1  # not re-profiled on every call


def test_appends_to_a_caller_list_run_in_python_and_in_place_updates_of_its_arrays_compile():
    def appends(xs, x):
        xs.append(x * 2)
        return x

    def in_place(x):
        x += 1.0
        return x

    jf_append, jf_inplace = janus.jit(appends, warmup=1), janus.jit(in_place, warmup=1)
    xs = []
    for _ in range(3):
        jf_append(xs, rand(2))
    assert len(xs) == 3 and "heap write" in janus.explain(jf_append)
    x = np.zeros(2)
    for _ in range(3):
        jf_inplace(x)
    np.testing.assert_array_equal(x, [3.0, 3.0])  # the caller's array, written after each compiled call
    assert sum(v.calls for v in jf_inplace.versions.values()) == 2, janus.explain(jf_inplace)
    assert "argument array 0: updated in place" in janus.explain(jf_inplace)


def helper(x):
    return x * 2.0


def calls_helper(x):
    return helper(x) + 1.0


def test_rebinding_an_inlined_callee_invalidates_the_version():
    global helper
    x = rand(3)
    jf = compiled(calls_helper, x)
    original = helper
    try:
        helper = lambda x: x * 10.0  # noqa: E731
        assert_same(jf(x), calls_helper(x))
        assert "rebound" in janus.explain(jf)
    finally:
        helper = original


def test_comprehension_keywords_and_static_python():
    def fn(xs, scale, n):
        ys = [np.tanh(x * scale) for x in xs]
        total = ys[0]
        for i in range(1, n):
            total = total + ys[i]
        return np.concatenate(ys, axis=0), total.sum(axis=0, keepdims=True), len(ys), n - 1

    args = ([rand(2, 3, seed=s) for s in range(3)], 0.5, 3)
    jf = compiled(fn, *args)
    assert_same(jf(*args), fn(*args))


def test_scalar_result_is_a_numpy_scalar():
    jf = compiled(lambda x: (x * x).sum(), rand(4))
    assert isinstance(jf(rand(4)), np.float32)


def test_method_compiles_with_self_attributes_as_heap_reads():
    class Model:
        def __init__(self):
            self.W = rand(3, 3)

        @janus.jit
        def forward(self, x):
            return x @ self.W

    m, x = Model(), rand(2, 3)
    for _ in range(4):
        assert_same(m.forward(x), x @ m.W)
    (version,) = Model.forward.versions.values()
    assert version.calls == 1 and '"janus.get_attr"' in version.graph.text
    other = Model()  # another instance of the type: same version, its own W
    other.W = rand(3, 3, seed=4)
    assert_same(other.forward(x), x @ other.W)
    assert version.calls == 2 and "heap self.W: ndarray[float32" in janus.explain(Model.forward)


class _Stepper:
    """A model whose method is jitted from outside, as ``step = janus.jit(model.step)``."""

    def __init__(self, seed: int) -> None:
        self.W = rand(3, 3, seed=seed)
        self.steps = 0

    def step(self, x, lr=0.5, scale=2.0):
        self.W -= lr * np.outer(x, x @ self.W)
        self.steps += 1
        return (x @ self.W) * scale


def test_a_bound_method_jitted_from_outside_compiles_with_its_object():
    plain, jitted = _Stepper(1), _Stepper(1)
    step = janus.jit(jitted.step)
    for i in range(5):
        x = rand(3, seed=10 + i)
        assert_same(step(x), plain.step(x))
    assert_same(jitted.W, plain.W)
    assert jitted.steps == plain.steps == 5
    report = janus.explain(step)
    assert "compiled: self: _Stepper object" in report and "\nimperative:" not in report, report


def test_a_bound_method_counts_static_arguments_after_self():
    plain, jitted = _Stepper(2), _Stepper(2)
    step = janus.jit(jitted.step, static_argnums=1)  # ``lr``: argument 1 of the bound method
    for lr in (0.5, 0.5, 0.25, 0.25, 0.25):
        x = rand(3, seed=3)
        assert_same(step(x, lr), plain.step(x, lr))
    assert_same(jitted.W, plain.W)
    assert len(step.func.specializations) == 2


def test_jit_of_a_decorated_method_bound_to_its_object_is_that_method():
    class Model:
        @janus.jit
        def forward(self, x):
            return x * 2.0

    m = Model()
    assert janus.jit(m.forward).func is Model.forward


def test_keyword_only_parameters_compile_and_extra_positionals_still_raise():
    def step(x, w, *, lr=0.5, decay=None):
        w = w * (1.0 - decay) if decay is not None else w
        return x @ w * lr

    jf = janus.jit(step)
    x, w = rand(2, 3), rand(3, 3, seed=1)
    for kwargs in ({}, {}, {}, {"lr": 0.25}, {}, {"lr": 0.25, "decay": 0.1}, {"decay": 0.1, "lr": 0.25}):
        assert_same(jf(x, w, **kwargs), step(x, w, **kwargs))
    report = janus.explain(jf)
    assert "compiled: x: ndarray" in report and "lr: float=0.5" in report and "\nimperative:" not in report, report
    with pytest.raises(TypeError):
        jf(x, w, 0.25)  # ``lr`` is keyword-only, as in Python


def test_star_args_compile_as_a_tuple_and_star_kwargs_as_a_dict():
    def total(w, *xs, scale=2.0):
        return sum(x @ w for x in xs) * scale

    def options(x, **opts):
        return x * opts["scale"] + opts.get("shift", 0.0)

    jf, jo = janus.jit(total), janus.jit(options)
    w, xs = rand(3, 3), (rand(3), rand(3, seed=1))
    for _ in range(4):
        assert_same(jf(w, *xs), total(w, *xs))
        assert_same(jo(xs[0], scale=2.0), options(xs[0], scale=2.0))
    assert_same(jf(w, *xs, scale=0.5), total(w, *xs, scale=0.5))
    for opts in ({"scale": 3.0}, {"scale": 2.0, "shift": 1.0}, {"shift": 1.0, "scale": 2.0}, {"scale": 2.0}):
        assert_same(jo(xs[0], **opts), options(xs[0], **opts))
    for jitted in (jf, jo):
        report = janus.explain(jitted)
        assert "compiled:" in report and "\nimperative:" not in report, report


def test_unsupported_interpreter_warns_and_runs_imperatively(monkeypatch):
    monkeypatch.setattr(jit_module, "supported", lambda: False)
    jf = janus.jit(linear)
    with pytest.warns(janus.FallbackWarning, match="CPython 3.11, 3.12 and 3.13, not of"):
        assert_same(jf(*LIN_ARGS), linear(*LIN_ARGS))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(4):
            assert_same(jf(*LIN_ARGS), linear(*LIN_ARGS))
    assert not jf.versions and jf.profile.runs == 0


def normalize(x):
    if x.max() > 1.0:
        return x / x.max()
    return x


def test_returns_on_both_sides_join_at_the_exit_and_data_dependent_while_compiles():
    jf = janus.jit(normalize, warmup=2)
    small, big = np.abs(rand(4)) * 0.1, np.abs(rand(4)) + 2.0
    for x in (small, big, big * 3, small * 2):
        assert_same(jf(x), normalize(x))
    (version,) = jf.versions.values()
    assert version.calls == 2 and "scf.if" in version.graph.text
    jw = janus.jit(halve, warmup=2)
    for x in (small, big, big):
        assert_same(jw(x), halve(x))
    assert jw.versions and "trip_count" in janus.explain(jw)  # loops: tests/frontend/trace/test_loops.py



def test_bool_fill_constants_parse():
    """A bool fill is ``arith.constant true`` (``true : i1`` does not parse)."""
    from janus.frontend.emitter import Emitter, function_text
    from janus.ir import make_context, parse_module

    em = Emitter()
    filled = em.filled((2,), np.dtype(bool), True)
    with make_context():
        parse_module("module {\n" + function_text("f", [], [filled], em.lines) + "\n}")


def test_a_compiled_call_that_fails_at_run_time_falls_back(monkeypatch):
    """An error of the compiled module that is not a guard (nothing was committed) gives
    the imperative answer and makes that signature imperative, with the reason."""
    def f(x):
        return np.tanh(x) * 2.0

    x = rand(4)
    jf = compiled(f, x)
    (version,) = jf.versions.values()

    def broken(*args, **kwargs):
        raise RuntimeError("Error invoking function: FAILED_PRECONDITION; variant at index 0 is not a value type")

    monkeypatch.setattr(version, "call", broken)
    assert_same(jf(x), f(x))
    assert not jf.versions and "the compiled call failed" in janus.explain(jf)
    assert_same(jf(x), f(x))


def sgd_step(w, x, y, lr=0.1, decay=0.0):
    g = x.T @ (x @ w - y) / len(x)
    return w - lr * (g + decay * w)


def test_a_positional_call_leaving_defaults_out_binds_without_the_signature(monkeypatch):
    """``step(w, x, y)`` with ``lr`` and ``decay`` defaulted gets the defaults appended, as
    ``Signature.bind`` would apply them, without calling it (about 5 us a call)."""
    jf = janus.jit(sgd_step, warmup=1)
    w, x, y = rand(3, seed=1), rand(5, 3, seed=2), rand(5, seed=3)
    for _ in range(2):
        assert_same(jf(w, x, y), sgd_step(w, x, y))

    def refuse(*args, **kwargs):
        raise AssertionError("JitFunction._bind (Signature.bind) called for a positional call")

    monkeypatch.setattr(jf, "_bind", refuse)
    for args in ((w, x, y), (w, x, y, 0.5), (w, x, y, 0.5, 0.01)) * 2:
        assert_same(jf(*args), sgd_step(*args))
    assert sum(v.calls for v in jf.versions.values()) >= 2, janus.explain(jf)
    monkeypatch.undo()
    assert_same(jf(w, x, y, decay=0.2), sgd_step(w, x, y, decay=0.2))  # keywords still bind
