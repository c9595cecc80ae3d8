"""Model state shared with compiled code instead of copied (``runtime.values``): committed
arrays are NumPy arrays over IREE's result buffers and pass back into the next call as
they are. Every change user code can make between calls must be seen, every array a
caller keeps must stay as it was, as in plain Python (the oracle: the same model run
imperatively with the same changes)."""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np
import pytest

import janus
from tests.helpers import assert_same, rand
from tests.helpers.arrays import placed

BATCH = 32


class Net:
    """Recurrent state and weights large enough to be shared (``SHARE_MIN_BYTES``), a bias
    updated in place, and a speculated branch after the writes."""

    def __init__(self, seed: int = 0) -> None:
        self.W = rand(64, 128, seed=seed) * 0.1
        self.V = rand(128, 64, seed=seed + 1) * 0.1
        self.b = np.zeros(64, np.float32)
        self.h = np.zeros((BATCH, 128), np.float32)

    def step(self, x: np.ndarray):
        self.h = np.tanh(x @ self.W + self.h * 0.5)
        self.W = self.W - 0.01 * (x.T @ self.h)
        out = self.h @ self.V + self.b
        self.b -= 0.01 * out.mean(axis=0)
        if x.max() > 8.0:  # speculated; a large batch breaks it after the writes above
            return out.sum() * 0.0
        return out.sum()


class JitNet(Net):
    step = janus.jit(Net.step, warmup=2)


def batch(seed: int, scale: float = 1.0) -> np.ndarray:
    return rand(BATCH, 64, seed=100 + seed) * scale


def warm(seed: int = 0, plain_type: type = Net, jit_type: type = JitNet, inputs: Callable = batch) -> tuple[Any, Any]:
    """A plain model and its jitted twin, after the same three steps (the last compiled)."""
    plain, jitted = plain_type(seed), jit_type(seed)
    for s in range(3):
        same_loss(jitted.step(inputs(s)), plain.step(inputs(s)))
    assert jit_type.step.versions, janus.explain(jit_type.step)
    return plain, jitted


def one_step_traffic(jit_type: type, jitted: Any, plain: Any, x: np.ndarray) -> tuple[int, int, int]:
    """One step of both models (the same results), and the compiled call's (calls, bytes
    copied, bytes shared) during it."""
    (version,) = jit_type.step.versions.values()
    traffic = version.call.__self__.traffic
    before = (traffic.calls, traffic.copied, traffic.shared)
    same_loss(jitted.step(x), plain.step(x))
    return tuple(now - then for now, then in zip((traffic.calls, traffic.copied, traffic.shared), before))


def same_loss(got: Any, want: Any) -> None:
    """``Net.step``'s loss: a sum of 2048 float32 terms that cancels to about 0.2. The compiled
    matmuls round differently from BLAS (and from one CPU to another: code is generated for the
    host), about 1e-7 per term, which the sum leaves as up to ~1e-5 absolute; a change the call
    missed moves it by far more."""
    assert type(got) is type(want) and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)


def same_state(jitted: Any, plain: Any, names: tuple[str, ...] = ("W", "V", "b", "h")) -> None:
    for name in names:
        assert_same(getattr(jitted, name), getattr(plain, name))


def compiled_calls() -> int:
    return sum(v.calls for v in JitNet.step.versions.values())


@pytest.mark.parametrize("offset", [0, 16, 8])
def test_state_is_shared_not_copied_between_calls(offset: int) -> None:
    plain, jitted = warm()
    # only read: shared at the 16 bytes the CPU code assumes (NumPy's own alignment), else copied every call
    jitted.V = placed(jitted.V, offset)
    calls, copied, shared = one_step_traffic(JitNet, jitted, plain, batch(5))
    assert calls == 1
    V, misaligned = jitted.V.nbytes, offset % 16 != 0
    # the batch, the small bias in and out (and in place), the loss; W and h both ways
    assert copied == batch(5).nbytes + 3 * jitted.b.nbytes + 4 + (V if misaligned else 0)
    assert shared == 2 * (jitted.W.nbytes + jitted.h.nbytes) + (0 if misaligned else V)
    assert "bytes copied" in janus.explain(JitNet.step)


MUTATIONS: dict[str, Callable[[Net], None]] = {
    "in place": lambda m: m.W.__imul__(0.5),
    "through a view": lambda m: m.h[:, :7].__setitem__(Ellipsis, 0.25),
    "np.copyto": lambda m: np.copyto(m.W, 0.01),
    "out=": lambda m: np.multiply(m.h, -1.0, out=m.h),
    "attribute replaced": lambda m: setattr(m, "W", rand(64, 128, seed=9) * 0.1),
    "reshaped in place and back": lambda m: (setattr(m.h, "shape", (128, BATCH)), setattr(m.h, "shape", (BATCH, 128))),
}


