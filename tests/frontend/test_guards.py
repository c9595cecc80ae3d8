"""Entry guards (``janus.frontend.guards``): per kind, the guard fails when its assumption
changes and the call then gives the plain-Python answer; ``janus.explain`` lists them."""

from __future__ import annotations

import collections
import copy
from typing import Any

import numpy as np
import pytest

import janus
from janus.frontend.guards import MISS, EntryGuards, GuardBuilder
from janus.frontend.heap.rules import HeapMiss, class_makes_heap_object, is_heap_object
from janus.frontend.jit import JitFunction, Version
from janus.frontend.signature import entry_key
from tests.helpers import assert_same, compiled, rand


def only_version(jf: JitFunction) -> Version:
    (version,) = jf.versions.values()
    return version


def kinds(guards: EntryGuards) -> list[str]:
    return [g.kind for g in (*guards.guards, *guards.heap)]


def relaxed(fn, *args) -> JitFunction:
    """``fn`` compiled on ``args`` with every dim and int relaxed (``specialize=False``)."""
    jf = janus.jit(fn, warmup=1, specialize=False)
    assert_same(jf(*args), fn(*args))
    assert jf.versions, janus.explain(jf)
    return jf


def affine(x, w):
    return x * w + 1


def test_dtype_shape():
    x, w = rand(4), rand(4, seed=1)
    jf = compiled(affine, x, w)
    guards = only_version(jf).guards
    assert kinds(guards) == ["DTYPE_SHAPE", "DTYPE_SHAPE"] and guards.match((x, w)) is not None
    for a, b in [(x.astype(np.float64), w), (rand(5), rand(5)), (x[None], w), (np.float32(2.0), w)]:
        assert guards.match((a, b)) is None
        assert_same(jf(a, b), affine(a, b))


def pick(x, mode):
    return x * 2 if mode == "double" else x + 1


def test_constant_match():
    x = rand(3)
    jf = compiled(pick, x, "double")
    version = only_version(jf)
    assert kinds(version.guards) == ["DTYPE_SHAPE", "CONSTANT_MATCH"]
    for mode in ["add", None, 1]:
        assert version.guards.match((x, mode)) is None
        assert_same(jf(x, mode), pick(x, mode))
    assert version.calls == 0


def times(x, s):
    return x * s


@pytest.mark.parametrize("first, then", [(0.0, -0.0), (-0.0, 0.0)], ids=["0.0 then -0.0", "-0.0 then 0.0"])
def test_constant_match_tells_negative_zero_from_zero(first, then):
    """``-0.0 == 0.0``, yet a product's sign follows it: neither the entry key nor the guard
    takes one for the other."""
    x = rand(3)
    jf = compiled(times, x, first)
    version = only_version(jf)
    assert version.guards.match((x, first)) is not None and version.guards.match((x, then)) is None
    for s in (then, first, then):
        got = jf(x, s)
        assert_same(got, times(x, s))
        assert np.array_equal(np.signbit(got), np.signbit(times(x, s)))


def shift(x, n):
    return x + n


def test_relaxed_int():
    x = rand(3)
    jf = relaxed(shift, x, 3)
    version = only_version(jf)
    assert "RELAXED_INT" in kinds(version.guards)
    assert_same(jf(x, -7), shift(x, -7))
    assert version.calls == 1
    for n in [2.5, True, 1 << 62, np.int64(3)]:  # a float, a bool, out of the i64 range, a NumPy int
        assert version.guards.match((x, n)) is None
        assert_same(jf(x, n), shift(x, n))
    assert version.calls == 1


class Scale:
    def __init__(self) -> None:
        self.k = rand(3)


class OtherScale(Scale):
    pass


def apply(obj, x):
    return x * obj.k


def test_type_match():
    obj, x = Scale(), rand(3)
    jf = compiled(apply, obj, x)
    version = only_version(jf)
    assert kinds(version.guards)[:2] == ["TYPE_MATCH", "DTYPE_SHAPE"]
    other = OtherScale()
    other.k = rand(3, seed=2)
    assert version.guards.match((other, x)) is None
    assert_same(jf(other, x), apply(other, x))
    assert version.calls == 0


class Link:
    """A tree node (it holds one of its class)."""

    def __init__(self, next: "Link | None" = None) -> None:
        self.next = next


def test_type_match_fails_when_the_object_becomes_a_tree_wrapper():
    obj, x = Scale(), rand(3)
    jf = compiled(apply, obj, x)
    version = only_version(jf)
    assert version.guards.match((obj, x)) is not None
    obj.root = Link(Link())  # a node in an attribute: the object is linearized as a tree now
    assert version.guards.match((obj, x)) is None
    assert_same(jf(obj, x), apply(obj, x))


