"""Python idioms in traced code (issue #13): calls through module attributes, builtins
on Python values and on lists of arrays, comprehensions, ``*args``/``**kwargs``, closures,
``functools.partial``, NamedTuples and dataclasses; plain Python is the oracle."""

from __future__ import annotations

import dataclasses
import functools
import math
import operator

import numpy as np
import pytest

import janus
import tests.helpers as helpers_package
from tests.helpers import assert_same, check_compiled, compiled, in_python, mathlib, rand


def same_record(got, want):
    assert type(got) is type(want)
    for field in dataclasses.fields(want) if dataclasses.is_dataclass(want) else want._fields:
        name = getattr(field, "name", field)
        assert_same(getattr(got, name), getattr(want, name))


def refused(fn, *args) -> str:
    """What ``fn`` cannot convert runs in Python (the whole call, or between compiled
    segments), with Python's results; the reason ``janus.explain`` gives."""
    jf = janus.jit(fn, warmup=1)
    for _ in range(3):
        assert_same(jf(*args), fn(*args))
    assert in_python(jf), janus.explain(jf)
    return janus.explain(jf)


# ---- module attributes ---------------------------------------------------------------
def through_modules(x):
    return mathlib.softplus(x) * mathlib.SCALE + helpers_package.mathlib.doubled(x) + mathlib.OFFSET + math.sqrt(2.0) * math.pi + math.exp(math.log(3.0))


def test_module_function_inlined_constants_folded():
    jf = check_compiled(through_modules, rand(4))
    (version,) = jf.versions.values()
    assert "global SCALE" in "\n".join(version.guards.describe())


def test_rebound_module_attribute_is_not_stale():
    x = rand(4)
    jf = compiled(through_modules, x)
    saved = mathlib.SCALE, mathlib.softplus, mathlib.OFFSET
    try:
        mathlib.OFFSET = mathlib.OFFSET * 3.0
        assert_same(jf(x), through_modules(x))
        mathlib.SCALE = 5.0
        assert_same(jf(x), through_modules(x))
        mathlib.softplus = mathlib.doubled
        assert_same(jf(x), through_modules(x))
    finally:
        mathlib.SCALE, mathlib.softplus, mathlib.OFFSET = saved


def math_on_array(x):
    return x * math.tan(x[0])


def test_math_without_a_graph_form_on_an_array_value_runs_imperatively():  # (math.sqrt: test_math_calls.py)
    assert "math.tan on an array value" in refused(math_on_array, np.abs(rand(3)) + 1.0)


def undefined_attribute(x):
    return x if getattr(mathlib, "missing", None) is None else -x


def test_missing_module_attribute_runs_imperatively():
    assert "mathlib.missing is not defined" in refused(undefined_attribute, rand(3))


# ---- builtins ------------------------------------------------------------------------
def builtins_on_python_values(x):
    d = dict(a=1, b=2)
    e = dict([("c", 3)], d=4)
    f = dict(d, **e)
    n = sum(f.values()) + len(f) + max(3, 7) + min([4, 2]) + abs(-3) + round(2.6) + divmod(17, 5)[1]
    pairs = list(zip(range(3), reversed([5, 6, 7])))
    n += sum(i * j for i, j in pairs) + sum(map(lambda v: v * v, range(4))) + len(list(filter(lambda v: v % 2, range(5))))
    n += sorted([3, 1, 2])[0] + sum(k for k, _ in enumerate("ab")) + int(any([0, 1]) and all([1, 1]))
    n += int(isinstance(n, int)) + int(hasattr(math, "pi")) + int(getattr(x, "ndim")) + int(getattr(3, "missing", 4))
    return x * n


def test_builtins_on_python_values():
    check_compiled(builtins_on_python_values, rand(3))


def inverted(x, n, mask):
    return x * ~n + ~3, ~mask, ~(x > 0)


def test_invert_operator_on_traced_ints_and_arrays():
    jf = check_compiled(inverted, rand(3), 5, np.array([0, -1, 7]))
    assert_same(jf(rand(3), -(2**40), np.array([1, 2, 3])), inverted(rand(3), -(2**40), np.array([1, 2, 3])))


def test_invert_operator_on_a_float_array_raises_numpys_error():
    jf = janus.jit(lambda x: ~x, warmup=1)
    with pytest.raises(TypeError, match="ufunc 'invert' not supported"):
        jf(rand(3))


