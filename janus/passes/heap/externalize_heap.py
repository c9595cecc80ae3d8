"""``janus-externalize-heap``: heap reads become arguments, heap writes become results.

Afterwards every function is pure. A location (``AccessPath``) a function needs on entry
is an extra argument; every location it writes is an extra result holding the final
value; public functions carry the manifest (``janus.heap``) that the runtime uses
to read the arguments and commit the results.

Inside a function the pass keeps the *current value* of each location while it walks the
ops in order: a read takes it (read-after-write forwarding, read-after-read reuse) or, on
first touch, a new function argument — sound even deep inside a region, because a location
never touched before still holds its entry value. Writes inside ``scf.if`` / ``scf.for`` /
``scf.while`` are threaded out as extra region results (loops: extra iter_args). Calls
(``func.call``, ``janus.invoke``) pass the current values of what the callee reads and
take back what it writes. Per-function summaries are solved over the call graph, callees
first; recursive components iterate to a fixpoint: writes first (a plain union), then reads
(found by rewriting a detached clone), so a location a recursive callee always writes is
not needlessly read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from janus.ir import ir
from janus.passes.callgraph import CALL_OPS, call_graph, functions, strongly_connected_components
from janus.passes.heap.heap_model import (
    HEAP_OPS,
    READ_OPS,
    WRITE_OPS,
    HeapModel,
    access_path,
    is_object_ref,
    value_operand,
)
from janus.passes.rebuild import append_operands, append_to_signature, rebuild, terminator
from janus.passes.registry import ModulePass, PassError, register_pass
from janus.heap import AccessPath, HeapManifest

#: Region ops whose writes are threaded out; the loops also carry them around.
THREADED = ("scf.if", "scf.for", "scf.while")
LOOPS = ("scf.for", "scf.while")


@dataclass
class Summary:
    """A function's heap effect: its appended arguments and results, in order."""

    reads: list[AccessPath] = field(default_factory=list)
    writes: list[AccessPath] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.reads or self.writes)


Summaries = dict[str, Summary]


def _ops_in(op: ir.Operation) -> list[ir.Operation]:
    """``op`` and everything nested in it, in program order."""
    out: list[ir.Operation] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        out.append(o)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


def _callee(op: ir.Operation, summaries: Summaries) -> Summary:
    return summaries.get(op.attributes["callee"].value) or Summary()


def writes_in(op: ir.Operation, summaries: Summaries) -> list[AccessPath]:
    """Locations ``op`` (with its regions and callees) may write, in first-write order."""
    written: dict[AccessPath, None] = {}
    for o in _ops_in(op):
        if o.name in WRITE_OPS:
            written[access_path(o)] = None
        elif o.name in CALL_OPS:
            written.update(dict.fromkeys(_callee(o, summaries).writes))
    return list(written)


