"""The fast path of ``janus.jit``, the flat checks compiled from a version's entry guards,
accepts a call exactly when the full key walk gives the version's key, with the same
leaves; compiled calls through it agree with Python."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from janus.frontend.guards import entry_guards
from janus.frontend.signature import key_and_leaves
from tests.helpers import assert_same, compiled, rand


class Box:
    def __init__(self) -> None:
        self.W = rand(3, 3)


class Node:  # a tree: an attribute holds a node of its own class
    def __init__(self, child=None) -> None:
        self.child, self.value = child, rand(2)


BOX = Box()
BASE = (rand(2, 3), np.float32(1.5), 3, 0.5, BOX, None, "mode")
VARIANTS = [
    BASE,
    (rand(2, 3, seed=1), np.float32(-2.0), 3, 0.5, Box(), None, "mode"),  # same key
    (rand(2, 4), *BASE[1:]),
    (rand(2, 3, dtype=np.float64), *BASE[1:]),
    (rand(2, 3).T.copy().T, *BASE[1:]),  # other strides, same key
    (rand(2, 3)[None], *BASE[1:]),
    (BASE[0], np.float64(1.5), *BASE[2:]),
    (BASE[0], BASE[1], 3.0, *BASE[3:]),
    (BASE[0], BASE[1], True, *BASE[3:]),
    (BASE[0], BASE[1], 4, *BASE[3:]),
    (*BASE[:3], 0.25, *BASE[4:]),
    (*BASE[:4], Node(Node()), *BASE[5:]),
    (*BASE[:4], {"W": 1}, *BASE[5:]),
    (*BASE[:5], 0, "mode"),
    (*BASE[:6], "other"),
    (*BASE[:6], [1]),
    BASE[:-1],
]


def check_agrees(match, key, args: tuple, dynamic: frozenset = frozenset()) -> bool:
    """``match`` accepts ``args`` exactly when the walk gives ``key``, with the walk's leaves
    (a relaxed int is a Python int leaf, an i64 parameter); whether it accepted."""
    try:
        want_key, want = key_and_leaves(args, dynamic)
    except janus.NotConvertible:
        want_key = want = None
    matched = match(args)
    assert (matched is not None) == (want_key == key), args
    if matched is not None:
        assert len(matched) == len(want)
        assert all(type(m) is type(w) and (type(m) is int or m.dtype == w.dtype) and np.array_equal(m, w)
                   for m, w in zip(matched, want))
    return matched is not None


@pytest.mark.parametrize("args", VARIANTS, ids=range(len(VARIANTS)))
def test_flat_checks_agree_with_the_key_walk(args):
    key = key_and_leaves(BASE)[0]
    match = entry_guards(key, frozenset()).match
    assert match is not None
    check_agrees(match, key, args)
    assert match(BASE) is not None


@pytest.mark.parametrize("shapes", [((3, 5), (5, 2)), ((4, 4), (4, 2)), ((3, 3), (5, 2)), ((3, 5), (5, 3)), ((7, 8), (8, 2))])
def test_relaxed_dims_keep_their_equalities(shapes):
    dynamic = frozenset({(0, 0), (0, 1), (1, 0)})
    base = (np.zeros((3, 5), np.float32), np.zeros((5, 2), np.float32))
    key = key_and_leaves(base, dynamic)[0]
    match = entry_guards(key, dynamic).match
    assert match is not None
    args = tuple(np.zeros(s, np.float32) for s in shapes)
    assert (match(args) is not None) == (key_and_leaves(args, dynamic)[0] == key)


@pytest.mark.parametrize("value", [3, -7, 1 << 62, -(1 << 62) + 1, True, 3.0, np.int64(3), None])
@pytest.mark.parametrize("base", [5, 1 << 62])
def test_relaxed_ints_match_as_the_key_walk_decides(value, base):
    dynamic = frozenset({("int", (1,))})
    key = key_and_leaves((rand(2), base), dynamic)[0]
    match = entry_guards(key, dynamic).match
    assert match is not None
    check_agrees(match, key, (rand(2, seed=1), value), dynamic)


POOL = [rand(2, 3), rand(2, 3, seed=1), rand(3, 3), rand(3, 2), rand(2, 2), rand(3), rand(3, dtype=np.float64),
        np.float32(1.0), np.float32(2.0), np.int64(2), 2, 3, -(1 << 62), True, 0.5, "a", None, BOX, Box(), Node(Node()),
        [rand(2)]]
DYNAMIC = [frozenset(), frozenset({(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)}), frozenset({(0, 1), (1, 0)}),
           frozenset({(0, 0), ("int", (1,)), ("int", (2,))})]


@pytest.mark.parametrize("dynamic", DYNAMIC, ids=range(len(DYNAMIC)))
def test_random_calls_agree_with_the_key_walk(dynamic):
    """Bases and calls drawn from a pool; a call keeps each base argument with probability 0.6."""
    rng = np.random.default_rng(0)
    draw = lambda: tuple(POOL[i] for i in rng.integers(len(POOL), size=3))  # noqa: E731
    accepted = 0
    for _ in range(200):
        try:
            key = key_and_leaves(base := draw(), dynamic)[0]
        except janus.NotConvertible:
            continue
        match = entry_guards(key, dynamic).match
        if match is None:
            continue
        assert match(base) is not None
        for args in [tuple(a if rng.random() < 0.6 else b for a, b in zip(base, draw())) for _ in range(10)]:
            accepted += check_agrees(match, key, args, dynamic)
    assert accepted > 100  # the draws reach both answers


def test_a_rebound_global_fails_the_match():
    namespace = {"SCALE": 2.0}
    guards = entry_guards(key_and_leaves((rand(2),))[0], frozenset(), ["x"], [(namespace, "SCALE", namespace["SCALE"])])
    assert guards.match((rand(2),)) is not None and guards.globals_hold()
    namespace["SCALE"] = 3.0
    assert guards.match((rand(2),)) is None and not guards.globals_hold()


def test_keys_that_are_not_flat_take_the_full_walk():
    assert entry_guards(key_and_leaves(([rand(2)], rand(2)))[0], frozenset()).match is None
    assert entry_guards(key_and_leaves((Node(Node()),))[0], frozenset()).match is None
    stacked = frozenset({("list", (0,))})
    assert entry_guards(key_and_leaves(([rand(2), rand(2)],), stacked)[0], stacked).match is None


def linear(x, W, b):
    return x @ W + b


def test_steady_calls_take_the_fast_path_and_agree():
    x, W, b = rand(4, 3), rand(3, 2), rand(2)
    jf = compiled(linear, x, W, b)
    (version,) = jf.versions.values()
    for seed in range(3):
        args = (rand(4, 3, seed=seed), W, b)
        assert_same(jf(*args), linear(*args))
    assert jf._fast is version and version.calls == 3
    other = (rand(4, 3, dtype=np.float64), W, b)  # another dtype: the full walk, a new signature
    assert_same(jf(*other), linear(*other))
    assert version.calls == 3
    assert_same(jf(x, W, b), linear(x, W, b))
    assert version.calls == 4 and jf._fast is version


SCALE = 2.0


def scaled(x):
    return x * SCALE


def test_a_rebound_global_is_checked_on_the_fast_path():
    global SCALE
    x = rand(3)
    jf = compiled(scaled, x)
    assert_same(jf(x), scaled(x))
    assert jf._fast is not None
    try:
        SCALE = 5.0
        assert_same(jf(x), scaled(x))
        assert "rebound" in janus.explain(jf)
    finally:
        SCALE = 2.0


class Layer:
    def __init__(self, n: int) -> None:
        self.W = rand(n, n)

    @janus.jit
    def forward(self, x):
        return x @ self.W


def test_heap_checks_still_run_on_the_fast_path():
    layer, x = Layer(3), rand(2, 3)
    for _ in range(4):
        assert_same(layer.forward(x), x @ layer.W)
    assert Layer.forward._fast is not None
    layer.W = rand(3, 3, dtype=np.float64)  # the version assumed float32
    assert_same(layer.forward(x), x @ layer.W)
    assert "heap check failed" in janus.explain(Layer.forward)


# -- the fused call (``Version.quick``): entry guards, the runtime's generated call and the
#    result rebuild in one function


def test_a_plain_version_runs_through_its_fused_call():
    x, W, b = rand(4, 3), rand(3, 2), rand(2)
    jf = compiled(linear, x, W, b)
    (version,) = jf.versions.values()
    jf(x, W, b)
    assert version.quick is not None and jf._quick is version.quick
    kept = jf(x, W, b)
    want = kept.copy()
    for seed in range(3):  # later calls never change an array the caller kept
        jf(rand(4, 3, seed=seed), W, b)
    np.testing.assert_array_equal(kept, want)
    W[0, 0] += 1.0  # changed in place between calls: read again
    assert_same(jf(x, W, b), linear(x, W, b))


def test_the_fused_call_runs_the_runtime_call_in_its_own_frame_and_yields_a_busy_scratch():
    """The runtime's steady call is inlined in the fused call (it invokes IREE itself); while
    another call holds the function's scratch, it takes the general path: the same values."""
    x, W, b = rand(4, 3), rand(3, 2), rand(2)
    jf = compiled(linear, x, W, b)
    jf(x, W, b)
    (version,) = jf.versions.values()
    names = version.quick.__code__.co_names
    assert "invoke" in names and "run" not in names
    turn = version.call.__self__._runners[0].turn
    assert turn.try_take()
    try:
        assert_same(jf(x, W, b), linear(x, W, b))
    finally:
        turn.give()
    assert_same(jf(x, W, b), linear(x, W, b))