def methods_of_static_values(x, size, stride):
    steps = (size - 3) / stride + 1
    if not steps.is_integer():
        raise ValueError("size and stride do not fit")
    offsets = np.repeat(np.arange(3), 2).reshape(-1, 1) + np.arange(2).reshape(1, -1)
    return x[: int(steps)] * offsets.sum() + "a,b".split(",").index("b") + (2.5).as_integer_ratio()[1]


def test_methods_of_static_values_fold():
    check_compiled(methods_of_static_values, rand(4), 7, 2)


def builtins_on_arrays(x, y):
    xs = [x, y, x * y]
    total = sum(xs) + sum(xs, 1.0) + sum(x)
    scaled = list(map(lambda a, b: a - b, xs, reversed(xs)))
    kept = list(filter(None, [x, None, y][1:2] + [0, 1]))
    table = dict(zip(("p", "q"), xs))
    return total + scaled[0] + len(kept) * table["q"] + getattr(np, "ones")(3)


def isinstance_of_traced_values(x, n, params):
    kinds = (isinstance(x, np.ndarray), isinstance(x, (list, float)), isinstance(n, int), isinstance(params, Params),
             isinstance([x], list), isinstance(mathlib.Out(x, x), tuple))
    return x * sum(k << i for i, k in enumerate(kinds))


def isinstance_of_a_0d_array(x):
    return x * isinstance(x[0], np.ndarray)


def test_isinstance_of_traced_values():
    jf = janus.jit(isinstance_of_traced_values, warmup=1, specialize=False)  # n: a traced int
    args = (rand(3), 7, Params(rand(3, 3), rand(3)))
    for _ in range(2):
        assert_same(jf(*args), isinstance_of_traced_values(*args))
    assert [v.calls for v in jf.versions.values()] == [1], janus.explain(jf)
    assert "isinstance() of a Tensor" in refused(isinstance_of_a_0d_array, rand(3))


def test_builtins_on_lists_of_arrays():
    check_compiled(builtins_on_arrays, rand(3), rand(3, seed=1))


def sorted_by_python_key(x):
    return x * sorted([3, 1, 2], key=lambda v: -v)[0]


def filter_on_array_truth(x):
    return list(filter(lambda v: v > 0, [x, x]))[0]


def loop_over_map(x):
    total = x
    for v in map(lambda a: a * 2.0, [x, x]):
        total = total + v
    return total


def test_python_callables_in_builtins_and_array_truths_run_imperatively():
    assert "a for loop over map()" in refused(loop_over_map, rand(3))
    assert "a Python function is passed to sorted()" in refused(sorted_by_python_key, rand(3))
    assert "filter() on the truth of an array value" in refused(filter_on_array_truth, np.abs(rand(1)) + 1.0)


# ---- comprehensions, calls, closures -----------------------------------------------------
def comprehensions(x):
    rows = [x * i for i in range(3)]
    by_name = {f"r{i}": r for i, r in enumerate(rows)}
    sizes = {len(r.shape) for r in rows} | {5}
    return sum(r for r in rows) + by_name[f"{'r'!s}{1:d}"] * len(sizes)


def test_comprehensions_and_generator_expressions_inline():
    check_compiled(comprehensions, rand(3))


def variadic(*args, scale=1.0, **kwargs):
    return sum(args) * scale + sum(kwargs.values())


def keyword_only(a, b=2.0, *, c=3.0, d):
    return a * b + c - d


def calls(x):
    xs = [x, x + 1.0]
    opts = {"bias": x}
    return variadic(*xs, **opts) + variadic(x, scale=2.0) + keyword_only(x, d=1.0) + keyword_only(x, 1.0, c=x, d=x)


def test_star_args_kwargs_defaults_and_keyword_only():
    check_compiled(calls, rand(3))


def closures(x):
    k = 3.0
    scale = lambda v: v * k  # noqa: E731
    def shifted(v, by=1.0, *, twice=False):
        return scale(v) + by * (2 if twice else 1)
    bound = functools.partial(keyword_only, d=x)
    traced = functools.partial(shifted, twice=True)
    folded = functools.reduce(operator.add, [x, x * 2.0], 1.0) + functools.reduce(lambda a, b: a @ b, [x, x])
    return shifted(x) + bound(x, c=1.0) + traced(x, by=x) + folded + operator.mul(x, operator.sub(3, 1))


def test_closures_lambdas_and_partial():
    check_compiled(closures, rand(3))


# ---- NamedTuples and dataclasses -------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Params:
    W: np.ndarray
    b: np.ndarray
    scale: float = 1.0

    def apply(self, x):
        return self.W @ x + self.b


