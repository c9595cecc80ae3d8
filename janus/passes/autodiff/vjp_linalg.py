"""VJP rules of ``linalg`` ops (static shapes).

``linalg.generic`` is what the frontend emits for elementwise maps (with NumPy
broadcasting in the indexing maps) and sums: its body is differentiated scalar-wise with
the elementwise rules in one adjoint ``linalg.generic`` over the iteration space, and each
input's adjoint is then summed over the loops its indexing map does not use.
"""

from __future__ import annotations

from typing import Callable

from iree.compiler.dialects import arith, linalg, tensor

from janus.ir import ir, unit_dims_reassociation
from janus.passes.autodiff.builder import (
    Adjoint, GradBuilder, Rule, body_ops, constant, fail, is_float, linalg_generic, static_slice,
)

Pairs = list[tuple[ir.Value, ir.Value]]
PARALLEL, REDUCTION = linalg.IteratorType.parallel, linalg.IteratorType.reduction


def _shape(t: ir.Type) -> list[int]:
    return list(ir.RankedTensorType(t).shape)


def _element(t: ir.Type) -> ir.Type:
    return ir.RankedTensorType(t).element_type


def _tensor(shape: list[int], element: ir.Type) -> ir.Type:
    return ir.RankedTensorType.get(shape, element)


def _empty(t: ir.Type) -> ir.Value:
    """A ``tensor.empty`` of the static type ``t``."""
    return tensor.EmptyOp(_shape(t), _element(t)).result


def _map(n: int, results: list[ir.AffineExpr | int]) -> ir.Attribute:
    """An indexing map over ``n`` loops; an int result ``k`` reads loop ``k``."""
    exprs = [ir.AffineDimExpr.get(e) if isinstance(e, int) else e for e in results]
    return ir.AffineMapAttr.get(ir.AffineMap.get(n, 0, exprs))


def _map_dims(attr: ir.Attribute) -> tuple[int, list[int | None]]:
    """(loop count, per result: the loop it reads or None for a constant)."""
    m = ir.AffineMapAttr(attr).value
    out: list[int | None] = []
    for e in m.results:
        if isinstance(e, ir.AffineDimExpr):
            out.append(ir.AffineDimExpr(e).position)
        elif isinstance(e, ir.AffineConstantExpr):
            out.append(None)
        else:
            raise ValueError(f"indexing map result {e}")
    return m.n_dims, out


def _sum(x: ir.Value, acc: ir.Value) -> ir.Value:
    return arith.addf(x, acc)


def sum_to(b: GradBuilder, full: ir.Value, dims: list[int | None], target: ir.Type) -> ir.Value:
    """Sum ``full`` (one entry per loop) over the loops ``dims`` does not read, into ``target``.

    ``dims`` lists, per target dimension, the loop it reads, or None for a broadcast unit
    dimension (reinserted with ``tensor.expand_shape``).
    """
    sizes = _shape(full.type)
    n = len(sizes)
    kept = [d for d in dims if d is not None]
    if kept == list(range(n)) and len(dims) == n:
        return full
    reduced_type = _tensor([sizes[d] for d in kept], _element(full.type))
    iterators = [PARALLEL if i in kept else REDUCTION for i in range(n)]
    maps = [_map(n, list(range(n))), _map(n, kept)]
    reduced = linalg_generic(reduced_type, [full], [constant(reduced_type, 0.0)], maps, iterators, _sum)
    if len(kept) == len(dims):
        return reduced
    positions = [p for p, d in enumerate(dims) if d is not None]
    groups = unit_dims_reassociation(tuple(_shape(reduced_type)), positions, len(dims))
    return tensor.expand_shape(target, reduced, groups, [], _shape(target))


def _loop_sizes(op: ir.OpView, n: int) -> list[int]:
    sizes: list[int | None] = [None] * n
    for v, attr in zip(op.operands, op.attributes["indexing_maps"]):
        for size, d in zip(_shape(v.type), _map_dims(attr)[1]):
            if d is not None and size != ir.ShapedType.get_dynamic_size():
                sizes[d] = size
    if None in sizes:
        raise fail(op, "linalg.generic gradients need static loop sizes")
    return sizes  # type: ignore[return-value]


