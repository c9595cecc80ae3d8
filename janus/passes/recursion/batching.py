"""Batching rules: one per op kind, turning a node's op into the op over a batch of nodes.

Like JAX's ``primitive_batchers``: ``RULES[op.name](batch, op)`` builds, before ``op``,
the op over consecutive node rows (a leading batch dim on every value that depends on the
node) and records old value -> batched value. Values that do not depend on the node
(parameters, constants) stay as they are and are read unbatched (a weight keeps its
map: a matvec becomes a GEMM). Inside an ``scf.if`` on a batched condition both branches
run on the whole batch under a mask: guards hold only where the mask does, gathers clamp
their indices, and the results merge row by row. An op without a rule raises
``NotBatchable`` with the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from janus.dialects import GuardOp, InvokeOp
from janus.ir import ir

_K_DYNAMIC = -(2**63)
#: keeps IREE from folding a transpose into the GEMM before it (``_weight_rows_gemm``)
BARRIER = "util.optimization_barrier"
#: ops that read nothing out of bounds and have no effect: safe to run on masked-off rows
_PURE_PREFIXES = ("arith.", "math.")
_PURE = frozenset({"tensor.empty", "tensor.dim", "tensor.collapse_shape", "tensor.expand_shape", "tensor.concat",
                   "linalg.fill", "linalg.matmul", "linalg.transpose", "linalg.broadcast"})


class NotBatchable(Exception):
    """The recursion's body has an op the batching rules cannot handle (the message says which)."""


def batched_type(t: ir.Type) -> ir.Type:
    """``T`` -> ``tensor<?xT>``; ``tensor<dims x T>`` -> ``tensor<? x dims x T>``."""
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size(), *t.shape], t.element_type)
    return ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], t)


def _element(t: ir.Type) -> ir.Type:
    return ir.RankedTensorType(t).element_type


def _maps(*maps: ir.AffineMap) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])


def _iterators(kinds: list[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{k}>") for k in kinds])


def identity_map(rank: int) -> ir.AffineMap:
    return ir.AffineMap.get_identity(rank)


def _batch_only(rank: int) -> ir.AffineMap:
    """(d0, ..., d[rank-1]) -> (d0): a per-row operand."""
    return ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(0)])


def _drop_batch(rank: int) -> ir.AffineMap:
    """(d0, d1, ...) -> (d1, ...): an unbatched operand of the same shape as one row."""
    return ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(i) for i in range(1, rank)])


