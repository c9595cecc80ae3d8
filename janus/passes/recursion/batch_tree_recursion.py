"""``janus-batch-tree-recursion``: a recursion over tree nodes runs one batch per tree level.

A self-recursive function ``f(node: i64, columns..., params...)`` whose recursive calls
pass a child id read from one of its own columns at its own node, and every other
argument unchanged, computes one row per node. This pass builds ``f_level`` (``f``'s body
over a batch of node rows: ``batching.RULES``) and ``f_table`` (the level loop of
``wavefront_form``: every node's row, deepest level first) and turns each call of ``f``
from outside into a read of the table at the node's row. A function the pass does not
handle is left as it is (``janus-eliminate-recursion`` then runs it node by node); the
reason is logged on ``janus.passes``.

Every node of the columns is computed, visited by the recursion or not; such a node can
only fail a guard (a fallback), since rows of nodes the program never reached are never
read. The tables live in a mutable global (``wavefront_form``), so the compiled module is
stateful (the runtime serializes its calls). By default only a recursion whose node reads a
weight of at least ``min-node-weights`` elements, or that is called from ``min-calls`` places or
more (the trees of a forest), is batched: below both the level loop's fixed cost per
chunk measured slower than node-by-node execution (docs/lowering.md).
"""

from __future__ import annotations

import logging

from iree.compiler import passmanager

from janus.dialects import GuardOp, InvokeOp
from janus.ir import ir
from janus.passes.callgraph import call_graph, call_sites, cycles, functions
from janus.passes.options import option
from janus.passes.recursion import batching, wavefront_form
from janus.passes.registry import ModulePass, register_pass

LOG = logging.getLogger("janus.passes")
_I64 = "i64"


def _is_column(t: ir.Type) -> bool:
    return (isinstance(t, ir.RankedTensorType) and t.rank == 1 and t.is_dynamic_dim(0)
            and str(t.element_type) == _I64)


def _child_column(fn: ir.Operation, site: ir.Operation) -> int:
    """The argument number of the column the recursive call ``site`` reads its node from."""
    args = list(fn.regions[0].blocks[0].arguments)
    read = site.operands[0].owner
    if isinstance(read, ir.Block) or read.name != "tensor.extract" or len(read.operands) != 2:
        raise batching.NotBatchable("a recursive call whose node is not read from a column")
    column, index = read.operands
    cast = index.owner
    if (isinstance(cast, ir.Block) or cast.name != "arith.index_cast" or cast.operands[0] != args[0]
            or column not in args or not _is_column(column.type)):
        raise batching.NotBatchable("a recursive call whose node is not a column read at the function's node")
    return args.index(column)


def _analyse(fn: ir.Operation) -> list[int]:
    """The child columns (argument numbers) of the tree recursion ``fn``, or NotBatchable."""
    name = fn.attributes["sym_name"].value
    args = list(fn.regions[0].blocks[0].arguments)
    if not args or str(args[0].type) != _I64:
        raise batching.NotBatchable("the first argument is not an i64 node id")
    results = fn.attributes["function_type"].value.results
    if not results or not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in results):
        raise batching.NotBatchable("a result that is not a tensor of static shape")
    children = []
    for site in call_sites(fn):
        if site.name != InvokeOp.OPERATION_NAME or site.attributes["callee"].value != name:
            raise batching.NotBatchable(f"a call of @{site.attributes['callee'].value}")
        if list(site.operands[1:]) != args[1:]:
            raise batching.NotBatchable("a recursive call that changes an argument other than the node")
        children.append(_child_column(fn, site) - 1)
    if not children:
        raise batching.NotBatchable("no recursive call")
    return sorted(set(children))


#: ops that only view a tensor in another shape: a weight read through one is still the weight
_VIEWS = ("tensor.collapse_shape", "tensor.expand_shape", "tensor.cast")


def _viewed(v: ir.Value) -> ir.Value:
    while not isinstance(v.owner, ir.Block) and v.owner.name in _VIEWS:
        v = v.owner.operands[0]
    return v


