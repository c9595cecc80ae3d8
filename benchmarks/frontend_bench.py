"""Steady-state time per call, janus.jit compiled versus the same function run imperatively.

Not a test: run ``.venv/bin/python benchmarks/frontend_bench.py`` and read the tables.
Each function is warmed up (profiled, compiled), checked against NumPy, then timed
best-of-``REPEATS`` over ``CALLS`` calls in this one process, in CPU time of this process
(IREE's local-sync driver runs on the calling thread; wall time on a shared machine counts
other processes' time slices).

The per-call table (a one-dispatch call, ``ackermann(2, 3)``, a train step with 8
parameter arrays, Adam steps writing attributes and dict items) gives each call's time and the bytes it copied and shared with compiled
code. ``--compare BASE`` also runs it on another checkout of janus (e.g. ``git archive
<commit> | tar -x -C /tmp/base``) in alternate subprocesses, ``ROUNDS`` each, and prints
medians before and after: on a shared machine only interleaved runs compare.
``--breakdown`` prints only where the small calls' time goes (dispatch, entry checks,
conversion, the IREE invoke, against the plain function), each part timed in alternate rounds.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
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


def ackermann(m, n):
    if m == 0:
        return n + 1
    return ackermann(m - 1, 1 if n == 0 else ackermann(m, n - 1))


def mlp4_loss(model: "MLP4", x: np.ndarray, y: np.ndarray) -> Any:
    h = np.tanh(x @ model.W1 + model.b1)
    h = np.tanh(h @ model.W2 + model.b2)
    h = np.tanh(h @ model.W3 + model.b3)
    d = h @ model.W4 + model.b4 - y
    return np.mean(d * d)


class MLP4:
    """A 64-128-128-128-10 MLP: 8 parameter arrays, rebound by each SGD step."""

    def __init__(self) -> None:
        sizes = [64, 128, 128, 128, 10]
        for i, (n, m) in enumerate(zip(sizes, sizes[1:]), 1):
            setattr(self, f"W{i}", r(n, m) * 0.1)
            setattr(self, f"b{i}", np.zeros(m, np.float32))

    @janus.jit
    def train_step(self, x: np.ndarray, y: np.ndarray) -> Any:
        loss, g = janus.value_and_grad(mlp4_loss)(self, x, y)
        self.W1, self.b1 = self.W1 - 0.01 * g["W1"], self.b1 - 0.01 * g["b1"]
        self.W2, self.b2 = self.W2 - 0.01 * g["W2"], self.b2 - 0.01 * g["b2"]
        self.W3, self.b3 = self.W3 - 0.01 * g["W3"], self.b3 - 0.01 * g["b3"]
        self.W4, self.b4 = self.W4 - 0.01 * g["W4"], self.b4 - 0.01 * g["b4"]
        return loss


class MLP4InPlace(MLP4):
    """The same MLP, its parameters updated in place (``W -= lr * g``): Python keeps each
    array's identity, so the compiled step's new values are copied into them."""

    @janus.jit
    def train_step(self, x: np.ndarray, y: np.ndarray) -> Any:
        loss, g = janus.value_and_grad(mlp4_loss)(self, x, y)
        self.W1 -= 0.01 * g["W1"]
        self.b1 -= 0.01 * g["b1"]
        self.W2 -= 0.01 * g["W2"]
        self.b2 -= 0.01 * g["b2"]
        self.W3 -= 0.01 * g["W3"]
        self.b3 -= 0.01 * g["b3"]
        self.W4 -= 0.01 * g["W4"]
        self.b4 -= 0.01 * g["b4"]
        return loss


class Adam:
    """A hand-written Adam step on one 16x16 parameter: ``self.m``, ``self.v`` rebound, ``self.t += 1``."""

    def __init__(self) -> None:
        self.W, self.m, self.v, self.t = r(16, 16), np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32), 0

    @janus.jit
    def step(self, g: np.ndarray) -> None:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * g
        self.v = 0.999 * self.v + 0.001 * g * g
        m_hat, v_hat = self.m / (1 - 0.9 ** self.t), self.v / (1 - 0.999 ** self.t)
        self.W = self.W - 0.001 * m_hat / (np.sqrt(v_hat) + 1e-8)


ADAM_SHAPES = {"W1": (32, 64), "b1": (64,), "W2": (64, 64), "b2": (64,), "W3": (64, 10), "b3": (10,)}


class DictAdam:
    """Adam over a dict of 6 parameters (the largest 16 KiB: IREE's memory after a call),
    updated in place, the moments in dicts rebound per key."""

    def __init__(self) -> None:
        self.params = {k: r(*s) for k, s in ADAM_SHAPES.items()}
        self.m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.t = 0

    @janus.jit
    def step(self, grads: dict) -> None:
        self.t += 1
        for k in self.params:
            g = grads[k]
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            m_hat, v_hat = self.m[k] / (1 - 0.9 ** self.t), self.v[k] / (1 - 0.999 ** self.t)
            self.params[k] -= 0.001 * m_hat / (np.sqrt(v_hat) + 1e-8)


def per_call_cases() -> list[tuple[str, Callable, Callable, tuple]]:
    """(name, compiled callable after warm-up, the plain function, arguments) of the per-call table."""
    from janus.models.reinforce import Policy

    linear_jit, model, in_place, policy = janus.jit(linear), MLP4(), MLP4InPlace(), Policy(16)
    ack_jit = janus.jit(ackermann, specialize=False)  # as janus-bench's: the ints are graph inputs
    batch = (r(32, 64), r(32, 10))
    cases = [("one-dispatch call (linear 16x64 @ 64x32)", linear_jit, linear, CASES[0][2][0]),
             ("ackermann(2, 3) (2 int arguments, specialize=False)", ack_jit, ackermann, (2, 3)),
             ("REINFORCE policy forward (4 parameters in self, hidden 16)", policy.probabilities,
              functools.partial(Policy.probabilities.fn, policy), (np.array([0.01, -0.02, 0.03, 0.01], np.float32),)),
             ("train step, 8 parameter arrays (batch 32x64)", model.train_step, functools.partial(MLP4.train_step.fn, model),
              batch),
             ("the same step, parameters updated in place", in_place.train_step,
              functools.partial(MLP4InPlace.train_step.fn, in_place), batch),
             ("Adam step, 16x16 (self.m, self.v, self.t += 1)", Adam().step, functools.partial(Adam.step.fn, Adam()),
              (r(16, 16),)),
             ("Adam step, dict of 6 parameters updated in place", DictAdam().step,
              functools.partial(DictAdam.step.fn, DictAdam()), ({k: r(*s) for k, s in ADAM_SHAPES.items()},))]
    for name, fn, _, args in cases:
        for _ in range(6):  # the step count varies: a version for any count
            fn(*args)
        assert getattr(fn, "func", fn).versions, janus.explain(getattr(fn, "func", fn))
    return cases


def per_call_table() -> dict[str, dict[str, Any]]:
    """Microseconds per call (best of ``REPEATS``) compiled and in plain Python, and bytes per
    timed compiled call of each per-call case."""
    table = {}
    for name, fn, plain, args in per_call_cases():
        (version,) = getattr(fn, "func", fn).versions.values()
        traffic = getattr(version.call.__self__, "traffic", None)  # None: a janus without byte counts
        before = (traffic.calls, traffic.copied, traffic.shared) if traffic else None
        us = per_call(fn, [args]) * 1e6
        python = per_call(plain, [args]) * 1e6
        if traffic is None:
            table[name] = {"us": us, "python": python, "bytes": "n/a"}
            continue
        calls, copied, shared = (now - then for now, then in zip((traffic.calls, traffic.copied, traffic.shared), before))
        if not calls:  # the cost rule gave the key to Python while it was timed (a busy machine)
            table[name] = {"us": us, "python": python, "bytes": "(ran in Python: the cost rule)"}
            continue
        table[name] = {"us": us, "python": python, "bytes": f"{copied // calls} copied, {shared // calls} shared "
                                                            f"(before: {(copied + shared) // calls} copied)"}
    table["janus.jit dispatch + entry checks (linear, 3 positional arrays)"] = entry_cost()
    table.update(split_rows())
    return table


def split_rows() -> dict[str, dict[str, Any]]:
    """Co-execution (split versions, ``janus/frontend/segments.py``), with the cost rule off
    (it would run these small calls in Python): what one segment boundary adds (8 small
    steps with one C call between two of them, minus the same steps unsplit: one more
    launch, the state rebuilt, the continuation), and the REINFORCE agent's ``act`` (a
    segment, a ``Generator`` draw and list appends in Python) and ``finish`` (an episode of
    ``EPISODE`` steps: ``np.stack`` of the list, array work, the lists cleared)."""
    from janus.frontend.jit import JitFunction
    from janus.models.reinforce import Agent

    JitFunction.COST_CALLS = 0
    x = np.linspace(0.0, 1.0, 64)
    steps = "    x = x * 0.5 + 1.0\n" * 4
    namespace: dict[str, Any] = {"gc": __import__("gc")}
    exec(f"def unsplit(x):\n{steps}{steps}    return x\n"
         f"def split(x):\n{steps}    gc.isenabled()\n{steps}    return x\n", namespace)
    boundary = [janus.jit(namespace[name], warmup=1, fallback="silent") for name in ("unsplit", "split")]
    for _ in range(6):
        for jf in boundary:
            jf(x)
    unsplit, split = (per_call(jf, [(x,)]) for jf in boundary)
    agent, plain = Agent(128), Agent(128)
    obs = np.array([0.01, -0.02, 0.03, 0.01], np.float32)
    trajectory = [(r(4), int(i % 3 == 0)) for i in range(EPISODE)]

    def episode(who: Agent, finish: Callable) -> Any:
        for o, a in trajectory:
            who.observations.append(o)
            who.actions.append(a)
        return finish()

    for _ in range(6):
        agent.act(obs), episode(agent, agent.finish)
    rows = {"one segment boundary (8 small steps split by a C call, minus unsplit)":
            {"us": (split - unsplit) * 1e6, "python": 0.0, "bytes": f"split {split * 1e6:.1f} µs, unsplit "
                                                                      f"{unsplit * 1e6:.1f} µs per call"}}
    for name, compiled, python in [
            ("REINFORCE Agent.act (hidden 128; split: a draw, list appends)", lambda: agent.act(obs),
             lambda: Agent.act.fn(plain, obs)),
            (f"REINFORCE Agent.finish (an episode of {EPISODE} steps; split)", lambda: episode(agent, agent.finish),
             lambda: episode(plain, functools.partial(Agent.finish.fn, plain)))]:
        rows[name] = {"us": per_call(compiled, [()]) * 1e6, "python": per_call(python, [()]) * 1e6,
                      "bytes": "(cost rule off)"}
        for who in (agent, plain):
            who.observations.clear(), who.actions.clear()
    return rows


EPISODE = 20


def entry_cost() -> dict[str, Any]:
    """What ``janus.jit`` adds to the runtime's generated call for ``linear``'s arguments:
    the fused call's entry guards and result rebuild, and ``JitFunction.__call__``."""
    args = CASES[0][2][0]
    jf = janus.jit(linear)
    for _ in range(3):
        jf(*args)
    (version,) = jf.versions.values()
    caller = version.call.__self__.caller()  # the runtime's generated call (what the fused call runs)
    leaves = list(args)
    total, runtime = per_call(jf, [args]), per_call(caller, [(leaves,)])
    return {"us": (total - runtime) * 1e6, "python": 0.0, "bytes": "(the janus.jit part of the one-dispatch call)"}


