"""What a benchmark of the model zoo is: a model instance, its steps and how to measure them.

A ``ModelSpec`` builds a fresh ``Workload`` (same seed every time, so two builds start
from identical parameters and data). ``janus-bench`` builds one for the plain Python run
and one for the ``janus.jit`` run and compares what their steps returned and the final
state. ``modules`` names the modules where the model's ``janus.jit`` functions live: the bench swaps
them there (for their Python functions, or for fresh jit functions it can count).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

Size = Literal["full", "quick"]


@dataclass
class Workload:
    """One built model: ``step(i)`` runs step ``i`` (any i >= 0: the data cycles) and returns
    what it computed (a loss, logits, a return value); ``state()`` is everything the run
    changed (parameters). The bench compares the first ``steps`` steps."""

    step: Callable[[int], Any]
    state: Callable[[], dict[str, Any]]
    steps: int
    #: leading steps not timed: profiling and compilation happen there
    warmup: int
    unit: str
    items_per_step: int
    #: floating-point operations of one step (multiply-adds count 2), estimated analytically;
    #: a callable is asked after the run (for steps whose size the run decides)
    flops_per_step: float | Callable[[], float]


@dataclass(frozen=True)
class ModelSpec:
    name: str
    description: str
    #: "overhead" (small ops, Python-bound) or "compute" (large dense ops)
    bound: Literal["overhead", "compute"]
    build: Callable[[Size], Workload]
    #: names of the modules whose ``janus.jit`` functions (module-level or in classes) it runs
    modules: tuple[str, ...]