def _largest_weight(fn: ir.Operation) -> int:
    """Elements of the largest static tensor argument of ``fn`` a structured op reads (RNTN's V
    of 128x256x256 through the reshape its matmul reads)."""
    args = set(fn.regions[0].blocks[0].arguments)
    largest = [0]

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name.startswith("linalg."):
            for v in map(_viewed, op.operands):
                t = v.type
                if v in args and isinstance(t, ir.RankedTensorType) and t.has_static_shape:
                    largest[0] = max(largest[0], _elements(t))
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return largest[0]


def _elements(t: ir.RankedTensorType) -> int:
    count = 1
    for d in t.shape:
        count *= d
    return count


def _level_function(fn: ir.Operation, level: str, tables: list[ir.Type], rows_first_elements: int) -> list[str]:
    """A copy of ``fn`` over a batch of rows: (args but the node..., start, count, tables...)
    -> (rows..., whether each guard held on the batch...); returns those guards' attributes."""
    copy = fn.clone(ip=ir.InsertionPoint(fn))
    copy.attributes["sym_name"] = ir.StringAttr.get(level)
    passmanager.PassManager.parse("func.func(linalg-generalize-named-ops)").run(copy)
    block = copy.regions[0].blocks[0]
    index, loc = ir.IndexType.get(), fn.location
    start, count = block.add_argument(index, loc), block.add_argument(index, loc)
    table_args = [block.add_argument(t, loc) for t in tables]
    node = block.arguments[0]
    batch = batching.Batch(fn.attributes["sym_name"].value, count, table_args, rows_first_elements=rows_first_elements)
    first = ir.InsertionPoint.at_block_begin(block)
    rows = batch.generic([], [], ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], node.type),
                         batching.identity_map(1), ["parallel"], lambda _, inner: [_iota(start, node.type, inner, loc)],
                         first, loc)
    batch.mapped[node] = rows
    ops = list(block.operations)
    for op in ops[:-1]:
        batching.batch_op(batch, op)
    ret = ops[-1]
    ip = ir.InsertionPoint(ret)
    held = batch.all_rows([rows for rows, _ in batch.checks], ip, loc) if batch.checks else []
    results = [batch.batched(v, ip, loc) for v in ret.operands] + held
    ir.Operation.create("func.return", operands=results, ip=ip, loc=ret.location)
    checks = [_attributes_text(guard) for _, guard in batch.checks]
    ret.erase()
    for op in reversed(batch.dead):
        op.erase()
    block.erase_argument(0)
    copy.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([a.type for a in block.arguments], [r.type for r in results]))
    return checks


def _attributes_text(op: ir.Operation) -> str:
    named = [op.attributes[i] for i in range(len(op.attributes))]
    return "{" + ", ".join(f"{a.name} = {a.attr}" for a in named) + "}"


