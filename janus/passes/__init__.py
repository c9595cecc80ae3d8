"""Janus passes: one module per pass, a registry by name, and named pipelines.

Importing this package registers every pass.
"""

from janus.passes import callgraph, eliminate_recursion, lower_guards, pipelines, verify  # noqa: F401  (registration)
from janus.passes.registry import (
    PASSES,
    PIPELINES,
    Pass,
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
    "Pass",
    "PassError",
    "Pipeline",
    "build_pass_manager",
    "register_pass",
    "register_pipeline",
    "run_pipeline",
]
