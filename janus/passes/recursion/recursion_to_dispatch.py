"""``janus-recursion-to-dispatch``: a state machine of scalars runs in one dispatch.

``janus-eliminate-recursion`` leaves host code: every activation of ``fib`` is a few dozen
IREE VM instructions (about 90 ns, three times CPython's call). When every value of a
state machine is a scalar, this pass moves the whole machine into one ``linalg.generic``
over a single element, which IREE compiles to native code: its blocks become the cases
of an ``scf.index_switch`` inside an ``scf.while`` on a program counter, block arguments
become loop-carried registers (a block runs its small successors, ``inline-depth`` of them
in a chain, in the same trip: each trip is an indirect jump), and the ``!util.list`` stack
becomes a
``tensor<N x i64>`` (entries bit-cast to i64) that codegen keeps on the native stack.

Guards cannot fail inside a dispatch, so a false guard stores its id in a ``failed``
register and stops the loop before any later operation runs (an integer division the
guard protects would trap). After the dispatch, one ``janus.guard`` per original guard
checks ``failed``, so the runtime sees the same guard fail as on the host. The stack holds
``dispatch-stack-entries`` entries (iree-compile refuses more than 32 KiB of stack per
dispatch); a deeper recursion stops with ``failed = OVERFLOW`` and the call is redone by
the host machine, kept as ``<machine>.host`` with the stack ``janus-eliminate-recursion``
gave it.

Each dispatch costs a launch and a read-back of its results (about 1.5 us on local-sync),
which the host machine, at a few dozen nanoseconds per activation, beats on shallow
recursions (``ackermann(2, 3)``: 2.2 us against 3.2 us) and loses on deep ones (``fib(25)``:
17.7 ms against 0.3 ms). Which one a call needs depends on its argument values, so the
pass decides nothing: a public function with scalar arguments and results that calls a
machine gets a twin, ``<function>.host``, calling the host machines instead, and the
runtime times both on the calls themselves (``janus.runtime.entry_choice``).

Only the CPU pipeline runs this pass (``janus-to-iree-cpu``): a single GPU thread with a
private-memory stack is slower than the host, and untested here.
"""

from __future__ import annotations

from typing import Callable, Sequence

from iree.compiler.dialects import arith, func, linalg, scf, tensor

from janus.dialects import GuardOp
from janus.ir import ir
from janus.passes.cfg import successor_groups
from janus.passes.recursion.eliminate_recursion import STATE_MACHINE_ATTR, is_public
from janus.passes.options import option
from janus.passes.registry import ModulePass, register_pass

#: ``failed`` when the in-dispatch stack is full (guard ids are stored plus one).
OVERFLOW = -1
HOST_SUFFIX = ".host"
#: blocks with more operations are never inlined into their predecessors' trips
MAX_INLINED_OPS = 12
#: operations inlined into one case at most (a return dispatch can branch to many blocks)
MAX_INLINED_PER_CASE = 96
_ULE = 7  # arith.cmpi predicate "ule"
_STACK_OPS = ("util.list.create", "util.list.size", "util.list.resize", "util.list.get", "util.list.set")
_CONTROL = ("cf.br", "cf.cond_br", "cf.switch", "func.return", GuardOp.OPERATION_NAME)


def _is_scalar(t: ir.Type) -> bool:
    return isinstance(t, (ir.IntegerType, ir.IndexType, ir.F32Type, ir.F64Type))


def _eligible(fn: ir.Operation) -> bool:
    """Only scalar arithmetic, branches, guards and the stack; no guard before the loop."""
    blocks = list(fn.regions[0].blocks)
    for block in blocks:
        if not all(_is_scalar(a.type) for a in block.arguments):
            return False
        for op in block.operations:
            name = op.operation.name
            if len(op.operation.regions):
                return False
            if name in _STACK_OPS:
                continue
            if name == GuardOp.OPERATION_NAME and block == blocks[0]:
                return False
            if not (name in _CONTROL or name.startswith("arith.") or name.startswith("math.")):
                return False
            values = [*op.operation.operands, *op.operation.results]
            if not all(_is_scalar(v.type) for v in values):
                return False
            if name.startswith("math.") and any(isinstance(v.type, ir.F64Type) for v in values):
                return False  # f64 math does not link with the embedded ELF linker
    return True


