"""``janus-lower-guards``: each ``janus.guard`` becomes a ``cf.assert``.

IREE turns a failing ``cf.assert`` into a FAILED_PRECONDITION error raised by the call
and the loaded module stays usable, so this is the cheapest recoverable guard. The
assert message carries the guard's id, kind and source so the runtime can name it.
"""

from __future__ import annotations

from iree.compiler import rewrite
from iree.compiler.dialects import cf

from janus.dialects import GuardOp, guard_message
from janus.ir import ir
from janus.passes.patterns import apply_patterns
from janus.passes.registry import ModulePass, register_pass


def guard_to_assert(op: ir.Operation, rewriter: rewrite.PatternRewriter) -> bool:
    guard = GuardOp(op)
    cf.AssertOp(guard.condition, guard_message(guard), loc=op.location, ip=ir.InsertionPoint(op))
    rewriter.erase_op(op)
    return True


@register_pass
class LowerGuards(ModulePass):
    name = "janus-lower-guards"
    summary = "Lower janus.guard to cf.assert carrying the guard id, kind and source."

    def apply(self, module_op: ir.Operation) -> None:
        apply_patterns(module_op, {GuardOp.OPERATION_NAME: guard_to_assert})