@dataclass
class Batch:
    """The state of batching one function body: where it builds and what it mapped."""

    callee: str  # the recursive function: its invokes read rows of ``tables``
    count: ir.Value  # rows in the batch (index)
    tables: list[ir.Value]  # one per result: rows of the nodes of later levels
    mapped: dict = field(default_factory=dict)  # old value -> batched value
    data: set = field(default_factory=set)  # values that depend on an invoke's result
    mask: ir.Value | None = None  # tensor<?xi1> of rows in the current branch
    dead: list = field(default_factory=list)  # old ops to erase, in order
    checks: list = field(default_factory=list)  # (tensor<?xi1>: where it holds, the guard it checks)
    table_reads: dict = field(default_factory=dict)  # a table gather's result -> (table, its clamped rows)
    #: elements of W from which ``W @ x`` runs W's rows first (``_weight_rows_gemm``)
    rows_first_elements: int = 0

    def is_batched(self, v: ir.Value) -> bool:
        return v in self.mapped

    def get(self, v: ir.Value) -> ir.Value:
        return self.mapped.get(v, v)

    # ----- building blocks -----
    def empty(self, t: ir.Type, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
        return ir.Operation.create("tensor.empty", results=[t], operands=[self.count], ip=ip, loc=loc).result

    def generic(self, ins: list[ir.Value], in_maps: list[ir.AffineMap], out_type: ir.Type, out_map: ir.AffineMap,
                iterators: list[str], body: Callable[[list[ir.Value], ir.InsertionPoint], list[ir.Value]],
                ip: ir.InsertionPoint, loc: ir.Location, init: ir.Value | None = None) -> ir.Value:
        """A one-result ``linalg.generic``; ``body(block args, ip)`` returns the yielded values."""
        out = init if init is not None else self.empty(out_type, ip, loc)
        op = ir.Operation.create(
            "linalg.generic", results=[out_type], operands=[*ins, out],
            attributes={"indexing_maps": _maps(*in_maps, out_map), "iterator_types": _iterators(iterators),
                        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(ins), 1])},
            regions=1, ip=ip, loc=loc)
        block = op.regions[0].blocks.append(*[_element(v.type) for v in ins], _element(out_type))
        inner = ir.InsertionPoint(block)
        yielded = body(list(block.arguments), inner)
        ir.Operation.create("linalg.yield", operands=yielded, ip=inner, loc=loc)
        return op.result

    def elementwise(self, name: str, operands: list[ir.Value], result: ir.Type, attributes: dict,
                    ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
        """Scalar op ``name`` over the batch: batched operands become inputs, others are captured."""
        batched = [isinstance(v.type, ir.RankedTensorType) for v in operands]  # scalars are unbatched
        ins = [v for v, b in zip(operands, batched) if b]

        def body(args: list[ir.Value], inner: ir.InsertionPoint) -> list[ir.Value]:
            it = iter(args)
            scalars = [next(it) if b else v for v, b in zip(operands, batched)]
            return [ir.Operation.create(name, results=[result], operands=scalars, attributes=attributes,
                                        ip=inner, loc=loc).result]

        return self.generic(ins, [identity_map(1)] * len(ins), batched_type(result), identity_map(1), ["parallel"],
                            body, ip, loc)

    def broadcast(self, v: ir.Value, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
        """An unbatched value repeated on every row."""
        if isinstance(v.type, ir.RankedTensorType):
            rank = v.type.rank + 1
            return self.generic([v], [_drop_batch(rank)], batched_type(v.type), identity_map(rank),
                                ["parallel"] * rank, lambda a, _: [a[0]], ip, loc)
        return self.generic([], [], batched_type(v.type), identity_map(1), ["parallel"], lambda a, _: [v], ip, loc)

    def batched(self, v: ir.Value, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
        return self.mapped[v] if v in self.mapped else self.broadcast(v, ip, loc)

    def clamp(self, i: ir.Value, size: ir.Value, inner: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
        """``i`` (index) clamped into [0, size - 1]: masked-off rows read row 0, never out of bounds."""
        zero = _const_index(0, inner, loc)
        one = _const_index(1, inner, loc)
        top = build("arith.subi", [size, one], size.type, inner, loc)
        top = build("arith.maxsi", [top, zero], size.type, inner, loc)
        low = build("arith.maxsi", [i, zero], i.type, inner, loc)
        return build("arith.minsi", [low, top], i.type, inner, loc)

    def all_rows(self, rows: list[ir.Value], ip: ir.InsertionPoint, loc: ir.Location) -> list[ir.Value]:
        """Whether every row of each ``tensor<?xi1>`` holds, as ``tensor<i1>``s left on the device:
        one reduction over all of them (one dispatch, not one per guard)."""
        i1 = ir.IntegerType.get_signless(1)
        t0 = ir.RankedTensorType.get([], i1)
        true = build("arith.constant", [], i1, ip, loc, {"value": ir.IntegerAttr.get(i1, 1)})
        inits = [self.generic([], [], t0, ir.AffineMap.get(0, 0, []), [], lambda a, _: [true], ip, loc,
                              init=ir.Operation.create("tensor.empty", results=[t0], operands=[], ip=ip,
                                                       loc=loc).result) for _ in rows]
        k = len(rows)
        op = ir.Operation.create(
            "linalg.generic", results=[t0] * k, operands=[*rows, *inits],
            attributes={"indexing_maps": _maps(*[identity_map(1)] * k, *[ir.AffineMap.get(1, 0, [])] * k),
                        "iterator_types": _iterators(["reduction"]),
                        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([k, k])},
            regions=1, ip=ip, loc=loc)
        block = op.regions[0].blocks.append(*[i1] * (2 * k))
        inner = ir.InsertionPoint(block)
        args = list(block.arguments)
        both = [build("arith.andi", [args[j], args[k + j]], i1, inner, loc) for j in range(k)]
        ir.Operation.create("linalg.yield", operands=both, ip=inner, loc=loc)
        return list(op.results)


def build(name: str, operands: list[ir.Value], result: ir.Type, ip: ir.InsertionPoint, loc: ir.Location,
        attributes: dict | None = None) -> ir.Value:
    return ir.Operation.create(name, results=[result], operands=operands, attributes=attributes or {},
                               ip=ip, loc=loc).result


def _const_index(k: int, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    index = ir.IndexType.get()
    return build("arith.constant", [], index, ip, loc, {"value": ir.IntegerAttr.get(index, k)})


def dim_of(v: ir.Value, d: int, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    return build("tensor.dim", [v, _const_index(d, ip, loc)], ir.IndexType.get(), ip, loc)


# ----- the rules -----
Rule = Callable[[Batch, ir.Operation], None]
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        return fn
    return register


def _scalar_rule(batch: Batch, op: ir.Operation) -> None:
    if isinstance(op.result.type, ir.ShapedType):
        raise NotBatchable(f"{op.name} on tensors")
    ip, loc = ir.InsertionPoint(op), op.location
    operands = [batch.get(v) for v in op.operands]
    batch.mapped[op.result] = batch.elementwise(op.name, operands, op.result.type, dict(op.attributes), ip, loc)


for _name in ("addi", "subi", "muli", "andi", "ori", "xori", "cmpi", "select", "index_cast", "extsi", "extui",
              "trunci", "sitofp", "addf", "subf", "mulf", "divf", "cmpf", "maxsi", "minsi", "maximumf", "minimumf",
              "negf"):
    RULES[f"arith.{_name}"] = _scalar_rule
for _name in ("tanh", "exp", "log", "sqrt"):
    RULES[f"math.{_name}"] = _scalar_rule


@rule("tensor.extract")
def _gather_element(batch: Batch, op: ir.Operation) -> None:
    """``%t[%i...]`` with batched indices: a gather, indices clamped into the tensor."""
    source, indices = op.operands[0], list(op.operands[1:])
    if batch.is_batched(source):
        raise NotBatchable("tensor.extract from a value that depends on the node")
    ip, loc = ir.InsertionPoint(op), op.location
    sizes = [dim_of(source, d, ip, loc) for d in range(len(indices))]
    ins = [batch.batched(i, ip, loc) for i in indices]

    def body(args: list[ir.Value], inner: ir.InsertionPoint) -> list[ir.Value]:
        clamped = [batch.clamp(a, s, inner, loc) for a, s in zip(args, sizes)]
        return [build("tensor.extract", [source, *clamped], op.result.type, inner, loc)]

    batch.mapped[op.result] = batch.generic(ins, [identity_map(1)] * len(ins), batched_type(op.result.type),
                                            identity_map(1), ["parallel"], body, ip, loc)


@rule("tensor.extract_slice")
def _gather_slice(batch: Batch, op: ir.Operation) -> None:
    """``%E[%row, 0] [1, d] [1, 1]`` with a batched offset: a gather of rows, offsets clamped."""
    source = op.operands[0]
    static_offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
    dynamic = list(op.operands[1:])
    if batch.is_batched(source):
        _slice_rows(batch, op)
        return
    if _K_DYNAMIC in sizes or any(s != 1 for s in strides):
        raise NotBatchable("tensor.extract_slice with dynamic sizes or strides")
    if len(dynamic) != static_offsets.count(_K_DYNAMIC):
        raise NotBatchable("tensor.extract_slice with dynamic sizes")
    ip, loc = ir.InsertionPoint(op), op.location
    result = ir.RankedTensorType(op.result.type)
    kept, j = [], 0  # kept[d]: the result dim source dim d maps to, or None (a dropped unit dim)
    for size in sizes:
        if j < result.rank and result.shape[j] == size:
            kept.append(j)
            j += 1
        else:
            kept.append(None)
    it = iter(dynamic)
    offsets = [next(it) if o == _K_DYNAMIC else _const_index(o, ip, loc) for o in static_offsets]
    batched_offsets = [o for o in offsets if batch.is_batched(o)]
    limits = {id(o): build("arith.subi", [dim_of(source, d, ip, loc), _const_index(sizes[d] - 1, ip, loc)],
                         ir.IndexType.get(), ip, loc) for d, o in enumerate(offsets)}
    rank = result.rank + 1

    def body(args: list[ir.Value], inner: ir.InsertionPoint) -> list[ir.Value]:
        row = dict(zip(map(id, batched_offsets), args))
        where = []
        for d, o in enumerate(offsets):
            base = batch.clamp(row.get(id(o), o), limits[id(o)], inner, loc)
            if kept[d] is not None:
                idx = build("linalg.index", [], ir.IndexType.get(), inner, loc,
                          {"dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), kept[d] + 1)})
                base = build("arith.addi", [base, idx], ir.IndexType.get(), inner, loc)
            where.append(base)
        return [build("tensor.extract", [source, *where], result.element_type, inner, loc)]

    ins = [batch.mapped[o] for o in batched_offsets]
    batch.mapped[op.result] = batch.generic(ins, [_batch_only(rank)] * len(ins), batched_type(result),
                                            identity_map(rank), ["parallel"] * rank, body, ip, loc)


def _slice_rows(batch: Batch, op: ir.Operation) -> None:
    """A slice of a batched value at offsets that do not depend on the node: every row's slice."""
    if len(op.operands) > 1:  # a dynamic offset may be out of bounds until a (deferred) guard fails
        raise NotBatchable("tensor.extract_slice of a batched value at dynamic offsets")
    ip, loc = ir.InsertionPoint(op), op.location
    n_off, n_size, n_stride = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))[1:]
    rest = list(op.operands[1:])
    offsets, sizes, strides = rest[:n_off], rest[n_off:n_off + n_size], rest[n_off + n_size:]

    def shifted(name: str, first: int) -> ir.DenseI64ArrayAttr:
        return ir.DenseI64ArrayAttr.get([first, *ir.DenseI64ArrayAttr(op.attributes[name])])

    batch.mapped[op.result] = ir.Operation.create(
        op.name, results=[batched_type(op.result.type)],
        operands=[batch.mapped[op.operands[0]], *offsets, batch.count, *sizes, *strides],
        attributes={"static_offsets": shifted("static_offsets", 0), "static_sizes": shifted("static_sizes", _K_DYNAMIC),
                    "static_strides": shifted("static_strides", 1),
                    "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, n_off, n_size + 1, n_stride])},
        ip=ip, loc=loc).result


@rule(InvokeOp.OPERATION_NAME)
def _read_table(batch: Batch, op: ir.Operation) -> None:
    """A recursive call: the children's rows, read from the tables later levels filled, by one
    ``iree_linalg_ext.gather`` of whole rows per table (ids clamped into the table: a masked-off
    row reads row 0). A ``tensor.extract`` inside a ``linalg.generic`` reads the table without
    naming it as an operand: iree-compile 3.13 then updated the table (a mutable global) in place
    before such a read had run, and computed wrong rows."""
    ip, loc = ir.InsertionPoint(op), op.location
    ids = batch.batched(op.operands[0], ip, loc)
    i64 = ir.IntegerType.get_signless(64)
    for result, table in zip(op.results, batch.tables):
        rows = dim_of(table, 0, ip, loc)

        def clamped(args: list[ir.Value], inner: ir.InsertionPoint, rows: ir.Value = rows) -> list[ir.Value]:
            i = build("arith.index_cast", [args[0]], ir.IndexType.get(), inner, loc)
            return [build("arith.index_cast", [batch.clamp(i, rows, inner, loc)], i64, inner, loc)]

        where = batch.generic([ids], [identity_map(1)], batched_type(i64), identity_map(1), ["parallel"], clamped, ip, loc)
        batch.mapped[result] = build("iree_linalg_ext.gather", [table, where, batch.empty(table.type, ip, loc)],
                                     table.type, ip, loc, {"dimension_map": ir.DenseI64ArrayAttr.get([0])})
        batch.table_reads[batch.mapped[result]] = (table, where)
        batch.data.add(result)


@rule(GuardOp.OPERATION_NAME)
def _guard(batch: Batch, op: ir.Operation) -> None:
    """The assumption must hold on every row the branch runs for (``!mask || cond``).

    Reduced over the batch in one dispatch for all guards at the end of the level and
    checked once after the last level (``Batch.checks``): one device-to-host read per
    guard and call instead of one per guard and level. Until then every gather clamps its
    indices, so rows computed past a broken assumption are garbage, never a fault.
    """
    cond = op.operands[0]
    if not batch.is_batched(cond) and batch.mask is None:
        return  # a host check on values of no node: stays where it is
    ip, loc = ir.InsertionPoint(op), op.location
    rows = batch.batched(cond, ip, loc)
    if batch.mask is not None:
        rows = batch.elementwise("arith.ori", [rows, _negate(batch, batch.mask, ip, loc)],
                                 ir.IntegerType.get_signless(1), {}, ip, loc)
    batch.checks.append((rows, op))
    batch.dead.append(op)


def _negate(batch: Batch, rows: ir.Value, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    i1 = ir.IntegerType.get_signless(1)
    true = build("arith.constant", [], i1, ip, loc, {"value": ir.IntegerAttr.get(i1, 1)})
    return batch.elementwise("arith.xori", [rows, true], i1, {}, ip, loc)


@rule("tensor.concat")
def _concat(batch: Batch, op: ir.Operation) -> None:
    ip, loc = ir.InsertionPoint(op), op.location
    operands = [batch.batched(v, ip, loc) for v in op.operands]
    dim = ir.IntegerAttr(op.attributes["dim"]).value
    reads = [batch.table_reads.get(v) for v in operands]
    if (dim == 0 and len(reads) > 1 and all(reads) and len({table for table, _ in reads}) == 1
            and len({str(v.type) for v in operands}) == 1):
        batch.mapped[op.result] = _side_by_side(batch, reads, batched_type(op.result.type), ip, loc)
        return
    batch.mapped[op.result] = ir.Operation.create(
        op.name, results=[batched_type(op.result.type)], operands=operands,
        attributes={"dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim + 1)}, ip=ip, loc=loc).result


def _side_by_side(batch: Batch, reads: list[tuple[ir.Value, ir.Value]], result: ir.Type,
                  ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    """Children's rows of one table concatenated along their first dim (``[h_left, h_right]``):
    one gather of ``[batch, k, 1]`` row ids, collapsed, instead of k gathers and the
    concatenation's k copies (each a dispatch per chunk of the level loop)."""
    table, k = reads[0][0], len(reads)
    i64, index = ir.IntegerType.get_signless(64), ir.IndexType.get()
    dynamic = ir.ShapedType.get_dynamic_size()

    def pick(args: list[ir.Value], inner: ir.InsertionPoint) -> list[ir.Value]:
        which = build("linalg.index", [], index, inner, loc, {"dim": ir.IntegerAttr.get(i64, 1)})
        value = args[k - 1]
        for j in range(k - 2, -1, -1):
            is_j = build("arith.cmpi", [which, _const_index(j, inner, loc)], ir.IntegerType.get_signless(1), inner,
                         loc, {"predicate": ir.IntegerAttr.get(i64, 0)})  # eq
            value = build("arith.select", [is_j, args[j], value], i64, inner, loc)
        return [value]

    by_row = ir.AffineMap.get(3, 0, [ir.AffineDimExpr.get(0)])
    ids = batch.generic([rows for _, rows in reads], [by_row] * k, ir.RankedTensorType.get([dynamic, k, 1], i64),
                        identity_map(3), ["parallel"] * 3, pick, ip, loc)
    row = ir.RankedTensorType(table.type)
    gathered_type = ir.RankedTensorType.get([dynamic, k, *row.shape[1:]], row.element_type)
    gathered = build("iree_linalg_ext.gather", [table, ids, batch.empty(gathered_type, ip, loc)], gathered_type, ip,
                     loc, {"dimension_map": ir.DenseI64ArrayAttr.get([0])})
    groups = [[0], [1, 2], *([d] for d in range(3, row.rank + 1))]
    return ir.Operation.create(
        "tensor.collapse_shape", results=[result], operands=[gathered],
        attributes={"reassociation": ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g])
                                                        for g in groups])}, ip=ip, loc=loc).result


def _shifted_reassociation(attr: ir.Attribute) -> ir.ArrayAttr:
    groups = [[ir.IntegerAttr(i).value + 1 for i in group] for group in ir.ArrayAttr(attr)]
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in g])
                             for g in [[0], *groups]])


@rule("tensor.expand_shape")
def _expand(batch: Batch, op: ir.Operation) -> None:
    ip, loc = ir.InsertionPoint(op), op.location
    static = list(ir.DenseI64ArrayAttr(op.attributes["static_output_shape"]))
    batch.mapped[op.result] = ir.Operation.create(
        op.name, results=[batched_type(op.result.type)],
        operands=[batch.mapped[op.operands[0]], batch.count, *op.operands[1:]],
        attributes={"reassociation": _shifted_reassociation(op.attributes["reassociation"]),
                    "static_output_shape": ir.DenseI64ArrayAttr.get([_K_DYNAMIC, *static])}, ip=ip, loc=loc).result


@rule("tensor.collapse_shape")
def _collapse(batch: Batch, op: ir.Operation) -> None:
    ip, loc = ir.InsertionPoint(op), op.location
    batch.mapped[op.result] = ir.Operation.create(
        op.name, results=[batched_type(op.result.type)], operands=[batch.mapped[op.operands[0]]],
        attributes={"reassociation": _shifted_reassociation(op.attributes["reassociation"])}, ip=ip, loc=loc).result


def _shift(m: ir.AffineMap, batched: bool) -> ir.AffineMap:
    """A structured op's map with a new outer batch dim d0 (in the results only if ``batched``)."""
    shift = ir.AffineMap.get(m.n_dims + 1, m.n_symbols, [ir.AffineDimExpr.get(i + 1) for i in range(m.n_dims)])
    exprs = [e.compose(shift) for e in m.results]
    return ir.AffineMap.get(m.n_dims + 1, m.n_symbols, ([ir.AffineDimExpr.get(0)] if batched else []) + exprs)


def _matmul_maps() -> list[ir.AffineMap]:
    """A generalized ``linalg.matmul``'s maps over (m, n, k): A(m, k), B(k, n) -> C(m, n)."""
    d = [ir.AffineDimExpr.get(i) for i in range(3)]
    return [ir.AffineMap.get(3, 0, [d[0], d[2]]), ir.AffineMap.get(3, 0, [d[2], d[1]]),
            ir.AffineMap.get(3, 0, [d[0], d[1]])]


def _unit_dim(batch: Batch, op: ir.Operation, maps: list[ir.AffineMap]) -> int | None:
    """For a generalized matvec (``W @ x``: B is (k, 1)) or vecmat (``x @ W``: A is (1, k)) whose
    vector alone depends on the node: where that vector's unit dim is (1 or 0); else None."""
    if len(op.operands) != 3 or len(op.results) != 1 or maps != _matmul_maps():
        return None
    if any(inner.name == "linalg.index" for inner in op.regions[0].blocks[0].operations):
        return None
    a, b, _ = op.operands
    if batch.is_batched(a) == batch.is_batched(b):
        return None
    vector, unit = (b, 1) if batch.is_batched(b) else (a, 0)
    return unit if ir.RankedTensorType(vector.type).shape[unit] == 1 else None


def _collapse_unit(v: ir.Value, unit: int, ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    """(?, r, 1) -> (?, r) (``unit`` 1) or (?, 1, r) -> (?, r) (``unit`` 0)."""
    t = ir.RankedTensorType(v.type)
    groups = [[0], [1, 2]] if unit == 1 else [[0, 1], [2]]
    shape = [t.shape[0], t.shape[1 if unit == 1 else 2]]
    return ir.Operation.create("tensor.collapse_shape", results=[ir.RankedTensorType.get(shape, t.element_type)],
                               operands=[v], attributes={"reassociation": _reassociation(groups)},
                               ip=ip, loc=loc).result


def _reassociation(groups: list[list[int]]) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, g) for g in group]) for group in groups])


