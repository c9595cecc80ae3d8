"""VJP rules of ``tensor`` ops: an adjoint scatters back where the forward op gathered."""

from __future__ import annotations

import numpy as np
from iree.compiler.dialects import arith, linalg, tensor

from janus.ir import ir
from janus.passes.autodiff.builder import Adjoint, GradBuilder, constant, linalg_generic, static_slice

Pairs = list[tuple[ir.Value, ir.Value]]


def _slice_args(b: GradBuilder, op: ir.OpView) -> tuple:
    """The dynamic offsets, sizes, strides (copies) and static ones of a slice op."""
    return (
        [b.copy_of(v) for v in op.offsets],
        [b.copy_of(v) for v in op.sizes],
        [b.copy_of(v) for v in op.strides],
        op.static_offsets,
        op.static_sizes,
        op.static_strides,
    )


def _one_hot(b: GradBuilder, op: ir.OpView, hit_value: ir.Value, miss: Adjoint) -> ir.Value:
    """A ``linalg.generic`` over the indexed tensor: ``hit_value`` at the op's indices,
    elsewhere ``miss``'s element (or zero).

    Used instead of a scalar ``tensor.insert``, which IREE 3.13 miscompiles for 64-bit
    elements (its fill writes 32 bytes: the neighbours are overwritten).
    """
    t = op.results[0] if op.operation.name == "tensor.insert" else op.operands[0]
    tt = ir.RankedTensorType(t.type)
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(tt.rank))
    indices = list(op.operands)[1:] if op.operation.name == "tensor.extract" else list(op.operands)[2:]
    ins = [] if miss is None else [miss]

    def body(*args: ir.Value) -> ir.Value:
        otherwise = constant(tt.element_type, 0.0) if miss is None else args[0]
        hit = None
        for i, v in enumerate(indices):
            eq = arith.cmpi(arith.CmpIPredicate.eq, linalg.IndexOp(i).result, b.copy_of(v))
            hit = eq if hit is None else arith.andi(hit, eq)
        return arith.select(hit, hit_value, otherwise)

    empty = tensor.EmptyOp(tt.shape, tt.element_type).result
    return linalg_generic(t.type, ins, [empty], [identity] * (len(ins) + 1), [linalg.IteratorType.parallel] * tt.rank, body)


def extract(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    t = op.operands[0]
    if ir.RankedTensorType(t.type).rank == 0:
        return [(t, tensor.from_elements(t.type, [gs[0]]))]
    return [(t, _one_hot(b, op, gs[0], None))]


def from_elements(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """Each element's adjoint is the adjoint's element at its row-major position."""
    t = ir.RankedTensorType(op.results[0].type)
    pairs = []
    for flat, element in enumerate(op.operands):
        position = [int(i) for i in np.unravel_index(flat, t.shape)] if t.rank else []
        pairs.append((element, tensor.extract(gs[0], [b.index(i) for i in position])))
    return pairs


def insert(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    scalar, dest = op.operands[0], op.operands[1]
    d_scalar = tensor.extract(gs[0], [b.copy_of(v) for v in list(op.operands)[2:]])
    return [(scalar, d_scalar), (dest, _one_hot(b, op, b.zeros(scalar), gs[0]))]


def extract_slice(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    src = op.operands[0]
    spec = _slice_args(b, op)
    return [(src, tensor.insert_slice(gs[0], b.zeros(src), *spec))]


def insert_slice(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    src, dest = op.operands[0], op.operands[1]
    spec = _slice_args(b, op)
    d_src = tensor.extract_slice(src.type, gs[0], *spec)
    d_dest = tensor.insert_slice(b.zeros(src), gs[0], *spec)
    return [(src, d_src), (dest, d_dest)]


def expand_shape(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    src = op.operands[0]
    return [(src, tensor.collapse_shape(src.type, gs[0], op.attributes["reassociation"]))]


def collapse_shape(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    src = op.operands[0]
    shape = list(ir.RankedTensorType(src.type).shape)
    return [(src, tensor.expand_shape(src.type, gs[0], op.attributes["reassociation"], [], shape))]


def concat(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """Each part's adjoint is its slice of the result's adjoint."""
    dim = ir.IntegerAttr(op.attributes["dim"]).value
    out, offset = [], 0
    for part in op.operands:
        shape = list(ir.RankedTensorType(part.type).shape)
        offsets = [offset if i == dim else 0 for i in range(len(shape))]
        out.append((part, tensor.extract_slice(part.type, gs[0], *static_slice(offsets, shape))))
        offset += shape[dim]
    return out


def no_operands(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """Ops whose float result depends on no float operand (constants, ``tensor.empty``)."""
    return []
