"""VJP rules of control flow and calls: ``scf.if``, ``scf.for``, ``scf.while``, calls.

Branches are recomputed inside the backward ``scf.if`` (the forward condition picks the
same branch). Loops save each iteration's carried state in a tensor with a leading
iteration dimension, then run backwards from the last iteration, recomputing that
iteration's body from its saved state. ``scf.while`` first counts its iterations, so its
data-dependent trip count is known before saving. Values defined outside a region get
their adjoints summed over branches and iterations and returned as region results.
"""

from __future__ import annotations

from typing import Sequence

from janus.ir import ir
from janus.passes.autodiff.builder import Adjoints, GradBuilder, fail, free_floats, is_float

Pairs = list[tuple[ir.Value, str]]


def _types(values: Sequence[ir.Value]) -> str:
    return ", ".join(str(v.type) for v in values)


def _yield(b: GradBuilder, op: str, names: Sequence[str], values: Sequence[ir.Value]) -> None:
    b.line(f"{op} {', '.join(names)} : {_types(values)}" if names else op)


def scf_if(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    free = free_floats(op)
    if not free:
        return []
    outs = b.ops(f"scf.if {b.name(op.operands[0])} -> ({_types(free)}) {{", len(free))
    for i, region in enumerate(op.regions):
        if i:
            b.line("} else {")
        grads = b.block_vjp(region.blocks[0], gs, free)
        _yield(b, "scf.yield", [b.or_zeros(v, g) for v, g in zip(free, grads)], free)
    b.line("}")
    return list(zip(free, outs))


# ---- per-iteration state ---------------------------------------------------------------------
def _stack_type(op: ir.OpView, t: ir.Type) -> ir.Type:
    if isinstance(t, ir.RankedTensorType):
        tt = ir.RankedTensorType(t)
        if not tt.has_static_shape:
            raise fail(op, "loop gradients need statically shaped carried tensors")
        return ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size(), *tt.shape], tt.element_type)
    return ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], t)


def _slice(k: str, t: ir.Type) -> str:
    shape = ir.RankedTensorType(t).shape if isinstance(t, ir.RankedTensorType) else []
    return f"[{', '.join([k] + ['0'] * len(shape))}] [{', '.join(['1'] + [str(s) for s in shape])}] [{', '.join(['1'] * (len(shape) + 1))}]"


def _push(b: GradBuilder, stack: str, st: ir.Type, value: str, t: ir.Type, k: str) -> str:
    """Save ``value`` at row ``k`` (scalars via a rank-0 tensor: IREE 3.13 miscompiles a
    scalar ``tensor.insert`` of 64-bit elements)."""
    if not isinstance(t, ir.RankedTensorType):
        value, t = b.op(f"tensor.from_elements {value} : tensor<{t}>"), f"tensor<{t}>"
    return b.op(f"tensor.insert_slice {value} into {stack}{_slice(k, t)} : {t} into {st}")


def _load(b: GradBuilder, stack: str, st: ir.Type, t: ir.Type, k: str) -> str:
    if isinstance(t, ir.RankedTensorType):
        return b.op(f"tensor.extract_slice {stack}{_slice(k, t)} : {st} to {t}")
    return b.op(f"tensor.extract {stack}[{k}] : {st}")


def _save_states(b: GradBuilder, op: ir.OpView, n: str, state: Sequence[ir.Value], inits: Sequence[str], step) -> tuple[list[str], list[str]]:
    """Run ``step`` n times from ``inits``, saving each iteration's starting state.

    ``step(k)`` emits one iteration with ``state`` bound and returns the next state's
    names. Returns (final state names, stack names).
    """
    types = [_stack_type(op, v.type) for v in state]
    stacks = [b.op(f"tensor.empty({n}) : {t}") for t in types]
    zero, one = b.index(0), b.index(1)
    k, cur, held = b.fresh(), [b.fresh() for _ in state], [b.fresh() for _ in state]
    carried = ", ".join(f"{c} = {i}" for c, i in zip(cur + held, list(inits) + stacks))
    all_types = ", ".join(str(t) for t in [v.type for v in state] + types)
    outs = b.ops(f"scf.for {k} = {zero} to {n} step {one} iter_args({carried}) -> ({all_types}) {{", 2 * len(state))
    pushed = [_push(b, s, t, c, v.type, k) for s, t, c, v in zip(held, types, cur, state)]
    b.bind(state, cur)
    nxt = step(k)
    b.line(f"scf.yield {', '.join(nxt + pushed)} : {all_types}")
    b.line("}")
    return outs[: len(state)], outs[len(state) :]


