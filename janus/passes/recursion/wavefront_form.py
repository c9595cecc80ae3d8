"""The level loop a batched tree recursion runs: the one place its form is written.

``janus-batch-tree-recursion`` turns a self-recursive function over tree nodes into a
per-level function (``level``: the body run on a batch of consecutive node rows) and this
table function, which runs it level by level (docs/lowering.md, "Wavefront execution").

The schedule needs no sort: the linearizer numbers nodes breadth-first, so a node's
children come after it. Levels are discovered top-down as contiguous row ranges (the next
level ends past the last child of this one), with a guard that every child lies past the
current level (true for a breadth-first numbering; anything else falls back), then run
bottom-up. Level starts live in an IREE VM list (``!util.list<?>``: host memory).

The form of the run, each rule measured or forced by iree-compile 3.13:

- the tables (one per result, all of one type) are stacked in ONE mutable ``util.global`` of
  static size ``[results, table_rows, row...]``, loaded and stored around each chunk, so the
  rows are updated in place; nothing is loop-carried (a table as an ``scf.for`` iter_arg is
  copied whole on every trip); a guard checks that the nodes fit. One global per table gave
  wrong rows for TreeLSTM's two, and two updates of one global per chunk copied it whole;
- a level runs as static chunks (``TIERS``: 16 rows, then 4), from the level's end down, so
  the level function's matmuls get a static M (twice the speed of a dynamic one) below the
  32 rows at which the CPU preset turns data tiling on; the rows a chunk computes past the
  level are rewritten later (shallower) or recomputed from finished children (deeper);
- the rows are read out after the loop inside an ``scf.if`` and copied: a load placed straight
  after the loop was moved above it (stale rows), and two table calls (two tree arguments; a
  list of trees is one forest, one call) run on the same global;
- the level function's guards are checked once, on every node, before the levels run (its
  table results unused, so only the guards' reduction is compiled): a guard never reads a
  recursive call's result; checking them per chunk cost a reduction dispatch and an update of
  a guard global per chunk;
- the global makes the compiled module stateful: the runtime does not let its calls overlap
  (``FunctionInfo.stateful``).
"""

from __future__ import annotations

from dataclasses import dataclass

from janus.ir import ir

_INT64_MAX = 2**63 - 1
_CHECK = "tensor<i1>"


@dataclass(frozen=True)
class TableSpec:
    """What the table function needs to know about the recursion it runs."""

    name: str  # of the table function to build
    level: str  # the per-level function: (args..., start, count, tables...) -> rows
    arg_types: tuple[str, ...]  # the recursive function's arguments but the node
    child_args: tuple[int, ...]  # positions (in ``arg_types``) of the child columns
    row_types: tuple[str, ...]  # each result's type for one node, e.g. ``tensor<8xf32>``
    guard_id: int  # the id of the schedule's guard
    source: str  # what the guard protects, for explain
    checks: tuple[str, ...] = ()  # attributes of the guards the level function reports on (``tensor<i1>`` each)
    table_rows: int = 16384  # static rows of each table; ``guard_id + 1`` guards that the nodes fit
    #: the function the guards are checked with, on every node (``level`` when empty): the level
    #: function's form whose table work iree-compile can drop (``batching.without_barriers``)
    checked_by: str = ""

    @property
    def checker(self) -> str:
        return self.checked_by or self.level


def _shape_and_element(row_type: str) -> tuple[list[str], str]:
    t = ir.RankedTensorType(ir.Type.parse(row_type))
    return [str(d) for d in t.shape], str(t.element_type)


def table_type(row_type: str) -> str:
    """A table of one result: a leading dynamic row dim over the node's result."""
    dims, element = _shape_and_element(row_type)
    return f"tensor<{'x'.join(['?', *dims])}x{element}>"


