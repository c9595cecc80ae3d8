"""Bytecode profiler and speculative graph generator behind ``janus.jit``.

By concern (docs/architecture.md): ``trace/`` executes bytecode symbolically (one
handler per opcode), ``ops/`` is the NumPy op library (one record per op), ``heap/``
reads and writes Python heap state, ``recursion/`` turns recursive calls into
``janus.invoke``; at the top, ``profiler`` observes imperative runs, ``signature`` keys
entries and ``guards`` checks them, ``generate`` assembles the module, ``backend`` compiles it,
``jit`` ties them together and ``grad`` (with the eager ``tape``) differentiates.
"""

from janus.frontend.grad import GradFunction, grad, value_and_grad
from janus.frontend.jit import JitFunction, explain, jit
from janus.frontend.values import NotConvertible

__all__ = ["GradFunction", "JitFunction", "NotConvertible", "explain", "grad", "jit", "value_and_grad"]
