"""Bytecode profiler and speculative graph generator behind ``janus.jit``.

By concern (docs/architecture.md): ``trace/`` executes bytecode symbolically (one
handler per opcode), ``ops/`` is the NumPy op library (one record per op), ``heap/``
reads and writes Python heap state, ``recursion/`` turns recursive calls into
``janus.invoke``; at the top, ``profiler`` observes imperative runs, ``signature`` keys
entries and ``guards`` checks them, ``generate`` assembles the module, ``backend`` compiles it,
``jit`` ties them together (``decorate`` takes the options, ``static`` handles static arguments, ``segments``
runs a version split around what Python must run), ``grad`` (with the eager
``tape``) differentiates, and ``logs`` holds what users are told (warnings, loggers, the
global switch).
"""

from janus.frontend.grad import GradFunction, grad, value_and_grad
from janus.frontend.decorate import jit
from janus.frontend.jit import JitFunction, Lowered, explain
from janus.frontend.logs import (ConversionError, FallbackWarning, JanusWarning, SplitWarning, disable, disabled,
                                 enable, set_logs)
from janus.frontend.values import NotConvertible

__all__ = ["ConversionError", "FallbackWarning", "GradFunction", "JanusWarning", "JitFunction", "Lowered", "SplitWarning",
           "NotConvertible", "disable", "disabled", "enable", "explain", "grad", "jit", "set_logs", "value_and_grad"]
