"""Janus demo (``make demo``): imperative NumPy in, compiled IREE graphs out.

1. ``janus.jit`` on an unchanged NumPy MLP: profiled imperative runs, then a speculative
   graph compiled by IREE; every compiled answer is checked against plain Python, and
   the steady-state time of both is measured in this process.
2. ``demo.mlir``, one step of a stateful RNN written in the janus dialect (``self``'s
   attributes read and written through the shadow heap, a ``raise`` speculated away as a
   guard): lowered by ``janus-to-iree``, compiled, run for five steps against the Python
   RNN, then driven into its guard — the failed call leaves ``self`` untouched and the
   imperative re-run raises the real exception.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

import janus
from janus.runtime import CompiledModule, GuardFailure

DEMO = Path(__file__).with_name("demo.mlir")


def mlp(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> np.ndarray:
    h = np.maximum(x @ w1 + b1, 0.0)
    h = np.tanh(h @ w2 + b2)
    return h.sum(axis=1)


def best_time(fn: Callable[[], object], repeats: int = 200) -> float:
    """Best-of-5 mean seconds per call of ``fn``."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def jit_demo() -> None:
    print("== 1. janus.jit on an imperative NumPy MLP")
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype(np.float32) for s in [(16, 32), (32, 64), (64,), (64, 64), (64,)]]
    compiled = janus.jit(mlp)
    for call in range(5):
        got, want = compiled(*args), mlp(*args)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        print(f"call {call + 1}: {'compiled' if call >= 3 else 'imperative (profiling)'}; matches NumPy")
    imperative, graph = best_time(lambda: mlp(*args)), best_time(lambda: compiled(*args))
    print(f"steady state: imperative {imperative * 1e6:.1f} us, compiled {graph * 1e6:.1f} us "
          f"per call ({imperative / graph:.2f}x)")
    print(janus.explain(compiled))


class RNN:
    """The Python that demo.mlir was written from (its comments show the source)."""

    def __init__(self, rng: np.random.Generator, max_steps: int) -> None:
        self.w, self.u = (rng.standard_normal((8, 8)).astype(np.float32) * 0.5 for _ in range(2))
        self.v = rng.standard_normal(8).astype(np.float32)
        self.state = np.zeros(8, np.float32)
        self.steps, self.max_steps = 0, max_steps

    def step(self, x: np.ndarray) -> np.ndarray:
        if self.steps >= self.max_steps:
            raise RuntimeError("too many steps")
        h = np.tanh(self.w @ x + self.u @ self.state)
        self.state = h
        self.steps += 1
        return self.v @ h


def module_demo() -> None:
    print("\n== 2. a stateful RNN step in the janus dialect, compiled with IREE")
    module = CompiledModule.from_mlir(DEMO.read_text(), target="cpu", filename=str(DEMO))
    step = module["step"]
    compiled_rnn, python_rnn = RNN(np.random.default_rng(1), 5), RNN(np.random.default_rng(1), 5)
    xs = np.random.default_rng(2).standard_normal((6, 8)).astype(np.float32)
    for t in range(5):
        y = step(xs[t], objects=[compiled_rnn])
        want = python_rnn.step(xs[t])
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(compiled_rnn.state, python_rnn.state, rtol=1e-5, atol=1e-6)
        assert compiled_rnn.steps == python_rnn.steps
        print(f"step {t + 1}: y = {float(y):+.5f}, self.state and self.steps committed; match Python")
    before = compiled_rnn.state.copy()
    try:
        step(xs[5], objects=[compiled_rnn])
        raise AssertionError("the guard should have failed")
    except GuardFailure as failure:
        assert np.array_equal(compiled_rnn.state, before) and compiled_rnn.steps == 5
        print(f"step 6: {failure}; self is unchanged, falling back to Python:")
    try:
        RNN.step(compiled_rnn, xs[5])
    except RuntimeError as error:
        print(f"        the imperative run raises RuntimeError({str(error)!r}), as plain Python does")


def main() -> int:
    jit_demo()
    module_demo()
    return 0


if __name__ == "__main__":
    sys.exit(main())
