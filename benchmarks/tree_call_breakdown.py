"""Where one tree-inference call's time goes (issue 15): host linearization, entry key, the
compiled call (argument staging, the level loop's dispatches and read-backs), the rest.

Not a test. ``JANUS_CACHE_DIR=/tmp/jc python benchmarks/tree_call_breakdown.py
[treernn-infer-b1 ...] [--rounds 7] [--calls 20]``. Each zoo model runs under ``janus.jit``
through its steps (steady state), then on one batch of its trees these are timed in CPU
time (``time.process_time``; IREE's local-sync driver runs on the calling thread), the
parts alternated in one process, min over ``--rounds`` of the mean of ``--calls`` calls:

- ``python``: the program as written (the jit function's Python function);
- ``janus``: the whole ``janus.jit`` call;
- ``linearize``: ``trees.linearize`` of the batch (the tree objects to index arrays);
- ``key``: the entry key and leaves (``signature.key_and_leaves``, linearization included);
- ``compiled``: the compiled function alone on the call's inputs (``CompiledFunction._run``:
  staging the arguments, the VM run of the level loop, the results pulled back);
- ``invoke``: the VM run alone (``runner.invoke`` on the staged argument list);
- ``rest``: janus minus key minus compiled (guards, heap checks, result rebuild).

The forest's shape is printed beside it: nodes, depths (levels by depth, the pass's level
loop trips) and the 16/4-row chunks those levels run in (``wavefront_form.TIERS``), when
the pass batches the recursion (``--no-batch``: it never does; treernn-infer-b1 is not batched
either way: 2 calls of the recursion, below ``min-calls``, and weights below ``min-node-weights``).

``--fit`` then times the compiled call (jit call less entry key) on 12 forests of the model's
batch size (linear, balanced and random-split trees of 8-48 leaves) and fits, by least squares,
a fixed cost, a cost per depth and one per chunk of each tier; every forest's calls are checked
to have run compiled.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import numpy as np

from janus.benchmark.swap import fresh_jit
from janus.frontend import explain
from janus.frontend.recursion import trees as tree_rows
from janus.frontend.signature import key_and_leaves
from janus.models import MODELS
from janus.models.trees import Tree, make_tree
from janus.passes.recursion.wavefront_form import TIERS
from janus.passes.recursion.batch_tree_recursion import BatchTreeRecursion
from janus.runtime import cache
from janus.runtime.module import CompiledFunction


def _depth_counts(forest: list[Tree]) -> list[int]:
    """Nodes per depth across the forest (roots at depth 0)."""
    counts: list[int] = []
    level = list(forest)
    while level:
        counts.append(len(level))
        level = [c for t in level if t.word is None for c in (t.left, t.right)]
    return counts


def _chunks(rows: int) -> list[int]:
    """Chunks of each tier (``wavefront_form.TIERS``) a level of ``rows`` rows runs in: as many
    as fit of each tier, the last tier taking the rest rounded up."""
    counts = []
    for size in TIERS[:-1]:
        counts.append(rows // size)
        rows -= counts[-1] * size
    return [*counts, -(-rows // TIERS[-1])]


def _tier_counts(depths: list[int]) -> list[int]:
    return [sum(tier) for tier in zip(*map(_chunks, depths))]


def _best(fn: Callable[[], Any], rounds: int, calls: int) -> float:
    """Min over rounds of the mean CPU seconds of one call."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - start) / calls)
    return best


def breakdown(model: str, rounds: int, calls: int) -> dict[str, float]:
    spec = MODELS[model]
    seen: dict[str, tuple[CompiledFunction, Any, list[Any]]] = {}
    original = CompiledFunction._run

    def recording(self: CompiledFunction, runner: Any, args: Any) -> list[Any]:
        seen[self.name] = (self, runner, list(args))
        return original(self, runner, args)

    with fresh_jit(spec.modules) as jits:
        workload = spec.build("full")  # type: ignore[arg-type]
        for i in range(workload.steps):
            workload.step(i)
        jf = next(j for name, j in jits.items() if name.endswith(".infer"))
        owner = workload.step.__closure__  # the step closes over the model and the trees
        cells = {type(c.cell_contents).__name__: c.cell_contents for c in owner if not callable(c.cell_contents)}
        m = next(v for v in cells.values() if hasattr(v, "encode"))
        batch = workload.items_per_step
        forest = cells["list"][:batch]
        CompiledFunction._run = recording
        try:
            m.infer(forest)  # a call that goes through ``_run`` (the fast path may not): its inputs
            jf._fast = None
            m.infer(forest)
        finally:
            CompiledFunction._run = original
        if not seen:  # every call took the fused path: one slow call records the inputs
            raise SystemExit(f"{model}: no compiled call recorded")
        cf, runner, args = max(seen.values(), key=lambda s: len(s[2]))
        scratch = runner.scratch
        items = cf._items(args, scratch.transfer)
        arguments = cf._arguments(items, scratch.transfer)
        results = scratch.results
        parts: dict[str, Callable[[], Any]] = {
            "python": lambda: jf.fn(m, forest),
            "janus": lambda: m.infer(forest),
            "linearize": lambda: tree_rows.linearize(forest),
            "key": lambda: key_and_leaves((m, forest), jf.dynamic),
            "compiled": lambda: cf._run(runner, args),
            "invoke": lambda: runner.invoke(runner.function, arguments, results),
        }
        times = {name: float("inf") for name in parts}
        for _ in range(rounds):  # alternated: each round times every part once
            for name, fn in parts.items():
                times[name] = min(times[name], _best(fn, 1, calls))
    times = {name: t / batch for name, t in times.items()}  # per tree
    times["rest"] = times["janus"] - times["key"] - times["compiled"]
    depths = _depth_counts(forest)
    times["nodes"] = sum(depths)
    times["depths"] = len(depths)
    times["chunks"] = sum(_tier_counts(depths))
    times["batch"] = batch
    return times