def test_type_match_fails_when_the_objects_class_becomes_a_node_class():
    """Once another object of the argument's class is seen holding one of its class, every
    object of that class is a tree (alone: a one-node tree), though its own attributes did
    not change: the fused call misses and the call gives plain Python's answer."""
    cls = type("Scaled", (Scale,), {})
    obj, x = cls(), rand(3)
    jf = compiled(apply, obj, x)
    version = only_version(jf)
    assert version.quick is not None and version.quick((obj, x)) is not MISS
    parent = cls()
    parent.child = cls()
    jf(parent, x)  # the key walk sees an object holding its own class: a node class from now on
    calls = version.calls
    assert version.guards.match((obj, x)) is None and version.quick((obj, x)) is MISS
    assert_same(jf(obj, x), apply(obj, x))
    assert version.calls == calls


def total(xs):
    return xs[0] + xs[-1]


def test_key_match():
    xs = [rand(2), rand(2, seed=1)]
    jf = compiled(total, xs)
    version = only_version(jf)
    assert kinds(version.guards) == ["KEY_MATCH"] and version.guards.match is None  # no fast path: the key walk
    for other in [[rand(2), rand(2), rand(2, seed=3)], [rand(3), rand(3)], (xs[0], xs[1])]:
        assert entry_key((other,), jf.dynamic) != version.key
        assert_same(jf(other), total(other))
    assert version.calls == 0


def mm(a, b):
    return a @ b


def test_relaxed_dims():
    jf = relaxed(mm, rand(3, 5), rand(5, 2))
    version = only_version(jf)
    assert "RELAXED_DIMS" in kinds(version.guards)
    a, b = rand(4, 6), rand(6, 7)
    assert_same(jf(a, b), mm(a, b))
    assert version.calls == 1
    a, b = rand(2, 5), rand(5, 2)  # two ? dims of different symbols with one size: another key
    assert version.guards.match((a, b)) is None
    assert_same(jf(a, b), mm(a, b))
    with pytest.raises(ValueError):  # the inner dims differ: Python raises, so does the call
        jf(rand(3, 5), rand(4, 2))


SCALE = 2.0


def scaled(x):
    return x * SCALE


def test_global_id(monkeypatch):
    x = rand(3)
    jf = compiled(scaled, x)
    guards = only_version(jf).guards
    assert kinds(guards) == ["DTYPE_SHAPE", "GLOBAL_ID"] and guards.globals_hold()
    monkeypatch.setattr(f"{__name__}.SCALE", 5.0)
    assert not guards.globals_hold() and guards.match((x,)) is None
    assert_same(jf(x), scaled(x))


def layer_class() -> type:
    """A class of its own per test: its jit method holds that test's versions."""

    class Layer:
        def __init__(self) -> None:
            self.W = rand(3, 3)

        def act(self, h):
            return np.tanh(h)

        @janus.jit
        def forward(self, x):
            return self.act(x @ self.W)

    return Layer


def heap_miss(version: Version, positional: tuple) -> str:
    """Why the version's heap guards reject a call with these arguments ("" when they pass)."""
    objects = version.graph.heap.objects(positional)
    try:
        version.guards.check_heap(objects, [a for a in positional if type(a) is np.ndarray])
    except HeapMiss as miss:
        return str(miss)
    return ""


def warm(layer, x: np.ndarray) -> Version:
    for _ in range(4):
        assert_same(layer.forward(x), np.tanh(x @ layer.W))
    return only_version(type(layer).forward)


def activate(x, act):
    return act(x) * 2


def test_callee_identity():
    x = rand(3)
    jf = compiled(activate, x, np.tanh)
    version = only_version(jf)
    assert kinds(version.guards) == ["DTYPE_SHAPE", "CALLEE_IDENTITY"] and version.guards.match((x, np.tanh)) is not None
    for act in [np.sin, np.abs, lambda v: v]:
        assert version.guards.match((x, act)) is None
        assert_same(jf(x, act), activate(x, act))
    assert version.calls == 0


class Block:
    def __init__(self, W: np.ndarray) -> None:
        self.W = W


class Tied:
    """An autoencoder whose decoder is its encoder (one object, two heap paths)."""

    def __init__(self) -> None:
        self.encoder = Block(rand(3, 3))
        self.decoder = self.encoder

    def step(self, x):
        y = np.tanh(x @ self.encoder.W) @ self.decoder.W.T
        self.decoder.W -= 0.1 * (y - x).sum()
        return y