def records(params, x):
    y = params.apply(x) * getattr(params, "scale", 9.0) * hasattr(params, "b")
    out = mathlib.Out(loss=(y * y).sum(), grad=2.0 * y)
    moved = Params(W=params.W, b=out.grad)
    return out, moved, out.loss + out[1].sum() + moved.apply(x).sum()


def test_dataclass_argument_and_record_results():
    params, x = Params(rand(3, 3), rand(3)), rand(3, seed=1)
    jf = janus.jit(records, warmup=1)
    for _ in range(2):
        got, want = jf(params, x), records(params, x)
        same_record(got[0], want[0])
        same_record(got[1], want[1])
        assert_same(got[2], want[2])
    assert [v.calls for v in jf.versions.values()] == [1], janus.explain(jf)


@dataclasses.dataclass
class WithPostInit:
    w: np.ndarray

    def __post_init__(self):
        self.w = self.w * 2.0


def builds_post_init(x):
    return WithPostInit(x).w


def test_dataclass_with_post_init_runs_imperatively():
    assert "WithPostInit is not supported" in refused(builds_post_init, rand(3))


def updates_an_array_a_record_holds(x):
    y = x * 2.0
    p = Params(W=y, b=y)
    y += 1.0
    return p.W + y


def test_in_place_update_of_an_array_a_record_holds_runs_imperatively():
    assert "held by a Params" in refused(updates_an_array_a_record_holds, rand(3))


def namedtuple_argument(out, x):
    return out.loss * x + out.grad + out.total, out._replace(loss=out.loss + 1.0)


class Shifted(mathlib.Out):
    """Same fields as ``Out``; its ``total`` differs: a version of ``Out`` would be stale."""

    @property
    def total(self):
        return self.grad.sum() + 100.0


def test_namedtuple_argument_fields_are_inputs_guarded_on_type():
    x = rand(3, seed=1)
    jf = janus.jit(namedtuple_argument, warmup=1)
    for out in (mathlib.Out(rand(1)[0], rand(3)), Shifted(rand(1)[0], rand(3))):
        for _ in range(2):
            got, want = jf(out, x), namedtuple_argument(out, x)
            assert_same(got[0], want[0])
            same_record(got[1], want[1])
    assert [v.calls for v in jf.versions.values()] == [1, 1], janus.explain(jf)
    assert "Shifted(" in janus.explain(jf)


def one_hot(labels, x):
    taken = np.eye(3, dtype=np.float32)[labels]  # a constant the trace made, gathered by an argument
    weights = (np.arange(3.0) * 2.0 - 1.0)[labels]  # NumPy operators on constants make a trace-local array too
    return taken * x[:, None], weights


def test_a_constant_made_in_the_trace_indexed_by_an_array_value():
    labels = np.array([2, 0, 1, 1])
    check_compiled(one_hot, labels, rand(4))


# ---- np.asarray and callable layer objects -----------------------------------------------
def as_arrays(x):
    same = np.asarray(x)  # the very array: no dtype change, no copy asked
    wide = np.asarray(x, dtype=np.float64) * 2
    rows = np.asanyarray([x, x * 2], dtype=np.float32)
    fresh = np.asarray(x, copy=True)
    fresh *= 3.0
    return wide.sum() + rows.sum(axis=0) + np.asarray([0.5, 1.5, 2.5]) + fresh - same


def test_asarray_is_the_array_itself_or_its_cast():
    jf = janus.jit(as_arrays, warmup=1)
    for seed in range(3):
        x = rand(3, seed=seed)
        assert_same(jf(x), as_arrays(x))
    (version,) = jf.versions.values()
    assert version.calls == 2 and "python:" not in janus.explain(jf), janus.explain(jf)


class Scale:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        self.seen = x  # layers keep their input for a backward pass
        return x * self.w


class Shift:
    def __call__(self, x, by=1.0):
        return x + by


class Stack:
    def __init__(self):
        self.layers = [Scale(rand(3)), Shift(), Scale(rand(3, seed=1))]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_layer_objects_called_through_their_class_call():
    jf = janus.jit(Stack.forward, warmup=1)
    plain, jitted = Stack(), Stack()
    for seed in range(3):
        x = rand(3, seed=seed)
        assert_same(jf(jitted, x), Stack.forward(plain, x))
        assert_same(jitted.layers[2].seen, plain.layers[2].seen)
    (version,) = jf.versions.values()
    assert version.calls == 2 and "python:" not in janus.explain(jf), janus.explain(jf)


