"""The one place the frontend compiles and calls a generated module (through ``janus.runtime``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from janus.runtime import CompiledModule, GuardFailure

__all__ = ["GuardFailure", "compile_function"]


def compile_function(module_text: str, func_name: str) -> Callable[..., list[np.ndarray]]:
    """Compile ``module_text`` with the ``janus-to-iree`` pipeline for the CPU; the result
    calls ``func_name`` (``objects``: the heap object table, whose writes the runtime
    commits after success) and returns its results as a list, raising ``GuardFailure``
    for a failed guard."""
    function = CompiledModule.from_mlir(module_text, target="cpu")[func_name]

    def call(*arrays: np.ndarray, objects: Sequence[Any] = ()) -> list[np.ndarray]:
        results = function(*arrays, objects=objects)
        if results is None:
            return []
        return list(results) if isinstance(results, tuple) else [results]

    return call