def level_costs(model: str, rounds: int, calls: int) -> list[float]:
    """(fixed, per depth, per chunk of each tier) µs of one compiled call (the jit call less its entry key),
    fitted by least squares over forests of the model's batch size whose trees are linear,
    balanced or split at random, of 8 to 48 leaves: linear trees make many narrow levels,
    balanced ones few wide levels, so depths and chunks vary apart."""
    spec = MODELS[model]
    rng = np.random.default_rng(0)
    with fresh_jit(spec.modules) as jits:
        workload = spec.build("full")  # type: ignore[arg-type]
        for i in range(workload.steps):
            workload.step(i)
        jf = next(j for name, j in jits.items() if name.endswith(".infer"))
        cells = [c.cell_contents for c in workload.step.__closure__]
        m = next(v for v in cells if hasattr(v, "encode"))
        vocab = m.E.shape[0]
        batch = workload.items_per_step
        forests = [[make_tree(rng, leaves, shape, vocab) for _ in range(batch)]
                   for shape in ("linear", "balanced", "moderate") for leaves in (8, 16, 32, 48)]
        rows, times = [], []
        for forest in forests:
            for _ in range(jf.warmup + 1):
                m.infer(forest)
            before = sum(v.calls for v in jf.versions.values())
            call = _best(lambda: m.infer(forest), rounds, calls)
            if sum(v.calls for v in jf.versions.values()) - before != rounds * calls:
                raise SystemExit(f"{model}: a forest's calls did not all run compiled: {explain(jf)}")
            key = _best(lambda: key_and_leaves((m, forest), jf.dynamic), rounds, calls)
            depths = _depth_counts(forest)
            rows.append([1.0, len(depths), *_tier_counts(depths)])
            times.append(1e6 * (call - key))
            print(f"  {model}: {len(depths)} depths, chunks by tier {rows[-1][2:]}: {times[-1]:.0f} us", flush=True)
    return [float(c) for c in np.linalg.lstsq(np.array(rows), np.array(times), rcond=None)[0]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", default=["treernn-infer-b1", "treernn-infer-b25",
                                                      "treelstm-infer-b1", "treelstm-infer-b25"])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--no-batch", action="store_true", help="janus-batch-tree-recursion off (its modules "
                        "cached in a folder of their own): every recursion runs node by node")
    parser.add_argument("--fit", action="store_true", help="also fit a call's cost per depth and per chunk")
    args = parser.parse_args()
    if args.no_batch:
        BatchTreeRecursion._batch = lambda *_: None  # type: ignore[method-assign]
        folder = cache.directory()
        cache.set_directory(None if folder is None else folder / "no-batch")
    columns = ["python", "janus", "linearize", "key", "compiled", "invoke", "rest"]
    print("CPU time per tree, us (min over rounds, parts alternated in one process)\n")
    print("| model | " + " | ".join(columns) + " | python/janus | nodes | depths | chunks |")
    print("|---" * (len(columns) + 5) + "|")
    for model in args.models:
        t = breakdown(model, args.rounds, args.calls)
        cells = " | ".join(f"{1e6 * t[c]:.0f}" for c in columns)
        print(f"| {model} | {cells} | {t['python'] / t['janus']:.2f}x | {t['nodes']:.0f} | {t['depths']:.0f} | {t['chunks']:.0f} |",
              flush=True)
    if args.fit:
        print("\ncompiled call (jit call less entry key), least-squares fit over 12 forests, us per call:\n")
        tiers = [f"per {size}-row chunk" for size in TIERS]
        print(f"| model | fixed | per depth | {' | '.join(tiers)} |\n" + "|---" * (3 + len(tiers)) + "|")
        for model in args.models:
            cells = " | ".join(f"{c:.1f}" for c in level_costs(model, args.rounds, args.calls))
            print(f"| {model} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