class FunctionRewriter:
    """Rewrites one function body, given the summaries (writes complete, reads as solved so far).

    With ``reads`` the entry arguments are created up front in that order (the final
    rewrite); without, they are created on first need and ``inputs`` tells which the body
    needs (the analysis, run on a detached clone).
    """

    def __init__(
        self, fn: ir.Operation, model: HeapModel, summaries: Summaries, reads: list[AccessPath] | None
    ) -> None:
        self.fn, self.model, self.summaries = fn, model, summaries
        self.name = fn.attributes["sym_name"].value
        self.entry = fn.regions[0].blocks[0]
        self.fixed = reads is not None
        self.inputs: dict[AccessPath, ir.Value] = {}
        self.object_refs: list[ir.Operation] = []
        for path in reads or ():
            self._add_input(path)

    def _add_input(self, path: AccessPath) -> None:
        self.inputs[path] = self.entry.add_argument(self.model.types[path], self.fn.location)

    def current(self, env: dict[AccessPath, ir.Value], path: AccessPath) -> ir.Value:
        """The value ``path`` holds here: the latest access in scope, else the entry value."""
        if path in env:
            return env[path]
        if path not in self.inputs:
            assert not self.fixed, f"{path.describe()} missing from the summary of @{self.name}"
            self._add_input(path)
        return self.inputs[path]

    def run(self) -> None:
        if len(self.fn.regions[0].blocks) == 1:
            self.block(self.entry, {})
            for op in reversed(self.object_refs):
                op.erase()
        elif any(self._touches_heap(o) for o in _ops_in(self.fn)):
            message = f"@{self.name} has several blocks; janus-externalize-heap needs structured control flow"
            raise PassError([(self.fn.location, message)])

    def _touches_heap(self, op: ir.Operation) -> bool:
        return op.name in HEAP_OPS or (op.name in CALL_OPS and bool(_callee(op, self.summaries)))

    def block(self, block: ir.Block, env: dict[AccessPath, ir.Value]) -> None:
        for op in list(block.operations):
            self.visit(op.operation, env)

    def visit(self, op: ir.Operation, env: dict[AccessPath, ir.Value]) -> None:
        if is_object_ref(op):
            self.object_refs.append(op)
        elif op.name in READ_OPS:
            path = access_path(op)
            env[path] = self.current(env, path)
            op.results[0].replace_all_uses_with(env[path])
            op.erase()
        elif op.name in WRITE_OPS:
            env[access_path(op)] = value_operand(op)
            op.erase()
        elif op.name in CALL_OPS:
            self.call(op, env)
        elif op.name == "func.return":
            append_operands(op, [env[p] for p in self.summaries[self.name].writes])
        elif len(op.regions):
            self.regions(op, env)

    def call(self, op: ir.Operation, env: dict[AccessPath, ir.Value]) -> None:
        summary = _callee(op, self.summaries)
        if not summary:
            return
        kept = len(op.results)
        new = rebuild(
            op,
            operands=[*op.operands, *(self.current(env, p) for p in summary.reads)],
            result_types=[*(r.type for r in op.results), *(self.model.types[p] for p in summary.writes)],
        )
        env.update(zip(summary.writes, list(new.results)[kept:]))

    def regions(self, op: ir.Operation, env: dict[AccessPath, ir.Value]) -> None:
        written = writes_in(op, self.summaries)
        if not written:
            for region in op.regions:
                for block in region.blocks:
                    self.block(block, dict(env))
            return
        if op.name not in THREADED:
            raise PassError(
                [
                    (
                        op.location,
                        f"heap writes inside '{op.name}' are not supported by janus-externalize-heap; "
                        "only scf.if, scf.for and scf.while regions are threaded",
                    )
                ]
            )
        self.thread(op, env, written)

    def thread(self, op: ir.Operation, env: dict[AccessPath, ir.Value], written: list[AccessPath]) -> None:
        """Rebuild ``op`` so each written location leaves it as an extra result."""
        types = [self.model.types[p] for p in written]
        carried = op.name in LOOPS
        kept = len(op.results)
        inits = [self.current(env, p) for p in written] if carried else []
        op = rebuild(op, operands=[*op.operands, *inits], result_types=[*(r.type for r in op.results), *types])
        if not op.regions[-1].blocks:  # scf.if without else: it now yields the values unchanged
            ir.Operation.create("scf.yield", loc=op.location, ip=ir.InsertionPoint(op.regions[-1].blocks.append()))
        for region in op.regions:
            block = region.blocks[0]
            inner = dict(env)
            if carried:
                inner.update((p, block.add_argument(t, op.location)) for p, t in zip(written, types))
            self.block(block, inner)
            append_operands(terminator(block), [self.current(inner, p) for p in written])
        env.update(zip(written, list(op.results)[kept:]))


def _needed_reads(fn: ir.Operation, model: HeapModel, summaries: Summaries) -> list[AccessPath]:
    """The locations ``fn`` needs on entry, found by rewriting a throw-away clone."""
    clone = fn.clone(ip=False)
    try:
        rewriter = FunctionRewriter(clone, model, summaries, reads=None)
        rewriter.run()
        return list(rewriter.inputs)
    finally:
        clone.erase()


def solve_summaries(module_op: ir.Operation, fns: dict[str, ir.Operation], model: HeapModel) -> Summaries:
    """Every function's summary: writes to a fixpoint, then reads (see the module doc)."""
    graph = call_graph(module_op)
    sccs = [[n for n in scc if n in fns] for scc in strongly_connected_components(graph)]
    summaries = {name: Summary() for name in fns}

    def solve(field_name: str, compute: Callable[[str], list[AccessPath]]) -> None:
        for scc in sccs:
            recursive = len(scc) > 1 or any(n in graph[n] for n in scc)
            changed = True
            while changed:
                changed = False
                for name in scc:
                    new = compute(name)
                    changed |= set(new) != set(getattr(summaries[name], field_name))
                    setattr(summaries[name], field_name, new)
                changed &= recursive

    solve("writes", lambda name: writes_in(fns[name], summaries))
    solve("reads", lambda name: _needed_reads(fns[name], model, summaries))
    return summaries


def _manifest(summary: Summary, model: HeapModel) -> HeapManifest:
    slots = sorted({p.slot for p in summary.reads + summary.writes})
    return HeapManifest(tuple(summary.reads), tuple(summary.writes), tuple(model.objects[s] for s in slots))


@register_pass
class ExternalizeHeap(ModulePass):
    name = "janus-externalize-heap"
    summary = "Heap reads become function arguments and writes results (with a manifest); functions become pure."

    def apply(self, module_op: ir.Operation) -> None:
        with module_op.context:
            model = HeapModel.build(module_op)
            fns = {name: fn for name, fn in functions(module_op).items() if len(fn.regions[0].blocks)}
            summaries = solve_summaries(module_op, fns, model)
            for name, fn in fns.items():
                summary = summaries[name]
                FunctionRewriter(fn, model, summaries, reads=summary.reads).run()
                types = model.types
                append_to_signature(fn, [types[p] for p in summary.reads], [types[p] for p in summary.writes])
                public = "sym_visibility" not in fn.attributes or fn.attributes["sym_visibility"].value != "private"
                if public and summary:
                    for attr_name, attr in _manifest(summary, model).to_attributes().items():
                        fn.attributes[attr_name] = attr