def generic(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """Elementwise maps (any number of results) and sums: ``outs = f(ins)`` or ``out = init + sum f(ins)``."""
    ins, outs = list(op.inputs), list(op.outputs)
    block = op.regions[0].blocks[0]
    accs = list(block.arguments)[len(ins):]
    ops, terminator = body_ops(block)
    uses = [o for o in ops if any(v in accs for v in o.operands)]
    summed = bool(uses)
    if summed and (len(outs) != 1 or len(uses) != 1 or uses[0].operation.name != "arith.addf"
                   or uses[0].result != terminator.operands[0]):
        raise fail(op, "no gradient rule for a linalg.generic reduction other than a sum")
    maps = list(op.attributes["indexing_maps"])
    n = _map_dims(maps[0])[0]
    iterators = str(op.attributes["iterator_types"])
    if not summed and "reduction" in iterators:
        raise fail(op, "no gradient rule for a linalg.generic reduction that ignores its accumulator")
    sizes = _loop_sizes(op, n)
    wanted = [i for i, v in enumerate(ins) if is_float(v.type) and isinstance(v.type, ir.RankedTensorType)]
    pairs: Pairs = [(outs[0], gs[0])] if summed else []
    # One generic per input: a multi-result generic's inits are identical tensor.empty ops
    # that cse merges, and iree-compile 3.13 then fails on the generic ("expected number
    # of yield values (2) to match the number of inits")
    for i in wanted:
        full = _input_gradient(b, op, i, gs, _tensor(sizes, _element(ins[i].type)))
        pairs.append((ins[i], sum_to(b, full, _map_dims(maps[i])[1], ins[i].type)))
    return pairs


def _input_gradient(b: GradBuilder, op: ir.OpView, i: int, gs: list[Adjoint], full_type: ir.Type) -> ir.Value:
    """The cotangent of input ``i`` of the generic ``op`` at every point of its loop space.

    The new generic reads each result's cotangent where the result is written (an
    accumulator's element stands in for it: a sum's body reads it only in the ``addf``);
    a result without one passes its init, read by nothing the rules build."""
    ins, outs = list(op.inputs), list(op.outputs)
    block = op.regions[0].blocks[0]
    in_args, accs = list(block.arguments)[: len(ins)], list(block.arguments)[len(ins):]
    maps = list(op.attributes["indexing_maps"])
    n = len(_shape(full_type))
    seeded = [g if g is not None else b.copy_of(out) for g, out in zip(gs, outs)]

    def body(*args: ir.Value) -> ir.Value:
        b.bind(in_args + accs, list(args[: len(ins) + len(outs)]))
        seeds = [args[len(ins) + j] if g is not None else None for j, g in enumerate(gs)]
        (grad,) = b.block_vjp(block, seeds, [in_args[i]])
        return b.or_zeros(in_args[i], grad)

    return linalg_generic(full_type, [b.copy_of(v) for v in ins] + seeded, [_empty(full_type)],
                          maps + [_map(n, list(range(n)))], [PARALLEL] * n, body)


def _transpose(x: ir.Value, perm: list[int]) -> ir.Value:
    shape = _shape(x.type)
    init = _empty(_tensor([shape[p] for p in perm], _element(x.type)))
    return linalg.transpose(x, outs=[init], permutation=perm).results[0]


def contraction(opname: str, swap: list[int]) -> Rule:
    """matmul / batch_matmul: dA = g Bᵀ, dB = Aᵀ g, dC = g (``swap`` transposes the last two dims)."""
    product: Callable[..., ir.Value] = getattr(linalg, opname.removeprefix("linalg."))

    def rule(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
        a, bb, c = op.operands
        bt = _transpose(b.copy_of(bb), swap)
        at = _transpose(b.copy_of(a), swap)
        return [
            (a, product(gs[0], bt, outs=[constant(a.type, 0.0)])),
            (bb, product(at, gs[0], outs=[constant(bb.type, 0.0)])),
            (c, gs[0]),
        ]

    return rule


def transpose(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    perm = list(op.attributes["permutation"])
    return [(op.operands[0], _transpose(gs[0], [perm.index(i) for i in range(len(perm))]))]


def fill(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """The fill value's adjoint is the sum of the result's; the init is overwritten."""
    value, t = op.operands[0], op.results[0].type
    total = sum_to(b, gs[0], [], _tensor([], _element(t)))
    return [(value, tensor.extract(total, []))]


def broadcast(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    x, t = op.operands[0], op.results[0].type
    added = list(op.attributes["dimensions"])
    kept: list[int | None] = [d for d in range(len(_shape(t))) if d not in added]
    return [(x, sum_to(b, gs[0], kept, x.type))]


def reduce(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """Sums only: the input's adjoint is the result's broadcast back; the init's is the result's."""
    x, init = op.operands
    ops, terminator = body_ops(op.regions[0].blocks[0])
    if len(ops) != 1 or ops[0].operation.name != "arith.addf":
        raise fail(op, "no gradient rule for a linalg.reduce other than a sum")
    dims = list(op.attributes["dimensions"])
    dx = linalg.broadcast(gs[0], outs=[_empty(x.type)], dimensions=dims).results[0]
    return [(x, dx), (init, gs[0])]


def conv_pair(op: ir.OpView, name: str) -> list[int]:
    """A conv's or pooling's ``strides`` / ``dilations`` (default 1)."""
    if name not in op.attributes:
        return [1, 1]
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def _reverse(x: ir.Value, dim: int) -> ir.Value:
    """``x`` reversed along ``dim``: its unit slices concatenated in reverse order."""
    shape = _shape(x.type)
    sizes = [1 if i == dim else n for i, n in enumerate(shape)]
    piece_t = _tensor(sizes, _element(x.type))
    pieces = [
        tensor.extract_slice(piece_t, x, *static_slice([k if i == dim else 0 for i in range(len(shape))], sizes))
        for k in reversed(range(shape[dim]))
    ]
    if len(pieces) == 1:
        return pieces[0]
    return tensor.concat(x.type, dim, pieces)


def conv_2d_nchw_fchw(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """``out = init + conv(x, w)``, out[n,f,i,j] += x[n,c,i*s+k*d,j*t+l*e] w[f,c,k,l].

    dW correlates x with the cotangent (a ``linalg.generic`` over the 7 loops); dx is the
    cotangent spread to stride positions of a zero tensor padded by (K-1)*d on each side,
    convolved (stride 1, same dilation) with the filter flipped and its channels swapped.
    The flip is slices and a concat: a generic reading ``K-1-k`` defeats IREE's tiling.
    """
    x, w, init = op.operands
    (n, c, h, wd), (f, _, kh, kw) = _shape(x.type), _shape(w.type)
    oh, ow = _shape(init.type)[2:]
    (s0, s1), (d0, d1) = conv_pair(op, "strides"), conv_pair(op, "dilations")
    if ir.ShapedType.get_dynamic_size() in (n, c, h, wd, f, kh, kw):
        raise fail(op, "conv gradients need static shapes")
    el, g, wt = _element(x.type), gs[0], w.type
    # dW: loops (n, f, oh, ow, c, kh, kw)
    d = [ir.AffineDimExpr.get(i) for i in range(7)]
    maps = [_map(7, [0, 4, d[2] * s0 + d[5] * d0, d[3] * s1 + d[6] * d1]), _map(7, [0, 1, 2, 3]), _map(7, [1, 4, 5, 6])]
    kinds = [REDUCTION, PARALLEL, REDUCTION, REDUCTION, PARALLEL, PARALLEL, PARALLEL]
    dw = linalg_generic(wt, [b.copy_of(x), g], [constant(wt, 0.0)], maps, kinds,
                        lambda a, dy, acc: arith.addf(acc, arith.mulf(a, dy)))
    # dx: the spread, padded cotangent convolved with the flipped, transposed filter
    pad0, pad1 = (kh - 1) * d0, (kw - 1) * d1
    spread_t = _tensor([n, f, h + pad0, wd + pad1], el)
    spread = tensor.insert_slice(g, constant(spread_t, 0.0), *static_slice([0, 0, pad0, pad1], [n, f, oh, ow], [1, 1, s0, s1]))
    flipped = _transpose(_reverse(_reverse(b.copy_of(w), 2), 3), [1, 0, 2, 3])
    dx = linalg.conv_2d_nchw_fchw(spread, flipped, outs=[constant(x.type, 0.0)], strides=[1, 1], dilations=[d0, d1])
    return [(x, dx), (w, dw), (init, g)]
