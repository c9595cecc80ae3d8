"""Janus: imperative Python/NumPy deep-learning programs compiled as speculative MLIR graphs.

Layers (one package each): ``janus.dialects`` (the janus MLIR dialect), ``janus.passes``
(named passes and pipelines), ``janus.runtime`` (IREE compile, load, call, heap commit),
``janus.frontend`` (bytecode profiler and graph generator), ``janus.tools`` (console
scripts).
"""

__version__ = "0.1.0"

from janus.frontend import (  # noqa: E402  (the public entry points)
    ConversionError, FallbackWarning, JanusWarning, SplitWarning, disable, disabled, enable, explain, grad, jit,
    set_logs, value_and_grad)
from janus.aot import export  # noqa: E402
from janus import nn  # noqa: E402

__all__ = ["ConversionError", "FallbackWarning", "JanusWarning", "SplitWarning", "__version__", "disable", "disabled", "enable",
           "explain", "export", "grad", "jit", "nn", "set_logs", "value_and_grad"]