def _iota(start: ir.Value, t: ir.Type, inner: ir.InsertionPoint, loc: ir.Location) -> ir.Value:
    i = batching.build("linalg.index", [], ir.IndexType.get(), inner, loc,
                     {"dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
    row = batching.build("arith.addi", [start, i], ir.IndexType.get(), inner, loc)
    return batching.build("arith.index_cast", [row], t, inner, loc)


def _next_guard_id(module_op: ir.Operation) -> int:
    ids = [-1]
    module_op.walk(lambda op: (ids.append(GuardOp(op).id) if op.name == GuardOp.OPERATION_NAME else None)
                   or ir.WalkResult.ADVANCE)
    return max(ids) + 1


def _table_call(site: ir.Operation, table: str, made: dict) -> ir.Operation:
    """The call of the table function for ``site``: one per caller at its start when every
    argument is one of the caller's own (the entry reads several roots' children from one
    table), else at the site."""
    args = list(site.operands[1:])
    caller = site.parent
    while caller.name != "func.func":
        caller = caller.parent
    entry = caller.regions[0].blocks[0]
    own = all(isinstance(a.owner, ir.Block) and a.owner == entry for a in args)
    key = (caller.attributes["sym_name"].value, *args)
    if own and key in made:
        return made[key]
    ip = ir.InsertionPoint.at_block_begin(entry) if own else ir.InsertionPoint(site)
    call = ir.Operation.create("func.call", results=[batching.batched_type(r.type) for r in site.results],
                               operands=args, attributes={"callee": ir.FlatSymbolRefAttr.get(table)},
                               ip=ip, loc=site.location)
    if own:
        made[key] = call
    return call


def _read_rows(site: ir.Operation, table: str, guard_id: int, made: dict) -> None:
    """``invoke @f(%node, args...)`` from outside: the node's rows of ``f``'s tables."""
    ip, loc = ir.InsertionPoint(site), site.location
    tables = _table_call(site, table, made)
    i64 = ir.IntegerType.get_signless(64)
    node = site.operands[0]
    rows = batching.build("arith.index_cast", [batching.dim_of(tables.results[0], 0, ip, loc)], i64, ip, loc)
    zero = batching.build("arith.constant", [], i64, ip, loc, {"value": ir.IntegerAttr.get(i64, 0)})
    low = batching.build("arith.cmpi", [node, zero], ir.IntegerType.get_signless(1), ip, loc,
                       {"predicate": ir.IntegerAttr.get(i64, 5)})  # sge
    high = batching.build("arith.cmpi", [node, rows], ir.IntegerType.get_signless(1), ip, loc,
                        {"predicate": ir.IntegerAttr.get(i64, 2)})  # slt
    inside = batching.build("arith.andi", [low, high], low.type, ip, loc)
    GuardOp.build(inside, guard_id, "value", f"@{table}: a node of the tree", ip=ip)
    index = batching.build("arith.index_cast", [node], ir.IndexType.get(), ip, loc)
    for result, t in zip(site.results, tables.results):
        shape = ir.RankedTensorType(result.type).shape
        read = ir.Operation.create(
            "tensor.extract_slice", results=[result.type], operands=[t, index],
            attributes={"static_offsets": ir.DenseI64ArrayAttr.get([-(2**63), *[0] * len(shape)]),
                        "static_sizes": ir.DenseI64ArrayAttr.get([1, *shape]),
                        "static_strides": ir.DenseI64ArrayAttr.get([1] * (len(shape) + 1)),
                        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, 0, 0])}, ip=ip, loc=loc)
        result.replace_all_uses_with(read.result)
    site.erase()


