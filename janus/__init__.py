"""Janus: imperative Python/NumPy deep-learning programs compiled as speculative MLIR graphs.

Layers (one package each): ``janus.dialects`` (the janus MLIR dialect), ``janus.passes``
(named passes and pipelines), ``janus.runtime`` (IREE compile, load, call, heap commit),
``janus.frontend`` (bytecode profiler and graph generator), ``janus.tools`` (console
scripts).
"""

__version__ = "0.1.0"

from janus.frontend import explain, grad, jit, value_and_grad  # noqa: E402  (the public entry points)
from janus.aot import export  # noqa: E402
from janus import nn  # noqa: E402

__all__ = ["__version__", "explain", "export", "grad", "jit", "nn", "value_and_grad"]
