"""VJP rule of product reductions: a ``linalg.generic`` whose body yields ``acc * e`` with
``e`` an elementwise function of its inputs and loop indices (``np.prod``; ``np.cumprod``,
whose ``e`` is the operand inside the prefix and 1 outside).

``out[k] = init[k] * prod_r e[k, r]``, so ``d e[k, r] = g[k] * init[k] * prod_{r' != r} e[k, r']``.
The product of the others is taken as it is, never as ``out / e``, so zeros in the operand
give NumPy's exact gradient (one zero: the product of the rest; two: 0) instead of NaN.
With one reduced loop (``np.prod`` over one axis, ``np.cumprod``) the product of the
others is an exclusive prefix times an exclusive suffix product (``iree_linalg_ext.scan``):
O(loop points), n per lane for ``np.prod``, n² for ``np.cumprod`` (its loop space is
(i, j)); over several reduced loops (``np.prod`` of a whole matrix) it is one pass over
the reduced loops per point, O(points x reduced extent). ``d e`` then goes
through ``e``'s body to the inputs with the elementwise rules, summed over the loops an
input's map does not read. The init must be a constant (the frontend fills it with 1).
"""

from __future__ import annotations

from iree.compiler.dialects import arith, linalg, tensor

from janus.ir import ir
from janus.passes.autodiff.builder import Adjoint, Adjoints, GradBuilder, body_ops, constant, fail, is_float, linalg_generic
from janus.passes.autodiff.vjp_linalg import (
    PARALLEL, REDUCTION, Pairs, _element, _loop_sizes, _map, _map_dims, _tensor, sum_to,
)


def product_factor(op: ir.OpView) -> tuple[ir.Value, list[ir.OpView]] | None:
    """``e`` of a one-output generic whose body yields ``acc * e`` (``e`` free of ``acc``)
    and the body ops that compute it; None for other generics."""
    if len(op.outputs) != 1:
        return None
    block = op.regions[0].blocks[0]
    acc = block.arguments[len(op.inputs)]
    ops, terminator = body_ops(block)
    uses = [o for o in ops if any(v == acc for v in o.operands)]
    if len(uses) != 1 or uses[0].operation.name != "arith.mulf" or uses[0].result != terminator.operands[0]:
        return None
    left, right = uses[0].operands
    if (left == acc) == (right == acc):
        return None
    return (right if left == acc else left), [o for o in ops if o.operation != uses[0].operation]


def _constant_init(v: ir.Value) -> bool:
    """An init nothing differentiable reaches: a constant, or a fill of one."""
    owner = v.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)):
        return False
    if owner.operation.name == "linalg.fill":
        return _constant_init(owner.operands[0])
    return owner.operation.name == "arith.constant"