def _matvec_as_gemm(batch: Batch, op: ir.Operation, unit: int) -> None:
    """``W @ x`` over a batch of rows x (b, k) as one GEMM ``X W^T`` (b, m) (``W X^T`` for a large
    W); ``x @ W`` as ``X W`` (b, n).

    Batching the matvec's generic as it is gives a (b, m, 1, k) contraction that is a GEMM only
    once IREE folds the unit dim away (its dispatch creation does, in 3.13); built without it,
    the GEMM over the rows is explicit here, in janus's IR and its lit tests. The body is kept."""
    ip, loc = ir.InsertionPoint(op), op.location
    a, b, out = op.operands
    init = _collapse_unit(batch.batched(out, ip, loc), unit, ip, loc)
    if unit == 1 and 0 < batch.rows_first_elements <= math.prod(ir.RankedTensorType(a.type).shape):
        gemm = _weight_rows_gemm(batch, op, a, _collapse_unit(batch.mapped[b], 1, ip, loc), init, ip, loc)
    else:
        d = [ir.AffineDimExpr.get(i) for i in range(3)]  # (row, m or n, k)
        rows_map = ir.AffineMap.get(3, 0, [d[0], d[2]])
        weight_map = ir.AffineMap.get(3, 0, [d[1], d[2]] if unit == 1 else [d[2], d[1]])
        ins = [a, _collapse_unit(batch.mapped[b], 1, ip, loc)] if unit == 1 else [_collapse_unit(batch.mapped[a], 0, ip, loc), b]
        gemm = _gemm(op, ins, [weight_map, rows_map] if unit == 1 else [rows_map, weight_map], init, ip, loc)
    full = ir.RankedTensorType(batched_type(op.result.type))
    batch.mapped[op.result] = ir.Operation.create(
        "tensor.expand_shape", results=[full], operands=[gemm, batch.count],
        attributes={"reassociation": _reassociation([[0], [1, 2]] if unit == 1 else [[0, 1], [2]]),
                    "static_output_shape": ir.DenseI64ArrayAttr.get([_K_DYNAMIC, *full.shape[1:]])},
        ip=ip, loc=loc).result


