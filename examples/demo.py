"""Janus demo (``make demo``): imperative NumPy in, compiled IREE graphs out.

1. Training: an MLP keeps its parameters in attributes (``self.W1``...); its train step
   takes ``janus.value_and_grad`` of the loss w.r.t. ``self`` and updates the attributes.
   ``janus.jit`` of that step (profiled imperative runs, then one compiled graph with the
   gradient and the attribute writes) trains side by side with the same model trained by
   plain Python: the step with hand-written NumPy gradients, what one would write without
   Janus. The losses must agree; both steps are timed in this process.
2. Export: ``janus.export(model.infer, x)`` writes the trained model's inference as a
   .vmfb, the attributes it reads as .npy files, and the ``iree-run-module`` command line;
   IREE's own tool runs it without Python and must print the Python answer.
3. ``demo.mlir``, one step of a stateful RNN written in the janus dialect (``self``'s
   attributes read and written through the shadow heap, a ``raise`` speculated away as a
   guard): lowered by ``janus-to-iree``, compiled, run for five steps against the Python
   RNN, then driven into its guard — the failed call leaves ``self`` untouched and the
   imperative re-run raises the real exception.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

import janus
from janus.runtime import CompiledModule, GuardFailure

DEMO = Path(__file__).with_name("demo.mlir")
F32 = np.float32
STEPS = 30


def loss_fn(model: "MLP", x: np.ndarray, y: np.ndarray) -> np.ndarray:
    h = np.tanh(x @ model.W1 + model.b1)
    d = h @ model.W2 + model.b2 - y
    return np.mean(d * d)


class MLP:
    """A 16-256-4 regression MLP; ``train_step`` is one SGD step on a batch."""

    def __init__(self, seed: int, lr: float = 0.1) -> None:
        rng = np.random.default_rng(seed)
        self.W1 = (rng.standard_normal((16, 256)) * 0.3).astype(F32)
        self.b1 = np.zeros(256, F32)
        self.W2 = (rng.standard_normal((256, 4)) * 0.3).astype(F32)
        self.b2 = np.zeros(4, F32)
        self.lr = lr

    def train_step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        loss, g = janus.value_and_grad(loss_fn)(self, x, y)
        self.W1 = self.W1 - self.lr * g["W1"]
        self.b1 = self.b1 - self.lr * g["b1"]
        self.W2 = self.W2 - self.lr * g["W2"]
        self.b2 = self.b2 - self.lr * g["b2"]
        return loss

    def infer(self, x: np.ndarray) -> np.ndarray:
        return np.tanh(x @ self.W1 + self.b1) @ self.W2 + self.b2


class JitMLP(MLP):
    train_step = janus.jit(MLP.train_step)


class NumpyMLP(MLP):
    """The plain-Python baseline: the same step with hand-written NumPy gradients."""

    def train_step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        h = np.tanh(x @ self.W1 + self.b1)
        d = h @ self.W2 + self.b2 - y
        dd = (2 / d.size) * d
        dh = (dd @ self.W2.T) * (1 - h * h)
        self.W2 = self.W2 - self.lr * (h.T @ dd)
        self.b2 = self.b2 - self.lr * dd.sum(0)
        self.W1 = self.W1 - self.lr * (x.T @ dh)
        self.b1 = self.b1 - self.lr * dh.sum(0)
        return np.mean(d * d)


def best_time(fn: Callable[[], object], repeats: int = 200) -> float:
    """Best-of-5 mean seconds per call of ``fn``."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def data(seed: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(seed).standard_normal((256, 16)).astype(F32)
    return x, np.stack([np.sin(x[:, 0]), x[:, 1] * x[:, 2], np.cos(x[:, 3]), x[:, 4]], axis=1).astype(F32)


def train_demo() -> MLP:
    print("== 1. training an MLP whose parameters are attributes, with a janus.jit train step")
    compiled, plain = JitMLP(0), NumpyMLP(0)
    x, y = data(1)
    for step in range(STEPS):
        got, want = compiled.train_step(x, y), plain.train_step(x, y)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
        if step % 10 == 0 or step == STEPS - 1:
            print(f"step {step + 1:2d}: loss {float(got):.6f} (plain NumPy {float(want):.6f})")
    for name in ("W1", "b1", "W2", "b2"):
        np.testing.assert_allclose(getattr(compiled, name), getattr(plain, name), rtol=1e-4, atol=1e-5)
    jf = JitMLP.train_step
    compiled_steps = sum(v.calls for v in jf.versions.values())
    assert jf.versions and compiled_steps + jf.timed_plain == STEPS - jf.warmup
    print(f"losses and parameters agree with plain NumPy for all {STEPS} steps "
          f"({compiled_steps} compiled steps; {jf.timed_plain} plain, timed by the cost rule)")
    imperative, graph = best_time(lambda: plain.train_step(x, y)), best_time(lambda: compiled.train_step(x, y))
    print(f"train step: plain NumPy (hand-written gradients) {imperative * 1e6:.1f} us, "
          f"janus.jit {graph * 1e6:.1f} us per step ({imperative / graph:.2f}x)")
    return compiled


def export_demo(model: MLP) -> None:
    print("\n== 2. janus.export of the trained model, run by iree-run-module")
    x = data(2)[0][:8]
    with tempfile.TemporaryDirectory() as folder:
        done = janus.export(model.infer, x, path=Path(folder) / "mlp.vmfb")
        print("inputs:", ", ".join(f"{i['name']} {i['mlir']}" + (f" <- {i['file']}" if "file" in i else "")
                                   for i in done.info["inputs"]))
        np.save(Path(folder) / "x.npy", x)
        command = [str(Path(sys.executable).parent / done.command[0]), *done.command[1:], "--output=@out.npy"]
        print("$", " ".join(done.command), "--output=@out.npy")
        subprocess.run(command, cwd=folder, check=True, capture_output=True)
        got = np.load(Path(folder) / "out.npy")
    np.testing.assert_allclose(got, model.infer(x), rtol=1e-5, atol=1e-6)
    print(f"iree-run-module output {got.shape} matches model.infer(x) in Python")


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
    print("\n== 3. a stateful RNN step in the janus dialect, compiled with IREE")
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
    export_demo(train_demo())
    module_demo()
    return 0


if __name__ == "__main__":
    sys.exit(main())
