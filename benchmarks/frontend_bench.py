"""Steady-state time per call, janus.jit compiled versus the same function run imperatively.

Not a test: run ``.venv/bin/python benchmarks/frontend_bench.py`` and read the table.
Each function is warmed up (profiled, compiled), checked against NumPy, then timed
best-of-``REPEATS`` over ``CALLS`` calls in this one process, in CPU time of this process
(IREE's local-sync driver runs on the calling thread; wall time on a shared machine counts
other processes' time slices).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

import janus
from iree import runtime as rt
from janus.runtime import CompiledModule

REPEATS, CALLS = 7, 200
rng = np.random.default_rng(0)


def r(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def linear(x, W, b):
    return x @ W + b


def mlp(x, W1, b1, W2, b2):
    h = np.tanh(x @ W1 + b1)
    return np.maximum(h @ W2 + b2, 0.0)


def rnn(xs, h, W, U, b):
    for x in xs:
        h = np.tanh(x @ W + h @ U + b)
    return h


def halve(x):
    while x.sum() > 1.0:
        x = x * 0.5
    return x


def branch(x, W):
    z = x @ W
    if z.sum() > 0:
        return np.tanh(z)
    return z * 0.5


W64, U64, b64 = r(32, 64) * 0.2, r(64, 64) * 0.1, r(64)
CASES: list[tuple[str, Callable, list[tuple]]] = [
    ("linear 16x64 @ 64x32", linear, [(r(16, 64), r(64, 32), r(32))]),
    ("MLP 16x64-128-10", mlp, [(r(16, 64), r(64, 128), r(128), r(128, 10), r(10))]),
    ("RNN, 10 steps (unrolled)", rnn, [([r(4, 32) for _ in range(10)], np.zeros((4, 64), np.float32), W64, U64, b64)]),
    ("RNN, varying length (3, 7, 12 steps; scf.for)", rnn,
     [([r(4, 32) for _ in range(n)], np.zeros((4, 64), np.float32), W64, U64, b64) for n in (3, 7, 12)]),
    ("RNN, lengths 5, 7, 3, 9, 12 (scf.for)", rnn,
     [([r(4, 32) for _ in range(n)], np.zeros((4, 64), np.float32), W64, U64, b64) for n in (5, 7, 3, 9, 12)]),
    ("RNN, 100 steps (above the unroll limit: scf.for)", rnn,
     [([r(4, 32) for _ in range(100)], np.zeros((4, 64), np.float32), W64, U64, b64)]),
    ("while loop, varying trip count (scf.while)", halve, [(np.full(64, v, np.float32),) for v in (0.5, 3.0, 40.0)]),
    ("branch that varies (scf.if)", branch, [(r(8, 16), r(16, 16)), (-r(8, 16), r(16, 16))]),
    ("MLP, batches 64 then 17 (? dims)", mlp,
     [(r(n, 64), r(64, 128), r(128), r(128, 10), r(10)) for n in (64, 17)]),
]


def per_call(fn: Callable, calls: list[tuple]) -> float:
    """Best-of-REPEATS seconds per call, cycling through ``calls``."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()
        for i in range(CALLS):
            fn(*calls[i % len(calls)])
        best = min(best, (time.process_time() - start) / CALLS)
    return best


def main() -> None:
    rows = ["| function | imperative (µs) | compiled (µs) | speed-up | versions | note |", "|---|---:|---:|---:|---:|---|"]
    for name, fn, calls in CASES:
        jf = janus.jit(fn)
        for _ in range(4):
            for args in calls:
                got, want = jf(*args), fn(*args)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        imperative, compiled = per_call(fn, calls), per_call(jf, calls)
        note = "" if jf.versions else janus.explain(jf).splitlines()[-1][:60]
        rows.append(f"| {name} | {imperative * 1e6:.1f} | {compiled * 1e6:.1f} | {imperative / compiled:.2f}x "
                    f"| {jf.compiles} | {note} |")
    print("\n".join(rows))
    print("\n" + overhead_breakdown())


def overhead_breakdown() -> str:
    """Where the time of a compiled call of ``linear`` goes: janus.jit (entry checks,
    result rebuild), argument and result conversion, and the IREE invoke itself; and the
    invoke of a trivial function (one i64 in and out: the VM's floor per call)."""
    args = CASES[0][2][0]
    jf = janus.jit(linear)
    for _ in range(3):
        jf(*args)
    (version,) = jf.versions.values()
    function = version.call.__self__  # the runtime's CompiledFunction
    total = per_call(jf, [args])
    runtime = per_call(function.results, [(args,)])
    runner = function._runners[0]  # local-sync: calls under 1 ms never try the parallel driver
    pushed = rt.VmVariantList(len(args))
    for kind, value in zip(function._inputs, args):
        kind.push(pushed, value, runner.device)
    invoke = per_call(lambda: runner.invoke(runner.function, pushed, rt.VmVariantList(1)), [()])
    trivial = CompiledModule.from_mlir("func.func @f(%a: i64) -> i64 { return %a : i64 }")["f"]._runners[0]
    seven = rt.VmVariantList(1)
    seven.push_int(7)
    floor = per_call(lambda: trivial.invoke(trivial.function, seven, rt.VmVariantList(1)), [()])
    return (f"compiled call of linear: {total * 1e6:.1f} µs = janus.jit {(total - runtime) * 1e6:.1f} "
            f"+ conversion {(runtime - invoke) * 1e6:.1f} + IREE invoke {invoke * 1e6:.1f} "
            f"(1 dispatch; a trivial function's invoke: {floor * 1e6:.1f} µs)")


if __name__ == "__main__":
    main()