def scaled_by(x, n):
    return x * n + n


def test_relaxed_ints_pass_the_fused_call_as_they_are_and_agree_with_python():
    """A relaxed int's entry guard checked it (an int within ±2**62): the inlined call pushes
    it unconverted. Ints out of that range take the key walk (a constant of another version)."""
    x = rand(3)
    jf = janus.jit(scaled_by, warmup=1, specialize=False)
    for n in (2, 3, -5, 0, 1 << 40, -(1 << 61), 7, 7):
        assert_same(jf(x, n), scaled_by(x, n))
    (version,) = jf.versions.values()
    assert jf._quick is version.quick
    assert_same(jf(x, 1 << 62), scaled_by(x, 1 << 62))


def test_janus_disabled_runs_python_even_with_a_fused_call():
    x = rand(3)
    jf = compiled(scaled, x)
    jf(x)
    (version,) = jf.versions.values()
    calls = version.calls
    with janus.disabled():
        assert_same(jf(x), scaled(x))
    assert version.calls == calls


def halve_until_small(x):
    if x.sum() > 0:
        return x * 0.5
    return x * 2.0


def test_a_failed_guard_on_the_fused_call_reruns_in_python():
    x = np.abs(rand(4))
    jf = compiled(halve_until_small, x, warmup=2)
    jf(x)
    assert jf._quick is not None
    assert_same(jf(-x), halve_until_small(-x))  # the branch guard fails in the compiled call
    assert "failed" in janus.explain(jf)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def test_a_scalar_function_returns_python_ints_through_the_fused_call():
    jf = compiled(fib, 10, warmup=2)
    jf(10)
    (version,) = jf.versions.values()
    assert version.quick is not None
    assert_same(jf(10), 55)


