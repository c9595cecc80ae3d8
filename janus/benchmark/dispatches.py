"""Per-dispatch profile of a zoo model's compiled steps, measured by IREE's own HAL profiler.

A model runs under ``janus.jit`` until its steady state; the last call of each compiled
function is captured (its .vmfb and every input, heap inputs included). Each captured call
is then replayed by ``iree-benchmark-module`` with HAL profiling on
(``--device_profiling_mode=host-execution``: the local drivers time every dispatch they
run), and ``iree-profile dispatch --format=jsonl`` aggregates the times per dispatch
function. A dispatch inside an ``scf.for`` runs once per iteration: its count is per call.

FLOPs come from IREE's dispatch names, which spell out a contraction's loop bounds
(``..._matmul_like_32x1024x384_f32``: 2 * 32 * 1024 * 384 per run); dispatches without
such a name (elementwise, reductions, copies) show no FLOPs.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from janus.benchmark.swap import fresh_jit
from janus.models import MODELS
from janus.runtime.module import CompiledFunction
from janus.runtime.values import INDEX_ARRAY

#: the folder of this interpreter's console scripts (iree-benchmark-module, iree-profile)
TOOLS = Path(sys.executable).parent
#: contraction kinds in IREE dispatch names whose trailing ``AxBxC`` are all loop bounds
_CONTRACTION = re.compile(r"_((?:batch_)?matmul(?:_transpose_[ab])?|matmul_like|batch_matmul_like|contract|"
                          r"conv_2d\w*?|mmt4d|batch_mmt4d)_((?:\d+x)+\d+)_")


@dataclass
class Captured:
    """One call of a compiled function, replayable outside the process."""

    function: str
    vmfb: bytes
    #: the arguments, then zeros for the storage of results IREE writes in place (``result_storage``)
    inputs: list[Any]
    #: the function's input types (``janus.runtime.values``), one per input
    input_types: tuple[Any, ...] = ()


class NotReplayable(Exception):
    """A captured call iree-benchmark-module cannot be given (the reason is the message)."""


@dataclass
class DispatchRow:
    name: str
    #: runs per call
    count: int
    #: total seconds per call over its runs
    seconds: float
    #: FLOPs per call over its runs (None: not a contraction IREE names)
    flops: float | None
    #: workgroups per run (the tiles a driver's workers share: local-task runs them on every core)
    workgroups: int = 0
    #: seconds per call the workgroups ran, summed over the threads that ran them
    busy_seconds: float = 0.0

    def gflops(self) -> float | None:
        return self.flops / self.seconds / 1e9 if self.flops and self.seconds else None

    def cores(self) -> float | None:
        """Threads busy on average while the dispatch ran (1 on local-sync; up to the
        worker count on local-task when its workgroups run in parallel)."""
        return self.busy_seconds / self.seconds if self.busy_seconds and self.seconds else None


def dispatch_flops(name: str) -> float | None:
    """FLOPs of one run of the dispatch ``name`` (multiply-adds count 2), from its loop bounds."""
    match = _CONTRACTION.search(name + "_")
    if match is None:
        return None
    return 2.0 * float(np.prod([int(d) for d in match.group(2).split("x")]))


@contextmanager
def capturing() -> Iterator[dict[str, Captured]]:
    """Record the latest call of every compiled function while the block runs (by name)."""
    calls: dict[str, Captured] = {}
    original = CompiledFunction._run

    def run(self: CompiledFunction, runner: Any, args: Sequence[Any]) -> list[Any]:
        info = self._module.artifact.functions[self.name]
        storage = [np.zeros(info.results[i].shape, info.results[i].dtype) for i in info.storage]
        calls[self.name] = Captured(self.name, self._module.artifact.vmfb, [*map(_copy, args), *storage],
                                    tuple(info.inputs))
        return original(self, runner, args)

    CompiledFunction._run = run
    try:
        yield calls
    finally:
        CompiledFunction._run = original


def _copy(value: Any) -> Any:
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value


def capture(model: str, size: str = "full") -> list[Captured]:
    """Run ``model`` compiled through its steady state; its functions' last calls."""
    spec = MODELS[model]
    with fresh_jit(spec.modules), capturing() as calls:
        workload = spec.build(size)  # type: ignore[arg-type]
        for i in range(workload.steps):
            workload.step(i)
    return list(calls.values())


