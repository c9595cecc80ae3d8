"""``janus-verify``: check every janus op against its definition in the registry."""

from __future__ import annotations

from janus.dialects import verify_module
from janus.ir import ir
from janus.passes.registry import ModulePass, PassError, register_pass


@register_pass
class JanusVerify(ModulePass):
    name = "janus-verify"
    summary = "Verify janus ops: operands, results, attributes, callees."

    def apply(self, module_op: ir.Operation) -> None:
        problems = verify_module(module_op)
        if problems:
            raise PassError([(p.location, p.text()) for p in problems])
