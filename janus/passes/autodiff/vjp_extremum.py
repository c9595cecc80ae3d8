"""VJP rules of max/min reductions: ``linalg.generic`` max/min reductions (NumPy's
``np.max``, the shift inside softmax) and ``linalg.pooling_nchw_max`` (``janus.nn.max_pool2d``).

The cotangent of each result element is shared evenly by the input elements equal to it,
as the eager tape's rules do (``vjp_numpy.extremum_vjp``, ``nn_numpy.max_pool2d_vjp``).
Both are written over a loop space where the input is read by the identity map and the
result by a projection: ``count`` sums the hits per result, then one parallel generic
spreads ``g / count`` to the hits. Pooling gets that form when windows tile the input
(stride == kernel): the covered part of the input is expanded to (N, C, OH, KH, OW, KW);
overlapping windows are a located error. The init of the reduction is taken to be the
identity (-inf / +inf), as the frontend emits it, and gets no cotangent.
"""

from __future__ import annotations

from iree.compiler.dialects import arith, tensor

from janus.ir import ir
from janus.passes.autodiff.builder import (
    Adjoint, GradBuilder, body_ops, constant, fail, linalg_generic, static_slice,
)
from janus.passes.autodiff.vjp_linalg import (
    PARALLEL, REDUCTION, Pairs, _element, _empty, _map, _map_dims, _shape, _tensor, conv_pair,
)

#: the reduction body op -> the cmpf predicate of a hit (every element equal to the result)
EXTREMA = {"arith.maximumf": "oeq", "arith.minimumf": "oeq"}


def is_extremum(block: ir.Block) -> bool:
    """A body ``yield max(x, acc)`` (or min) of one input."""
    ops, terminator = body_ops(block)
    args = list(block.arguments)
    return (len(args) == 2 and len(ops) == 1 and ops[0].operation.name in EXTREMA
            and set(ops[0].operands) == set(args) and terminator.operands[0] == ops[0].result)


def _spread(x: ir.Value, out: ir.Value, g: ir.Value, out_dims: list[int]) -> ir.Value:
    """dx over ``x``'s loop space: ``g / count`` where ``x`` equals the result, else 0."""
    n, el = len(_shape(x.type)), _element(x.type)
    full, proj = _map(n, list(range(n))), _map(n, out_dims)

    def hit(a: ir.Value, o: ir.Value) -> ir.Value:
        return arith.cmpf(arith.CmpFPredicate.OEQ, a, o)

    def count_hits(a: ir.Value, o: ir.Value, acc: ir.Value) -> ir.Value:
        h = hit(a, o)
        return arith.addf(acc, arith.select(h, constant(el, 1.0), constant(el, 0.0)))

    def share(a: ir.Value, o: ir.Value, dy: ir.Value, c: ir.Value, acc: ir.Value) -> ir.Value:
        h = hit(a, o)
        return arith.select(h, arith.divf(dy, c), constant(el, 0.0))

    reduction = [PARALLEL if i in out_dims else REDUCTION for i in range(n)]
    count = linalg_generic(out.type, [x, out], [constant(out.type, 0.0)], [full, proj, proj], reduction, count_hits)
    return linalg_generic(x.type, [x, out, g, count], [_empty(x.type)], [full, proj, proj, proj, full],
                          [PARALLEL] * n, share)


def reduction(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """A max/min ``linalg.generic`` reduction whose input is read by the identity map."""
    (x,), (_,) = list(op.inputs), list(op.outputs)
    maps = list(op.attributes["indexing_maps"])
    n, x_dims = _map_dims(maps[0])
    if x_dims != list(range(n)):
        raise fail(op, "max/min reduction gradients need the input read by the identity map")
    out_dims = _map_dims(maps[1])[1]
    if None in out_dims:
        raise fail(op, "max/min reduction gradients need a projected result map")
    return [(x, _spread(b.copy_of(x), b.copy_of(op.results[0]), gs[0], out_dims))]  # type: ignore[arg-type]


def pooling_nchw_max(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """Non-overlapping windows (stride == kernel, dilation 1); the uncovered edge gets 0."""
    x, window, _ = op.operands
    (n, c, h, w), (kh, kw), (oh, ow) = _shape(x.type), _shape(window.type), _shape(op.results[0].type)[2:]
    if conv_pair(op, "strides") != [kh, kw] or conv_pair(op, "dilations") != [1, 1]:
        raise fail(op, "max-pool gradients support only windows that tile the input (stride == kernel, no dilation)")
    el = _element(x.type)
    covered_t = _tensor([n, c, oh * kh, ow * kw], el)
    covered = tensor.extract_slice(covered_t, b.copy_of(x), *static_slice([0, 0, 0, 0], _shape(covered_t)))
    groups = [[0], [1], [2, 3], [4, 5]]
    tiles_shape = [n, c, oh, kh, ow, kw]
    tiles = tensor.expand_shape(_tensor(tiles_shape, el), covered, groups, [], tiles_shape)
    d_covered = tensor.collapse_shape(covered_t, _spread(tiles, b.copy_of(op.results[0]), gs[0], [0, 1, 2, 4]), groups)
    if (oh * kh, ow * kw) == (h, w):
        return [(x, d_covered)]
    return [(x, tensor.insert_slice(d_covered, constant(x.type, 0.0), *static_slice([0, 0, 0, 0], _shape(covered_t))))]