def test_heap_same():
    jf = janus.jit(Tied.step, warmup=1)
    got, want, x = Tied(), Tied(), rand(2, 3)
    for _ in range(3):
        assert_same(jf(got, x), want.step(x))
        assert_same(got.encoder.W, want.encoder.W)
    version = only_version(jf)
    assert version.calls == 2 and "HEAP_SAME" in kinds(version.guards), janus.explain(jf)
    assert "heap self.decoder: the same object as self.encoder (identity)" in janus.explain(jf)
    for obj in (got, want):  # now two objects: the compiled checks and the guards refuse the version
        obj.decoder = Block(obj.decoder.W.copy())
    assert version.guards.heap_match is not None and version.guards.heap_match(version.graph.heap.objects((got, x))) is None
    assert "self.decoder no longer holds the object the version reaches by another path" in heap_miss(version, (got, x))
    assert_same(jf(got, x), want.step(x))
    assert_same(got.decoder.W, want.decoder.W)
    assert_same(got.encoder.W, want.encoder.W)


def decay(x, factor):
    x *= factor
    return x.sum()


def test_argument_unaliased():
    jf = janus.jit(decay, warmup=1)
    for _ in range(2):
        assert_same(jf(rand(4), 0.5), decay(rand(4), 0.5))
    version = only_version(jf)
    assert version.calls == 1 and "ARGUMENT_UNALIASED" in kinds(version.guards)
    frozen = rand(4)
    frozen.flags.writeable = False
    assert "argument array 0 is updated in place but is read-only" in heap_miss(version, (frozen, 0.5))
    assert not heap_miss(version, (rand(4), 0.5))


def test_heap_location():
    layer, x = layer_class()(), rand(2, 3)
    version = warm(layer, x)
    assert "HEAP_LOCATION" in kinds(version.guards) and not heap_miss(version, (layer, x))
    layer.W = rand(3, 3, dtype=np.float64)
    assert "self.W is ndarray[float64, shape=(3, 3)]; the version assumed" in heap_miss(version, (layer, x))
    assert_same(layer.forward(x), np.tanh(x @ layer.W))
    del layer.W  # a location that no longer resolves: Python raises, so does the call
    with pytest.raises(AttributeError):
        layer.forward(x)


def test_heap_method():
    layer, x = layer_class()(), rand(2, 3)
    version = warm(layer, x)
    assert "HEAP_METHOD" in kinds(version.guards)
    layer.act = lambda h: h * 2.0  # the instance shadows the inlined method
    assert "self.act is no longer the method the version inlined" in heap_miss(version, (layer, x))
    assert_same(layer.forward(x), x @ layer.W * 2.0)


def stateful_class() -> type:
    class Cell:
        def __init__(self) -> None:
            self.W, self.h = rand(3, 3), rand(2, 3, seed=1)

        def act(self, h):
            return np.tanh(h)

        @janus.jit
        def forward(self, x):
            self.h = self.act(x @ self.W + self.h)
            return self.h

    return Cell


def one_by_one(version: Version, objects: list) -> dict | None:
    """The heap guards' entry values, checked one guard at a time (None: a ``HeapMiss``)."""
    entry: dict = {}
    try:
        for guard in version.guards.heap:
            guard.check(objects, entry, [])
    except HeapMiss:
        return None
    return entry


CHANGES = {
    "none": lambda cls, obj: None,
    "a property on the class": lambda cls, obj: setattr(cls, "W", property(lambda self: rand(3, 3))),
    "a class attribute of the name": lambda cls, obj: setattr(cls, "h", rand(2, 3)),
    "__getattr__ on the class": lambda cls, obj: setattr(cls, "__getattr__", lambda self, name: 0),
    "__getattribute__ on the class": lambda cls, obj: setattr(cls, "__getattribute__",
                                                              lambda self, name: object.__getattribute__(self, name)),
    "__setattr__ on the class": lambda cls, obj: setattr(cls, "__setattr__", lambda self, k, v: object.__setattr__(self, k, v)),
    "an attribute deleted": lambda cls, obj: delattr(obj, "W"),
    "another dtype": lambda cls, obj: setattr(obj, "W", rand(3, 3, dtype=np.float64)),
    "the method shadowed": lambda cls, obj: setattr(obj, "act", lambda h: h),
    "the method replaced on the class": lambda cls, obj: setattr(cls, "act", lambda self, h: h),
}


