"""The one place the frontend compiles and calls a generated module (through ``janus.runtime``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from janus.runtime import CompiledModule, GuardFailure
from janus.runtime.targets import get_target

AUTODIFF_PIPELINE = f"builtin.module(janus-autodiff,{get_target('cpu').pipeline})"

__all__ = ["GuardFailure", "compile_function"]


def compile_function(
    module_text: str, func_name: str, needs_autodiff: bool = False
) -> Callable[[Sequence[np.ndarray], Sequence[Any]], list[Any]]:
    """Compile ``module_text`` with the ``janus-to-iree`` pipeline for the CPU (after
    ``janus-autodiff`` when ``needs_autodiff``: a function asks for its gradient); the result calls
    ``func_name`` with a sequence of arrays and the heap object table (whose writes the
    runtime commits after success) and returns its results as a list, raising
    ``GuardFailure`` for a failed guard."""
    pipeline = AUTODIFF_PIPELINE if needs_autodiff else None
    return CompiledModule.from_mlir(module_text, target="cpu", pipeline=pipeline)[func_name].results
