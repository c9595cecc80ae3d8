"""Module-level verification of janus ops (MLIR cannot verify unregistered ops)."""

from __future__ import annotations

from dataclasses import dataclass

from janus.dialects.janus_ops import GuardOp
from janus.dialects.opdef import REGISTRY, SymbolLookup
from janus.ir import describe_location, ir


@dataclass
class Problem:
    """One verifier finding, located at the op it concerns."""

    location: ir.Location
    op_name: str
    message: str

    def text(self) -> str:
        return f"'{self.op_name}' op {self.message}"


def verify_module(module_op: ir.Operation) -> list[Problem]:
    """All problems with the janus ops in ``module_op``, in program order."""
    module_op = getattr(module_op, "operation", module_op)
    symbols = SymbolLookup(module_op)
    problems: list[Problem] = []
    #: id -> where it was first used, and the assumption (kind, source) it names
    guard_ids: dict[int, tuple[ir.Location, tuple[str, str]]] = {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        name = op.name
        if not name.startswith("janus."):
            return ir.WalkResult.ADVANCE
        cls = REGISTRY.get(name)
        if cls is None:
            problems.append(Problem(op.location, name, "is not a janus op (unknown to the registry)"))
            return ir.WalkResult.ADVANCE
        view = cls(op)
        messages = view.verify_local()
        if not messages:
            messages = view.verify_in_module(symbols)
        if not messages and cls is GuardOp:
            first = guard_ids.setdefault(view.id, (op.location, (view.kind, view.source)))
            if first[1] != (view.kind, view.source):
                messages = [f"guard id {view.id} is already used at {describe_location(first[0])}"]
        problems.extend(Problem(op.location, name, m) for m in messages)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    return problems
