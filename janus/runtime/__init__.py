"""IREE compilation, module loading and calls, guard failures, heap commit.

``compile_module`` turns a janus module into an ``Artifact`` (.vmfb + manifest) for a
target preset; ``CompiledModule`` loads one and calls its functions with NumPy arrays
and Python scalars, raising ``GuardFailure`` when a speculative assumption fails.
"""

from janus.runtime.artifact import Artifact, FunctionInfo
from janus.runtime.compiler import DEFAULT_PIPELINE, compile_module, lower
from janus.runtime.errors import CompileError, GuardFailure
from janus.runtime.module import CompiledFunction, CompiledModule
from janus.runtime.targets import TARGETS, Target, get_target

__all__ = [
    "DEFAULT_PIPELINE",
    "TARGETS",
    "Artifact",
    "CompileError",
    "CompiledFunction",
    "CompiledModule",
    "FunctionInfo",
    "GuardFailure",
    "Target",
    "compile_module",
    "get_target",
    "lower",
]