# ---- hasattr / getattr with a default on heap objects ----------------------------------
class Scaled:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        self.seen = x
        return x * self.w


class Clip:
    def forward(self, x):
        return np.clip(x, -1.0, 1.0)


class Layers:
    def __init__(self, *layers):
        self.layers = list(layers)

    def step(self, x, lr):
        for layer in self.layers:
            x = layer.forward(x)
        for layer in self.layers:  # only the layers that have parameters
            if hasattr(layer, "w"):
                grad = getattr(layer, "grad", None)
                layer.w = layer.w - lr * (layer.seen.sum(0) if grad is None else grad)
        return x


def test_hasattr_false_on_a_heap_object_is_guarded_and_the_attribute_added_later_is_seen():
    def make():
        return Layers(Scaled(rand(4)), Clip(), Scaled(rand(4, seed=1)))

    plain, jitted = make(), make()
    jf = janus.jit(Layers.step, warmup=1)
    for _ in range(3):
        assert_same(jf(jitted, rand(2, 4), 0.1), plain.step(rand(2, 4), 0.1))
    assert not in_python(jf) and len(jf.versions) == 1, janus.explain(jf)
    assert "heap self.layers[1].w: no such attribute" in janus.explain(jf)
    for model in (plain, jitted):  # the guards see the new attributes: Clip gets parameters and a gradient
        model.layers[1].w, model.layers[1].grad = rand(4, seed=2), rand(4, seed=3)
    for _ in range(2):
        assert_same(jf(jitted, rand(2, 4), 0.1), plain.step(rand(2, 4), 0.1))
    for got, want in zip(jitted.layers, plain.layers):
        assert vars(got).keys() == vars(want).keys()
        for name in vars(want):
            assert_same(getattr(got, name), getattr(want, name))


# ---- setattr with a static name on heap objects ----------------------------------------
@dataclasses.dataclass
class Pair:
    w: np.ndarray
    b: np.ndarray


class Momentum:
    def __init__(self):
        self.p, self.v = Pair(rand(3), rand(3, seed=1)), Pair(np.zeros(3), np.zeros(3))

    def step(self, g):
        for name in ("w", "b"):
            v = 0.9 * getattr(self.v, name) - 0.1 * g
            setattr(self.v, name, v)
            setattr(self.p, name, getattr(self.p, name) + v)
        return self.p.w.sum()


def test_setattr_with_a_static_name_on_a_heap_object_is_an_attribute_write():
    plain, jitted = Momentum(), Momentum()
    jf = janus.jit(Momentum.step, warmup=1)
    for k in range(3):
        assert_same(jf(jitted, rand(3, seed=k)), plain.step(rand(3, seed=k)))
        for part in ("p", "v"):
            same_record(getattr(jitted, part), getattr(plain, part))
    (version,) = jf.versions.values()
    assert not in_python(jf) and not jf.fallbacks and version.calls == 2, janus.explain(jf)


def test_setattr_with_a_computed_name_runs_in_python():
    def store(obj, name, x):
        setattr(obj, name + "", x * 2)  # a name the trace does not know: Python's setattr
        return x

    plain, jitted = Pair(rand(2), rand(2)), Pair(rand(2), rand(2))
    jf = janus.jit(store, warmup=1, fallback="silent")
    for _ in range(2):
        assert_same(jf(jitted, "w", rand(2)), store(plain, "w", rand(2)))
        same_record(jitted, plain)


# ---- properties of heap objects --------------------------------------------------------
class Heads:
    def __init__(self, n_head):
        self.n_head, self.W = n_head, rand(8, 8)

    @property
    def head_dim(self):
        return self.W.shape[0] // self.n_head

    @property
    def scale(self):
        return 1.0 / np.sqrt(self.head_dim)

    def split(self, x):
        return (x @ self.W).reshape(x.shape[0], self.n_head, self.head_dim) * self.scale


def test_properties_of_heap_objects_are_traced_through_their_getters():
    plain, jitted = Heads(2), Heads(2)
    jf = janus.jit(Heads.split, warmup=1)
    for s in range(3):
        assert_same(jf(jitted, rand(3, 8, seed=s)), plain.split(rand(3, 8, seed=s)))
    assert not in_python(jf) and "heap self.head_dim: property Heads.head_dim" in janus.explain(jf), janus.explain(jf)
    original, Heads.scale = Heads.scale, property(lambda self: 2.0)  # replaced on the class: the guard sees it
    try:
        assert_same(jf(jitted, rand(3, 8)), plain.split(rand(3, 8)))
    finally:
        Heads.scale = original
