"""Which heap location each janus heap op names, and the checks that make that knowable.

A location is an ``AccessPath`` rooted in a ``janus.object`` slot. It is static only when
every ``!janus.obj`` value comes from ``janus.object`` or from a constant-key read of
another object, and objects are never stored: those are the rules checked here, together
with one type per location (so a forwarded or loop-carried value always fits its uses).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from janus.dialects import GetAttrOp, GetItemOp, ObjectOp, SetAttrOp, SetItemOp, wrap
from janus.ir import OBJ_TYPE_ASM, ir
from janus.passes.registry import PassError
from janus.heap import AccessPath, ObjectSlot

READ_OPS = (GetAttrOp.OPERATION_NAME, GetItemOp.OPERATION_NAME)
WRITE_OPS = (SetAttrOp.OPERATION_NAME, SetItemOp.OPERATION_NAME)
HEAP_OPS = (ObjectOp.OPERATION_NAME, *READ_OPS, *WRITE_OPS)
KEYED_OPS = (GetItemOp.OPERATION_NAME, SetItemOp.OPERATION_NAME)


def is_obj(t: ir.Type) -> bool:
    return str(t) == OBJ_TYPE_ASM


def is_object_ref(op: ir.Operation) -> bool:
    """True for ops that only name an object (erased once every access is resolved)."""
    return op.name == ObjectOp.OPERATION_NAME or (op.name in READ_OPS and is_obj(op.results[0].type))


def access_path(op: ir.Operation) -> AccessPath | None:
    """The object or location ``op`` names; None when it is not static (see ``HeapModel``)."""
    if op.name == ObjectOp.OPERATION_NAME:
        return AccessPath(ObjectOp(op).slot)
    view = wrap(op)
    if op.name in KEYED_OPS and view.index is not None:
        return None
    owner = view.object.owner
    if isinstance(owner, ir.Block) or not is_object_ref(owner.operation):
        return None
    base = access_path(owner.operation)
    if base is None:
        return None
    if op.name in KEYED_OPS:
        return base.child("item", op.attributes["key"].value)
    return base.child("attr", view.name)


def value_operand(op: ir.Operation) -> ir.Value:
    """The value a ``janus.set_attr`` / ``janus.set_item`` stores."""
    return wrap(op).value


@dataclass
class HeapModel:
    """Module-wide facts: the object slots and the one type of every location used."""

    objects: dict[int, ObjectSlot] = field(default_factory=dict)
    types: dict[AccessPath, ir.Type] = field(default_factory=dict)

    @classmethod
    def build(cls, module_op: ir.Operation) -> "HeapModel":
        """Check the rules for every op of ``module_op``; ``PassError`` lists all breaches."""
        model, problems = cls(), []

        def visit(op: ir.Operation) -> ir.WalkResult:
            problems.extend((op.location, m) for m in model._check(op))
            return ir.WalkResult.ADVANCE

        module_op.walk(visit)
        if problems:
            raise PassError(problems)
        return model

    def _check(self, op: ir.Operation) -> list[str]:
        if op.name == "func.func":
            return [
                f"argument #{i} of @{op.attributes['sym_name'].value} is a {OBJ_TYPE_ASM}; objects must come "
                "from janus.object (the runtime passes them through the object table)"
                for i, t in enumerate(op.attributes["function_type"].value.inputs)
                if is_obj(t)
            ]
        problems = self._check_object_flow(op)
        if op.name == ObjectOp.OPERATION_NAME:
            problems += self._bind_slot(ObjectOp(op))
        elif op.name in READ_OPS or op.name in WRITE_OPS:
            problems += self._check_access(op)
        return problems

    def _check_object_flow(self, op: ir.Operation) -> list[str]:
        """Objects are made by janus.object / reads and used only by heap ops.

        (A heap op's only other !janus.obj operand can be a stored value: ``_check_access``.)
        """
        problems = []
        if op.name not in HEAP_OPS and any(is_obj(v.type) for v in op.operands):
            problems.append(
                f"'{op.name}' takes a {OBJ_TYPE_ASM} operand; janus-externalize-heap allows objects "
                "only as the object operand of janus heap ops"
            )
        if any(is_obj(r.type) for r in op.results) and not is_object_ref(op):
            problems.append(
                f"'{op.name}' produces a {OBJ_TYPE_ASM}; objects must come from janus.object "
                "or an attribute/item read"
            )
        return problems

    def _bind_slot(self, op: ObjectOp) -> list[str]:
        slot = ObjectSlot(op.slot, op.origin, op.name)
        first = self.objects.setdefault(op.slot, slot)
        if first != slot:
            return [
                f"object slot {op.slot} is bound to {first.origin} '{first.name}' "
                f"and to {slot.origin} '{slot.name}'"
            ]
        return []

    def _check_access(self, op: ir.Operation) -> list[str]:
        if op.name in KEYED_OPS and wrap(op).index is not None:
            return [
                "dynamic subscript keys are not supported by janus-externalize-heap; a heap location "
                "needs a constant 'key' attribute (specialize the key or run this code in Python)"
            ]
        path = access_path(op)
        if path is None:
            return []  # the object operand breaks a flow rule, reported where it is made
        if op.name in WRITE_OPS:
            value_type = value_operand(op).type
            if is_obj(value_type):
                return [
                    f"storing an object ({OBJ_TYPE_ASM}) in {path.describe()} is not supported by "
                    "janus-externalize-heap; only values can be written"
                ]
        else:
            value_type = op.results[0].type
        known = self.types.setdefault(path, value_type)
        if known != value_type:
            return [
                f"heap location {path.describe()} is used as {value_type} here and as {known} before; "
                "janus-externalize-heap needs one type per location"
            ]
        return []