def profile(call: Captured, driver: str = "local-sync", repetitions: int = 5) -> list[DispatchRow]:
    """Replay ``call`` ``repetitions`` times under IREE's HAL profiler; rows per dispatch,
    slowest first. ``NotReplayable`` when an input has no ``--input`` form: tree index
    arrays go to the module as ``!util.buffer`` (``janus-host-index-arrays``), which the
    tools cannot make. Nor can the process that made the call profile it: in IREE 3.13
    the Python bindings refuse ``HalDevice.begin_profiling`` ("requires a profile sink
    and is not exposed by the runtime bindings"), and their flags know no
    ``--device_replay_output`` (the HAL replay iree-benchmark-replay could time)."""
    if INDEX_ARRAY in call.input_types:
        raise NotReplayable(f"@{call.function} takes tree index arrays as !util.buffer, which "
                            "iree-benchmark-module cannot pass")
    with tempfile.TemporaryDirectory(prefix="janus-dispatch-") as folder:
        work = Path(folder)
        (work / "module.vmfb").write_bytes(call.vmfb)
        flags = [f"--module={work / 'module.vmfb'}", f"--function={call.function}", f"--device={driver}",
                 f"--benchmark_min_time={repetitions}x", "--device_profiling_mode=host-execution",
                 f"--device_profiling_output={work / 'run.ireeprof'}"]
        flags += [_input_flag(work, i, value) for i, value in enumerate(call.inputs)]
        subprocess.run([str(TOOLS / "iree-benchmark-module"), *flags], check=True, capture_output=True, text=True)
        report = subprocess.run([str(TOOLS / "iree-profile"), "dispatch", "--format=jsonl", str(work / "run.ireeprof")],
                                check=True, capture_output=True, text=True).stdout
    rows = []
    for line in report.splitlines():
        record = json.loads(line)
        if record.get("type") != "host_dispatch_group":
            continue
        name = record["key"]
        runs = int(record["count"]) / repetitions
        flops = dispatch_flops(name)
        rows.append(DispatchRow(name, round(runs), float(record["total_ns"]) / 1e9 / repetitions,
                                flops * runs if flops else None, int(np.prod(record.get("last_workgroup_count", [0]))),
                                float(record.get("total_tile_duration_sum_ns", 0)) / 1e9 / repetitions))
    return sorted(rows, key=lambda r: -r.seconds)


def _input_flag(folder: Path, index: int, value: Any) -> str:
    """``--input`` for one argument: arrays as .npy files, scalars as text."""
    if isinstance(value, np.ndarray):
        path = folder / f"input{index}.npy"
        np.save(path, value)
        return f"--input=@{path}"
    if isinstance(value, (bool, np.bool_)):
        return f"--input={int(value)}"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return f"--input={value}"
    raise TypeError(f"input {index} ({type(value).__name__}) cannot be replayed by iree-benchmark-module")


def table(model: str, function: str, rows: list[DispatchRow], peak: float, top: int | None = None) -> str:
    """Markdown: the call's total, then one row per dispatch (the ``top`` slowest, then the rest summed)."""
    total = sum(r.seconds for r in rows)
    flops = sum(r.flops or 0.0 for r in rows)
    lines = [f"### {model}: @{function} ({1e3 * total:.2f} ms of dispatches per call, "
             f"{flops / total / 1e9 if total else 0:.1f} GFLOP/s, {100 * flops / total / 1e9 / peak if total else 0:.1f}% of peak)",
             "", "| dispatch | runs | workgroups | cores busy | ms / call | % time | MFLOP / call | GFLOP/s | % peak |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    rest = rows[top:] if top is not None else []
    shown = rows if len(rest) <= 1 else [
        *rows[:top], DispatchRow(f"({len(rest)} more)", sum(r.count for r in rest), sum(r.seconds for r in rest),
                                 sum(r.flops or 0.0 for r in rest) or None, 0, sum(r.busy_seconds for r in rest))]
    for r in shown:
        rate, cores = r.gflops(), r.cores()
        lines.append(f"| `{r.name}` | {r.count} | {r.workgroups or ''} | {'' if cores is None else f'{cores:.2f}'} | "
                     f"{1e3 * r.seconds:.3f} | {100 * r.seconds / total:.1f} | "
                     f"{'' if r.flops is None else f'{r.flops / 1e6:.1f}'} | {'' if rate is None else f'{rate:.1f}'} | "
                     f"{'' if rate is None else f'{100 * rate / peak:.1f}'} |")
    return "\n".join(lines)
