"""Time per training step: a jitted train-step method (parameters in object attributes,
gradients by janus-autodiff, SGD update committed to the heap) versus the same method run
by Python (gradients from the eager tape).

Not a test: run ``.venv/bin/python benchmarks/train_bench.py`` from the repository root.
The models are the ones ``tests/models/test_train_loops.py`` checks against plain Python.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.train_models import LSTM, MLP, JitLSTM, JitMLP, lstm_segments, mlp_batch  # noqa: E402

STEPS = 30


def per_step(model: Any, batches: list[tuple[np.ndarray, np.ndarray]]) -> float:
    start = time.perf_counter()
    for x, y in batches:
        model.train_step(x, y)
    return (time.perf_counter() - start) / len(batches)


def bench(name: str, jitted: Callable[[], Any], plain: Callable[[], Any], batches: list) -> str:
    model = jitted()
    start = time.perf_counter()
    for x, y in batches[:3]:  # profiled runs, generation and compilation
        model.train_step(x, y)
    warm = time.perf_counter() - start
    compiled, imperative = per_step(model, batches), per_step(plain(), batches)
    jf = type(model).train_step
    assert jf.versions, "not compiled"
    return (f"| {name} | {imperative * 1e3:.2f} | {compiled * 1e3:.2f} | {imperative / compiled:.1f}x "
            f"| {warm:.1f} | {jf.compile_seconds:.1f} |")


def main() -> None:
    rng = np.random.default_rng(0)
    rows = ["| train step | imperative (ms) | compiled (ms) | speed-up | first 3 steps (s) | compile (s) |",
            "|---|---:|---:|---:|---:|---:|",
            bench("MLP 4-16-2, batch 32", lambda: JitMLP(0), lambda: MLP(0), [mlp_batch(rng) for _ in range(STEPS)]),
            bench("LSTM hidden 32, batch 4, 8 steps (BPTT)", lambda: JitLSTM(0), lambda: LSTM(0), lstm_segments()[:STEPS])]
    print("\n".join(rows))


if __name__ == "__main__":
    main()