def _defining(value: ir.Value) -> ir.Operation | None:
    """The operation that defines ``value`` (None for a block argument)."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _stored(t: ir.Type) -> ir.Type:
    """The element type a value of type ``t`` crosses the dispatch boundary as."""
    if isinstance(t, ir.IndexType):
        return _i64()
    if isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1:
        return ir.IntegerType.get_signless(8)
    return t


def _convert(v: ir.Value, to: ir.Type, ip: ir.InsertionPoint) -> ir.Value:
    """``v`` as type ``to``: integer widths, index and float bits, in either direction."""
    src = v.type
    if src == to:
        return v
    if isinstance(src, ir.IndexType) or isinstance(to, ir.IndexType):
        return arith.index_cast(to, v, ip=ip)
    if isinstance(src, ir.FloatType):
        bits = ir.IntegerType.get_signless(ir.FloatType(src).width)
        return _convert(arith.bitcast(bits, v, ip=ip), to, ip)
    if isinstance(to, ir.FloatType):
        bits = ir.IntegerType.get_signless(ir.FloatType(to).width)
        return arith.bitcast(to, _convert(v, bits, ip), ip=ip)
    if ir.IntegerType(src).width < ir.IntegerType(to).width:
        return arith.extui(to, v, ip=ip) if ir.IntegerType(src).width == 1 else arith.extsi(to, v, ip=ip)
    return arith.trunci(to, v, ip=ip)


def _index(n: int, ip: ir.InsertionPoint) -> ir.Value:
    return arith.constant(ir.IndexType.get(), n, ip=ip)


class _Machine:
    """The rewrite of one state machine (see the module doc)."""

    #: the first registers; the block arguments of each case and the results follow
    PC, FAILED, SIZE, STACK = range(4)

    def __init__(self, fn: ir.Operation, stack_entries: int, inline_depth: int = 0) -> None:
        self.fn = fn
        self.stack_entries = stack_entries
        self.inline_depth = inline_depth
        self.budget = 0  # successors still to inline in a chain, in the block being emitted
        self.room = 0  # operations still to inline into the case being emitted
        self.blocks = list(fn.regions[0].blocks)
        self.sizes = {b: len(list(b.operations)) for b in self.blocks[1:]}
        self.cases = {b: k for k, b in enumerate(self.blocks[1:])}
        self.exit = len(self.cases)
        self.results = list(fn.attributes["function_type"].value.results)
        self.guards = [GuardOp(op) for b in self.blocks for op in b.operations if op.operation.name == GuardOp.OPERATION_NAME]
        self.stack_type = ir.RankedTensorType.get([stack_entries], _i64())
        # register layout: pc, failed (guard id + 1), stack size, stack, block arguments, results
        self.types = [ir.IndexType.get(), ir.IntegerType.get_signless(32), ir.IndexType.get(), self.stack_type]
        self.slots: dict[ir.Block, list[int]] = {}
        for b in self.blocks[1:]:
            self.slots[b] = list(range(len(self.types), len(self.types) + len(b.arguments)))
            self.types += [a.type for a in b.arguments]
        self.result_slots = list(range(len(self.types), len(self.types) + len(self.results)))
        self.types += self.results
        self.env: dict[ir.Value, ir.Value] = {}

    def rewrite(self) -> None:
        signature = self.fn.attributes["function_type"].value
        with self.fn.location:
            attributes = {name: self.fn.attributes[name] for name in self.fn.attributes}
            new = ir.Operation.create("func.func", attributes=attributes, regions=1, ip=ir.InsertionPoint(self.fn))
            entry = new.regions[0].blocks.append(*signature.inputs)
            ip = ir.InsertionPoint(entry)
            one = [1]
            ins = [
                tensor.from_elements(ir.RankedTensorType.get(one, _stored(a.type)), [_convert(a, _stored(a.type), ip)], ip=ip)
                for a in entry.arguments
            ]
            out_types = [ir.RankedTensorType.get(one, _stored(t)) for t in self.results]
            out_types.append(ir.RankedTensorType.get(one, ir.IntegerType.get_signless(32)))
            outs = [tensor.empty(one, t.element_type, ip=ip) for t in out_types]
            identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(1))
            generic = linalg.GenericOp(
                out_types,
                ins,
                outs,
                ir.ArrayAttr.get([identity] * (len(ins) + len(outs))),
                ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")]),
                ip=ip,
            )
            body = generic.regions[0].blocks.append(*[t.element_type for t in (*[i.type for i in ins], *out_types)])
            self._body(body, entry.arguments)
            zero = _index(0, ip)
            values = [tensor.extract(r, [zero], ip=ip) for r in generic.results]
            failed = values.pop()
            host = self._keep_as_host()
            overflow = arith.cmpi(arith.CmpIPredicate.eq, failed, self._i32(OVERFLOW, ip), ip=ip)
            results = scf.IfOp(overflow, self.results, has_else=True, ip=ip)
            redo = ir.InsertionPoint(results.then_block)
            scf.YieldOp(list(func.CallOp(self.results, host, list(entry.arguments), ip=redo).results), ip=redo)
            done = ir.InsertionPoint(results.else_block)
            scf.YieldOp([_convert(v, t, done) for v, t in zip(values, self.results)], ip=done)
            for g in self.guards:
                ok = arith.cmpi(arith.CmpIPredicate.ne, failed, self._i32(g.id + 1, ip), ip=ip)
                GuardOp.build(ok, g.id, g.kind, g.source, ip=ip)
            func.ReturnOp(list(results.results), ip=ip)

    def _keep_as_host(self) -> str:
        """The original machine, renamed: it redoes calls too deep for the dispatch."""
        name = self.fn.attributes["sym_name"].value + HOST_SUFFIX
        self.fn.attributes["sym_name"] = ir.StringAttr.get(name)
        del self.fn.attributes[STATE_MACHINE_ATTR]
        return name

    @staticmethod
    def _i32(n: int, ip: ir.InsertionPoint) -> ir.Value:
        return arith.constant(ir.IntegerType.get_signless(32), n, ip=ip)

    def _body(self, body: ir.Block, arguments: Sequence[ir.Value]) -> None:
        """The start block runs once, then the loop over the other blocks."""
        ip = ir.InsertionPoint(body)
        start = self.blocks[0]
        n_in = len(arguments)
        for a, element in zip(start.arguments, list(body.arguments)[:n_in]):
            self.env[a] = _convert(element, a.type, ip)
        state = [_index(0, ip), self._i32(0, ip), _index(0, ip), tensor.empty([self.stack_entries], _i64(), ip=ip)]
        state += [self._zero(t, ip) for t in self.types[4:]]
        init = self._ops(list(start.operations), state, ip, checked=False)
        loop = scf.WhileOp(self.types, init, ip=ip)
        before = loop.before.blocks.append(*self.types)
        bip = ir.InsertionPoint(before)
        running = arith.cmpi(arith.CmpIPredicate.ne, before.arguments[self.PC], _index(self.exit, bip), ip=bip)
        scf.ConditionOp(running, list(before.arguments), ip=bip)
        after = loop.after.blocks.append(*self.types)
        aip = ir.InsertionPoint(after)
        switch = scf.IndexSwitchOp(self.types, after.arguments[self.PC], list(range(self.exit)), ip=aip)
        for block, case in zip(self.blocks[1:], switch.caseRegions):
            cip = ir.InsertionPoint(case.blocks[0])
            state = list(after.arguments)
            for a, slot in zip(block.arguments, self.slots[block]):
                self.env[a] = state[slot]
            self.budget, self.room = self.inline_depth, MAX_INLINED_PER_CASE
            scf.YieldOp(self._ops(list(block.operations), state, cip), ip=cip)
        dip = ir.InsertionPoint(switch.defaultRegion.blocks[0])
        scf.YieldOp(list(after.arguments), ip=dip)
        scf.YieldOp(list(switch.results), ip=aip)
        final = list(loop.results)
        linalg.YieldOp([_convert(final[s], _stored(t), ip) for s, t in zip(self.result_slots, self.results)] + [final[self.FAILED]], ip=ip)

    @staticmethod
    def _zero(t: ir.Type, ip: ir.InsertionPoint) -> ir.Value:
        return arith.constant(t, 0.0 if isinstance(t, ir.FloatType) else 0, ip=ip)

    def _ops(self, ops: list[ir.OpView], state: list[ir.Value], ip: ir.InsertionPoint,
             checked: bool = True) -> list[ir.Value]:
        """Emit ``ops`` (one block, terminator last) at ``ip``; the registers after them.
        ``checked``: a growing stack is checked against its capacity (the start block's
        one entry always fits, and its values must stay outside any ``scf.if``)."""
        state = list(state)
        for k, view in enumerate(ops):
            op, name = view.operation, view.operation.name
            v = [self.env.get(x, x) for x in op.operands]
            if name == GuardOp.OPERATION_NAME and self._implied_by_capacity(GuardOp(op)):
                continue
            if name == GuardOp.OPERATION_NAME:
                return self._unless(v[0], GuardOp(op).id + 1, ops[k + 1 :], state, ip)
            if name == "util.list.resize":
                state[self.SIZE] = v[1]
                if checked:
                    fits = arith.cmpi(arith.CmpIPredicate.ule, v[1], _index(self.stack_entries, ip), ip=ip)
                    return self._unless(fits, OVERFLOW, ops[k + 1 :], state, ip)
            elif name == "util.list.size":
                self.env[op.results[0]] = state[self.SIZE]
            elif name == "util.list.set":
                state[self.STACK] = tensor.insert(_convert(v[2], _i64(), ip), state[self.STACK], [v[1]], ip=ip)
            elif name == "util.list.get":
                raw = tensor.extract(state[self.STACK], [v[1]], ip=ip)
                self.env[op.results[0]] = _convert(raw, op.results[0].type, ip)
            elif name in ("cf.br", "cf.cond_br", "cf.switch", "func.return"):
                return self._branch(op, v, state, ip)
            elif name != "util.list.create":  # the stack register is the list
                clone = op.clone(ip=ip)
                for i, x in enumerate(v):
                    clone.operands[i] = x
                for old, new in zip(op.results, clone.results):
                    self.env[old] = new
        raise AssertionError("a block without terminator")

    def _implied_by_capacity(self, guard: GuardOp) -> bool:
        """A ``stack_depth`` guard (``size <= limit``) whose limit is no smaller than the
        in-dispatch stack: the overflow check right after it fails first, and the host
        machine that redoes the call checks the guard itself."""
        check = _defining(guard.operation.operands[0])
        if guard.kind != "stack_depth" or check is None or check.name != "arith.cmpi":
            return False
        limit = _defining(check.operands[1])
        return (ir.IntegerAttr(check.attributes["predicate"]).value == _ULE and limit is not None
                and limit.name == "arith.constant" and ir.IntegerAttr(limit.attributes["value"]).value >= self.stack_entries)

    def _if(self, condition: ir.Value, then: Callable[[ir.InsertionPoint], list[ir.Value]],
            otherwise: Callable[[ir.InsertionPoint], list[ir.Value]], ip: ir.InsertionPoint) -> list[ir.Value]:
        """The registers after ``then`` or ``otherwise`` (each builds at the ip it gets)."""
        branch = scf.IfOp(condition, self.types, has_else=True, ip=ip)
        for block, build in ((branch.then_block, then), (branch.else_block, otherwise)):
            inner = ir.InsertionPoint(block)
            scf.YieldOp(build(inner), ip=inner)
        return list(branch.results)

    def _unless(self, ok: ir.Value, failed: int, rest: list[ir.OpView], state: list[ir.Value],
                ip: ir.InsertionPoint) -> list[ir.Value]:
        """``rest`` when ``ok``; otherwise stop with ``failed`` (guard id + 1, or OVERFLOW)."""

        def stop(at: ir.InsertionPoint) -> list[ir.Value]:
            stopped = list(state)
            stopped[self.PC], stopped[self.FAILED] = _index(self.exit, at), self._i32(failed, at)
            return stopped

        return self._if(ok, lambda at: self._ops(rest, state, at), stop, ip)

    def _goto(self, target: tuple[ir.Block, list[ir.Value]], state: list[ir.Value], ip: ir.InsertionPoint) -> list[ir.Value]:
        """Registers that enter ``target`` on the next trip around the loop; a small target
        within the inlining budget runs in this trip instead (its arguments are values here)."""
        block, args = target
        size = self.sizes[block]
        if self.budget > 0 and size <= min(MAX_INLINED_OPS, self.room):
            self.env.update(zip(block.arguments, args))
            self.room -= size
            self.budget -= 1
            try:
                return self._ops(list(block.operations), state, ip)
            finally:
                self.budget += 1
        state = list(state)
        state[self.PC] = _index(self.cases[block], ip)
        for slot, a in zip(self.slots[block], args):
            state[slot] = a
        return state

    def _branch(self, op: ir.Operation, v: list[ir.Value], state: list[ir.Value], ip: ir.InsertionPoint) -> list[ir.Value]:
        if op.name == "func.return":
            state = list(state)
            state[self.PC] = _index(self.exit, ip)
            for slot, a in zip(self.result_slots, v):
                state[slot] = a
            return state
        prefix, groups = successor_groups(op)
        targets = [(b, [self.env.get(x, x) for x in g]) for b, g in zip(op.successors, groups)]
        if op.name == "cf.br":
            return self._goto(targets[0], state, ip)
        flag = self.env.get(prefix[0], prefix[0])
        if op.name == "cf.cond_br":
            return self._if(flag, lambda at: self._goto(targets[0], state, at),
                            lambda at: self._goto(targets[1], state, at), ip)
        cases = [int(c) for c in ir.DenseIntElementsAttr(op.attributes["case_values"])]
        return self._switch(flag, list(zip(cases, targets[1:])), targets[0], state, ip)

    def _switch(self, flag: ir.Value, cases: list[tuple[int, tuple]], default: tuple, state: list[ir.Value],
                ip: ir.InsertionPoint) -> list[ir.Value]:
        """A ``cf.switch`` as nested ifs over its case values."""
        if not cases:
            return self._goto(default, state, ip)
        (value, target), rest = cases[0], cases[1:]
        hit = arith.cmpi(arith.CmpIPredicate.eq, flag, arith.constant(flag.type, value, ip=ip), ip=ip)
        return self._if(hit, lambda at: self._goto(target, state, at),
                        lambda at: self._switch(flag, rest, default, state, at), ip)


@register_pass
class RecursionToDispatch(ModulePass):
    name = "janus-recursion-to-dispatch"
    summary = "Run state machines whose values are all scalars as native code in one dispatch (CPU)."

    dispatch_stack_entries: int = option(
        3072,  # 24 KiB
        "i64 entries of the in-dispatch stack; a deeper recursion is redone on the host",
        minimum=1,
        maximum=4096,  # 32 KiB: iree-compile refuses more stack per dispatch
    )

    inline_depth: int = option(
        2,
        f"successor blocks (each of at most {MAX_INLINED_OPS} operations) a block runs in its own "
        "trip around the dispatch loop, one after another: fewer trips, more code",
        minimum=0,
        maximum=4,
    )

    def apply(self, module_op: ir.Operation) -> None:
        """Rewrite every eligible state machine of ``module_op`` (see the module doc)."""
        machines = [op for op in module_op.regions[0].blocks[0].operations
                    if op.operation.name == "func.func" and STATE_MACHINE_ATTR in op.operation.attributes]
        rewritten = set()
        with module_op.location:
            for fn in machines:
                if _eligible(fn.operation):
                    rewritten.add(fn.operation.attributes["sym_name"].value)
                    _Machine(fn.operation, self.dispatch_stack_entries, self.inline_depth).rewrite()
            twins = _HostTwins(module_op, rewritten)
            for fn in list(module_op.regions[0].blocks[0].operations):
                if fn.operation.name == "func.func" and is_public(fn.operation) and _scalar_signature(fn.operation):
                    twins.of(fn.operation.attributes["sym_name"].value)


def _scalar_signature(fn: ir.Operation) -> bool:
    signature = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    return all(_is_scalar(t) for t in (*signature.inputs, *signature.results))


class _HostTwins:
    """``<f>.host`` beside each function ``f`` that calls a rewritten machine, directly or
    through other functions: the same function calling host machines and twins."""

    def __init__(self, module_op: ir.Operation, machines: set[str]) -> None:
        self.functions = {op.operation.attributes["sym_name"].value: op.operation
                          for op in module_op.regions[0].blocks[0].operations if op.operation.name == "func.func"}
        #: function name -> the name its calls go to in a twin (None: no twin, the call stays)
        self.names: dict[str, str | None] = {name: name + HOST_SUFFIX for name in machines}

    def of(self, name: str) -> str | None:
        """The twin of function ``name`` (made on first use), or None when it needs none."""
        if name not in self.names:
            self.names[name] = None  # the call graph is acyclic here; this only guards the walk
            fn = self.functions.get(name)
            calls = [(call, self.of(_callee(call))) for call in _calls(fn)] if fn is not None else []
            if any(twin for _, twin in calls):
                self.names[name] = self._twin(fn)
        return self.names[name]

    def _twin(self, fn: ir.Operation) -> str:
        twin = fn.clone(ip=ir.InsertionPoint.after(fn))
        name = fn.attributes["sym_name"].value + HOST_SUFFIX
        twin.attributes["sym_name"] = ir.StringAttr.get(name)
        for call in _calls(twin):
            target = self.names.get(_callee(call))
            if target:
                call.attributes["callee"] = ir.FlatSymbolRefAttr.get(target)
        return name


def _callee(call: ir.Operation) -> str:
    return ir.FlatSymbolRefAttr(call.attributes["callee"]).value


def _calls(fn: ir.Operation) -> list[ir.Operation]:
    """The ``func.call`` operations of ``fn``, nested ones included."""
    calls: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "func.call":
            calls.append(op)
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    return calls