def _schedule(spec: TableSpec) -> list[str]:
    """Discover the levels top-down; ``%list`` ends up holding every start and then n."""
    cols = [f"%a{i}" for i in spec.child_args]
    slices = [f"    %sl{j} = tensor.extract_slice {c}[%s] [%len] [1] : tensor<?xi64> to tensor<?xi64>"
              for j, c in enumerate(cols)]
    body, mx, mn = [], "%out_mx", "%out_mn"
    for j in range(len(cols)):
        body += [f"      %m{j} = arith.maxsi {mx}, %in{j} : i64",
                 f"      %v{j} = arith.cmpi sge, %in{j}, %zero64 : i64",
                 f"      %pick{j} = arith.select %v{j}, %in{j}, %max64 : i64",
                 f"      %low{j} = arith.minsi {mn}, %pick{j} : i64"]
        mx, mn = f"%m{j}", f"%low{j}"
    ins = ", ".join(f"%sl{j}" for j in range(len(cols)))
    in_types = ", ".join("tensor<?xi64>" for _ in cols)
    in_args = ", ".join(f"%in{j}: i64" for j in range(len(cols)))
    maps = ", ".join(["affine_map<(d0) -> (d0)>"] * len(cols) + ["affine_map<(d0) -> ()>"] * 2)
    return [
        "  %list = util.list.create %c1 : !util.list<?>",
        "  %e0 = arith.minui %c1, %n : index",
        "  %done:2 = scf.while (%s = %c0, %e = %e0) : (index, index) -> (index, index) {",
        "    %more = arith.cmpi ult, %s, %n : index",
        "    scf.condition(%more) %s, %e : index, index",
        "  } do {",
        "  ^bb0(%s: index, %e: index):",
        "    %size = util.list.size %list : !util.list<?>",
        "    %size1 = arith.addi %size, %c1 : index",
        "    util.list.resize %list, %size1 : !util.list<?>",
        "    util.list.set %list[%size], %s : index -> !util.list<?>",
        "    %len = arith.subi %e, %s : index",
        *slices,
        "    %mx0 = tensor.empty() : tensor<i64>",
        "    %mxf = linalg.fill ins(%minus1 : i64) outs(%mx0 : tensor<i64>) -> tensor<i64>",
        "    %mnf = linalg.fill ins(%max64 : i64) outs(%mx0 : tensor<i64>) -> tensor<i64>",
        f"    %red:2 = linalg.generic {{indexing_maps = [{maps}], iterator_types = [\"reduction\"]}}",
        f"        ins({ins} : {in_types}) outs(%mxf, %mnf : tensor<i64>, tensor<i64>) {{",
        f"    ^bb0({in_args}, %out_mx: i64, %out_mn: i64):",
        *body,
        f"      linalg.yield {mx}, {mn} : i64, i64",
        "    } -> (tensor<i64>, tensor<i64>)",
        "    %last = tensor.extract %red#0[] : tensor<i64>",
        "    %first = tensor.extract %red#1[] : tensor<i64>",
        "    %e64 = arith.index_cast %e : index to i64",
        "    %n64 = arith.index_cast %n : index to i64",
        "    %later = arith.cmpi sge, %first, %e64 : i64",
        "    %inside = arith.cmpi slt, %last, %n64 : i64",
        "    %ok = arith.andi %later, %inside : i1",
        f"    \"janus.guard\"(%ok) {{id = {spec.guard_id} : i64, kind = \"value\", source = \"{spec.source}\"}} : (i1) -> ()",
        "    %past = arith.addi %last, %one64 : i64",
        "    %pasti = arith.index_cast %past : i64 to index",
        "    %e1 = arith.addi %e, %c1 : index",
        "    %grow = arith.maxsi %e1, %pasti : index",
        "    %next = arith.minsi %grow, %n : index",
        "    scf.yield %e, %next : index, index",
        "  }",
        "  %levels = util.list.size %list : !util.list<?>",
        "  %levels1 = arith.addi %levels, %c1 : index",
        "  util.list.resize %list, %levels1 : !util.list<?>",
        "  util.list.set %list[%levels], %n : index -> !util.list<?>",
    ]


