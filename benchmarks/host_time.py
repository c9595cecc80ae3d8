"""Where a compiled step's time goes outside its dispatches: the step in the process and
the IREE invoke inside it.

Each model runs under ``janus.jit`` (full size unless ``--quick``); after the warm-up every
step is timed (wall clock), and so is every ``invoke`` of the IREE VM the runtime makes
(wrapped where the runtime's ``Runner`` takes it, so the generated fast path calls the
wrapper too). Per step, medians of the steady steps:

- step: the whole ``model.train_step(...)`` call (janus.jit's dispatch, entry guards,
  staging of arguments, the invoke, results pulled, heap writes committed);
- invoke: the VM call alone (dispatches plus IREE's own host work for them);
- host = step - invoke: Python around the call (janus's per-call work).

    JANUS_CACHE_DIR=/tmp/jc python benchmarks/host_time.py gan lstm-lm --steps 200
"""

from __future__ import annotations

import argparse
import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

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


def run_model(model: str, size: str, steps: int) -> Timings:
    """Time ``steps`` steady steps of ``model`` compiled."""
    spec = MODELS[model]
    timings = Timings()
    with fresh_jit(spec.modules), timed_invokes(timings):
        workload = spec.build(size)  # type: ignore[arg-type]
        for i in range(workload.steps + steps):
            if i == workload.steps:  # past warm-up and the driver trial
                timings.invokes.clear()
                timings.drivers.clear()
            start = time.perf_counter()
            workload.step(i)
            if i >= workload.steps:
                timings.steps.append(time.perf_counter() - start)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help="zoo model names (janus-bench --list)")
    parser.add_argument("--quick", action="store_true", help="the models' quick sizes")
    parser.add_argument("--steps", type=int, default=100, help="steady steps timed after the warm-up")
    args = parser.parse_args()
    print("| model | driver | steps | step ms (median / min) | invoke ms (median / min) | host ms (median) "
          "| host % |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for model in args.models:
        timings = run_model(model, "quick" if args.quick else "full", args.steps)
        driver = "/".join(sorted(timings.drivers)) or "none"
        step, invoke = statistics.median(timings.steps), statistics.median(timings.invokes or [0.0])
        per_step = len(timings.invokes) / len(timings.steps)
        print(f"| {model} | {driver} | {len(timings.steps)} ({per_step:.0f} invoke/step) | "
              f"{1e3 * step:.3f} / {1e3 * min(timings.steps):.3f} | "
              f"{1e3 * invoke:.3f} / {1e3 * min(timings.invokes or [0.0]):.3f} | "
              f"{1e3 * (step - per_step * invoke):.3f} | {100 * (1 - per_step * invoke / step):.1f} |")


if __name__ == "__main__":
    main()