@register_pass
class BatchTreeRecursion(ModulePass):
    name = "janus-batch-tree-recursion"
    summary = "Run a self-recursion over tree nodes one batch per tree level (wavefront)."

    #: Measured on this machine (issue 15, CPU time per tree, pass on and off alternated in one
    #: process, full-size zoo models): a level's fixed cost (then about ten dispatches per chunk, three
    #: since issue 15's fourth round; and a host read-back per level) pays off only when a node's
    #: weights are large: TreeLSTM (W of 256x640) 1.24x at batch 1 and 1.03x at 25, RNTN (V of
    #: 128x256x256) 1.09x and 1.27x; TreeRNN (W of 256x128) loses (0.75-0.82x at batch 1, 0.79x at 25)
    #: and stays node by node.
    min_node_weights: int = option(
        65536, "batch a recursion if one structured op of its node reads a weight (a tensor that is the "
        "same for every node) of at least this many elements; 0: batch none", minimum=0)
    #: Measured (issue 15, CPU time per tree, pass on and off alternated in one process, full-size
    #: zoo TreeRNN, whose weights are below ``min_node_weights``; the entry runs each root's own step
    #: and calls the recursion on its two children): batches of 1 and 4 trees (2 and 8 calls) 0.76x
    #: and 0.97x, of 10 and 25 trees (20 and 50 calls) 1.24x and 1.42x: many trees fill the chunks.
    min_calls: int = option(
        16, "batch a recursion whatever its weights when the module calls it from outside at this many "
        "places or more (the trees of a forest: one level loop serves them all); 0: never by this rule",
        minimum=0)
    table_rows: int = option(
        16384, "rows of each table (a static global): a call over more nodes fails a guard and runs in Python",
        minimum=max(wavefront_form.TIERS))
    #: Measured (RNTN inference, full size, local-sync, CPU time of iree-benchmark-module): V @ x over
    #: a 16-row chunk (V of 32768x256 rows) runs 6.4-7.2 ms with the chunk's rows leading and
    #: 1.7-2.1 ms with V's (``benchmarks/gemm_orientation.py``). Not for small weights: in the
    #: tests' own TreeRNN (two 6x6 matvecs in a masked branch) the barrier this form needs made
    #: iree-compile 3.13 fail ("operand #1 does not dominate this use", stream scheduling).
    weight_rows_first: int = option(
        1 << 20, "a matvec W @ x whose W has at least this many elements runs over a chunk as W X^T, W's rows "
        "leading (IREE tiles a GEMM led by a chunk's few rows 3x slower); 0: never", minimum=0)

    def apply(self, module_op: ir.Operation) -> None:
        fns = functions(module_op)
        for scc in cycles(call_graph(module_op)):
            if len(scc) == 1:
                with fns[scc[0]].location:
                    self._batch(module_op, fns[scc[0]], fns)

    def _batch(self, module_op: ir.Operation, fn: ir.Operation, fns: dict[str, ir.Operation]) -> None:
        name = fn.attributes["sym_name"].value
        level, table = f"{name}_level", f"{name}_table"
        args = list(fn.regions[0].blocks[0].arguments)
        row_types = list(fn.attributes["function_type"].value.results)
        if not self.min_node_weights:
            return
        calls = sum(site.attributes["callee"].value == name for caller, other in fns.items() if caller != name
                    for site in call_sites(other))
        if _largest_weight(fn) < self.min_node_weights and not 0 < self.min_calls <= calls:
            LOG.info("janus-batch-tree-recursion: @%s stays node by node: its weights are smaller than "
                     "min-node-weights=%d and it is called from %d place(s), fewer than min-calls=%d",
                     name, self.min_node_weights, calls, self.min_calls)
            return
        try:
            children = _analyse(fn)
            if len(set(map(str, row_types))) > 1:  # the tables are stacked in one global
                raise batching.NotBatchable("results of different types")
            tables = [ir.Type.parse(wavefront_form.table_type(str(t))) for t in row_types]
            checks = _level_function(fn, level, tables, self.weight_rows_first)
            functions(module_op)[level].verify()
        except (batching.NotBatchable, ir.MLIRError) as e:  # a function it cannot batch keeps today's path
            if level in functions(module_op):
                functions(module_op)[level].erase()
            LOG.info("janus-batch-tree-recursion: @%s stays node by node: %s", name, e)
            return
        checker = f"{name}_checks"
        has_checker = bool(checks) and batching.without_barriers(functions(module_op)[level], checker)
        guard_id = _next_guard_id(module_op)
        spec = wavefront_form.TableSpec(
            table, level, tuple(str(a.type) for a in args[1:]), tuple(children), tuple(str(t) for t in row_types),
            guard_id, f"@{name}: children numbered after their level (breadth-first)", tuple(checks), self.table_rows,
            checker if has_checker else "")
        parsed = ir.Module.parse("\n".join([wavefront_form.table_globals(spec), wavefront_form.level_declaration(spec),
                                            wavefront_form.table_function(spec)]))
        first = module_op.regions[0].blocks[0].operations[0]
        for op in list(parsed.body.operations):
            if op.name == "util.global":  # iree-compile converts a global's uses only after the global
                op.move_before(first)
            elif op.attributes["sym_name"].value == table:
                op.move_before(fn)
        made: dict = {}
        for caller, other in fns.items():
            if caller != name:
                for site in call_sites(other):
                    if site.attributes["callee"].value == name:
                        _read_rows(site, table, guard_id + 2, made)
        fn.erase()
        LOG.info("janus-batch-tree-recursion: @%s runs one batch per level", name)