#: chunk sizes a level runs in, largest first: static batch sizes (a dynamic-M matmul runs at half
#: the speed of a static one), below 32 rows (the CPU preset's data tiling would re-encode the
#: weights on every chunk); docs/lowering.md, "Wavefront execution"
TIERS = (16, 4)


def _globals(spec: TableSpec) -> list[str]:
    """The tables, stacked in one mutable global of static size (updated in place: as a loop's
    iter_arg a table is copied whole on every trip; one global per table gave TreeLSTM's two
    wrong rows with iree-compile 3.13, for a reason not found)."""
    element = _shape_and_element(spec.row_types[0])[1]
    zero = "0.0" if element.startswith(("f", "bf")) else "0"
    return [f"util.global private mutable @{spec.name}_rows = dense<{zero}> : {_stacked(spec)}"]


def _stacked(spec: TableSpec) -> str:
    dims, element = _shape_and_element(spec.row_types[0])
    return f"tensor<{'x'.join([str(len(spec.row_types)), str(spec.table_rows), *dims])}x{element}>"


def _slice(table: int, offset: str, rows: str, dims: list[str]) -> tuple[str, str, str]:
    """Offsets, sizes and strides of rows ``offset .. offset + rows`` of table ``table`` in the stack."""
    return (", ".join([str(table), offset, *("0" for _ in dims)]), ", ".join(["1", rows, *dims]),
            ", ".join("1" for _ in range(len(dims) + 2)))


def _chunk(spec: TableSpec, rows: int, at: str, tag: str) -> list[str]:
    """Rows ``at .. at + rows`` computed by ``spec.level`` and stored into the tables."""
    tables = [table_type(t) for t in spec.row_types]
    stacked = _stacked(spec)
    dims, element = _shape_and_element(spec.row_types[0])
    lines = _level_call(spec, at, f"%c{rows}", tag, "      ")
    chunk = f"tensor<{'x'.join([str(rows), *dims])}x{element}>"
    block = f"tensor<{'x'.join([str(len(tables)), str(rows), *dims])}x{element}>"
    into = f"%b{tag}"
    lines.append(f"      {into} = tensor.empty() : {block}")
    for r, table in enumerate(tables):
        offsets, sizes, strides = _slice(r, "0", str(rows), dims)
        lines += [f"      %r{r}{tag} = tensor.cast %rows{tag}#{r} : {table} to {chunk}",
                  f"      %u{r}{tag} = tensor.insert_slice %r{r}{tag} into {into}[{offsets}] [{sizes}] [{strides}]"
                  f" : {chunk} into {block}"]
        into = f"%u{r}{tag}"
    offsets, sizes, strides = _slice(0, at, str(rows), dims)
    sizes = sizes.replace("1, ", f"{len(tables)}, ", 1)
    lines.append(f"      %all{tag} = tensor.insert_slice {into} into %t{tag}[{offsets}] [{sizes}] [{strides}] : {block} into {stacked}")
    into = f"%all{tag}"
    lines.append(f"      util.global.store {into}, @{spec.name}_rows : {stacked}")
    return lines


