"""The level loop a batched tree recursion runs: the one place its form is written.

``janus-batch-tree-recursion`` turns a self-recursive function over tree nodes into a
per-level function (``level``: the body run on a batch of consecutive node rows) and this
table function, which runs it level by level. The form follows
``benchmarks/wavefront_bound.py``'s ``WAVEFRONT``: a host loop over levels, each trip a
batch computed from the rows of the table the later levels filled, its rows inserted.

The schedule needs no sort: the linearizer numbers nodes breadth-first, so a node's
children come after it. Levels are discovered top-down as contiguous row ranges (the next
level ends past the last child of this one), with a guard that every child lies past the
current level (true for a breadth-first numbering; anything else falls back), then run
bottom-up. Level starts live in an IREE VM list (``!util.list<?>``: host memory).
Swapping in a faster form means changing ``table_function`` only.
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


def _run_levels(spec: TableSpec) -> list[str]:
    """Bottom-up: each level's rows computed by ``spec.level`` and inserted into the tables;
    the guards the levels report on are ANDed on the device and checked after the loop."""
    tables = [table_type(t) for t in spec.row_types]
    carried = tables + [_CHECK] * len(spec.checks)
    # distinct initial contents: tables that CSE merged into one buffer break IREE's in-place inserts
    inits = ["  %holds = arith.constant dense<true> : tensor<i1>"]
    for r, (row, table) in enumerate(zip(spec.row_types, tables)):
        element = _shape_and_element(row)[1]
        value = f"{r}.0" if element.startswith(("f", "bf")) else str(r)
        inits += [f"  %fill{r} = arith.constant {value} : {element}",
                  f"  %empty{r} = tensor.empty(%n) : {table}",
                  f"  %init{r} = linalg.fill ins(%fill{r} : {element}) outs(%empty{r} : {table}) -> {table}"]
    iters = ", ".join([*(f"%t{r} = %init{r}" for r in range(len(tables))),
                       *(f"%ok{g} = %holds" for g in range(len(spec.checks)))])
    args = [f"%a{i}" for i in range(len(spec.arg_types))]
    call_args = ", ".join([*args, "%s", "%len", *(f"%t{r}" for r in range(len(tables)))])
    call_types = ", ".join([*spec.arg_types, "index", "index", *tables])
    results = len(tables) + len(spec.checks)
    updates, yields = [], []
    for r, (row, table) in enumerate(zip(spec.row_types, tables)):
        dims, _ = _shape_and_element(row)
        zeros = ", ".join(["%s", *("0" for _ in dims)])
        sizes = ", ".join(["%len", *dims])
        ones = ", ".join("1" for _ in range(len(dims) + 1))
        updates.append(f"    %u{r} = tensor.insert_slice %rows#{r} into %t{r}[{zeros}] [{sizes}] [{ones}]"
                       f" : {table} into {table}")
        yields.append(f"%u{r}")
    for g in range(len(spec.checks)):
        updates.append(f"    %k{g} = arith.andi %ok{g}, %rows#{len(tables) + g} : {_CHECK}")
        yields.append(f"%k{g}")
    checks = []
    for g, attributes in enumerate(spec.checks):
        checks += [f"  %held{g} = tensor.extract %tab#{len(tables) + g}[] : {_CHECK}",
                   f"  \"janus.guard\"(%held{g}) {attributes} : (i1) -> ()"]
    return [
        *inits,
        f"  %tab:{results} = scf.for %i = %c0 to %levels step %c1 iter_args({iters}) -> ({', '.join(carried)}) {{",
        "    %back = arith.subi %levels, %i : index",
        "    %k = arith.subi %back, %c1 : index",
        "    %s = util.list.get %list[%k] : !util.list<?> -> index",
        "    %e = util.list.get %list[%back] : !util.list<?> -> index",
        "    %len = arith.subi %e, %s : index",
        f"    %rows:{results} = func.call @{spec.level}({call_args}) : ({call_types}) -> ({', '.join(carried)})",
        *updates,
        f"    scf.yield {', '.join(yields)} : {', '.join(carried)}",
        "  }",
        *checks,
        f"  return {', '.join(f'%tab#{r}' for r in range(len(tables)))} : {', '.join(tables)}",
    ]


def _level_results(spec: TableSpec) -> list[str]:
    return [table_type(t) for t in spec.row_types] + [_CHECK] * len(spec.checks)


def level_declaration(spec: TableSpec) -> str:
    """A declaration of the per-level function, so that the table function's text verifies alone."""
    types = ", ".join([*spec.arg_types, "index", "index", *(table_type(t) for t in spec.row_types)])
    return f"func.func private @{spec.level}({types}) -> ({', '.join(_level_results(spec))})"


def table_function(spec: TableSpec) -> str:
    """The table function's text: every node's results, one row per node."""
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(spec.arg_types))
    tables = ", ".join(table_type(t) for t in spec.row_types)
    first_column = f"%a{spec.child_args[0]}"
    lines = [
        f"func.func private @{spec.name}({params}) -> ({tables}) {{",
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
