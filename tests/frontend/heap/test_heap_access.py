"""Heap access from janus.jit: attributes, globals, nonlocals and dict items, against plain Python.

Every test runs the same code imperatively (the oracle) and compiled, and compares both
results and the heap they leave behind, object identities included where Python's are
observable.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, rand


def rnn_cell(state, item, W, U, b):
    return np.tanh(item @ W + state @ U + b)


class RNNModel:
    """JANUS's Figure 1, with the cell's parameters on the model."""

    def __init__(self):
        self.W, self.U, self.b = rand(3, 4, seed=1), rand(4, 4, seed=2) * 0.5, rand(4, seed=3)
        self.state = np.zeros((2, 4), np.float32)

    def __call__(self, sequence):
        state = self.state
        outputs = []
        for item in sequence:
            state = rnn_cell(state, item, self.W, self.U, self.b)
            outputs += [state]
        self.state = state
        return outputs


class JitRNNModel(RNNModel):
    __call__ = janus.jit(RNNModel.__call__, warmup=2)


def sequence(seed: int, scale: float = 1.0) -> list[np.ndarray]:
    return [rand(2, 3, seed=seed * 10 + i) * scale for i in range(4)]


def versions(jf) -> list:
    return list(jf.versions.values())


def test_figure1_rnn_model_matches_python_over_five_calls():
    plain, jitted = RNNModel(), JitRNNModel()
    for call in range(5):
        seq = sequence(call)
        want, got = plain(seq), jitted(seq)
        assert_same(got, want)
        assert_same(jitted.state, plain.state)
        assert got[-1] is jitted.state  # `self.state = state; return outputs`: one object, as in Python
    (version,) = versions(JitRNNModel.__call__)
    assert version.calls == 3
    text = version.graph.text
    assert text.count('"janus.get_attr"') == 4 and text.count('"janus.set_attr"') == 1
    assert "heap self.state: ndarray[float32, shape=(2, 4)]" in janus.explain(JitRNNModel.__call__)


SEEN: list[np.ndarray] = []


def note(state):
    SEEN.append(state)


class GuardedModel(RNNModel):
    """Figure 1 with a check after the write: a guard that fails after ``self.state`` was
    written to the shadow heap. Its imperative side records the state the run started from."""

    def __call__(self, sequence):
        start = self.state
        state = start
        outputs = []
        for item in sequence:
            state = rnn_cell(state, item, self.W, self.U, self.b)
            outputs += [state]
        self.state = state
        if sequence[-1].sum() > 100.0:
            note(start)
        return outputs


class JitGuardedModel(GuardedModel):
    __call__ = janus.jit(GuardedModel.__call__, warmup=2)


def test_guard_failure_after_a_write_reruns_on_the_untouched_heap():
    plain, jitted = GuardedModel(), JitGuardedModel()
    SEEN.clear()
    for call in range(4):
        seq = sequence(call)
        assert_same(jitted(seq), plain(seq))
    (version,) = versions(JitGuardedModel.__call__)
    assert version.calls == 2 and not SEEN
    assert version.graph.text.index('"janus.set_attr"') < version.graph.text.index('"janus.guard"')
    before = jitted.state
    seq = sequence(4)
    seq[-1] = seq[-1] + 100.0  # the branch goes the other way: the guard fails mid-call
    got = jitted(seq)
    assert len(SEEN) == 1 and SEEN[0] is before  # the re-run started from the state of the fourth call
    assert_same(got, plain(seq))
    assert_same(SEEN[0], SEEN[1])  # ... which is the state the plain model had then
    assert_same(jitted.state, plain.state)
    assert "guard 0 (branch)" in janus.explain(JitGuardedModel.__call__)


STEPS = np.zeros(1, np.int64)
TOTAL = np.zeros(3, np.float32)


def accumulate(x):
    global STEPS, TOTAL
    STEPS += 1  # in place: the same array object, as NumPy does
    TOTAL = TOTAL + x  # rebinding
    return TOTAL * 2.0, STEPS


def test_global_counter_and_running_total():
    xs = [rand(3, seed=s) for s in range(5)]

    def run(fn):
        global STEPS, TOTAL
        STEPS, TOTAL = np.zeros(1, np.int64), np.zeros(3, np.float32)
        steps = STEPS
        results = [fn(x) for x in xs]
        assert STEPS is steps  # updated in place, never rebound
        return results, STEPS.copy(), TOTAL

    want = run(accumulate)
    jf = janus.jit(accumulate, warmup=2)
    got = run(jf)
    assert_same(got, want)
    (version,) = versions(jf)
    assert version.calls == 3 and got[0][-1][1] is STEPS  # the returned counter is the global itself
    assert 'origin = "module"' in version.graph.text


def make_accumulator(jit: bool):
    total = np.zeros((2, 2), np.float32)

    def add(x):
        nonlocal total
        total = total + x
        return total.sum()

    def current():
        return total

    return (janus.jit(add, warmup=2) if jit else add), current


def test_nonlocal_accumulator():
    plain, plain_total = make_accumulator(False)
    jitted, jitted_total = make_accumulator(True)
    for s in range(5):
        x = rand(2, 2, seed=s)
        assert_same(jitted(x), plain(x))
        assert_same(jitted_total(), plain_total())
    (version,) = versions(jitted)
    assert version.calls == 3 and 'origin = "cell"' in version.graph.text


def sgd(params, grads, lr):
    for name in ("W", "b"):
        params[name] -= lr * grads[name]
    return params["W"].sum()


def test_dict_of_parameters_updated_in_place():
    def fresh():
        return {"W": rand(3, 2), "b": rand(2)}

    plain, jitted = fresh(), fresh()
    W_plain, W_jitted = plain["W"], jitted["W"]  # the caller's own references
    jf = janus.jit(sgd, warmup=2)
    for s in range(5):
        grads = {"W": rand(3, 2, seed=s), "b": rand(2, seed=s)}
        assert_same(jf(jitted, grads, 0.1), sgd(plain, grads, 0.1))
        assert_same(sorted(jitted.items()), sorted(plain.items()))
    assert jitted["W"] is W_jitted and plain["W"] is W_plain  # updated in place in both
    assert_same(W_jitted, W_plain)
    (version,) = versions(jf)
    assert version.calls == 3 and '"janus.set_item"' in version.graph.text


def test_in_place_update_of_an_aliased_array_falls_back():
    shared = rand(2)
    jf = janus.jit(sgd, warmup=1)
    params = {"W": rand(3, 2), "b": rand(2)}
    grads = {"W": rand(3, 2, seed=1), "b": shared}
    jf(params, grads, 0.1)
    assert versions(jf)
    aliased = {"W": rand(3, 2), "b": shared}  # params["b"] is grads["b"]: Python sees its own update
    grads_alias = {"W": rand(3, 2, seed=1), "b": shared}
    reference = {"W": aliased["W"].copy(), "b": shared.copy()}
    ref_grads = {"W": grads_alias["W"], "b": reference["b"]}
    want = sgd(reference, ref_grads, 0.1)
    assert_same(jf(aliased, grads_alias, 0.1), want)
    assert_same(sorted(aliased.items()), sorted(reference.items()))
    assert "shares memory" in janus.explain(jf)


class Scaled:
    def __init__(self):
        self.W = rand(3, 3)
        self.scale = 0.5

    def forward(self, x):
        return np.tanh(x @ self.W) * self.scale


@pytest.mark.parametrize(
    "change",
    [
        lambda m: setattr(m, "W", m.W.astype(np.float64)),
        lambda m: setattr(m, "W", rand(3, 5)),
        lambda m: setattr(m, "scale", 3.0),
        lambda m: setattr(m, "scale", rand(3, seed=5)),
        lambda m: setattr(m, "scale", np.float64(0.5)),
    ],
    ids=["dtype", "shape", "python-scalar-value", "scalar-to-array", "numpy-scalar"],
)
def test_changing_a_guarded_attribute_gives_the_imperative_answer(change):
    plain, jitted, x = Scaled(), Scaled(), rand(2, 3)
    jf = janus.jit(Scaled.forward, warmup=1)
    assert_same(jf(jitted, x), plain.forward(x))
    assert_same(jf(jitted, x), plain.forward(x))
    (version,) = versions(jf)
    assert version.calls == 1
    change(plain), change(jitted)
    assert_same(jf(jitted, x), plain.forward(x))
    assert version.calls == 1  # the stale version did not answer
    assert "heap check failed" in janus.explain(jf)


class WithProperty:
    def __init__(self):
        self._W = rand(3, 3)

    @property
    def W(self):
        return self._W

    def forward(self, x):
        return x @ self.W


class WithCProperty(WithProperty):
    """A property whose getter is not a Python function: not traced."""

    W = property(operator.attrgetter("_W"))


class WithPropertySetter(WithProperty):
    @WithProperty.W.setter
    def W(self, value):
        self._W = value

    def forward(self, x):
        self.W = x.T @ x  # a write through the setter: runs in Python
        return x @ self.W


def test_a_property_getter_is_inlined_and_guarded():
    jf = janus.jit(WithProperty.forward, warmup=1)
    plain, jitted, x = WithProperty(), WithProperty(), rand(2, 3)
    for _ in range(3):
        assert_same(jf(jitted, x), WithProperty.forward(plain, x))
    assert sum(v.calls for v in jf.versions.values()) == 2 and not jf.fallbacks, janus.explain(jf)
    assert "heap self.W: property WithProperty.W" in janus.explain(jf), janus.explain(jf)
    saved = WithProperty.W
    try:  # the class's property replaced: the version's guard refuses it, Python's answer follows
        WithProperty.W = property(lambda self: self._W * 2)
        assert_same(jf(jitted, x), WithProperty.forward(plain, x))
    finally:
        WithProperty.W = saved
    assert "is no longer the method the version inlined" in janus.explain(jf), janus.explain(jf)


class WithGetattr:
    def __init__(self):
        self.params = {"W": rand(3, 3)}

    def __getattr__(self, name):
        return self.params[name]

    def forward(self, x):
        return x @ self.W


class WithSlots:
    __slots__ = ("W",)

    def __init__(self):
        self.W = rand(3, 3)

    def forward(self, x):
        return x @ self.W


class WithSetattr:
    def __init__(self):
        self.W = rand(3, 3)
        self.out = None

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)

    def forward(self, x):
        self.out = x @ self.W
        return self.out


@pytest.mark.parametrize(
    "cls, reason",
    [
        (WithPropertySetter, "WithPropertySetter.W is a property"),
        (WithCProperty, "WithCProperty.W is a property"),
        (WithGetattr, "WithGetattr defines __getattr__"),
        (WithSlots, "WithSlots uses __slots__"),
        (WithSetattr, "WithSetattr overrides __setattr__"),
    ],
)
def test_descriptors_and_attribute_hooks_stay_imperative_with_reason(cls, reason):
    jf = janus.jit(cls.forward, warmup=1)
    plain, jitted, x = cls(), cls(), rand(2, 3)
    for _ in range(3):
        assert_same(jf(jitted, x), cls.forward(plain, x))
    assert not jf.versions and reason in janus.explain(jf)


def test_reads_see_earlier_writes_of_the_same_call():
    class Layer:
        def __init__(self):
            self.h = rand(4)

        @janus.jit(warmup=1)
        def step(self, x):
            self.h = self.h * 0.5 + x
            self.h = self.h * 2.0
            return self.h + 1.0

    plain, jitted = Layer(), Layer()
    for s in range(3):
        x = rand(4, seed=s)
        assert_same(jitted.step(x), Layer.step.fn(plain, x))
        assert_same(jitted.h, plain.h)
    (version,) = versions(Layer.step)
    assert version.calls == 2 and version.graph.text.count('"janus.get_attr"') == 1


def double(x):
    return x * 2.0


def negate(x):
    return -x


class WithClassTable:
    """Class-level tables read through ``self`` (hipsternet's ``self.loss_funs[self.loss]``)."""

    steps = {"double": double, "negate": negate}
    scale = 3.0
    offset = np.float32(0.5)

    def __init__(self, kind):
        self.kind = kind

    def forward(self, x):
        return self.steps[self.kind](x) * self.scale + self.offset

    def set_scale(self, x):
        self.scale = x * 2.0  # a write shadowing the class attribute stays with Python
        return x * self.scale


def test_class_attributes_read_through_the_instance_follow_python_lookup():
    jf = janus.jit(WithClassTable.forward, warmup=1)
    model, x = WithClassTable("double"), rand(3)
    for _ in range(2):
        assert_same(jf(model, x), WithClassTable.forward(model, x))
    (version,) = jf.versions.values()
    model.scale = 5.0  # an instance attribute now shadows the class's
    assert_same(jf(model, x), WithClassTable.forward(model, x))
    del model.scale
    WithClassTable.steps["double"] = negate  # the class's table changed
    try:
        assert_same(jf(model, x), WithClassTable.forward(model, x))
    finally:
        WithClassTable.steps["double"] = double
    assert_same(jf(model, x), WithClassTable.forward(model, x))
    assert version.calls >= 1


def test_a_write_shadowing_a_class_attribute_runs_in_python():
    """On a fresh object the write would create the instance attribute: Python runs it
    (a version built on an object that has one already is not used)."""
    jf = janus.jit(WithClassTable.set_scale, warmup=1, fallback="silent")
    for _ in range(3):
        plain, jitted = WithClassTable("double"), WithClassTable("double")
        assert_same(jf(jitted, rand(3)), WithClassTable.set_scale(plain, rand(3)))
        assert_same(vars(jitted)["scale"], vars(plain)["scale"])
    assert all(version.calls == 0 for version in jf.versions.values())


class DictModel:
    """Parameters in a dict, iterated as hipsternet's regularizer does."""

    def __init__(self):
        self.model = {"W1": rand(3, 3, seed=4), "b1": rand(3, seed=5), "W2": rand(3, 3, seed=6)}

    def penalty(self, x):
        total = sum(np.sum(self.model[k] ** 2) for k in self.model.keys() if k.startswith("W"))
        scaled = [v * 2.0 for v in self.model.values()]
        named = {k: v.sum() for k, v in self.model.items()}
        return x * total + scaled[1], named


def test_keys_values_items_of_a_heap_dict_guard_its_keys():
    jf = janus.jit(DictModel.penalty, warmup=1)
    plain, jitted, x = DictModel(), DictModel(), rand(3)
    for _ in range(2):
        assert_same(jf(jitted, x), DictModel.penalty(plain, x))
    (version,) = jf.versions.values()
    assert version.calls == 1
    for obj in (plain, jitted):  # a new key: the version's assumption fails, Python runs it
        obj.model["W3"] = rand(3, 3, seed=7)
    assert_same(jf(jitted, x), DictModel.penalty(plain, x))
    assert version.calls == 1


def listed_after_a_new_key(d, x):
    d["new"] = x * 2.0
    return [k for k in d.keys()]


def test_listing_keys_after_writing_a_new_one_runs_in_python():
    """Every call gets a dict without the key it adds: no version (each assumes the keys it
    listed) runs on one, and Python gives every answer."""
    jf = janus.jit(listed_after_a_new_key, warmup=1, fallback="silent")
    for _ in range(4):
        plain, jitted = {"a": rand(2)}, {"a": rand(2)}
        assert_same(jf(jitted, rand(2)), listed_after_a_new_key(plain, rand(2)))
        assert list(jitted) == list(plain)
    assert all(version.calls == 0 for version in jf.versions.values())


class Options:
    """Settings in a dict read with ``.get`` and a default, as configuration code does."""

    def __init__(self) -> None:
        self.cfg = {"scale": rand(3, seed=2)}

    def apply(self, x):
        return x * self.cfg.get("scale", 1.0) + self.cfg.get("shift", 0.0)


def test_dict_get_reads_a_present_key_and_guards_an_absent_one():
    jf = janus.jit(Options.apply, warmup=1)
    plain, jitted, x = Options(), Options(), rand(3)
    for _ in range(3):
        assert_same(jf(jitted, x), Options.apply(plain, x))
    (version,) = jf.versions.values()
    assert version.calls == 2 and "python:" not in janus.explain(jf), janus.explain(jf)  # no split at .get
    for obj in (plain, jitted):  # the absent key appears: the version's assumption fails
        obj.cfg["shift"] = rand(3, seed=5)
    assert_same(jf(jitted, x), Options.apply(plain, x))
    assert version.calls == 2
    for obj in (plain, jitted):  # the present key's array replaced: read as d[key] is
        obj.cfg["scale"] = rand(3, seed=6)
    for _ in range(3):
        assert_same(jf(jitted, x), Options.apply(plain, x))


class Affine:
    def __init__(self, seed):
        self.W, self.b = rand(3, 3, seed=seed), rand(3, seed=seed)

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


def through_layers(layers, x):
    for layer in layers:
        x = layer(x)
    return x


def test_a_list_of_objects_argument_is_passed_by_reference_and_guarded():
    jf = janus.jit(through_layers, warmup=1)
    layers, x = [Affine(1), Affine(2)], rand(3)
    for _ in range(2):
        assert_same(jf(layers, x), through_layers(layers, x))
    assert "arg 0 (layers): list object" in janus.explain(jf) or "list of 2 objects" in janus.explain(jf), janus.explain(jf)
    assert sum(v.calls for v in jf.versions.values()) == 1
    layers[1] = Affine(3)  # another object in the list: read through the heap, as self.layers is
    layers[0].W = rand(3, 3, seed=9)
    assert_same(jf(layers, x), through_layers(layers, x))
    longer = [*layers, Affine(4)]  # another length: another version
    for _ in range(3):
        assert_same(jf(longer, x), through_layers(longer, x))
    assert len(jf.versions) == 2 and "\nimperative:" not in janus.explain(jf), janus.explain(jf)
    mixed = [Affine(1), np.ones(3)]  # not all objects: a plain list argument, as before
    assert not janus.frontend.signature.by_reference(mixed)


# ---- returning the object itself (``return self``) ------------------------------------
class Holder:
    pass


class Standardizer:
    """A scikit-learn style estimator: ``fit`` stores statistics and returns ``self``."""

    def __init__(self):
        self.child = Holder()

    def fit(self, X):
        self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0) + 1e-8
        return self

    def fit_loss(self, X):
        self.fit(X)
        return self, float(np.abs(self.mean_).sum())

    def fit_child(self, X):
        self.mean_ = X.mean(axis=0)
        return self.child


def test_fit_returning_self_compiles_and_returns_the_very_object():
    jf, loss = janus.jit(Standardizer.fit, warmup=1), janus.jit(Standardizer.fit_loss, warmup=1)
    for k in range(3):
        X = rand(5, 3, seed=k)
        jitted, plain = Standardizer(), Standardizer()
        assert jf(jitted, X) is jitted and plain.fit(X) is plain
        assert_same(jitted.mean_, plain.mean_) and assert_same(jitted.scale_, plain.scale_)
        got, want = loss(jitted, X), plain.fit_loss(X)
        assert got[0] is jitted and got[1] == pytest.approx(want[1])
    for fn in (jf, loss):
        assert fn.versions and not fn.fallbacks and sum(v.calls for v in fn.versions.values()) == 2, janus.explain(fn)


def test_returning_a_heap_object_read_from_an_attribute_runs_in_python():
    jf = janus.jit(Standardizer.fit_child, warmup=1, fallback="silent")
    for k in range(2):
        model = Standardizer()
        assert jf(model, rand(5, 3, seed=k)) is model.child
    assert "returning self.child, a heap object that is not an argument itself" in janus.explain(jf)