def _level_call(spec: TableSpec, at: str, count: str, tag: str, indent: str, callee: str = "") -> list[str]:
    """``spec.level`` (or ``callee``, of the same type) on rows ``at .. at + count`` over the tables
    as they are now: ``%rows{tag}#r`` is result ``r`` (the tables' rows, then whether each guard held)."""
    tables = [table_type(t) for t in spec.row_types]
    stacked = _stacked(spec)
    dims = _shape_and_element(spec.row_types[0])[0]
    lines = [f"{indent}%t{tag} = util.global.load @{spec.name}_rows : {stacked}"]
    for r, table in enumerate(tables):
        offsets, sizes, strides = _slice(r, "0", "%rows_max", dims)
        lines.append(f"{indent}%d{r}{tag} = tensor.extract_slice %t{tag}[{offsets}] [{sizes}] [{strides}] : {stacked} to {table}")
    call_args = ", ".join([*(f"%a{i}" for i in range(len(spec.arg_types))), at, count,
                           *(f"%d{r}{tag}" for r in range(len(tables)))])
    call_types = ", ".join([*spec.arg_types, "index", "index", *tables])
    results = _level_results(spec)
    lines.append(f"{indent}%rows{tag}:{len(results)} = func.call @{callee or spec.level}({call_args}) : ({call_types}) -> ({', '.join(results)})")
    return lines


def _checks(spec: TableSpec) -> list[str]:
    """The level function's guards, checked once on every node before the levels run: a guard
    never reads a recursive call's result (``batching`` refuses one that does), so the rows it
    checks are functions of the columns alone; the call's table results are unused and
    iree-compile drops their work. One reduction for the call instead of one per chunk (and a
    global updated per chunk)."""
    if not spec.checks:
        return []
    tables = len(spec.row_types)
    lines = _level_call(spec, "%c0", "%n", "_held", "  ", spec.checker)
    for g, attributes in enumerate(spec.checks):
        lines += [f"  %held{g} = tensor.extract %rows_held#{tables + g}[] : {_CHECK}",
                  f"  \"janus.guard\"(%held{g}) {attributes} : (i1) -> ()"]
    return lines


def _tiers(spec: TableSpec) -> list[str]:
    """A level (rows ``%s .. %e``) as static chunks, from its end down: as many ``TIERS[0]``-row
    chunks as fit, then the rest in ``TIERS[1]``-row chunks, the last one reaching below ``%s``
    (clamped at row 0). A chunk row above the level belongs to a shallower level, run later,
    which overwrites it; a chunk row below it is a deeper, finished row, recomputed to the same
    value; rows past the last node read the last node's columns (the level function clamps
    every read) and land in table rows no one reads."""
    lines = ["    %left0 = arith.subi %e, %s : index", "    %end0 = arith.addi %e, %c0 : index"]
    for k, rows in enumerate(TIERS):
        last = k == len(TIERS) - 1
        if last:  # the rest, rounded up
            count = [f"    %more{k} = arith.addi %left{k}, %c{rows - 1} : index",
                     f"    %trips{k} = arith.divui %more{k}, %c{rows} : index"]
        else:
            count = [f"    %trips{k} = arith.divui %left{k}, %c{rows} : index"]
        lines += [*count,
                  f"    scf.for %j{k} = %c0 to %trips{k} step %c1 {{",
                  f"      %j1{k} = arith.addi %j{k}, %c1 : index",
                  f"      %back{k} = arith.muli %j1{k}, %c{rows} : index",
                  f"      %low{k} = arith.subi %end{k}, %back{k} : index",
                  f"      %at{k} = arith.maxsi %low{k}, %c0 : index",
                  *_chunk(spec, rows, f"%at{k}", f"_{k}"),
                  "    }"]
        if not last:
            lines += [f"    %done{k} = arith.muli %trips{k}, %c{rows} : index",
                      f"    %left{k + 1} = arith.subi %left{k}, %done{k} : index",
                      f"    %end{k + 1} = arith.subi %end{k}, %done{k} : index"]
    return lines