class Reader:
    def __init__(self) -> None:
        self.W, self.b = rand(3, 3), rand(3)

    @janus.jit
    def forward(self, x):
        return np.tanh(x @ self.W + self.b)


def test_a_version_reading_the_heap_runs_through_its_fused_call_and_sees_every_change():
    reader, x = Reader(), rand(2, 3)
    for _ in range(4):
        assert_same(reader.forward(x), np.tanh(x @ reader.W + reader.b))
    (version,) = Reader.forward.versions.values()
    assert version.quick is not None and Reader.forward._quick is version.quick
    reader.W = rand(3, 3, seed=5)  # replaced by an array of the same dtype and shape
    assert_same(reader.forward(x), np.tanh(x @ reader.W + reader.b))
    reader.b += 1.0  # in place
    np.copyto(reader.W[:, 1], rand(3, seed=6))  # through a view
    assert_same(reader.forward(x), np.tanh(x @ reader.W + reader.b))
    other = Reader()
    other.W = reader.W  # two objects sharing one array
    assert_same(other.forward(x), np.tanh(x @ other.W + other.b))
    assert_same(reader.forward(x), np.tanh(x @ reader.W + reader.b))


def test_a_class_attribute_shadowing_a_read_location_is_seen_on_the_fused_call():
    class Base:
        pass

    class Net(Base):
        def __init__(self) -> None:
            self.W = rand(3, 3)

        @janus.jit
        def forward(self, x):
            return x @ self.W

    net, x = Net(), rand(2, 3)
    for _ in range(4):
        assert_same(net.forward(x), x @ net.W)
    assert Net.forward._quick is not None
    Base.W = property(lambda self: np.eye(3, dtype=np.float32))  # a data descriptor now wins over the instance
    assert_same(net.forward(x), x @ np.eye(3, dtype=np.float32))


