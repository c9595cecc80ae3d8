"""Janus passes: one module per pass, a registry by name, and named pipelines.

Importing this package registers every pass.
"""

from janus.passes import (  # noqa: F401  (importing registers the passes)
    autodiff,
    callgraph,
    eliminate_recursion,
    externalize_heap,
    host_index_arrays,
    inline_invokes,
    lower_guards,
    pipelines,
    recursion_to_dispatch,
    verify,
)
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