def _reverse(b: GradBuilder, n: str, state: Sequence[ir.Value], stacks: Sequence[str], op: ir.OpView,
             seeds: list[str], free: list[ir.Value], body) -> tuple[list[str], list[str]]:
    """Iterations n-1 .. 0: reload the state, let ``body(k, adj, seeds)`` backprop one iteration.

    ``seeds`` are the adjoints of the float state after the last iteration; returns the
    adjoints of the float state before the first one and the summed adjoints of ``free``.
    """
    floats = [v for v in state if is_float(v.type)]
    zero, one = b.index(0), b.index(1)
    last = b.op(f"arith.subi {n}, {one} : index")
    sums = [b.zeros(v) for v in free]
    r = b.fresh()
    acc, facc = [b.fresh() for _ in floats], [b.fresh() for _ in free]
    carried = ", ".join(f"{a} = {i}" for a, i in zip(acc + facc, seeds + sums))
    types = _types(floats + free)
    outs = b.ops(f"scf.for {r} = {zero} to {n} step {one} iter_args({carried}) -> ({types}) {{", len(floats) + len(free))
    k = b.op(f"arith.subi {last}, {r} : index")
    b.bind(state, [_load(b, s, _stack_type(op, v.type), v.type, k) for s, v in zip(stacks, state)])
    adj = Adjoints(b)
    body(k, adj, acc)
    new = [b.or_zeros(v, adj.get(v)) for v in floats]
    new_free = [a if adj.get(v) is None else b.op(f"arith.addf {a}, {adj.get(v)} : {v.type}") for a, v in zip(facc, free)]
    if new + new_free:
        b.line(f"scf.yield {', '.join(new + new_free)} : {types}")
    else:
        b.line("scf.yield")
    b.line("}")
    return outs[: len(floats)], outs[len(floats) :]


def _seed(adj: Adjoints, values: Sequence[ir.Value], seeds: Sequence[str | None]) -> None:
    for v, g in zip(values, seeds):
        adj.add(v, g)


