"""Growing ops and functions: MLIR ops cannot gain operands or results in place.

Passes that thread new values through calls and structured control flow rebuild the op
with longer operand/result lists, moving its regions over, instead of copying it op by op.
"""

from __future__ import annotations

from typing import Sequence

from janus.ir import ir


def rebuild(
    op: ir.Operation,
    *,
    name: str | None = None,
    operands: Sequence[ir.Value] | None = None,
    result_types: Sequence[ir.Type] | None = None,
) -> ir.Operation:
    """Replace ``op`` by a copy with a new name, operands and/or result types.

    Attributes are copied and regions moved; the old results' uses go to the new op's
    first results, so ``result_types`` may only append.
    """
    new = ir.Operation.create(
        name or op.name,
        results=list(result_types if result_types is not None else [r.type for r in op.results]),
        operands=list(operands if operands is not None else op.operands),
        attributes=dict(op.attributes),
        regions=len(op.regions),
        loc=op.location,
        ip=ir.InsertionPoint(op),
    )
    for old_region, new_region in zip(op.regions, new.regions):
        for block in list(old_region.blocks):
            block.append_to(new_region)
    for old, replacement in zip(op.results, new.results):
        old.replace_all_uses_with(replacement)
    op.erase()
    return new


def append_operands(op: ir.Operation, extra: Sequence[ir.Value]) -> ir.Operation:
    """``op`` rebuilt with ``extra`` operands at the end (terminators, mostly)."""
    return rebuild(op, operands=[*op.operands, *extra]) if extra else op


def terminator(block: ir.Block) -> ir.Operation:
    ops = block.operations
    return ops[len(ops) - 1].operation


def _extend_attr_array(fn: ir.Operation, name: str, count: int) -> None:
    if name in fn.attributes and count:
        empty = ir.DictAttr.get({})
        fn.attributes[name] = ir.ArrayAttr.get([*fn.attributes[name], *[empty] * count])


def append_to_signature(fn: ir.Operation, inputs: Sequence[ir.Type], results: Sequence[ir.Type]) -> None:
    """Append ``inputs`` / ``results`` to a ``func.func``'s type (and its arg/res attrs).

    The entry block's arguments and the returns are the caller's business.
    """
    ftype = fn.attributes["function_type"].value
    fn.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([*ftype.inputs, *inputs], [*ftype.results, *results])
    )
    _extend_attr_array(fn, "arg_attrs", len(inputs))
    _extend_attr_array(fn, "res_attrs", len(results))
