"""``janus-eliminate-recursion``: recursive call cycles become a loop over an explicit stack.

iree-compile 3.13 never returns on a module whose call graph has a cycle. For every
function of a recursive SCC that can be entered from outside it (called from outside, or
public), this pass builds a *state machine*: one function holding CFG copies of the
bodies of all SCC members. A recursive call site pushes the values live across it and
its return-point id onto a ``!util.list<?>`` and branches to the callee's entry block; a
return peeks the id and ``cf.switch``es to the continuation of that call site, which
pops the saved values. This is the "static" recursion of Kostopoulou's tagging: the ids
on the stack are the tag of the running activation. A self-call in tail position (its
results returned unchanged) pushes nothing and branches to the entry block: its return
goes straight to its caller's return point (tak's outer call, ackermann's calls).

The state machine is a private function whose tensor parameters arrive as
``!hal.buffer_view``s imported in its first block; the entry keeps its name and signature
as a one-block wrapper that exports its tensors and calls the machine (``inline`` then
folds the wrapper into its callers). Measured on iree-compile 3.13: tensors passed to a
private multi-block function are copied into fresh transients before every dispatch that
reads them (a 2.5 MB embedding table per leaf of a TreeRNN), imported ones are not.

Every push is guarded (``janus.guard`` of kind ``stack_depth``): a stack that would grow
past ``max-stack-entries`` fails the guard, so the runtime falls back instead of crashing
or hanging.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterator

from iree.compiler.dialects import arith, cf, func

from janus.dialects import GuardOp, InvokeOp
from janus.ir import ir
from janus.passes import cfg
from janus.passes.callgraph import CALL_OPS, call_graph, call_sites, cycles, functions
from janus.passes.options import option
from janus.passes.recursion.frame_stack import BUFFER_VIEW_TYPE, FrameStack, export_tensor, import_tensor, storable
from janus.passes.registry import ModulePass, PassError, register_pass, run_pipeline

#: Unit attribute marking a state machine (``janus-recursion-to-dispatch`` looks for it).
STATE_MACHINE_ATTR = "janus.state_machine"
#: Return-point id of the outermost activation: its return leaves the state machine.
EXIT_ID = 0

_UNSEEN = object()
_VARYING = object()


@dataclass
class _CallSite:
    op: ir.Operation
    callee: str
    frame_id: int
    continuation: ir.Block
    tail: bool = False  # a self-call whose results the caller returns unchanged
    resume: ir.Block | None = None


def _meet(old: object, new: object) -> object:
    """Lattice meet for "which entry argument does this parameter always hold"."""
    if old is _UNSEEN:
        return new
    if new is _UNSEEN or old is _VARYING:
        return old
    if new is _VARYING:
        return new
    return old if old == new else _VARYING


class _StateMachine:
    """Builds the state machine of one entry of a recursive SCC (see the module doc)."""

    def __init__(
        self, fns: dict[str, ir.Operation], scc: list[str], entry: str, limit: int, guard_ids: Iterator[int]
    ) -> None:
        self.fns = fns
        self.entry = entry
        self.members = [entry] + [n for n in scc if n != entry]
        self.limit = limit
        self.guard_ids = guard_ids

    def build(self) -> ir.Operation:
        """The private state machine ``<entry>.state_machine`` (tensors in as buffer views)."""
        original = self.fns[self.entry]
        with original.location:
            signature = original.attributes["function_type"].value
            inputs = list(signature.inputs)
            boundary = [_boundary_type(t) for t in inputs]
            attributes = {
                "sym_name": ir.StringAttr.get(machine_name(self.entry)),
                "function_type": ir.TypeAttr.get(ir.FunctionType.get(boundary, list(signature.results))),
                "sym_visibility": ir.StringAttr.get("private"),
                STATE_MACHINE_ATTR: ir.UnitAttr.get(),
            }
            self.fn = ir.Operation.create("func.func", attributes=attributes, regions=1, ip=ir.InsertionPoint(original))
            self.region = self.fn.regions[0]
            self.start = self.region.blocks.append(*boundary, arg_locs=[original.location] * len(inputs))
            ip = ir.InsertionPoint(self.start)
            self.parameters = [
                import_tensor(t, a, ip) if isinstance(t, ir.RankedTensorType) else a
                for t, a in zip(inputs, self.start.arguments)
            ]
            self.stack = FrameStack.create(self.limit, ip)
            self.stack.push([arith.constant(ir.IntegerType.get_signless(32), EXIT_ID, ip=ip)], ip)
            self._import_bodies()
            to_entry = cf.BranchOp(self.parameters, self.entry_block[self.entry], ip=ip)
            self._hoist_constants(to_entry.operation)
            calls = self._recursive_calls()
            self._bind_invariant_arguments(calls)
            self.ret = {g: self.region.blocks.append(*self._results(g)) for g in self.members}
            self._returns_to_branches()
            owners = [self._owner(call.block) for call in calls]
            sites = [self._split(call, k, owner) for (k, call), owner in zip(enumerate(calls, start=EXIT_ID + 1), owners)]
            ret_blocks = set(self.ret.values())
            cfg.pass_live_ins_as_arguments([b for b in self.region.blocks if b != self.start and b not in ret_blocks])
            for site in sites:
                self._lower_call(site)
            for g in self.members:
                self._dispatch_return(g, [s for s in sites if s.callee == g and not s.tail])
        return self.fn

    def _results(self, name: str) -> list[ir.Type]:
        return list(self.fns[name].attributes["function_type"].value.results)

    def _import_bodies(self) -> None:
        """Move scf-free copies of every member body into the state machine."""
        scratch = ir.Module.create()
        copies = {g: self.fns[g].clone(ip=ir.InsertionPoint(scratch.body)) for g in self.members}
        self._declare_other_callees(scratch)
        run_pipeline(scratch, "builtin.module(func.func(convert-scf-to-cf))")
        self.entry_block: dict[str, ir.Block] = {}
        self.member_blocks: dict[str, list[ir.Block]] = {}
        for g, copy in copies.items():
            blocks = list(copy.regions[0].blocks)
            for b in blocks:
                b.append_to(self.region)
            self.entry_block[g], self.member_blocks[g] = blocks[0], blocks

    def _declare_other_callees(self, scratch: ir.Module) -> None:
        """Declare, in the scratch module, the functions members call outside the cycle,
        so that its verifier finds every callee."""
        others = {
            site.attributes["callee"].value
            for g in self.members
            for site in call_sites(self.fns[g])
            if site.attributes["callee"].value not in self.members
        }
        for name in sorted(others):
            attrs = self.fns[name].attributes
            ir.Operation.create(
                "func.func",
                attributes={
                    "sym_name": attrs["sym_name"],
                    "function_type": attrs["function_type"],
                    "sym_visibility": ir.StringAttr.get("private"),
                },
                regions=1,
                ip=ir.InsertionPoint(scratch.body),
            )

    def _hoist_constants(self, before: ir.Operation) -> None:
        """Constants move to the start block, which dominates everything: never saved."""
        for blocks in self.member_blocks.values():
            for b in blocks:
                for op in list(b.operations):
                    if op.operation.name == "arith.constant":
                        op.operation.move_before(before)

    def _recursive_calls(self) -> list[ir.Operation]:
        """Calls of SCC members; each must sit in the CFG itself to become a branch."""
        calls: list[ir.Operation] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name in CALL_OPS and op.attributes["callee"].value in self.members:
                calls.append(op)
            return ir.WalkResult.ADVANCE

        self.fn.walk(visit)
        nested = [c for c in calls if c.parent.operation != self.fn]
        if nested:
            raise PassError(
                [
                    (c.location, f"recursive call nested in '{c.parent.operation.name}' cannot be eliminated")
                    for c in nested
                ]
            )
        return calls

    def _owner(self, block: ir.Block) -> str:
        return next(g for g, blocks in self.member_blocks.items() if block in blocks)

    def _parameter_number(self, value: ir.Value, member: str) -> int | None:
        """Which parameter of ``member`` ``value`` is, if it is one."""
        owner = value.owner
        return value.arg_number if isinstance(owner, ir.Block) and owner == self.entry_block[member] else None

    def _bind_invariant_arguments(self, calls: list[ir.Operation]) -> None:
        """Parameters that always hold the same state-machine argument (weights, the tree
        arrays) read that argument directly, so they are never saved on the stack."""
        root: dict[tuple[str, int], object] = {(self.entry, j): a for j, a in enumerate(self.parameters)}
        changed = True
        while changed:
            changed = False
            for call in calls:
                caller, callee = self._owner(call.block), call.attributes["callee"].value
                for i, a in enumerate(call.operands):
                    j = self._parameter_number(a, caller)
                    source = _VARYING if j is None else root.get((caller, j), _UNSEEN)
                    old = root.get((callee, i), _UNSEEN)
                    new = _meet(old, source)
                    if new is not old:
                        root[(callee, i)] = new
                        changed = True
        for (g, i), value in root.items():
            if isinstance(value, ir.Value):
                self.entry_block[g].arguments[i].replace_all_uses_with(value)

    def _returns_to_branches(self) -> None:
        for g, blocks in self.member_blocks.items():
            for b in blocks:
                term = cfg.terminator(b)
                if term.name == "func.return":
                    cf.BranchOp(list(term.operands), self.ret[g], loc=term.location, ip=ir.InsertionPoint(term))
                    term.erase()

    def _split(self, call: ir.Operation, frame_id: int, owner: str) -> _CallSite:
        """End the call's block after it with a branch to a new continuation block."""
        continuation = cfg.split_after(call)
        for r in call.results:
            r.replace_all_uses_with(continuation.add_argument(r.type, call.location))
        cf.BranchOp(list(call.results), continuation, loc=call.location, ip=ir.InsertionPoint(call.block))
        callee = call.attributes["callee"].value
        tail = callee == owner and self._returns_unchanged(continuation, self.ret[owner])
        return _CallSite(call, callee, frame_id, continuation, tail)

    @staticmethod
    def _returns_unchanged(continuation: ir.Block, ret: ir.Block) -> bool:
        """Whether ``continuation`` only forwards its arguments (the call's results), through
        blocks that do nothing but branch, to ``ret`` in their order: the call is in tail
        position. (A forwarded value may also reach a later block by dominance.)"""
        block, values, seen = continuation, list(continuation.arguments), set()
        while block not in seen:
            seen.add(block)
            ops = [op.operation for op in block.operations]
            if len(ops) != 1 or ops[0].name != "cf.br":
                return False
            target, operands = ops[0].successors[0], list(ops[0].operands)
            if target == ret:
                return operands == values
            values = [target.arguments[operands.index(v)] if v in operands else v for v in values]
            block = target
        return False

    def _lower_call(self, site: _CallSite) -> None:
        """Save what the continuation needs, then enter the callee; the resume block pops it.
        A tail call saves nothing: the callee returns straight to the caller's return point."""
        call = site.op
        to_continuation = cfg.terminator(call.block)
        if site.tail:
            cf.BranchOp(list(call.operands), self.entry_block[site.callee], loc=call.location, ip=ir.InsertionPoint(call))
            to_continuation.erase()
            call.erase()
            return
        result_types = [r.type for r in call.results]
        saved = list(to_continuation.operands)[len(result_types) :]
        unique = list(dict.fromkeys(saved))
        bad = [v.type for v in unique if not storable(v.type)]
        if bad:
            raise PassError([(call.location, f"cannot save a value of type {bad[0]} across a recursive call")])
        with call.location:
            ip = ir.InsertionPoint(call)
            i32 = ir.IntegerType.get_signless(32)
            frame_id = arith.constant(i32, site.frame_id, ip=ip)
            self.stack.push(unique + [frame_id], ip, lambda fits: self._guard(fits, site.callee, ip))
            cf.BranchOp(list(call.operands), self.entry_block[site.callee], ip=ip)
            to_continuation.erase()
            call.erase()
            site.resume = self.region.blocks.append(*result_types)
            resume_ip = ir.InsertionPoint(site.resume)
            popped = dict(zip(unique, self.stack.pop([v.type for v in unique] + [i32], resume_ip)))
            cf.BranchOp(list(site.resume.arguments) + [popped[v] for v in saved], site.continuation, ip=resume_ip)

    def _guard(self, fits: ir.Value, callee: str, ip: ir.InsertionPoint) -> None:
        GuardOp.build(fits, next(self.guard_ids), "stack_depth", f"@{callee}", ip=ip)

    def _dispatch_return(self, g: str, sites: list[_CallSite]) -> None:
        """``g`` returns to the call site whose id is on top of the stack (or leaves)."""
        block = self.ret[g]
        ip = ir.InsertionPoint(block)
        results = list(block.arguments)
        if g == self.entry:
            default = self.region.blocks.append(*self._results(g))
            func.ReturnOp(list(default.arguments), ip=ir.InsertionPoint(default))
        else:
            default = sites.pop().resume
        if not sites:
            cf.BranchOp(results, default, ip=ip)
            return
        ids = ", ".join(str(s.frame_id) for s in sites)
        cf.SwitchOp(
            self.stack.top(ir.IntegerType.get_signless(32), ip),
            results,
            results * len(sites),
            [len(results)] * len(sites),
            default,
            [s.resume for s in sites],
            case_values=ir.Attribute.parse(f"dense<[{ids}]> : vector<{len(sites)}xi32>"),
            ip=ip,
        )