def scf_for(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    body = op.regions[0].blocks[0]
    iv, state = body.arguments[0], list(body.arguments)[1:]
    if str(iv.type) != "index":
        raise fail(op, "scf.for gradients need an index induction variable")
    lb, ub, step = (b.name(v) for v in list(op.operands)[:3])
    inits = list(op.operands)[3:]
    span = b.op(f"arith.subi {ub}, {lb} : index")
    n = b.op(f"arith.maxsi {b.op(f'arith.ceildivsi {span}, {step} : index')}, {b.index(0)} : index")

    def induction(k: str) -> None:
        b.bind([iv], [b.op(f"arith.addi {lb}, {b.op(f'arith.muli {k}, {step} : index')} : index")])

    def forward(k: str) -> list[str]:
        induction(k)
        ops, terminator = b.forward_block(body)
        return [b.name(v) for v in terminator.operands]

    _, stacks = _save_states(b, op, n, state, [b.name(v) for v in inits], forward)
    floats = [i for i, v in enumerate(state) if is_float(v.type)]
    free = free_floats(op)

    def backward(k: str, adj: Adjoints, acc: list[str]) -> None:
        induction(k)
        ops, terminator = b.forward_block(body)
        _seed(adj, [terminator.operands[i] for i in floats], acc)
        b.backprop(ops, adj)

    seeds = [b.or_zeros(op.results[i], gs[i]) for i in floats]
    d_state, d_free = _reverse(b, n, state, stacks, op, seeds, free, backward)
    return [(inits[i], d) for i, d in zip(floats, d_state)] + list(zip(free, d_free))


def scf_while(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    state, passed = list(before.arguments), list(after.arguments)
    inits = list(op.operands)
    n = _count(b, op, before, after, [b.name(v) for v in inits])

    def iteration() -> tuple[list[ir.OpView], ir.OpView, list[ir.OpView], ir.OpView]:
        """Recompute one before+after iteration from the bound state."""
        b_ops, cond = b.forward_block(before)
        b.bind(passed, [b.name(v) for v in list(cond.operands)[1:]])
        a_ops, yld = b.forward_block(after)
        return b_ops, cond, a_ops, yld

    def forward(k: str) -> list[str]:
        return [b.name(v) for v in iteration()[3].operands]

    final, stacks = _save_states(b, op, n, state, [b.name(v) for v in inits], forward)
    floats = [v for v in state if is_float(v.type)]
    free = free_floats(op)
    # The last `before` (whose condition was false) produced the results.
    b.bind(state, final)
    b_ops, cond = b.forward_block(before)
    last = Adjoints(b)
    _seed(last, list(cond.operands)[1:], gs)
    b.backprop(b_ops, last)
    seeds = [b.or_zeros(v, last.get(v)) for v in floats]

    def backward(k: str, adj: Adjoints, acc: list[str]) -> None:
        b_ops, cond, a_ops, yld = iteration()
        _seed(adj, [v for v in yld.operands if is_float(v.type)], acc)
        b.backprop(a_ops, adj)
        _seed(adj, list(cond.operands)[1:], [adj.get(v) for v in passed])
        b.backprop(b_ops, adj)

    d_state, d_free = _reverse(b, n, state, stacks, op, seeds, free, backward)
    d_free = [d if last.get(v) is None else b.op(f"arith.addf {d}, {last.get(v)} : {v.type}") for d, v in zip(d_free, free)]
    float_inits = [v for v, s in zip(inits, state) if is_float(s.type)]
    return list(zip(float_inits, d_state)) + list(zip(free, d_free))


def _count(b: GradBuilder, op: ir.OpView, before: ir.Block, after: ir.Block, inits: list[str]) -> str:
    """Re-run the loop with an iteration counter; returns the number of `after` runs."""
    state, passed = list(before.arguments), list(after.arguments)
    cur, cnt = [b.fresh() for _ in state], b.fresh()
    args = ", ".join(f"{c} = {i}" for c, i in zip(cur + [cnt], inits + [b.index(0)]))
    results = [v.type for v in op.results]
    in_types = ", ".join(str(t) for t in [v.type for v in state] + ["index"])
    out_types = ", ".join(str(t) for t in results + ["index"])
    outs = b.ops(f"scf.while ({args}) : ({in_types}) -> ({out_types}) {{", len(results) + 1)
    b.bind(state, cur)
    _, cond = b.forward_block(before)
    fwd = [b.name(v) for v in list(cond.operands)[1:]]
    b.line(f"scf.condition({b.name(cond.operands[0])}) {', '.join(fwd + [cnt])} : {out_types}")
    got, cnt2 = [b.fresh() for _ in passed], b.fresh()
    b.line("} do {")
    header = [f"{g}: {v.type}" for g, v in zip(got, passed)] + [f"{cnt2}: index"]
    b.line(f"^bb0({', '.join(header)}):")
    b.bind(passed, got)
    _, yld = b.forward_block(after)
    nxt = b.op(f"arith.addi {cnt2}, {b.index(1)} : index")
    b.line(f"scf.yield {', '.join([b.name(v) for v in yld.operands] + [nxt])} : {in_types}")
    b.line("}")
    return outs[-1]


def call(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """A call's adjoint calls the callee's ``_vjp`` with the same op kind and operands."""
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    floats = [v for v in op.operands if is_float(v.type)]
    if not floats:
        return []
    vjp = b.request_vjp(callee)
    seeds = [b.or_zeros(r, g) for r, g in zip(op.results, gs) if is_float(r.type)]
    args = [b.name(v) for v in op.operands] + seeds
    in_types = [str(v.type) for v in op.operands] + [str(r.type) for r in op.results if is_float(r.type)]
    sig = f"({', '.join(in_types)}) -> ({_types(floats)})"
    if op.operation.name == "func.call":
        outs = b.ops(f"func.call @{vjp}({', '.join(args)}) : {sig}", len(floats))
    else:
        outs = b.ops(f'"{op.operation.name}"({", ".join(args)}) {{callee = @{vjp}}} : {sig}', len(floats))
    return list(zip(floats, outs))
