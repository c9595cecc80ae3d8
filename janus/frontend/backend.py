"""The one place the frontend compiles and calls a generated module (through ``janus.runtime``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from janus.runtime import CompiledModule, GuardFailure, lower
from janus.runtime.targets import get_target

if TYPE_CHECKING:
    from janus.frontend.generate import Graph

__all__ = ["GuardFailure", "compile_function", "lower_graph"]


def compile_function(graph: "Graph") -> Callable[[Sequence[np.ndarray], Sequence[Any]], list[Any]]:
    """Compile ``graph`` for the CPU (its text parsed once, its ``pre_passes`` first); the
    result calls its function with a sequence of arrays and the heap object table (whose
    writes the runtime commits after success) and returns its results as a list, raising
    ``GuardFailure`` for a failed guard."""
    pipeline = graph.pipeline(get_target("cpu").pipeline)
    return CompiledModule.from_mlir(graph.text, target="cpu", pipeline=pipeline)[graph.func_name].results


def lower_graph(graph: "Graph") -> tuple[str, str]:
    """The pipeline ``compile_function`` runs before IREE, and ``graph``'s module after it (text)."""
    pipeline = graph.pipeline(get_target("cpu").pipeline)
    return pipeline, str(lower(graph.text, pipeline))