class Writer:
    def __init__(self) -> None:
        self.h = rand(3)

    @janus.jit
    def step(self, x):
        self.h = np.tanh(x + self.h)
        return self.h


def test_a_version_writing_the_heap_keeps_the_general_path():
    writer, python = Writer(), Writer()
    x = rand(3)
    for _ in range(5):
        assert_same(writer.step(x), Writer.step.fn(python, x))
        assert_same(writer.h, python.h)
    (version,) = Writer.step.versions.values()
    assert version.quick is None


def test_two_threads_calling_one_function_agree_with_python():
    import threading

    x, W, b = rand(4, 3), rand(3, 2), rand(2)
    jf = compiled(linear, x, W, b)
    errors: list[BaseException] = []

    def run(seed: int) -> None:
        try:
            for i in range(100):
                args = (rand(4, 3, seed=seed + i % 4), W, b)
                np.testing.assert_allclose(jf(*args), linear(*args), rtol=1e-5)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(seed,)) for seed in (0, 50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def ackermann(m, n):
    if m == 0:
        return n + 1
    return ackermann(m - 1, 1 if n == 0 else ackermann(m, n - 1))


def test_a_recursion_entry_gives_pythons_value_and_type_whatever_scalars_come_in():
    """A recursion entry with relaxed ints (ints in, an int out, the host twin or the
    dispatch) called, between steady calls, with NumPy ints, bools, floats and ints out of
    the i64 range: each call returns what plain Python returns, value and type."""
    jf = janus.jit(ackermann, warmup=2, specialize=False, fallback="silent")
    for _ in range(4):
        assert_same(jf(2, 3), ackermann(2, 3))
    (version,) = jf.versions.values()
    assert jf._quick is version.quick
    for m, n in [(np.int64(2), 3), (2, 3), (True, 2), (2, 3), (1, 2.0), (2, np.int32(1)), (2, 2), (0, 1 << 62), (2, 3)]:
        assert_same(jf(m, n), ackermann(m, n))
    assert version.calls >= 4


def test_steady_calls_see_an_argument_change_dtype_shape_or_layout():
    """Between fused calls of one version, arrays of another dtype, shape or layout (a
    transposed view, a strided slice, read-only, a NumPy scalar for a 0-d array) each
    miss it or are copied as they are: plain Python's answer every time."""
    x, W = rand(4, 3), rand(3, 3)
    jf = compiled(linear_pair, x, W)
    for _ in range(3):
        jf(x, W)
    (version,) = jf.versions.values()
    readonly = W.copy()
    readonly.flags.writeable = False
    for args in [(x, W.T), (x[::2].repeat(2, axis=0), W), (x.astype(np.float64), W), (x, readonly), (x[:, :2], W[:2]),
                 (np.asfortranarray(x), W), (x, W)]:
        assert_same(jf(*args), linear_pair(*args))
    assert version.calls >= 4


def linear_pair(x, W):
    return x @ W + 1.0
