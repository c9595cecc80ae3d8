"""The one place the frontend compiles and calls a generated module.

``compile_function`` is the seam to the runtime: when ``janus.runtime`` lands, its body
becomes ``CompiledModule.from_mlir(module_text, target="cpu")`` and ``GuardFailure`` is
imported from there; nothing else in the frontend changes.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from janus.dialects import parse_guard_message
from janus.ir import parse_module

PIPELINE = "builtin.module(janus-verify,janus-lower-guards,canonicalize,cse)"
IREE_FLAGS = ["--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false"]


class GuardFailure(Exception):
    """A speculative assumption failed during a compiled call (nothing was committed)."""

    def __init__(self, guard_id: int, kind: str, source: str) -> None:
        super().__init__(f"guard {guard_id} ({kind}) failed at {source}")
        self.guard_id, self.kind, self.source = guard_id, kind, source


def compile_function(module_text: str, func_name: str) -> Callable[..., list[np.ndarray]]:
    """Compile ``module_text`` for the CPU; the result calls ``func_name`` on arrays and
    returns its results as a list of arrays, raising ``GuardFailure`` for a failed guard."""
    import iree.compiler as compiler
    import iree.runtime as runtime

    import janus.passes  # noqa: F401  (registers the passes)
    from janus.passes.registry import run_pipeline

    module = parse_module(module_text)
    run_pipeline(module, PIPELINE)
    vmfb = compiler.compile_str(str(module), target_backends=["llvm-cpu"], extra_args=IREE_FLAGS)
    function = runtime.load_vm_flatbuffer(vmfb, driver="local-sync")[func_name]

    def call(*arrays: np.ndarray) -> list[np.ndarray]:
        try:
            results = function(*arrays)
        except RuntimeError as e:
            guard = parse_guard_message(str(e))
            if guard is None:
                raise
            raise GuardFailure(*guard) from None
        if results is None:
            return []
        results = results if isinstance(results, tuple) else (results,)
        return [r.to_host() for r in results]

    return call