def machine_name(entry: str) -> str:
    return f"{entry}.state_machine"


def _boundary_type(t: ir.Type) -> ir.Type:
    """How a parameter of this type enters the state machine: tensors as buffer views."""
    return ir.Type.parse(BUFFER_VIEW_TYPE) if isinstance(t, ir.RankedTensorType) else t


def _wrapper(attributes: dict[str, ir.Attribute], ip: ir.InsertionPoint) -> ir.Operation:
    """The entry under its own name and signature: export the tensors, call the machine."""
    signature = attributes["function_type"].value
    inputs, results = list(signature.inputs), list(signature.results)
    fn = ir.Operation.create("func.func", attributes=attributes, regions=1, ip=ip)
    block = fn.regions[0].blocks.append(*inputs)
    body = ir.InsertionPoint(block)
    args = [export_tensor(a, body) if isinstance(a.type, ir.RankedTensorType) else a for a in block.arguments]
    call = func.CallOp(results, machine_name(attributes["sym_name"].value), args, ip=body)
    call.attributes["no_inline"] = ir.UnitAttr.get()  # inlined, the import/export pair would fold away
    func.ReturnOp(list(call.results), ip=body)
    return fn


def is_public(fn: ir.Operation) -> bool:
    return "sym_visibility" not in fn.attributes or fn.attributes["sym_visibility"].value == "public"