def _run_levels(spec: TableSpec) -> list[str]:
    """Bottom-up: each level's rows computed by ``spec.level`` in static chunks and stored into
    the tables, after the guards the level function reports on were checked on every node.
    Nothing is loop-carried, so iree-compile updates the tables in place."""
    tables = [table_type(t) for t in spec.row_types]
    return_types = ", ".join(tables)
    stacked = _stacked(spec)
    dims = _shape_and_element(spec.row_types[0])[0]
    # After the loop, inside an scf.if: iree-compile 3.13 moved a load placed straight after the
    # loop above it (a stale table); the rows are copied out, so later calls of the table
    # function (one per tree argument) cannot overwrite them before they are read.
    out = ["  %ran = arith.cmpi ne, %levels, %c0 : index",
           f"  %out:{len(tables)} = scf.if %ran -> ({return_types}) {{",
           f"    %final = util.global.load @{spec.name}_rows : {stacked}"]
    for r, table in enumerate(tables):
        offsets, sizes, strides = _slice(r, "0", "%n", dims)
        out += [f"    %slice{r} = tensor.extract_slice %final[{offsets}] [{sizes}] [{strides}] : {stacked} to {table}",
                f"    %fresh{r} = tensor.empty(%n) : {table}",
                f"    %copy{r} = linalg.copy ins(%slice{r} : {table}) outs(%fresh{r} : {table}) -> {table}"]
    out += [f"    scf.yield {', '.join(f'%copy{r}' for r in range(len(tables)))} : {return_types}",
            "  } else {"]
    out += [f"    %none{r} = tensor.empty(%n) : {table}" for r, table in enumerate(tables)]
    out += [f"    scf.yield {', '.join(f'%none{r}' for r in range(len(tables)))} : {return_types}",
            "  }"]
    return [
        *(f"  %c{c} = arith.constant {c} : index" for c in sorted({*TIERS, TIERS[-1] - 1} - {0, 1})),
        f"  %rows_max = arith.constant {spec.table_rows} : index",
        "  %fits = arith.cmpi ule, %n, %rows_max : index",
        f"  \"janus.guard\"(%fits) {{id = {spec.guard_id + 1} : i64, kind = \"value\", source = \"@{spec.name}: "
        f"at most {spec.table_rows} nodes (janus-batch-tree-recursion's table-rows)\"}} : (i1) -> ()",
        *_checks(spec),
        "  scf.for %i = %c0 to %levels step %c1 {",
        "    %back = arith.subi %levels, %i : index",
        "    %k = arith.subi %back, %c1 : index",
        "    %s = util.list.get %list[%k] : !util.list<?> -> index",
        "    %e = util.list.get %list[%back] : !util.list<?> -> index",
        *_tiers(spec),
        "  }",
        *out,
        f"  return {', '.join(f'%out#{r}' for r in range(len(tables)))} : {return_types}",
    ]


def _level_results(spec: TableSpec) -> list[str]:
    return [table_type(t) for t in spec.row_types] + [_CHECK] * len(spec.checks)


def level_declaration(spec: TableSpec) -> str:
    """Declarations of the per-level function (and the guards' checker), so that the table
    function's text verifies alone."""
    types = ", ".join([*spec.arg_types, "index", "index", *(table_type(t) for t in spec.row_types)])
    return "\n".join(f"func.func private @{name}({types}) -> ({', '.join(_level_results(spec))})"
                     for name in dict.fromkeys([spec.level, spec.checker]))


def table_globals(spec: TableSpec) -> str:
    """The global the table function keeps its tables in."""
    return "\n".join(_globals(spec))


def table_function(spec: TableSpec) -> str:
    """The table function's text: every node's results, one row per node."""
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(spec.arg_types))
    tables = ", ".join(table_type(t) for t in spec.row_types)
    first_column = f"%a{spec.child_args[0]}"
    lines = [
        f"func.func private @{spec.name}({params}) -> ({tables}) attributes {{no_inline}} {{",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %zero64 = arith.constant 0 : i64",
        "  %one64 = arith.constant 1 : i64",
        "  %minus1 = arith.constant -1 : i64",
        f"  %max64 = arith.constant {_INT64_MAX} : i64",
        f"  %n = tensor.dim {first_column}, %c0 : tensor<?xi64>",
        *_schedule(spec),
        *_run_levels(spec),
        "}",
    ]
    return "\n".join(lines)