@pytest.mark.parametrize("change", list(CHANGES.values()), ids=list(CHANGES))
def test_compiled_heap_checks_pass_exactly_where_the_guards_do(change) -> None:
    """``EntryGuards.heap_match`` (the heap guards as one generated function) gives the
    entry the guards give one by one, or None (then they run one by one and say why)."""
    cls = stateful_class()
    obj, x = cls(), rand(2, 3, seed=2)
    for _ in range(4):
        obj.forward(x)
    version = only_version(cls.forward)
    objects = version.graph.heap.objects((obj, x))
    assert version.guards.heap_match is not None and version.guards.heap_match(objects) == one_by_one(version, objects)
    change(cls, obj)
    want, got = one_by_one(version, objects), version.guards.heap_match(objects)
    assert got is None if want is None else got is None or (got.keys() == want.keys() and all(
        got[k] is want[k] for k in want))


def dict_step(state: dict, x: np.ndarray) -> Any:
    """Items of a dict of parameters read, one written, and the keys listed."""
    h = np.tanh(x @ state["params"]["W"] + state["params"]["b"])
    state["out"] = h
    return h * len(list(state["params"].keys()))


DICT_CHANGES = {
    "none": lambda state: None,
    "an item deleted": lambda state: state["params"].pop("b"),
    "an item of another shape": lambda state: state["params"].__setitem__("b", rand(2, 3)),
    "the keys in another order": lambda state: state.__setitem__("params", {"b": state["params"]["b"], "W": state["params"]["W"]}),
    "a key added": lambda state: state["params"].__setitem__("c", rand(3)),
    "an OrderedDict instead": lambda state: state.__setitem__("params", collections.OrderedDict(state["params"])),
    "the written item deleted": lambda state: state.pop("out", None),
}


@pytest.mark.parametrize("change", list(DICT_CHANGES.values()), ids=list(DICT_CHANGES))
def test_compiled_heap_checks_of_dict_items_pass_exactly_where_the_guards_do(change) -> None:
    """Items of an exact ``dict`` are compiled into ``heap_match`` too: the same entry as
    the guards one by one, or None where one of them misses; the call stays Python's."""
    jf, x = janus.jit(dict_step, fallback="silent"), rand(2, 3, seed=2)
    state = {"params": {"W": rand(3, 3), "b": rand(3, seed=1)}}
    for _ in range(4):
        jf(state, x)
    version = only_version(jf)
    objects = version.graph.heap.objects((state, x))
    assert version.guards.heap_match is not None and version.guards.heap_match(objects) == one_by_one(version, objects)
    change(state)
    want, got = one_by_one(version, objects), version.guards.heap_match(objects)
    assert (got is None) == (want is None) and (got is None or got.keys() == want.keys() and all(got[k] is want[k] for k in want))
    oracle = copy.deepcopy(state)
    if "b" not in state["params"]:  # Python's KeyError
        with pytest.raises(KeyError):
            dict_step(oracle, x)
        with pytest.raises(KeyError):
            jf(state, x)
        return
    assert_same(jf(state, x), dict_step(oracle, x))
    assert type(state["params"]) is type(oracle["params"]) and state.keys() == oracle.keys()
    assert_same(dict(state["params"]), dict(oracle["params"]))
    assert_same(state["out"], oracle["out"])


def reader_class() -> type:
    class Reader:
        def __init__(self) -> None:
            self.W, self.b, self.scale = rand(3, 3), rand(3, seed=1), 0.5

        @janus.jit
        def forward(self, x):
            return np.tanh(x @ self.W + self.b)

    return Reader


READER_CHANGES = {
    "none": lambda cls, obj: None,
    "the object's class swapped": lambda cls, obj: setattr(obj, "__class__", type("Other", (cls,), {})),
    "a property on the class": lambda cls, obj: setattr(cls, "W", property(lambda self: rand(3, 3))),
    "__getattr__ on the class": lambda cls, obj: setattr(cls, "__getattr__", lambda self, name: 0),
    "an attribute deleted": lambda cls, obj: delattr(obj, "b"),
    "a float instead of an array": lambda cls, obj: setattr(obj, "b", 0.5),
    "another shape": lambda cls, obj: setattr(obj, "b", rand(2, 3)),
    "a tree node in an attribute": lambda cls, obj: setattr(obj, "root", Link(Link())),
}