def product(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    ins, init = list(op.inputs), op.outputs[0]
    if not _constant_init(init):
        raise fail(op, "product reduction gradients need a constant init")
    block = op.regions[0].blocks[0]
    factor, factor_ops = product_factor(op)  # type: ignore[misc]
    maps = list(op.attributes["indexing_maps"])
    n, out_dims = _map_dims(maps[-1])
    if None in out_dims:
        raise fail(op, "product reduction gradients need a projected result map")
    sizes = _loop_sizes(op, n)
    reduced = [d for d in range(n) if d not in out_dims]
    el = _element(op.results[0].type)
    full_t = _tensor(sizes, el)
    in_args = list(block.arguments)[: len(ins)]
    copies = [b.copy_of(v) for v in ins]
    every = _map(n, list(range(n)))

    def factors(*args: ir.Value) -> ir.Value:
        b.bind(in_args, list(args[: len(ins)]))
        for o in factor_ops:
            b.forward(o)
        return b.copy_of(factor)

    e = linalg_generic(full_t, copies, [tensor.EmptyOp(sizes, el).result], maps[: len(ins)] + [every], [PARALLEL] * n, factors)
    others = _product_of_others(e, sizes, reduced)
    g_init = linalg_generic(full_t, [gs[0], b.copy_of(init), others], [tensor.EmptyOp(sizes, el).result],
                            [_map(n, out_dims), _map(n, out_dims), every, every], [PARALLEL] * n,
                            lambda dy, i, o, _: arith.mulf(arith.mulf(dy, i), o))
    pairs: Pairs = []
    for i, v in enumerate(ins):
        if not is_float(v.type) or not isinstance(v.type, ir.RankedTensorType):
            continue
        full = _factor_gradient(b, op, factor_ops, factor, in_args[i], copies + [g_init], maps[: len(ins)] + [every], full_t)
        pairs.append((v, sum_to(b, full, _map_dims(maps[i])[1], v.type)))
    return pairs


def _product_of_others(e: ir.Value, sizes: list[int], reduced: list[int]) -> ir.Value:
    """Per loop point ``p``: the product of ``e`` over the points that differ from ``p`` only
    in the reduced loops, ``p`` itself left out. One reduced loop: exclusive prefix times
    exclusive suffix products (scans, O(extent) per lane); more: a generic in which loop
    ``n + t`` walks reduced loop ``t`` and skips ``p`` (O(extent) per point)."""
    if len(reduced) == 1:
        dim = reduced[0]
        suffix = _reversed(_exclusive_products(_reversed(e, dim), dim), dim)
        n = len(sizes)
        every = _map(n, list(range(n)))
        return linalg_generic(e.type, [_exclusive_products(e, dim), suffix], [tensor.EmptyOp(sizes, _element(e.type)).result],
                              [every, every, every], [PARALLEL] * n, lambda a, c, _: arith.mulf(a, c))
    n, m = len(sizes), len(reduced)
    el = _element(e.type)
    moved = [n + reduced.index(d) if d in reduced else d for d in range(n)]

    def body(other: ir.Value, acc: ir.Value) -> ir.Value:
        same = None
        for t, d in enumerate(reduced):
            eq = arith.cmpi(arith.CmpIPredicate.eq, linalg.IndexOp(d).result, linalg.IndexOp(n + t).result)
            same = eq if same is None else arith.andi(same, eq)
        return arith.mulf(acc, arith.select(same, constant(el, 1.0), other))

    return linalg_generic(e.type, [e], [_ones(e.type)], [_map(n + m, moved), _map(n + m, list(range(n)))],
                          [PARALLEL] * n + [REDUCTION] * m, body)


def _ones(t: ir.Type) -> ir.Value:
    """A fill of 1 (written in place by a scan, so not a constant)."""
    el = _element(t)
    return linalg.fill(constant(el, 1.0), outs=[tensor.EmptyOp(list(ir.RankedTensorType(t).shape), el).result])


def _exclusive_products(e: ir.Value, dim: int) -> ir.Value:
    """``prod_{r' < r} e`` along ``dim``: an exclusive ``iree_linalg_ext.scan``."""
    shape, el = list(ir.RankedTensorType(e.type).shape), _element(e.type)
    total_t = _tensor([s for d, s in enumerate(shape) if d != dim], el)
    op = ir.Operation.create(
        "iree_linalg_ext.scan", results=[e.type, total_t], operands=[e, _ones(e.type), _ones(total_t)],
        attributes={"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim),
                    "inclusive": ir.BoolAttr.get(False)},
        regions=1)
    block = op.regions[0].blocks.append(el, el)
    with ir.InsertionPoint(block):
        ir.Operation.create("iree_linalg_ext.yield", operands=[arith.mulf(block.arguments[0], block.arguments[1])])
    return op.results[0]


def _reversed(e: ir.Value, dim: int) -> ir.Value:
    """``e`` read backwards along ``dim``, by a ``tensor.extract`` at ``extent - 1 - r`` in the
    body: an indexing map ``-r + extent - 1`` breaks IREE 3.13's tiling ("inferred operand
    dimension ... found 1") once it meets the scan."""
    shape = list(ir.RankedTensorType(e.type).shape)
    n = len(shape)

    def body(_: ir.Value) -> ir.Value:
        index = ir.IndexType.get()
        coords = [linalg.IndexOp(d).result for d in range(n)]
        coords[dim] = arith.subi(arith.constant(index, shape[dim] - 1), coords[dim])
        return tensor.extract(e, coords)

    return linalg_generic(e.type, [], [tensor.EmptyOp(shape, _element(e.type)).result], [_map(n, list(range(n)))],
                          [PARALLEL] * n, body)


def _factor_gradient(b: GradBuilder, op: ir.OpView, factor_ops: list[ir.OpView], factor: ir.Value, wanted: ir.Value,
                     ins: list[ir.Value], maps: list[ir.Attribute], full_t: ir.Type) -> ir.Value:
    """The cotangent of ``wanted`` (an input's block argument) at every loop point, given
    the cotangent of ``e`` there (the last of ``ins``)."""
    block = op.regions[0].blocks[0]
    in_args = list(block.arguments)[: len(op.inputs)]
    n = len(ir.RankedTensorType(full_t).shape)

    def body(*args: ir.Value) -> ir.Value:
        b.bind(in_args, list(args[: len(in_args)]))
        for o in factor_ops:
            b.forward(o)
        adj = Adjoints()
        adj.add(factor, args[len(in_args)])
        b.backprop(factor_ops, adj)
        return b.or_zeros(wanted, adj.get(wanted))

    return linalg_generic(full_t, ins, [tensor.EmptyOp(list(ir.RankedTensorType(full_t).shape), _element(full_t)).result],
                          maps + [_map(n, list(range(n)))], [PARALLEL] * n, body)
