"""``janus-verify``: check every janus op against its definition in the registry."""

from __future__ import annotations

from janus.dialects import verify_module
from janus.ir import ir
from janus.passes.registry import PassError, register_pass


@register_pass("janus-verify", "Verify janus ops: operands, results, attributes, callees.")
def janus_verify(module_op: ir.Operation) -> None:
    problems = verify_module(module_op)
    if problems:
        raise PassError([(p.location, p.text()) for p in problems])