@pytest.mark.parametrize("change", list(READER_CHANGES.values()), ids=list(READER_CHANGES))
def test_the_fused_call_checks_an_object_argument_once_and_misses_where_the_guards_do(change) -> None:
    """The fused call of a version reading ``self`` checks its class and ``is_heap_object``
    in the argument guard only (not again in the heap checks), and still misses exactly
    where the argument and heap guards, run one by one, do; the call then gives plain
    Python's answer."""
    cls = reader_class()
    obj, x = cls(), rand(2, 3, seed=2)
    for _ in range(4):
        obj.forward(x)
    version = only_version(cls.forward)
    assert version.quick is not None
    calls = version.calls
    change(cls, obj)
    objects = version.graph.heap.objects((obj, x))
    hit = version.guards.match((obj, x)) is not None and one_by_one(version, objects) is not None
    got = version.quick((obj, x))
    assert (got is not MISS) == hit and version.calls == calls + hit
    if hit:
        assert_same(got, cls.forward.fn(obj, x))
    try:
        want = cls.forward.fn(obj, x)
    except AttributeError:
        with pytest.raises(AttributeError):
            obj.forward(x)
    else:
        assert_same(obj.forward(x), want)


class Disguised:
    """Its instances say they are arrays (``isinstance`` consults ``__class__``)."""

    @property
    def __class__(self):
        return np.ndarray


@pytest.mark.parametrize("value", [Scale(), {}, np.random.default_rng(0), Disguised(), rand(2), [1], Scale, apply],
                         ids=["plain object", "dict", "Generator", "a __class__ property", "array", "list", "class",
                              "function"])
def test_the_exact_class_tells_is_heap_object_only_where_it_decides_it(value) -> None:
    """``TYPE_MATCH`` drops ``is_heap_object`` where the exact class decides it; where the
    class says it does (True), every instance agrees."""
    if class_makes_heap_object(type(value)):
        assert is_heap_object(value)
    assert class_makes_heap_object(type(value)) == (type(value) in (Scale, dict, np.random.Generator))


def sgd(params, g):
    params["W"] -= 0.5 * g
    return params["W"] * 1.0


def test_heap_unaliased():
    W, g = rand(3, 3), rand(3, 3, seed=1)
    jf = janus.jit(sgd, warmup=1)
    for _ in range(2):
        params, want_params = {"W": W.copy()}, {"W": W.copy()}
        assert_same(jf(params, g), sgd(want_params, g))
    version = only_version(jf)
    assert version.calls == 1
    assert "HEAP_UNALIASED" in kinds(version.guards)
    params, want_params = {"W": W.copy()}, {"W": W.copy()}
    assert "shares memory" in heap_miss(version, (params, params["W"]))  # the gradient is the array updated in place
    assert_same(jf(params, params["W"]), sgd(want_params, want_params["W"]))
    assert_same(params["W"], want_params["W"])
    stack = np.stack([W, W])  # the updated array and the gradient: two views of one array
    params, want_params = {"W": stack[0]}, {"W": stack.copy()[0]}
    assert "shares memory" in heap_miss(version, (params, stack[0]))
    assert_same(jf(params, stack[0]), sgd(want_params, want_params["W"]))
    assert_same(params["W"], want_params["W"])


class Model:
    def __init__(self) -> None:
        self.W = rand(4, 3)

    @janus.jit(warmup=1)
    def forward(self, x, n, mode):
        y = x @ self.W * SCALE + n
        return np.tanh(y) if mode == "tanh" else y


def test_explain_lists_the_entry_guards():
    model, x = Model(), rand(2, 4)
    for n in (1, 2, 3):  # the int varies: relaxed
        assert_same(model.forward(x, n, "tanh"), np.tanh(x @ model.W * SCALE + n))
    text = janus.explain(Model.forward, globals=True)
    assert "global np" not in janus.explain(Model.forward)
    for line in ["entry guard: arg 0 (self): Model object (exact type)",
                 "entry guard: arg 1 (x): ndarray float32 shape (2, 4)",
                 "entry guard: arg 2 (n): any int within ±2**62 (an i64 input)",
                 "entry guard: arg 3 (mode): str == 'tanh'",
                 "entry guard: global SCALE: the same float 2.0 (identity)",
                 "entry guard: global np: the same module numpy (identity)",  # modules: one line
                 "entry guard: heap self.W: ndarray[float32, shape=(4, 3)]"]:
        assert line in text, text
    jf = relaxed(mm, rand(3, 5), rand(5, 2))
    text = janus.explain(jf)
    assert "arg 0 (a): ndarray float32 shape (?, ?)" in text
    assert "? dims: a.shape[0]; a.shape[1] == b.shape[0]; b.shape[1] (each ? a different size)" in text, text


def test_every_guard_kind_has_a_test():
    kinds = {name for name in vars(GuardBuilder) if name.isupper()}
    assert len(kinds) == 13 and {f"test_{kind.lower()}" for kind in kinds} <= set(globals())
