"""Janus passes: one module per pass (grouped: ``autodiff/``, ``recursion/``, ``heap/``), a registry
by name, and named pipelines.

Importing this package registers every pass.
"""

from janus.passes import autodiff, callgraph, heap, isolate_reductions, lower_guards, merge_matmul_sums, merge_shared_operand_matmuls, pipelines, recursion, scalar_operands, verify, convolutions_from_windows  # noqa: F401  (registers the passes)
from janus.passes.options import option
from janus.passes.pipeline_text import PipelineError
from janus.passes.registry import (
    PASSES,
    PIPELINES,
    ModulePass,
    PassError,
    Pipeline,
    build_pass_manager,
    register_pass,
    register_pipeline,
    run_pipeline,
)

__all__ = [
    "PASSES",
    "PIPELINES",
    "ModulePass",
    "PassError",
    "Pipeline",
    "PipelineError",
    "build_pass_manager",
    "option",
    "register_pass",
    "register_pipeline",
    "run_pipeline",
]