@pytest.mark.parametrize("mutate", list(MUTATIONS.values()), ids=list(MUTATIONS))
def test_user_changes_between_calls_are_seen(mutate: Callable[[Net], None]) -> None:
    plain, jitted = warm()
    calls = compiled_calls()
    for s in range(2):
        mutate(plain)
        mutate(jitted)
        same_loss(jitted.step(batch(s)), plain.step(batch(s)))
        same_state(jitted, plain)
    assert compiled_calls() == calls + 2


def test_two_objects_sharing_one_array() -> None:
    plain, jitted = warm()
    plain2, jitted2 = Net(1), JitNet(1)
    plain2.W, jitted2.W = plain.W, jitted.W  # one array, two owners, until a step rebinds one
    plain2.h, jitted2.h = plain.h, jitted.h
    for s in range(3):
        same_loss(jitted.step(batch(s)), plain.step(batch(s)))
        same_loss(jitted2.step(batch(s)), plain2.step(batch(s)))
        same_state(jitted, plain)
        same_state(jitted2, plain2)


def test_arrays_kept_by_the_caller_never_change() -> None:
    plain, jitted = warm()
    kept = {name: getattr(jitted, name) for name in ("W", "h")}
    copies = {name: array.copy() for name, array in kept.items()}
    for s in range(3):
        jitted.step(batch(s))
    for name, array in kept.items():
        assert getattr(jitted, name) is not array
        np.testing.assert_array_equal(array, copies[name])


def test_a_guard_failing_after_the_writes_commits_nothing() -> None:
    plain, jitted = warm()
    x = batch(7, scale=3.0)  # x.max() > 8: the speculated branch fails after h, W and b were written
    kept = jitted.h
    same_loss(jitted.step(x), plain.step(x))
    same_state(jitted, plain)  # the imperative re-run started from the untouched state
    assert "failed" in janus.explain(JitNet.step)
    assert kept is not jitted.h


class Small:
    """State far below ``SHARE_MIN_BYTES``, rebound by every step: copied both ways (a
    copy costs less than sharing), into the stages the function keeps between calls."""

    def __init__(self, seed: int = 0) -> None:
        self.W = rand(8, 4, seed=seed) * 0.1
        self.b = np.zeros(4, np.float32)
        self.h = np.zeros((2, 4), np.float32)

    def step(self, x: np.ndarray):
        self.h = np.tanh(x @ self.W + self.h * 0.5 + self.b)
        self.W = self.W - 0.01 * (x.T @ self.h)
        self.b = self.b - 0.01 * self.h.mean(axis=0)
        return self.h.sum()


class JitSmall(Small):
    step = janus.jit(Small.step, warmup=2)


def small_batch(seed: int) -> np.ndarray:
    return rand(2, 8, seed=200 + seed)


def warm_small(seed: int = 0) -> tuple[Small, JitSmall]:
    return warm(seed, Small, JitSmall, small_batch)


def same_small_state(jitted: Small, plain: Small) -> None:
    same_state(jitted, plain, ("W", "b", "h"))


def test_small_state_is_copied_both_ways() -> None:
    plain, jitted = warm_small()
    calls, copied, shared = one_step_traffic(JitSmall, jitted, plain, small_batch(5))
    assert calls == 1
    assert copied == small_batch(5).nbytes + 2 * (jitted.W.nbytes + jitted.b.nbytes + jitted.h.nbytes) + 4
    assert shared == 0


SMALL_MUTATIONS: dict[str, Callable[[Small], None]] = {
    "in place": lambda m: m.W.__imul__(0.5),
    "through a view": lambda m: m.h[:, 1:3].__setitem__(Ellipsis, 0.25),
    "np.copyto": lambda m: np.copyto(m.b, 0.01),
    "out=": lambda m: np.multiply(m.h, -1.0, out=m.h),
    "attribute replaced": lambda m: setattr(m, "W", rand(8, 4, seed=9) * 0.1),
    "one array in two places": lambda m: setattr(m, "b", m.h[0]),  # a view of another location's array
}


