"""Before/after table for issue 17's GEMM settings, both in one process, rounds alternated.

"after" is the tree as it is; "before" (``--before``) one of the baselines in ``BASELINES``:
``gemm-settings``, the CPU preset without any of them (no ``janus-merge-matmul-sums`` nor
``janus-merge-shared-operand-matmuls`` in the pipeline, no data tiling); ``matmul-merging``,
the tree with only those (no ``janus-convolutions-from-windows``, sums of matmuls merge
only ``linalg.matmul`` products, not the outer products of K = 1, and matmuls sharing an
operand meet only at their first member, never at their last); ``plain-sum-merging``, the
tree less the merging of a sum of products with no base (``A @ B + C @ D``) and with
one transpose per transposed left operand of a merged sum; ``no-aggressive-fusion``, the
tree with data-tiled modules compiled without IREE's aggressive fusion; ``no-merged-sums``, the
tree less the merging of running sums along one dimension (``db += dz.sum(axis=0)``). Each round runs every model as plain Python,
then compiled before, then compiled after (``janus.benchmark.measure.run``, fresh jit
functions each time; the persistent compile cache makes later rounds compile nothing).
A compiled run that raised or disagrees with the plain one (janus-bench's tolerances) is
reported as WRONG instead of timed. Reported per model and variant: the lowest median step time over the rounds (min-of-N,
wall clock) and the CPU seconds per step (process time over the steady steps, lowest over
the rounds: the one number a loaded machine does not inflate much for local-sync runs),
and the speed-up over plain Python of the same round.

    JANUS_CACHE_DIR=/tmp/jc python benchmarks/gemm_ab.py --models lstm-lm,gan,lenet5 --rounds 3 --before matmul-merging

``--which-differ`` runs each model once per variant, untimed, and says whether the
modules it compiles differ at all (a model whose lowered text is identical runs the same
code either way).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import time
from contextlib import contextmanager
from typing import Iterator

from janus.benchmark import measure
from janus.benchmark.compare import differences
from janus.models import MODELS
from janus.passes import matmuls, merge_matmul_sums, merge_shared_operand_matmuls
from janus.passes.registry import PIPELINES
from janus.runtime import compiler, targets

MERGE_PASSES = ("janus-merge-matmul-sums", "janus-merge-shared-operand-matmuls", "janus-convolutions-from-windows")
PIPELINE = "janus-to-iree-cpu"


@contextmanager
def without_passes(names: tuple[str, ...]) -> Iterator[None]:
    pipeline = PIPELINES[PIPELINE]
    PIPELINES[PIPELINE] = dataclasses.replace(pipeline, elements=tuple(e for e in pipeline.elements if e not in names))
    try:
        yield
    finally:
        PIPELINES[PIPELINE] = pipeline


@contextmanager
def without_gemm_settings() -> Iterator[None]:
    """The CPU preset and its pipeline as they were before issue 17."""
    cpu = targets.TARGETS["cpu"]
    targets.TARGETS["cpu"] = dataclasses.replace(cpu, data_tiling_flags=())
    try:
        with without_passes(MERGE_PASSES):
            yield
    finally:
        targets.TARGETS["cpu"] = cpu


@contextmanager
def matmul_merging_only() -> Iterator[None]:
    """No ``janus-convolutions-from-windows``, only ``linalg.matmul`` products in merged
    sums, and no group of matmuls sharing an operand met at its last member."""
    product, sunk = merge_matmul_sums.matmul_product, merge_shared_operand_matmuls._sunk_group
    merge_matmul_sums.matmul_product = matmuls.plain_matmul
    merge_shared_operand_matmuls._sunk_group = lambda *args: None
    try:
        with without_passes(("janus-convolutions-from-windows",)):
            yield
    finally:
        merge_matmul_sums.matmul_product, merge_shared_operand_matmuls._sunk_group = product, sunk


@contextmanager
def plain_sum_merging() -> Iterator[None]:
    """The tree less two rewrites of merged sums: a sum whose first term is a product (no
    base: ``A @ B + C @ D``) stays as it is, and transposed left operands are
    concatenated one transpose per term (not one transpose of the stacked inputs)."""
    base_product, transposed = merge_matmul_sums._base_product, merge_matmul_sums._transposed
    merge_matmul_sums._base_product = lambda first: None
    merge_matmul_sums._transposed = lambda value: None
    try:
        yield
    finally:
        merge_matmul_sums._base_product, merge_matmul_sums._transposed = base_product, transposed


@contextmanager
def without_aggressive_fusion() -> Iterator[None]:
    """Data-tiled modules without ``--iree-dispatch-creation-enable-aggressive-fusion``."""
    cpu = targets.TARGETS["cpu"]
    flags = tuple(f for f in cpu.data_tiling_flags if f != "--iree-dispatch-creation-enable-aggressive-fusion")
    targets.TARGETS["cpu"] = dataclasses.replace(cpu, data_tiling_flags=flags)
    try:
        yield
    finally:
        targets.TARGETS["cpu"] = cpu


@contextmanager
def without_merged_sums() -> Iterator[None]:
    """The tree less the merging of running sums along one dimension (``db += dz.sum(axis=0)``)
    in ``janus-merge-matmul-sums``: only matmul products merge."""
    summed_dim = merge_matmul_sums.summed_dim
    merge_matmul_sums.summed_dim = lambda op: None
    try:
        yield
    finally:
        merge_matmul_sums.summed_dim = summed_dim


BASELINES = {"gemm-settings": without_gemm_settings, "matmul-merging": matmul_merging_only,
             "plain-sum-merging": plain_sum_merging, "no-aggressive-fusion": without_aggressive_fusion,
             "no-merged-sums": without_merged_sums}


@contextmanager
def after() -> Iterator[None]:
    yield


def timed(model: str, size: str, compiled: bool, min_seconds: float) -> tuple[float, float, measure.Run]:
    """(median step seconds, CPU seconds per steady step, the run) of one run. The steady
    steps are the last ones (compiles happen in the first), so the CPU time from the
    start of the first of them to the end of the run is theirs."""
    started: list[float] = []  # process time at the start of each step
    run = measure.run(MODELS[model], size, compiled, lambda i, n: started.append(time.process_time()),  # type: ignore[arg-type]
                      min_seconds)
    steady = len(run.steady_times)
    cpu = (time.process_time() - started[-steady]) / steady if steady else float("nan")
    return run.step_seconds or float("nan"), cpu, run


@contextmanager
def local_sync_only() -> Iterator[None]:
    """Every call on local-sync (no timed trial of local-task): one thread, CPU time ~ wall time."""
    cpu = targets.TARGETS["cpu"]
    targets.TARGETS["cpu"] = dataclasses.replace(cpu, parallel_driver=None)
    try:
        yield
    finally:
        targets.TARGETS["cpu"] = cpu


@contextmanager
def lowered_digests() -> Iterator[list[str]]:
    """Digests of the modules lowered meanwhile (the text iree-compile gets), in order."""
    digests: list[str] = []
    lower = compiler.lower

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        lowered = lower(*args, **kwargs)
        digests.append(hashlib.sha256(lowered.operation.get_asm().encode()).hexdigest())
        return lowered

    compiler.lower = recording
    try:
        yield digests
    finally:
        compiler.lower = lower


def which_differ(models: list[str], size: str, before: str) -> None:
    """Per model: whether its compiled modules differ at all between the baseline and the
    tree (identical lowered text compiles to the same code: no speed difference but noise)."""
    for model in models:
        lowered = []
        for variant in (BASELINES[before], after):
            with variant(), lowered_digests() as digests:
                measure.run(MODELS[model], size, True, min_seconds=0.0, max_extra_steps=0)  # type: ignore[arg-type]
            lowered.append(digests)
        same = "identical" if lowered[0] == lowered[1] else "DIFFERENT"
        print(f"{model}: {len(lowered[1])} lowered modules, {same}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="lstm-lm,gan,lenet5,rntn-infer-b1")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--before", choices=sorted(BASELINES), default="gemm-settings")
    parser.add_argument("--local-sync", action="store_true",
                        help="both variants on local-sync only (no driver choice): one thread each")
    parser.add_argument("--which-differ", action="store_true",
                        help="only say which models' lowered modules differ (one untimed run each)")
    args = parser.parse_args()
    size = "quick" if args.quick else "full"
    if args.which_differ:
        which_differ(args.models.split(","), size, args.before)
        return
    variants = {"before": BASELINES[args.before], "after": after}
    best: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        for model in args.models.split(","):
            plain, _, reference = timed(model, size, False, args.min_seconds)
            row = [f"round {r} {model}: python {1e3 * plain:.2f} ms"]
            for name, variant in variants.items():
                with variant(), (local_sync_only() if args.local_sync else after()):
                    wall, cpu, run = timed(model, size, True, args.min_seconds)
                wrong = run.error or "; ".join((differences(run.outputs, reference.outputs, "outputs")
                                                + differences(run.state, reference.state, "state"))[:2])
                if wrong:
                    row.append(f"{name} WRONG {wrong.splitlines()[0]}")
                    continue
                old = best.get((model, name), [float("inf"), float("inf"), 0.0])
                best[(model, name)] = [min(old[0], wall), min(old[1], cpu), max(old[2], plain / wall)]
                compile_s = run.jit_summary()["compile_seconds"]
                row.append(f"{name} {1e3 * wall:.2f} ms (cpu {1e3 * cpu:.2f}) {plain / wall:.2f}x, compile {compile_s:.1f} s")
            print(" | ".join(row), flush=True)
    print("\n| model | before ms (min of medians) | after ms | before CPU ms/step | after CPU ms/step | "
          "after/before | best speed-up before | best speed-up after |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    for model in args.models.split(","):
        b, a = best.get((model, "before")), best.get((model, "after"))
        if b and a:
            print(f"| {model} | {1e3 * b[0]:.2f} | {1e3 * a[0]:.2f} | {1e3 * b[1]:.2f} | {1e3 * a[1]:.2f} | "
                  f"{b[0] / a[0]:.2f}x | {b[2]:.2f}x | {a[2]:.2f}x |")


if __name__ == "__main__":
    main()
