"""Where a compiled step's time goes outside its dispatches: the step in the process, the
IREE invoke inside it, and the same call replayed alone by ``iree-benchmark-module``.

Each model runs under ``janus.jit`` (full size unless ``--quick``); after the warm-up every
step is timed (wall clock), and so is every ``invoke`` of the IREE VM the runtime makes
(wrapped where the runtime's ``Runner`` takes it, so the generated fast path calls the
wrapper too). The last call of each compiled function is then replayed on the driver the
process ended on, without a profiler. Per step, medians of the steady steps:

- step: the whole ``model.train_step(...)`` call (janus.jit's dispatch, entry guards,
  staging of arguments, the invoke, results pulled, heap writes committed);
- invoke: the VM call alone (dispatches plus IREE's own host work for them);
- replay: the same call from ``iree-benchmark-module`` (its median real time);
- host = step - invoke: Python around the call (janus's per-call work).

    JANUS_CACHE_DIR=/tmp/jc python benchmarks/host_time.py gan lstm-lm --steps 200
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

from janus.benchmark import dispatches
from janus.benchmark.swap import fresh_jit
from janus.models import MODELS
from janus.runtime import module as runtime_module


@dataclass
class Timings:
    steps: list[float] = field(default_factory=list)
    invokes: list[float] = field(default_factory=list)
    drivers: set[str] = field(default_factory=set)


@contextmanager
def timed_invokes(timings: Timings) -> Iterator[None]:
    """Every ``Runner`` made while the block runs times its ``invoke`` into ``timings``."""
    original = runtime_module.Runner.of

    def of(cls: type, function: Any, driver: str) -> Any:
        runner = original.__func__(cls, function, driver)
        invoke = runner.invoke

        def timed(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return invoke(*args)
            finally:
                timings.invokes.append(time.perf_counter() - start)
                timings.drivers.add(driver)

        return replace(runner, invoke=timed)

    runtime_module.Runner.of = classmethod(of)  # type: ignore[method-assign, assignment]
    try:
        yield
    finally:
        runtime_module.Runner.of = original  # type: ignore[method-assign]


def run_model(model: str, size: str, steps: int) -> tuple[Timings, list[dispatches.Captured]]:
    """Time ``steps`` steady steps of ``model`` compiled; its last calls for replay."""
    spec = MODELS[model]
    timings = Timings()
    with fresh_jit(spec.modules), timed_invokes(timings), dispatches.capturing() as calls:
        workload = spec.build(size)  # type: ignore[arg-type]
        for i in range(workload.steps + steps):
            if i == workload.steps:  # past warm-up and the driver trial
                timings.invokes.clear()
                timings.drivers.clear()
            start = time.perf_counter()
            workload.step(i)
            if i >= workload.steps:
                timings.steps.append(time.perf_counter() - start)
    return timings, list(calls.values())


def replay_ms(call: dispatches.Captured, driver: str, repetitions: int) -> float:
    """Median real time of ``call`` replayed by iree-benchmark-module on ``driver``, in ms."""
    with tempfile.TemporaryDirectory(prefix="janus-host-") as folder:
        work = Path(folder)
        (work / "module.vmfb").write_bytes(call.vmfb)
        flags = [f"--module={work / 'module.vmfb'}", f"--function={call.function}", f"--device={driver}",
                 f"--benchmark_repetitions={repetitions}", "--benchmark_format=json",
                 *(dispatches._input_flag(work, i, v) for i, v in enumerate(call.inputs))]
        out = subprocess.run([str(dispatches.TOOLS / "iree-benchmark-module"), *flags], check=True,
                             capture_output=True, text=True).stdout
    runs = [b for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration"]
    return statistics.median(b["real_time"] * _TO_MS[b["time_unit"]] for b in runs)


_TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help="zoo model names (janus-bench --list)")
    parser.add_argument("--quick", action="store_true", help="the models' quick sizes")
    parser.add_argument("--steps", type=int, default=100, help="steady steps timed after the warm-up")
    parser.add_argument("--repetitions", type=int, default=20, help="replays of the last call")
    args = parser.parse_args()
    print("| model | driver | steps | step ms (median / min) | invoke ms (median / min) | host ms (median) "
          "| host % | replay ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for model in args.models:
        timings, calls = run_model(model, "quick" if args.quick else "full", args.steps)
        driver = "/".join(sorted(timings.drivers)) or "none"
        step, invoke = statistics.median(timings.steps), statistics.median(timings.invokes or [0.0])
        per_step = len(timings.invokes) / len(timings.steps)
        replay = "; ".join(f"{replay_ms(c, d, args.repetitions):.3f}" for c in calls for d in sorted(timings.drivers))
        print(f"| {model} | {driver} | {len(timings.steps)} ({per_step:.0f} invoke/step) | "
              f"{1e3 * step:.3f} / {1e3 * min(timings.steps):.3f} | "
              f"{1e3 * invoke:.3f} / {1e3 * min(timings.invokes or [0.0]):.3f} | "
              f"{1e3 * (step - per_step * invoke):.3f} | {100 * (1 - per_step * invoke / step):.1f} | {replay} |")


if __name__ == "__main__":
    main()
