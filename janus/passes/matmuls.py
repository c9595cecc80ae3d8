"""What the matmul-merging passes agree a mergeable matmul is, and small IR helpers they share."""

from __future__ import annotations

from typing import Iterator

from iree.compiler.dialects import arith, linalg

from janus.ir import ir

#: ``linalg.matmul``'s maps when none are given: C[m, n] += A[m, k] * B[k, n]
_MATMUL_MAPS = ("(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)", "(d0, d1, d2) -> (d0, d1)")
#: an outer product's maps: C[m, n] = A[m, 0] * B[0, n]
_OUTER_MAPS = ("(d0, d1) -> (d0, 0)", "(d0, d1) -> (0, d1)", "(d0, d1) -> (d0, d1)")
_MULTIPLIES = frozenset({"arith.mulf", "arith.muli"})


def owner(value: ir.Value) -> ir.Operation | None:
    """The op defining ``value`` (None for a block argument)."""
    defining = value.owner
    return None if isinstance(defining, ir.Block) else defining.operation


def single_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def static(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType) and t.has_static_shape


def is_zero(value: ir.Value) -> bool:
    """A ``linalg.fill`` of constant zero, or a zero splat constant."""
    op = owner(value)
    if op is None:
        return False
    if op.name == "linalg.fill":
        scalar = owner(op.operands[0])
        return scalar is not None and scalar.name == "arith.constant" and _zero_attr(scalar.attributes["value"])
    return op.name == "arith.constant" and _zero_attr(op.attributes["value"])


def _zero_attr(attr: ir.Attribute) -> bool:
    if isinstance(attr, ir.FloatAttr):
        return attr.value == 0.0
    if isinstance(attr, ir.IntegerAttr):
        return attr.value == 0
    if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
        return _zero_attr(attr.get_splat_value())
    return False


def plain_matmul(op: ir.Operation) -> bool:
    """A ``linalg.matmul`` with default maps, no cast, static shapes, into a zero-filled init:
    its result is exactly ``A @ B``, so it may be computed as part of a larger one."""
    if op.name != "linalg.matmul" or "cast" in op.attributes or len(op.operands) != 3:
        return False
    if "indexing_maps" in op.attributes:
        maps = [str(ir.AffineMapAttr(m).value) for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
        if tuple(maps) != _MATMUL_MAPS:
            return False
    return all(static(v.type) for v in op.operands) and is_zero(op.operands[2])


def outer_product(op: ir.Operation) -> bool:
    """A ``linalg.generic`` multiplying a static (M, 1) by a (1, N) tensor into (M, N),
    ignoring its init: how the frontend emits ``a @ b`` when K is 1 (a convolution's
    taps on a one-channel image), so exactly the matmul of its two inputs."""
    if op.name != "linalg.generic" or len(op.operands) != 3 or len(op.results) != 1:
        return False
    lhs, rhs = op.operands[0].type, op.operands[1].type
    if not (static(lhs) and static(rhs) and lhs.rank == 2 and rhs.rank == 2 and lhs.shape[1] == 1
            and rhs.shape[0] == 1 and lhs.element_type == rhs.element_type == op.results[0].type.element_type):
        return False
    maps = tuple(str(ir.AffineMapAttr(m).value) for m in ir.ArrayAttr(op.attributes["indexing_maps"]))
    if maps != _OUTER_MAPS:
        return False
    body = op.regions[0].blocks[0]
    ops = list(body.operations)
    if len(ops) != 2 or ops[0].name not in _MULTIPLIES or ops[1].name != "linalg.yield":
        return False
    a, b = list(body.arguments)[:2]
    return {*ops[0].operands} == {a, b} and ops[1].operands[0] == ops[0].results[0]


def matmul_product(op: ir.Operation) -> bool:
    """Whether ``op``'s result is exactly ``operands[0] @ operands[1]``: a plain matmul
    or an outer product (K = 1)."""
    return plain_matmul(op) or outer_product(op)


def zero_matmul(lhs: ir.Value, rhs: ir.Value, result_type: ir.RankedTensorType, at: ir.InsertionPoint) -> ir.Value:
    """``lhs @ rhs`` as a ``linalg.matmul`` into a zero constant, built at ``at``."""
    with at:
        return linalg.matmul(lhs, rhs, outs=[zero_constant(result_type)])


def zero_constant(t: ir.RankedTensorType) -> ir.Value:
    """A zero-filled constant of ``t`` at the current insertion point."""
    return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, _zero_of(t.element_type))).result


def _zero_of(t: ir.Type) -> ir.Attribute:
    return ir.FloatAttr.get(t, 0.0) if isinstance(t, (ir.F16Type, ir.F32Type, ir.F64Type, ir.BF16Type)) \
        else ir.IntegerAttr.get(t, 0)


def concat_type(values: list[ir.Value], dim: int) -> ir.RankedTensorType:
    """The type of ``tensor.concat`` of ``values`` along ``dim``."""
    first = ir.RankedTensorType(values[0].type)
    shape = list(first.shape)
    shape[dim] = sum(ir.RankedTensorType(v.type).shape[dim] for v in values)
    return ir.RankedTensorType.get(shape, first.element_type)


def blocks(op: ir.Operation) -> Iterator[ir.Block]:
    """Every block nested in ``op`` that holds ops on tensors: not the scalar bodies of
    ``linalg`` ops, which the merging passes erase (a body listed before its op was erased
    would be freed memory when its turn came)."""
    for region in op.regions:
        for block in region.blocks:
            yield block
            for inner in block.operations:
                if not inner.operation.name.startswith("linalg."):
                    yield from blocks(inner.operation)
