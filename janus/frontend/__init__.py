"""Bytecode profiler and speculative graph generator behind ``janus.jit``.

``bytecode`` decodes CPython 3.11 instructions, ``profiler`` observes imperative runs,
``op_table`` holds the NumPy ops (eager, shape/dtype rule, lowering), ``graph`` executes
bytecode symbolically into MLIR, ``backend`` compiles it, and ``jit`` ties them together;
``grad`` (with the eager ``tape`` and the NumPy VJP rules of ``vjp_numpy``) differentiates.
"""

from janus.frontend.grad import GradFunction, grad, value_and_grad
from janus.frontend.jit import JitFunction, explain, jit
from janus.frontend.values import NotConvertible

__all__ = ["GradFunction", "JitFunction", "NotConvertible", "explain", "grad", "jit", "value_and_grad"]
