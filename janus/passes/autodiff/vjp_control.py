"""VJP rules of control flow and calls: ``scf.if``, ``scf.for``, ``scf.while``, calls.

Branches are recomputed inside the backward ``scf.if`` (the forward condition picks the
same branch). Loops save each iteration's carried state in a tensor with a leading
iteration dimension, then run backwards from the last iteration, recomputing that
iteration's body from its saved state. ``scf.while`` first counts its iterations, so its
data-dependent trip count is known before saving. Values defined outside a region get
their adjoints summed over branches and iterations and returned as region results.
"""

from __future__ import annotations

from typing import Callable, Sequence

from iree.compiler.dialects import arith, scf, tensor

from janus.ir import ir
from janus.passes.autodiff.builder import Adjoint, Adjoints, GradBuilder, fail, free_floats, is_float

Pairs = list[tuple[ir.Value, ir.Value]]
DYNAMIC = ir.ShapedType.get_dynamic_size()


def scf_if(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    free = free_floats(op)
    if not free:
        return []
    new = scf.IfOp(b.copy_of(op.operands[0]), [v.type for v in free], has_else=True)
    for region, block in zip(op.regions, (new.then_block, new.else_block)):
        with ir.InsertionPoint(block):
            grads = b.block_vjp(region.blocks[0], gs, free)
            scf.yield_([b.or_zeros(v, g) for v, g in zip(free, grads)])
    return list(zip(free, new.results))


# ---- per-iteration state ---------------------------------------------------------------------
def _stack_type(op: ir.OpView, t: ir.Type) -> ir.RankedTensorType:
    if isinstance(t, ir.RankedTensorType):
        tt = ir.RankedTensorType(t)
        if not tt.has_static_shape:
            raise fail(op, "loop gradients need statically shaped carried tensors")
        return ir.RankedTensorType.get([DYNAMIC, *tt.shape], tt.element_type)
    return ir.RankedTensorType.get([DYNAMIC], t)


def _row(k: ir.Value, t: ir.Type) -> tuple:
    """The slice arguments of row ``k`` of a stack of ``t``s."""
    shape = list(ir.RankedTensorType(t).shape) if isinstance(t, ir.RankedTensorType) else []
    return [k], [], [], [DYNAMIC] + [0] * len(shape), [1, *shape], [1] * (len(shape) + 1)


def _push(stack: ir.Value, value: ir.Value, k: ir.Value) -> ir.Value:
    """Save ``value`` at row ``k`` (scalars via a rank-0 tensor: IREE 3.13 miscompiles a
    scalar ``tensor.insert`` of 64-bit elements)."""
    if not isinstance(value.type, ir.RankedTensorType):
        value = tensor.from_elements(ir.RankedTensorType.get([], value.type), [value])
    return tensor.insert_slice(value, stack, *_row(k, value.type))


def _load(stack: ir.Value, t: ir.Type, k: ir.Value) -> ir.Value:
    if isinstance(t, ir.RankedTensorType):
        return tensor.extract_slice(t, stack, *_row(k, t))
    return tensor.extract(stack, [k])


def _loop(b: GradBuilder, n: ir.Value, inits: Sequence[ir.Value]) -> tuple[scf.ForOp, ir.Value, list[ir.Value]]:
    """An ``scf.for`` of ``n`` iterations carrying ``inits``: (op, induction var, carried)."""
    loop = scf.ForOp(b.index(0), n, b.index(1), list(inits))
    return loop, loop.induction_variable, list(loop.inner_iter_args)


def _save_states(b: GradBuilder, op: ir.OpView, n: ir.Value, state: Sequence[ir.Value], inits: Sequence[ir.Value],
                 step: Callable[[ir.Value], list[ir.Value]]) -> tuple[list[ir.Value], list[ir.Value]]:
    """Run ``step`` n times from ``inits``, saving each iteration's starting state.

    ``step(k)`` builds one iteration with ``state`` bound and returns the next state.
    Returns (final state, stacks).
    """
    types = [_stack_type(op, v.type) for v in state]
    stacks = [tensor.EmptyOp([n, *list(t.shape)[1:]], t.element_type).result for t in types]
    loop, k, carried = _loop(b, n, list(inits) + stacks)
    cur, held = carried[: len(state)], carried[len(state):]
    with ir.InsertionPoint(loop.body):
        pushed = [_push(s, c, k) for s, c in zip(held, cur)]
        b.bind(state, cur)
        scf.yield_(step(k) + pushed)
    results = list(loop.results)
    return results[: len(state)], results[len(state):]


def _reverse(b: GradBuilder, n: ir.Value, state: Sequence[ir.Value], stacks: Sequence[ir.Value], seeds: list[ir.Value],
             free: list[ir.Value], body: Callable[[ir.Value, Adjoints, list[ir.Value]], None]) -> tuple[list[ir.Value], list[ir.Value]]:
    """Iterations n-1 .. 0: reload the state, let ``body(k, adj, seeds)`` backprop one iteration.

    ``seeds`` are the adjoints of the float state after the last iteration; returns the
    adjoints of the float state before the first one and the summed adjoints of ``free``.
    """
    floats = [v for v in state if is_float(v.type)]
    last = arith.subi(n, b.index(1))
    sums = [b.zeros(v) for v in free]
    loop, r, carried = _loop(b, n, seeds + sums)
    acc, facc = carried[: len(floats)], carried[len(floats):]
    with ir.InsertionPoint(loop.body):
        k = arith.subi(last, r)
        b.bind(state, [_load(s, v.type, k) for s, v in zip(stacks, state)])
        adj = Adjoints()
        body(k, adj, acc)
        new = [b.or_zeros(v, adj.get(v)) for v in floats]
        new_free = [a if adj.get(v) is None else arith.addf(a, adj.get(v)) for a, v in zip(facc, free)]
        scf.yield_(new + new_free)
    results = list(loop.results)
    return results[: len(floats)], results[len(floats):]


def _seed(adj: Adjoints, values: Sequence[ir.Value], seeds: Sequence[Adjoint]) -> None:
    for v, g in zip(values, seeds):
        adj.add(v, g)


def scf_for(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    body = op.regions[0].blocks[0]
    iv, state = body.arguments[0], list(body.arguments)[1:]
    if str(iv.type) != "index":
        raise fail(op, "scf.for gradients need an index induction variable")
    lb, ub, step = (b.copy_of(v) for v in list(op.operands)[:3])
    inits = list(op.operands)[3:]
    span = arith.subi(ub, lb)
    n = arith.maxsi(arith.ceildivsi(span, step), b.index(0))

    def induction(k: ir.Value) -> None:
        b.bind([iv], [arith.addi(lb, arith.muli(k, step))])

    def forward(k: ir.Value) -> list[ir.Value]:
        induction(k)
        ops, terminator = b.forward_block(body)
        return [b.copy_of(v) for v in terminator.operands]

    _, stacks = _save_states(b, op, n, state, [b.copy_of(v) for v in inits], forward)
    floats = [i for i, v in enumerate(state) if is_float(v.type)]
    free = free_floats(op)

    def backward(k: ir.Value, adj: Adjoints, acc: list[ir.Value]) -> None:
        induction(k)
        ops, terminator = b.forward_block(body)
        _seed(adj, [terminator.operands[i] for i in floats], acc)
        b.backprop(ops, adj)

    seeds = [b.or_zeros(op.results[i], gs[i]) for i in floats]
    d_state, d_free = _reverse(b, n, state, stacks, seeds, free, backward)
    return [(inits[i], d) for i, d in zip(floats, d_state)] + list(zip(free, d_free))


def scf_while(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    state, passed = list(before.arguments), list(after.arguments)
    inits = list(op.operands)
    n = _count(b, op, before, after, [b.copy_of(v) for v in inits])

    def iteration() -> tuple[list[ir.OpView], ir.OpView, list[ir.OpView], ir.OpView]:
        """Recompute one before+after iteration from the bound state."""
        b_ops, cond = b.forward_block(before)
        b.bind(passed, [b.copy_of(v) for v in list(cond.operands)[1:]])
        a_ops, yld = b.forward_block(after)
        return b_ops, cond, a_ops, yld

    def forward(k: ir.Value) -> list[ir.Value]:
        return [b.copy_of(v) for v in iteration()[3].operands]

    final, stacks = _save_states(b, op, n, state, [b.copy_of(v) for v in inits], forward)
    floats = [v for v in state if is_float(v.type)]
    free = free_floats(op)
    # The last `before` (whose condition was false) produced the results.
    b.bind(state, final)
    b_ops, cond = b.forward_block(before)
    last = Adjoints()
    _seed(last, list(cond.operands)[1:], gs)
    b.backprop(b_ops, last)
    seeds = [b.or_zeros(v, last.get(v)) for v in floats]

    def backward(k: ir.Value, adj: Adjoints, acc: list[ir.Value]) -> None:
        b_ops, cond, a_ops, yld = iteration()
        _seed(adj, [v for v in yld.operands if is_float(v.type)], acc)
        b.backprop(a_ops, adj)
        _seed(adj, list(cond.operands)[1:], [adj.get(v) for v in passed])
        b.backprop(b_ops, adj)

    d_state, d_free = _reverse(b, n, state, stacks, seeds, free, backward)
    d_free = [d if last.get(v) is None else arith.addf(d, last.get(v)) for d, v in zip(d_free, free)]
    float_inits = [v for v, s in zip(inits, state) if is_float(s.type)]
    return list(zip(float_inits, d_state)) + list(zip(free, d_free))


def _count(b: GradBuilder, op: ir.OpView, before: ir.Block, after: ir.Block, inits: list[ir.Value]) -> ir.Value:
    """Re-run the loop with an iteration counter; returns the number of `after` runs."""
    state, passed = list(before.arguments), list(after.arguments)
    index = ir.IndexType.get()
    loop = scf.WhileOp([v.type for v in op.results] + [index], inits + [b.index(0)])
    head = loop.regions[0].blocks.append(*[v.type for v in state], index)
    with ir.InsertionPoint(head):
        b.bind(state, list(head.arguments)[:-1])
        _, cond = b.forward_block(before)
        fwd = [b.copy_of(v) for v in list(cond.operands)[1:]]
        scf.condition(b.copy_of(cond.operands[0]), fwd + [head.arguments[len(state)]])
    body = loop.regions[1].blocks.append(*[v.type for v in passed], index)
    with ir.InsertionPoint(body):
        b.bind(passed, list(body.arguments)[:-1])
        _, yld = b.forward_block(after)
        nxt = arith.addi(body.arguments[len(passed)], b.index(1))
        scf.yield_([b.copy_of(v) for v in yld.operands] + [nxt])
    return loop.results[len(op.results)]


def call(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """A call's adjoint calls the callee's ``_vjp`` with the same op kind and operands."""
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    floats = [v for v in op.operands if is_float(v.type)]
    if not floats:
        return []
    vjp = b.request_vjp(callee)
    seeds = [b.or_zeros(r, g) for r, g in zip(op.results, gs) if is_float(r.type)]
    new = ir.Operation.create(
        op.operation.name,
        results=[v.type for v in floats],
        operands=[b.copy_of(v) for v in op.operands] + seeds,
        attributes={"callee": ir.FlatSymbolRefAttr.get(vjp)},
    )
    return list(zip(floats, new.results))
