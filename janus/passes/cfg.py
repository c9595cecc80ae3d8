"""Control-flow-graph surgery the MLIR Python bindings do not offer.

Passes that redirect control flow (a continuation entered from somewhere other than its
old predecessor) need every block to receive the values it uses as block arguments:
dominance no longer holds once edges change. ``pass_live_ins_as_arguments`` does that
conversion; the rest are the small edits it and its users need.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from janus.ir import ir
from janus.passes.registry import PassError

#: Operand-segment attributes of the branch ops whose successor operands we rewrite.
_SEGMENTS = "operandSegmentSizes"


def terminator(block: ir.Block) -> ir.Operation:
    """The last operation of ``block``."""
    *_, last = block.operations
    return last.operation


def defining_block(value: ir.Value) -> ir.Block:
    """The block holding ``value``'s definition (its owner when it is a block argument)."""
    owner = value.owner
    return owner if isinstance(owner, ir.Block) else owner.operation.block


def split_after(op: ir.Operation) -> ir.Block:
    """Move every op after ``op`` into a new block right after ``op``'s block.

    The old block is left without a terminator; the caller appends one.
    """
    block = op.block
    ops = [o.operation for o in block.operations]
    tail = ops[ops.index(op) + 1 :]
    new = block.create_after()
    for o in tail:
        new.append(o)
    return new


def _is_inside(op: ir.Operation, block: ir.Block) -> bool:
    while True:
        if op.block == block:
            return True
        parent = op.parent
        if parent is None or parent.operation.name == "builtin.module":
            return False
        op = parent.operation


def replace_uses_in_block(value: ir.Value, new: ir.Value, block: ir.Block) -> None:
    """Replace the uses of ``value`` by ops of ``block`` (nested regions included)."""
    for use in list(value.uses):
        owner = use.owner.operation
        if _is_inside(owner, block):
            owner.operands[use.operand_number] = new


def successor_groups(term: ir.Operation) -> tuple[list[ir.Value], list[list[ir.Value]]]:
    """(leading non-successor operands, operands forwarded to each successor)."""
    operands = list(term.operands)
    if term.name == "cf.br":
        return [], [operands]
    if term.name == "cf.cond_br":
        _, n_true, _ = term.attributes[_SEGMENTS]
        return operands[:1], [operands[1 : 1 + n_true], operands[1 + n_true :]]
    if term.name == "cf.switch":
        _, n_default, _ = term.attributes[_SEGMENTS]
        groups, pos = [operands[1 : 1 + n_default]], 1 + n_default
        for n in term.attributes["case_operand_segments"]:
            groups.append(operands[pos : pos + n])
            pos += n
        return operands[:1], groups
    raise PassError([(term.location, f"cannot rewrite the successor operands of '{term.name}'")])


def append_successor_operands(term: ir.Operation, extra: Sequence[Sequence[ir.Value]]) -> ir.Operation:
    """Rebuild branch ``term`` forwarding ``extra[i]`` after its operands to successor i."""
    prefix, groups = successor_groups(term)
    groups = [list(g) + list(e) for g, e in zip(groups, extra)]
    attributes = {name: term.attributes[name] for name in term.attributes}
    if term.name != "cf.br":
        sizes = [len(prefix), len(groups[0]), sum(len(g) for g in groups[1:])]
        attributes[_SEGMENTS] = ir.DenseI32ArrayAttr.get(sizes)
    if term.name == "cf.switch":
        attributes["case_operand_segments"] = ir.DenseI32ArrayAttr.get([len(g) for g in groups[1:]])
    new = ir.Operation.create(
        term.name,
        operands=prefix + [v for g in groups for v in g],
        attributes=attributes,
        successors=list(term.successors),
        loc=term.location,
        ip=ir.InsertionPoint(term),
    )
    term.erase()
    return new


def _used_values(block: ir.Block) -> Iterable[ir.Value]:
    """Operands of the ops of ``block`` and of the ops nested in them."""
    used: list[ir.Value] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        used.extend(op.operands)
        return ir.WalkResult.ADVANCE

    for op in block.operations:
        op.operation.walk(visit)
    return used


def live_ins(blocks: Sequence[ir.Block]) -> dict[ir.Block, dict[ir.Value, None]]:
    """For each block, the values of other ``blocks`` it or its successors still need.

    Values defined outside ``blocks`` (e.g. in an entry block that dominates them all)
    are ignored, and so are successors outside ``blocks``. Ordered sets (dicts) keep the
    result deterministic.
    """
    inside = set(blocks)
    live: dict[ir.Block, dict[ir.Value, None]] = {}
    for b in blocks:
        live[b] = {}
        for v in _used_values(b):
            d = defining_block(v)
            if d in inside and d != b:
                live[b][v] = None
    changed = True
    while changed:
        changed = False
        for b in reversed(blocks):
            for s in terminator(b).successors:
                for v in live.get(s, ()):
                    if v not in live[b] and defining_block(v) != b:
                        live[b][v] = None
                        changed = True
    return live


def pass_live_ins_as_arguments(blocks: Sequence[ir.Block]) -> None:
    """Make each of ``blocks`` receive its live-in values as new trailing arguments.

    Afterwards a block uses only its own arguments and definitions (and values defined
    outside ``blocks``), so it may be entered from any new predecessor that supplies
    those arguments.
    """
    live = live_ins(blocks)
    local: dict[tuple[ir.Block, ir.Value], ir.Value] = {}
    for b in blocks:
        for v in live[b]:
            arg = b.add_argument(v.type, v.location)
            replace_uses_in_block(v, arg, b)
            local[(b, v)] = arg
    for b in blocks:
        term = terminator(b)
        extra = [[local.get((b, v), v) for v in live.get(s, ())] for s in term.successors]
        if any(extra):
            append_successor_operands(term, extra)
