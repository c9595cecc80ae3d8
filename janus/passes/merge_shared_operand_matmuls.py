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

When no later member can join the first, the group may instead meet at its last member:
an RNN's forward step computes ``h_t @ V`` (the output layer) from the recurrence but
feeds nothing of it back, and a backward step's ``dlogits_t / T @ V.T`` is made by a
division that cannot move up. An earlier member joins the last when every op that uses
its result, directly or through others, before the last member is pure (``linalg``,
``iree_linalg_ext``, ``tensor``, ``arith``, ``math``: no assert, no region other than a
scalar body) and
none of them is a member or makes an operand of a member that joined: those ops move down
after the merged matmul, in their order. The LSTM LM's 20 output-layer products per
direction become one 640x1000x256 and one 640x256x1000 GEMM.
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
#: dialects whose ops are pure on tensors, and those of them whose regions are scalar bodies
_PURE_DIALECTS = frozenset({"linalg", "iree_linalg_ext", "tensor", "arith", "math"})
_BODY_DIALECTS = frozenset({"linalg", "iree_linalg_ext"})


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


@dataclass(frozen=True)
class Group:
    """Matmuls to merge (in program order), where the merged one goes, and the ops to move:
    ``hoisted`` above it (operands made late), ``sunk`` below it (uses of early results)."""

    members: list[ir.Operation]
    at: ir.Operation
    hoisted: list[ir.Operation]
    sunk: list[ir.Operation]


def _in_block(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """``op`` or the op of ``block`` it is nested in (None when outside ``block``)."""
    while op.block != block:
        parent = op.parent
        if parent is None or not isinstance(parent, (ir.Operation, ir.OpView)) or parent.name == "builtin.module":
            return None
        op = parent.operation
    return op


def _sinkable(op: ir.Operation) -> bool:
    """Pure: moving it changes nothing but when it runs."""
    dialect = op.name.split(".")[0]
    return dialect in _PURE_DIALECTS and (not op.regions or dialect in _BODY_DIALECTS)


def _users_before(op: ir.Operation, end: int, block: ir.Block, position: dict[ir.Operation, int]) -> set[ir.Operation] | None:
    """Every op of ``block`` before position ``end`` that uses ``op``'s results, directly or
    through others; None when one of them cannot move."""
    found: set[ir.Operation] = set()
    work = [op]
    while work:
        for result in work.pop().results:
            for use in result.uses:
                user = _in_block(use.owner.operation, block)
                if user is None or position[user] >= end or user in found:
                    continue
                if not _sinkable(user):
                    return None
                found.add(user)
                work.append(user)
    return found


def _operand_makers(op: ir.Operation, block: ir.Block, position: dict[ir.Operation, int], found: set[ir.Operation]) -> None:
    """Add to ``found`` every op of ``block`` that ``op``'s operands come from, transitively
    (values its nested regions read included)."""
    work = [op]
    while work:
        current = work.pop()
        for operand in _operands_deep(current):
            maker = owner(operand)
            maker = _in_block(maker, block) if maker is not None else None
            if maker is not None and maker not in found and maker is not op:
                found.add(maker)
                work.append(maker)


def _operands_deep(op: ir.Operation) -> list[ir.Value]:
    values = list(op.operands)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                values.extend(_operands_deep(inner.operation))
    return values


def _sunk_group(members: list[ir.Operation], block: ir.Block, position: dict[ir.Operation, int]) -> Group | None:
    """The members that can meet at the last one, moving their results' uses below it."""
    last = members[-1]
    end = position[last]
    makers: set[ir.Operation] = set()
    _operand_makers(last, block, position, makers)
    chosen, sunk = [last], set()
    for op in reversed(members[:-1]):
        users = _users_before(op, end, block, position)
        if users is None or op in makers or users & makers or users & set(chosen):
            continue
        chosen.append(op)
        sunk |= users
        _operand_makers(op, block, position, makers)
    if len(chosen) < 2:
        return None
    return Group(chosen[::-1], last, [], sorted(sunk, key=position.__getitem__))


def _group(block: ir.Block, side: Side) -> Group | None:
    """The first group of two or more: met at the first member if any can, else at the last."""
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
            return Group(chosen, members[0], moved, [])
        if (sunk := _sunk_group(members, block, position)) is not None:
            return sunk
    return None


def _merge(group: Group, side: Side) -> None:
    members, first = group.members, group.at
    for op in group.hoisted:
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
    below = first
    for op in group.sunk:
        op.move_after(below)
        below = op
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
                    _merge(group, side)