def compare(base: str, rounds: int) -> str:
    """The per-call table before (``base``'s janus) and after (this one), medians of
    ``rounds`` alternate subprocess runs."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(rounds):
        for label, path in (("before", base), ("after", here)):
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--per-call-json"], check=True,
                                 capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path})
            runs[label].append(json.loads(out.stdout.splitlines()[-1]))
    rows = ["| per call | before (µs) | after (µs) | plain Python (µs) | after: bytes per call |", "|---|---:|---:|---:|---|"]
    for name in runs["after"][0]:
        before, after = (f"{statistics.median(run[name]['us'] for run in runs[label]):.1f}" if name in runs[label][0]
                         else "n/a" for label in ("before", "after"))  # a row the base does not have
        python = statistics.median(run[name]["python"] for run in runs["after"])
        rows.append(f"| {name} | {before} | {after} | {python:.1f} | {runs['after'][-1][name]['bytes']} |")
    return "\n".join(rows) + f"\n(medians of {rounds} alternate runs each; CPU time of this process, best of {REPEATS})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", metavar="BASE", help="a janus checkout to compare the per-call table with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--breakdown", action="store_true",
                        help="only the breakdown of the small calls (dispatch, checks, conversion, invoke)")
    parser.add_argument("--per-call-json", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.per_call_json:
        print(json.dumps(per_call_table()))
        return
    if options.breakdown:
        print(overhead_breakdown())
        return
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
    table = per_call_table()
    print("\n| per call | µs | plain Python (µs) | bytes per call |\n|---|---:|---:|---|")
    print("\n".join(f"| {name} | {row['us']:.1f} | {row['python']:.1f} | {row['bytes']} |" for name, row in table.items()))
    if options.compare:
        print("\n" + compare(options.compare, options.rounds))


#: rounds and calls per round of ``overhead_breakdown`` (its parts are a few hundred ns: many calls, alternated)
BREAKDOWN_ROUNDS, BREAKDOWN_CALLS = 15, 2000


def overhead_breakdown() -> str:
    """Where the time of a steady compiled call goes, per per-call case: ``janus.jit``'s
    dispatch (``JitFunction.__call__`` and a bound method's ``functools.partial`` around
    the version's fused call), the entry checks (argument and global guards; heap checks),
    argument conversion with result handling (staging, the argument list, the scratch's
    turn, the driver timing, results copied out and rebuilt), and the IREE invoke of the
    export the call runs (prepared arguments: the floor of this call); beside them the plain
    function, and the invoke of a trivial function (one i64 in and out: the VM's floor).
    Each part is timed in alternate rounds (``BREAKDOWN_ROUNDS`` of ``BREAKDOWN_CALLS``
    calls, the best round of each): the parts differ by tenths of a microsecond, less than
    a busy machine's drift between one part's rounds and the next's."""
    rows = ["| call | total | janus.jit dispatch | entry checks | conversion + results | IREE invoke "
            "| Python side (total - invoke) | plain Python | compiled / plain |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    trivial = CompiledModule.from_mlir("func.func @f(%a: i64) -> i64 { return %a : i64 }")["f"]._runners[0]
    seven = rt.VmVariantList(1)
    seven.push_int(7)
    floor = lambda: trivial.invoke(trivial.function, seven, rt.VmVariantList(1))  # noqa: E731
    for name, fn, plain, args in per_call_cases()[:3]:
        jf = getattr(fn, "func", fn)
        positional = (*getattr(fn, "args", ()), *args)
        (version,) = jf.versions.values()
        function = version.call.__self__  # the runtime's CompiledFunction
        total, fused, checks, invoke, python, trivial_s = alternated([
            (fn, args), (version.quick, (positional,)), (_entry_checks(version), (positional,)),
            (_invoke(function, version, positional), ()), (plain, args), (floor, ())])
        rows.append(f"| {name} | {total * 1e6:.2f} | {(total - fused) * 1e6:.2f} | {checks * 1e6:.2f} "
                    f"| {(fused - checks - invoke) * 1e6:.2f} | {invoke * 1e6:.2f} | {(total - invoke) * 1e6:.2f} "
                    f"| {python * 1e6:.2f} | {total / python:.2f} |")
    return "\n".join(rows) + (f"\n(µs per call, CPU time, best of {BREAKDOWN_ROUNDS} alternate rounds of "
                              f"{BREAKDOWN_CALLS} calls; a trivial function's invoke: {trivial_s * 1e6:.2f} µs)")


def alternated(timed: list[tuple[Callable, tuple]]) -> list[float]:
    """Best CPU seconds per call of each ``(function, arguments)``, timed in alternate rounds."""
    best = [float("inf")] * len(timed)
    for _ in range(BREAKDOWN_ROUNDS):
        for k, (fn, args) in enumerate(timed):
            start = time.process_time()
            for _ in range(BREAKDOWN_CALLS):
                fn(*args)
            best[k] = min(best[k], (time.process_time() - start) / BREAKDOWN_CALLS)
    return best


def _entry_checks(version: Any) -> Callable[[tuple], Any]:
    """The version's fused entry checks alone (``EntryGuards.fuse`` with a call that does
    nothing): argument and global guards, then the heap checks of a version reading the heap."""
    heap = version.graph.heap
    reads = None if heap is None else (heap.sources, version.call.__self__.heap_reads)
    return version.guards.fuse(_nothing, ["return results"], {}, reads)


def _nothing(inputs: Any) -> None:
    return None


def _invoke(function: Any, version: Any, positional: tuple) -> Callable[[], None]:
    """The IREE invoke a steady call of ``version`` makes (its host twin where the recursion
    entry's choice took it), with the arguments that call passes."""
    guards, heap = version.guards, version.graph.heap
    leaves = guards.match(positional)
    inputs = [*leaves, *function._heap.read_inputs(heap.objects(positional))] if heap is not None else leaves
    runner = function._runners[0]
    transfer = runner.scratch.transfer
    arguments = function._arguments(function._items(inputs, transfer), transfer)
    choice = function.entry_choice
    export = runner.host_twin if choice is not None and choice.path == 1 else runner.function
    results = rt.VmVariantList(len(function._results))
    return lambda: runner.invoke(export, arguments, results)


if __name__ == "__main__":
    main()
