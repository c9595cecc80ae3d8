"""``janus-merge-shared-operand-matmuls``: matmuls with one operand in common become one matmul.

A convolution written as shifted matmuls computes its filter gradient as
``dW[i, j] = x_ij.T @ d`` for every filter position: k*k matmuls with the same right
operand ``d``, each reading all of it for a few rows of output. An unrolled RNN's backward
step computes ``dlogits_t @ V.T`` for every t from values the forward pass made. Stacking
the other operands makes one matmul that reads the shared one once:

    A_i @ B for all i  ->  concat(A_i, dim 0) @ B, row block i sliced out
    A @ B_i for all i  ->  A @ concat(B_i, dim 1), column block i sliced out

Each output element is computed by the same dot product as before, so the results are
those of the separate matmuls. The merged matmul goes where the first of the group was;
a later member joins when its other operand is available there: defined earlier, or
made from available values by ops that only reshape or reorder data (``linalg.transpose``,
``tensor.collapse_shape``/``expand_shape``/``extract_slice``, ``tensor.empty``), which
are moved up with it. Members are plain matmuls (``janus.passes.matmuls.plain_matmul``)
of one element type in one block.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler.dialects import tensor

from janus.ir import ir
from janus.passes.matmuls import blocks, concat_type, owner, plain_matmul, zero_matmul
from janus.passes.registry import ModulePass, register_pass

#: ops moved up with an operand: pure, cheap, and only reshaping or reordering data
_MOVABLE = frozenset({"linalg.transpose", "tensor.collapse_shape", "tensor.expand_shape", "tensor.extract_slice",
                      "tensor.empty"})
#: how many movable ops deep an operand may be made
_MAX_MOVED = 8


@dataclass(frozen=True)
class Side:
    """Which operand is shared: 1 (right: stack left operands along rows) or 0 (left: columns)."""

    shared: int

    @property
    def stacked(self) -> int:
        return 1 - self.shared

    @property
    def dim(self) -> int:
        """The dimension the other operands and the result are stacked along."""
        return 0 if self.shared == 1 else 1


def _position(block: ir.Block) -> dict[ir.Operation, int]:
    return {op.operation: i for i, op in enumerate(block.operations)}


def _movable_chain(value: ir.Value, before: int, block: ir.Block, position: dict[ir.Operation, int],
                   budget: list[int]) -> list[ir.Operation] | None:
    """The ops of ``block`` after ``before`` that make ``value``, to move up so that it is
    available at ``before`` (in program order); None when some cannot move."""
    op = owner(value)
    if op is None or op.block != block or position[op] < before:
        return []  # a block argument, or defined outside this block or before the anchor
    if op.name not in _MOVABLE:
        return None
    budget[0] -= 1
    if budget[0] < 0:
        return None
    chain: list[ir.Operation] = []
    for operand in op.operands:
        inner = _movable_chain(operand, before, block, position, budget)
        if inner is None:
            return None
        chain.extend(o for o in inner if o not in chain)
    return [*chain, op]


def _group(block: ir.Block, side: Side) -> tuple[list[ir.Operation], list[ir.Operation]] | None:
    """(members in program order, ops to move above the first) of the first group of two or more."""
    position = _position(block)
    by_shared: dict[tuple, list[ir.Operation]] = {}
    for op in block.operations:
        op = op.operation
        if plain_matmul(op):
            key = (op.operands[side.shared], str(op.operands[side.stacked].type), str(op.results[0].type))
            by_shared.setdefault(key, []).append(op)
    for members in by_shared.values():
        first = position[members[0]]
        chosen, moved = [members[0]], []
        for op in members[1:]:
            chain = _movable_chain(op.operands[side.stacked], first, block, position, [_MAX_MOVED])
            if chain is not None:
                chosen.append(op)
                moved.extend(o for o in chain if o not in moved)
        if len(chosen) >= 2:
            return chosen, moved
    return None


def _merge(members: list[ir.Operation], moved: list[ir.Operation], side: Side) -> None:
    first = members[0]
    for op in moved:
        op.move_before(first)
    stacked = [m.operands[side.stacked] for m in members]
    results = [m.results[0] for m in members]
    at = ir.InsertionPoint(first)
    with first.location, at:
        result_type = concat_type(results, side.dim)
        operand = tensor.ConcatOp(concat_type(stacked, side.dim), side.dim, stacked, ip=at).result
        shared = first.operands[side.shared]
        lhs, rhs = (operand, shared) if side.shared == 1 else (shared, operand)
        merged = zero_matmul(lhs, rhs, result_type, at)
        offset = 0
        for result in results:
            rows, cols = ir.RankedTensorType(result.type).shape
            offsets, sizes = ([offset, 0], [rows, cols]) if side.dim == 0 else ([0, offset], [rows, cols])
            part = tensor.ExtractSliceOp(result.type, merged, [], [], [], offsets, sizes, [1, 1], ip=at).result
            result.replace_all_uses_with(part)
            offset += sizes[side.dim]
    for m in members:
        m.erase()


@register_pass
class MergeSharedOperandMatmuls(ModulePass):
    name = "janus-merge-shared-operand-matmuls"
    summary = "Merge matmuls that share an operand (A_i @ B, or A @ B_i) into one matmul, results sliced out."

    def apply(self, module_op: ir.Operation) -> None:
        for block in list(blocks(module_op)):
            for side in (Side(1), Side(0)):
                # one group at a time: a merge moves ops and so changes where the next can go
                while (group := _group(block, side)) is not None:
                    _merge(*group, side)