def _next_guard_id(module_op: ir.Operation) -> int:
    ids = [0]

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == GuardOp.OPERATION_NAME:
            ids.append(GuardOp(op).id)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    return max(ids) + 1


def _invokes_to_calls(module_op: ir.Operation, callees: set[str]) -> None:
    """Invokes of a state machine are ordinary calls now: it is not recursive."""
    invokes: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == InvokeOp.OPERATION_NAME and op.attributes["callee"].value in callees:
            invokes.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    for op in invokes:
        call = func.CallOp(
            [r.type for r in op.results],
            op.attributes["callee"].value,
            list(op.operands),
            loc=op.location,
            ip=ir.InsertionPoint(op),
        )
        for old, new in zip(op.results, call.results):
            old.replace_all_uses_with(new)
        op.erase()


def _eliminate(module_op: ir.Operation, max_stack_entries: int) -> None:
    """Replace every recursive SCC of ``module_op`` by state machines, one per entry."""
    graph = call_graph(module_op)
    fns = functions(module_op)
    guard_ids = itertools.count(_next_guard_id(module_op))
    entries: set[str] = set()
    for scc in cycles(graph):
        called_from_outside = {c for caller, callees in graph.items() if caller not in scc for c in callees}
        scc_entries = [n for n in scc if n in called_from_outside or is_public(fns[n])]
        machines = [_StateMachine(fns, scc, e, max_stack_entries, guard_ids).build() for e in scc_entries]
        originals = {e: {name: fns[e].attributes[name] for name in fns[e].attributes} for e in scc_entries}
        for n in scc:
            fns.pop(n).erase()
        for e, machine in zip(scc_entries, machines):
            fns[e] = _wrapper(originals[e], ir.InsertionPoint(machine))  # later cycles may call it
        entries.update(scc_entries)
    _invokes_to_calls(module_op, entries)


@register_pass
class EliminateRecursion(ModulePass):
    name = "janus-eliminate-recursion"
    summary = "Turn recursive call cycles into state machines over an explicit, depth-guarded stack."

    max_stack_entries: int = option(
        1 << 20, "list entries (not frames) a stack may hold; a deeper recursion fails its guard", minimum=1
    )

    def apply(self, module_op: ir.Operation) -> None:
        with module_op.location:
            _eliminate(module_op, self.max_stack_entries)
