"""One benchmark, twice in this process: as plain Python, then under fresh ``janus.jit``
functions; each step timed, what the steps returned and the final state kept for comparison.

Steps before ``Workload.warmup`` are timed apart (profiling and compilation happen there),
and so is any later step during which a jit function compiled (a relaxed signature, a
regenerated version: seconds of iree-compile are not a step of the model). The other
steps are the steady state; as this machine is shared and steps can take
well under a millisecond, more steps follow (results not compared) until ``min_seconds`` of
steady state were timed, and throughput comes from the median step time.
"""

from __future__ import annotations

import copy
import statistics
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import janus
from janus.benchmark.swap import fresh_jit, plain_python
from janus.frontend.jit import JitFunction
from janus.frontend.speculation import Speculation
from janus.models.workload import ModelSpec, Size


@dataclass
class Run:
    """What one run did: step results, final state, times, and (compiled run) jit counters."""

    outputs: list[Any] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    #: time of the warm-up steps and of any later step during which a jit function compiled
    warmup_seconds: float = 0.0
    #: times of the steady-state steps, extra timing steps included
    steady_times: list[float] = field(default_factory=list)
    items_per_step: int = 1
    unit: str = ""
    flops_per_step: float = 0.0
    error: str | None = None
    jit: dict[str, JitFunction] = field(default_factory=dict)

    @property
    def step_seconds(self) -> float | None:
        """Median steady-state step time."""
        return statistics.median(self.steady_times) if self.steady_times else None

    @property
    def items_per_second(self) -> float | None:
        return self.items_per_step / self.step_seconds if self.step_seconds else None

    def jit_summary(self) -> dict[str, Any]:
        """Counters of the jit functions this run used, and why any call ran imperatively."""
        fns = self.jit.values()
        return {
            "compile_seconds": sum(f.compile_seconds for f in fns),
            "compiles": sum(f.compiles for f in fns),
            "versions": sum(len(f.versions) for f in fns),
            "compiled_calls": sum(v.calls for f in fns for v in f.versions.values()),
            "profiled_runs": sum(f.profile.runs for f in fns),
            "guard_failures": sum(sum(f.failures.values()) for f in fns),
            "fallbacks": [{"function": name, "reason": reason}
                          for name, f in self.jit.items() for reason in dict.fromkeys(f.fallbacks.values())],
            # co-execution: Python operations between compiled segments, and the time they took
            "splits": [{"function": name, "operation": v.graph.boundary.description, "at": v.graph.boundary.source,
                        "runs": v.graph.boundary.runs, "python_seconds": v.graph.boundary.python_seconds}
                       for name, f in self.jit.items() for v in f.split_versions()],
            "explain": {name: janus.explain(f)[:4000] for name, f in self.jit.items()},
        }


def run(spec: ModelSpec, size: Size, compiled: bool, on_step: Callable[[int, int], None] = lambda i, n: None,
        min_seconds: float = 0.5, max_extra_steps: int = 200, switches: Speculation | None = None) -> Run:
    """Build ``spec`` afresh and run its steps, plain (``compiled`` False) or jitted
    (with ``switches``, when given, instead of each function's own)."""
    result = Run()
    with (fresh_jit(spec.modules, switches) if compiled else plain_python(spec.modules)) as jit:
        if compiled:
            result.jit = jit
        try:
            workload = spec.build(size)
            result.items_per_step, result.unit = workload.items_per_step, workload.unit

            def compiles() -> int:
                return sum(f.compiles for f in result.jit.values())

            i = 0
            while i < workload.steps or (
                    sum(result.steady_times) < min_seconds and i < workload.steps + max_extra_steps):
                on_step(i, workload.steps)
                compiled_before = compiles()
                start = time.perf_counter()
                output = workload.step(i)
                elapsed = time.perf_counter() - start
                if i < workload.steps:
                    result.outputs.append(copy.deepcopy(output))
                if i < workload.warmup or compiles() != compiled_before:
                    result.warmup_seconds += elapsed
                else:
                    result.steady_times.append(elapsed)
                i += 1
                if i == workload.steps:
                    result.state = copy.deepcopy(workload.state())
            flops = workload.flops_per_step
            result.flops_per_step = float(flops() if callable(flops) else flops)
        except Exception as e:  # reported as a disagreement, never hidden
            result.error = f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-3)}"
    return result
