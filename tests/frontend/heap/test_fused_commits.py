"""A version that writes attributes of one object stores them in its fused call
(``guards.EntryGuards.fuse`` with ``commits``, ``jit._fused_commits``): the same heap as
plain Python after every call, user changes between calls seen (in place, through a view,
``np.copyto``, ``out=``, an attribute replaced, a shared array), arrays the user kept
unchanged by later calls, nothing stored when a guard fails in the compiled call, and a
class ``__setattr__`` never bypassed."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import janus
from janus.frontend.jit import JitFunction
from tests.helpers import assert_same, rand


class Params:
    def __init__(self) -> None:
        self.W, self.b = rand(4, 3), rand(3, seed=1)


def step(p: Params, x: np.ndarray) -> Any:
    h = np.tanh(x @ p.W + p.b)
    p.W = p.W - 0.1 * (x.T @ h)
    p.b = p.b - 0.1 * h.sum(axis=0)
    return (h * h).mean()


def step_checked(p: Params, x: np.ndarray) -> Any:
    h = x @ p.W + p.b
    p.W = p.W * 0.5
    p.b = p.b * 0.5
    if h.sum() > 100.0:  # a guard in the graph, after the writes were computed
        raise ValueError("diverged")
    return h


def assert_same_state(got: Params, want: Params) -> None:
    assert vars(got).keys() == vars(want).keys()
    for name, value in vars(want).items():
        assert_same(getattr(got, name), value)


def warmed(fn: Callable, x: np.ndarray) -> tuple[JitFunction, Params, Params]:
    """``fn`` jitted, warmed up and compiled on a ``Params``; that object and its oracle (run
    in plain Python alongside), equal."""
    jf, p, oracle = janus.jit(fn), Params(), Params()
    for _ in range(4):
        assert_same(jf(p, x), fn(oracle, x))
    (version,) = jf.versions.values()
    assert version.quick is not None, janus.explain(jf)  # the fused call, with the stores
    assert_same_state(p, oracle)
    return jf, p, oracle


X = rand(2, 4, seed=2)


@pytest.fixture(scope="module")
def trained() -> tuple[JitFunction, Params, Params]:
    return warmed(step, X)


def test_fused_stores_agree_with_python_and_kept_arrays_never_change(trained) -> None:
    jf, p, oracle = trained
    (version,) = jf.versions.values()
    calls = version.calls
    kept = [p.W, p.b]
    values = [a.copy() for a in kept]
    for _ in range(3):
        assert_same(jf(p, X), step(oracle, X))
        assert_same_state(p, oracle)
    assert version.calls == calls + 3
    assert p.W is not kept[0] and p.b is not kept[1]
    for array, value in zip(kept, values):
        np.testing.assert_array_equal(array, value)


EDITS: list[tuple[str, Callable[[Params], None]]] = [
    ("in place", lambda p: p.W.__iadd__(1.0)),
    ("through a view", lambda p: p.W[:, 1:].__imul__(2.0)),
    ("np.copyto", lambda p: np.copyto(p.b, np.arange(3, dtype=np.float32))),
    ("out=", lambda p: np.multiply(p.W, -1.0, out=p.W)),
    ("attribute replaced", lambda p: setattr(p, "b", np.full(3, 0.25, np.float32))),
]


@pytest.mark.parametrize("edit", [e for _, e in EDITS], ids=[name for name, _ in EDITS])
def test_a_change_by_user_code_between_calls_is_seen(trained, edit) -> None:
    jf, p, oracle = trained
    edit(p), edit(oracle)
    assert_same(jf(p, X), step(oracle, X))
    assert_same_state(p, oracle)


def test_two_objects_sharing_one_array_as_in_python(trained) -> None:
    jf, p, oracle = trained
    other, other_oracle = Params(), Params()
    other.W, other_oracle.W = p.W, oracle.W
    assert_same(jf(p, X), step(oracle, X))
    assert other.W is not p.W and other_oracle.W is not oracle.W  # rebound in ``p`` only
    assert_same_state(other, other_oracle)
    assert_same(jf(other, X), step(other_oracle, X))
    assert_same_state(other, other_oracle)
    assert_same_state(p, oracle)


def test_a_guard_failing_after_the_writes_stores_nothing() -> None:
    """The compiled call fails its guard after computing the new ``W`` and ``b``: nothing is
    stored, Python reruns the call from the entry state (a second store would halve twice)."""
    jf, p, oracle = warmed(step_checked, X)
    events = len(jf.events)
    per_unit = (np.ones((2, 4), np.float32) @ oracle.W).sum()
    big = np.full((2, 4), 1000.0 / per_unit, np.float32)  # h.sum() about 1000: the guard fails
    for who, fn in ((p, jf), (oracle, step_checked)):
        with pytest.raises(ValueError, match="diverged"):
            fn(who, big)
    assert_same_state(p, oracle)
    assert any("guard 0" in event and "failed" in event for event in jf.events[events:]), jf.events
    assert_same(jf(p, X), step_checked(oracle, X))
    assert_same_state(p, oracle)


def test_a_class_setattr_installed_later_is_not_bypassed() -> None:
    class Hooked(Params):
        pass

    def hooked_step(p: Hooked, x: np.ndarray) -> Any:
        return step(p, x)

    jf, p, oracle = janus.jit(hooked_step), Hooked(), Hooked()
    for _ in range(4):
        assert_same(jf(p, X), hooked_step(oracle, X))
    assert next(iter(jf.versions.values())).quick is not None, janus.explain(jf)
    seen: list[str] = []

    def record(self: Any, name: str, value: Any) -> None:
        seen.append(name)
        object.__setattr__(self, name, value)

    Hooked.__setattr__ = record  # type: ignore[method-assign,assignment]
    try:
        assert_same(jf(p, X), hooked_step(oracle, X))
    finally:
        del Hooked.__setattr__
    assert seen == ["W", "b"] * 2  # the compiled or Python call, then the oracle: each through the hook
    assert_same_state(p, oracle)


class Counted:
    def __init__(self) -> None:
        self.W, self.t, self.scale, self.done, self.last = rand(4, 3), 0, 1.0, False, np.float32(0.0)


def counted_step(p: Counted, x: np.ndarray) -> Any:
    """Python scalars of the traced code written beside an array (``self.t += 1`` of an
    optimizer) and a NumPy scalar: the fused call stores each as its type."""
    p.t += 1
    p.last = (x @ p.W).mean()
    p.scale = p.scale * 0.5
    p.done = p.t > 2
    p.W = p.W - (0.1 / p.t) * (x.T @ (x @ p.W))
    return (p.W * p.scale).sum()


def test_python_scalars_written_are_stored_as_their_types() -> None:
    jf, p, oracle = janus.jit(counted_step), Counted(), Counted()
    for _ in range(8):
        assert_same(jf(p, X), counted_step(oracle, X))
        assert_same_state(p, oracle)
    (version,) = jf.versions.values()
    assert version.quick is not None, janus.explain(jf)  # the fused call, with the stores
    calls = version.calls
    for _ in range(3):
        assert_same(jf(p, X), counted_step(oracle, X))
        assert_same_state(p, oracle)
        assert (type(p.t), type(p.scale), type(p.done), type(p.last)) == (int, float, bool, np.float32)
    assert version.calls == calls + 3