@pytest.mark.parametrize("mutate", list(SMALL_MUTATIONS.values()), ids=list(SMALL_MUTATIONS))
def test_user_changes_to_small_shared_state_are_seen(mutate: Callable[[Small], None]) -> None:
    plain, jitted = warm_small()
    calls = sum(v.calls for v in JitSmall.step.versions.values())
    for s in range(3):
        mutate(plain)
        mutate(jitted)
        same_loss(jitted.step(small_batch(s)), plain.step(small_batch(s)))
        same_small_state(jitted, plain)
    assert sum(v.calls for v in JitSmall.step.versions.values()) == calls + 3  # compiled, not run in Python


def test_small_state_kept_by_the_caller_never_changes() -> None:
    plain, jitted = warm_small()
    kept = {name: getattr(jitted, name) for name in ("W", "b", "h")}
    copies = {name: array.copy() for name, array in kept.items()}
    for s in range(3):
        same_loss(jitted.step(small_batch(s)), plain.step(small_batch(s)))
    for name, array in kept.items():
        assert getattr(jitted, name) is not array
        np.testing.assert_array_equal(array, copies[name])
    same_small_state(jitted, plain)


def test_steps_from_two_threads_match_python() -> None:
    """Two models stepped at once from two threads (one waits for the runner's scratch or
    allocates its own buffers); each ends where plain Python does."""
    pairs = [warm_small(seed) for seed in (0, 1)]
    errors: list[BaseException] = []

    def run(plain: Small, jitted: JitSmall) -> None:
        try:
            for s in range(100):
                same_loss(jitted.step(small_batch(s % 7)), plain.step(small_batch(s % 7)))
            same_small_state(jitted, plain)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=pair) for pair in pairs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


class Tied:
    """Two attributes holding one array, updated in place through one of them: one location
    of the graph (an identity guard between the two paths), as Python sees one array."""

    def __init__(self) -> None:
        self.p = rand(8, seed=3)
        self.q = self.p

    def step(self, x: np.ndarray):
        self.p -= 0.1 * self.q * x
        return self.q.sum()


class Overlapping(Tied):
    """Two attributes holding two arrays over one buffer (a reversed view), one updated in
    place: every compiled call's aliasing check fails (the graph would read the other stale)."""

    def __init__(self) -> None:
        self.p = rand(8, seed=3)
        self.q = self.p[::-1]


def test_two_attributes_holding_one_array_compile_as_one_location() -> None:
    jf = janus.jit(Tied.step, warmup=1)
    plain, jitted = Tied(), Tied()
    for s in range(4):
        x = rand(8, seed=s)
        assert_same(jf(jitted, x), Tied.step(plain, x))
        assert_same(jitted.p, plain.p)
        assert jitted.q is jitted.p
    assert jf.compiles == 1 and sum(v.calls for v in jf.versions.values()) == 3, janus.explain(jf)
    assert "heap self.q: the same object as self.p (identity)" in janus.explain(jf)
    for model in (plain, jitted):  # parted from outside: the guard sees it, q no longer follows p
        model.q = model.p.copy()
    for s in range(3):
        x = rand(8, seed=s)
        assert_same(jf(jitted, x), Tied.step(plain, x))
        assert_same(jitted.p, plain.p)
        assert_same(jitted.q, plain.q)


def test_a_heap_check_failing_every_call_stops_regenerating() -> None:
    jf = janus.jit(Overlapping.step, warmup=1, fallback="silent")
    plain, jitted = Overlapping(), Overlapping()
    for s in range(8):
        x = rand(8, seed=s)
        assert_same(jf(jitted, x), Overlapping.step(plain, x))
        assert_same(jitted.p, plain.p)
    assert jf.compiles <= 3 and "heap check failed 3 times in a row" in janus.explain(jf), janus.explain(jf)


class Alternating:
    """A bool flag on the object, flipped by every call and branched on."""

    def __init__(self) -> None:
        self.w, self.even, self.calls = rand(3), True, 0

    def step(self, x: np.ndarray):
        self.even = not self.even
        self.calls += 1
        return (self.w * x).sum() if self.even else (self.w - x).sum()


def test_a_bool_flag_flipped_every_call_is_written_as_a_bool_and_read_as_a_graph_bool() -> None:
    jf = janus.jit(Alternating.step, warmup=1)
    plain, jitted = Alternating(), Alternating()
    for s in range(10):
        x = rand(3, seed=s)
        assert_same(jf(jitted, x), Alternating.step(plain, x))
        assert type(jitted.even) is bool and jitted.even == plain.even and type(jitted.calls) is int
    assert len(jf.versions) == 1 and next(iter(jf.versions.values())).calls >= 4, janus.explain(jf)
    assert "heap self.even: bool (any value, a graph input)" in janus.explain(jf), janus.explain(jf)