def _gemm(op: ir.Operation, ins: list[ir.Value], in_maps: list[ir.AffineMap], init: ir.Value,
          ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    """A (d0, d1) += sum over d2 contraction of ``ins`` into ``init`` with the matvec ``op``'s body
    (moved here: ``op`` is erased once batched)."""
    d = [ir.AffineDimExpr.get(i) for i in range(3)]
    new = ir.Operation.create(
        "linalg.generic", results=[init.type], operands=[*ins, init],
        attributes={"indexing_maps": _maps(*in_maps, ir.AffineMap.get(3, 0, [d[0], d[1]])),
                    "iterator_types": _iterators(["parallel", "parallel", "reduction"]),
                    "operandSegmentSizes": op.attributes["operandSegmentSizes"]},
        regions=1, ip=ip, loc=loc)
    op.regions[0].blocks[0].append_to(new.regions[0])
    return new.result


def _weight_rows_gemm(batch: Batch, op: ir.Operation, weight: ir.Value, rows: ir.Value, init: ir.Value,
                      ip: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    """``Y = X W^T`` (b, m) computed as ``W X^T`` (m, b), W's rows leading, then transposed.

    A GEMM whose leading (M) dim is the few rows of a chunk gets a tiling from IREE 3.13's CPU
    backend that runs RNTN's 16 x 32768 x 256 contraction at a third of the speed of the same
    GEMM with W's 32768 rows leading (6.4-7.2 vs 1.7-2.1 ms CPU time, local-sync, data tiling
    off; ``benchmarks/gemm_orientation.py``). IREE's global optimization propagates a transpose
    into its producer's output map, which gives the slow form back, so the (m, b) result passes
    through ``util.optimization_barrier``: the transpose then fuses into the GEMM's consumer."""
    d = [ir.AffineDimExpr.get(i) for i in range(3)]  # (m, row, k)
    swapped = ir.DenseI64ArrayAttr.get([1, 0])
    init_t = ir.RankedTensorType(init.type)
    m_rows = ir.RankedTensorType.get([init_t.shape[1], init_t.shape[0]], init_t.element_type)
    empty = ir.Operation.create("tensor.empty", results=[m_rows], operands=[batch.count], ip=ip, loc=loc).result
    init_m = _transpose(init, empty, swapped, ip, loc)
    gemm = _gemm(op, [weight, rows], [ir.AffineMap.get(3, 0, [d[0], d[2]]), ir.AffineMap.get(3, 0, [d[1], d[2]])],
                 init_m, ip, loc)
    kept = ir.Operation.create(BARRIER, results=[m_rows], operands=[gemm], ip=ip, loc=loc).result
    return _transpose(kept, batch.empty(init_t, ip, loc), swapped, ip, loc)


def _barriers(fn: ir.Operation) -> list[ir.Operation]:
    found: list[ir.Operation] = []
    fn.walk(lambda op: (found.append(op) if op.name == BARRIER else None) or ir.WalkResult.ADVANCE)
    return found


def without_barriers(fn: ir.Operation, name: str) -> bool:
    """A copy of the level function ``fn`` named ``name``, its barriers removed, placed after it, if
    it has any: the guards are checked by a call whose table results are unused, and iree-compile
    drops their work only where no barrier (an op of unknown effects) holds a GEMM alive."""
    if not _barriers(fn):
        return False
    copy = fn.clone(ip=ir.InsertionPoint.after(fn))
    copy.attributes["sym_name"] = ir.StringAttr.get(name)
    for barrier in _barriers(copy):
        barrier.result.replace_all_uses_with(barrier.operands[0])
        barrier.erase()
    return True


def _transpose(v: ir.Value, into: ir.Value, permutation: ir.DenseI64ArrayAttr, ip: ir.InsertionPoint,
               loc: ir.Location) -> ir.Value:
    op = ir.Operation.create("linalg.transpose", results=[into.type], operands=[v, into],
                             attributes={"permutation": permutation}, regions=1, ip=ip, loc=loc)
    element = ir.RankedTensorType(v.type).element_type
    block = op.regions[0].blocks.append(element, element)
    ir.Operation.create("linalg.yield", operands=[block.arguments[0]], ip=ir.InsertionPoint(block), loc=loc)
    return op.result


@rule("linalg.generic")
def _structured(batch: Batch, op: ir.Operation) -> None:
    """A parallel batch dim in front; batched operands gain it in their maps, others keep theirs."""
    ip, loc = ir.InsertionPoint(op), op.location
    segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    ins, outs = list(op.operands[: segments[0]]), list(op.operands[segments[0]:])
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    block = op.regions[0].blocks[0]
    for inner_op in block.operations:
        if inner_op.name == "tensor.extract":  # its indices are clamped nowhere: a masked row could read out of bounds
            raise NotBatchable("linalg.generic that reads a tensor at computed indices (a gather)")
        for v in inner_op.operands:
            if batch.is_batched(v):
                raise NotBatchable("linalg.generic whose body reads a value that depends on the node")
        if inner_op.name == "linalg.index":
            dim = ir.IntegerAttr(inner_op.attributes["dim"]).value
            inner_op.attributes["dim"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim + 1)
    unit = _unit_dim(batch, op, maps)
    if unit is not None:
        _matvec_as_gemm(batch, op, unit)
        return
    new_ins = [batch.get(v) for v in ins]
    new_outs = [batch.batched(v, ip, loc) for v in outs]
    new_maps = [_shift(m, batch.is_batched(v)) for m, v in zip(maps, ins)] + [_shift(m, True) for m in maps[len(ins):]]
    kinds = [str(a).split("<")[1].rstrip(">") for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    new = ir.Operation.create(
        op.name, results=[batched_type(r.type) for r in op.results], operands=[*new_ins, *new_outs],
        attributes={"indexing_maps": _maps(*new_maps), "iterator_types": _iterators(["parallel", *kinds]),
                    "operandSegmentSizes": op.attributes["operandSegmentSizes"]},
        regions=1, ip=ip, loc=loc)
    block.append_to(new.regions[0])
    for old, result in zip(op.results, new.results):
        batch.mapped[old] = result


@rule("scf.if")
def _branches(batch: Batch, op: ir.Operation) -> None:
    """Both branches run on the batch under their masks; results merge row by row."""
    ip, loc = ir.InsertionPoint(op), op.location
    cond = op.operands[0]
    if cond in batch.data:
        raise NotBatchable("a branch on a value computed from a recursive call's result")
    if not batch.is_batched(cond):
        raise NotBatchable("scf.if on a condition that does not depend on the node")
    rows = batch.mapped[cond]
    outer = batch.mask
    taken = rows if outer is None else batch.elementwise("arith.andi", [outer, rows], cond.type, {}, ip, loc)
    negated = _negate(batch, rows, ip, loc)
    other = negated if outer is None else batch.elementwise("arith.andi", [outer, negated], cond.type, {}, ip, loc)
    yielded = []
    for region, mask in zip(op.regions, (taken, other)):
        batch.mask = mask
        block = region.blocks[0]
        ops = list(block.operations)
        for inner in ops[:-1]:
            inner.move_before(op)
            batch_op(batch, inner)
        yielded.append([batch.get(v) for v in ops[-1].operands])
    batch.mask = outer
    for result, then_v, else_v in zip(op.results, *yielded):
        t = batched_type(result.type)
        rank = ir.RankedTensorType(t).rank
        new_values = set(batch.mapped.values())
        values = [v if v in new_values else batch.broadcast(v, ip, loc) for v in (then_v, else_v)]

        def body(args: list[ir.Value], inner: ir.InsertionPoint, t: ir.Type = t) -> list[ir.Value]:
            return [build("arith.select", args[:3], ir.RankedTensorType(t).element_type, inner, loc)]

        batch.mapped[result] = batch.generic([rows, *values], [_batch_only(rank), identity_map(rank), identity_map(rank)],
                                             t, identity_map(rank), ["parallel"] * rank, body, ip, loc)
    batch.dead.append(op)


def _reads_memory(op: ir.Operation) -> bool:
    if op.name.startswith(_PURE_PREFIXES) or op.name in _PURE:
        return False
    if op.name == "linalg.generic":
        found = []
        op.walk(lambda o: (found.append(o) if o.name == "tensor.extract" else None) or ir.WalkResult.ADVANCE)
        return bool(found)
    return True


def batch_op(batch: Batch, op: ir.Operation) -> None:
    """Batch one op of the body (or leave it, if nothing it reads depends on the node)."""
    is_self_call = op.name == InvokeOp.OPERATION_NAME and op.attributes["callee"].value == batch.callee
    if op.name == InvokeOp.OPERATION_NAME and not is_self_call:
        raise NotBatchable(f"a call of @{op.attributes['callee'].value}")
    depends = is_self_call or any(batch.is_batched(v) for v in op.operands)
    if op.name in ("scf.if", GuardOp.OPERATION_NAME) and any(v in batch.data for v in op.operands):
        raise NotBatchable(f"{op.name} on a value computed from a recursive call's result")
    if not depends and op.name == "scf.if":
        raise NotBatchable("scf.if on a condition that does not depend on the node")
    if op.name == GuardOp.OPERATION_NAME:
        RULES[op.name](batch, op)
        return
    if not depends:
        if batch.mask is not None and _reads_memory(op):
            raise NotBatchable(f"{op.name} in a branch reads memory whatever the node")
        return
    if op.name not in RULES:
        raise NotBatchable(f"no batching rule for {op.name}")
    if any(v in batch.data for v in op.operands[1:]) and op.name in ("tensor.extract", "tensor.extract_slice"):
        raise NotBatchable(f"{op.name} at an index computed from a recursive call's result")
    if is_self_call and op.operands[0] in batch.data:
        raise NotBatchable("a recursive call on a node computed from a recursive call's result")
    RULES[op.name](batch, op)
    if op.name == "scf.if" or any(v in batch.data for v in op.operands):
        batch.data.update(op.results)
    if op.name != "scf.if":
        batch.dead.append(op)
