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

from janus.ir import ir
from janus.passes.autodiff.builder import GradBuilder, body_ops, fail, free_floats
from janus.passes.autodiff import vjp_linalg
from janus.passes.autodiff.vjp_linalg import Pairs, _element, _map_dims, _map_text, _shape, _tensor, _zeros

#: the reduction body op -> the cmpf predicate of a hit (every element equal to the result)
EXTREMA = {"arith.maximumf": "oeq", "arith.minimumf": "oeq"}


def is_extremum(block: ir.Block) -> bool:
    """A body ``yield max(x, acc)`` (or min) of one input."""
    ops, terminator = body_ops(block)
    args = list(block.arguments)
    return (len(args) == 2 and len(ops) == 1 and ops[0].operation.name in EXTREMA
            and set(ops[0].operands) == set(args) and terminator.operands[0] == ops[0].result)


def _spread(b: GradBuilder, x: str, x_type: ir.Type, out: str, g: str, out_type: ir.Type, out_dims: list[int]) -> str:
    """dx over ``x``'s loop space: ``g / count`` where ``x`` equals the result, else 0."""
    n, el = len(_shape(x_type)), _element(x_type)
    full, proj = _map_text(n, [f"d{i}" for i in range(n)]), _map_text(n, [f"d{d}" for d in out_dims])
    reduction = ", ".join('"parallel"' if i in out_dims else '"reduction"' for i in range(n))
    a, o, acc, hit, one, zero, s, t = (b.fresh() for _ in range(8))
    count = b.op(
        f"linalg.generic {{indexing_maps = [{full}, {proj}, {proj}], iterator_types = [{reduction}]}} "
        f"ins({x}, {out} : {x_type}, {out_type}) outs({_zeros(b, out_type)} : {out_type}) {{\n"
        f"^bb0({a}: {el}, {o}: {el}, {acc}: {el}):\n{hit} = arith.cmpf oeq, {a}, {o} : {el}\n"
        f"{one} = arith.constant 1.0 : {el}\n{zero} = arith.constant 0.0 : {el}\n"
        f"{s} = arith.select {hit}, {one}, {zero} : {el}\n{t} = arith.addf {acc}, {s} : {el}\n"
        f"linalg.yield {t} : {el}\n}} -> {out_type}"
    )
    parallel = ", ".join('"parallel"' for _ in range(n))
    a, o, dy, c, acc, hit, share, zero, r = (b.fresh() for _ in range(9))
    return b.op(
        f"linalg.generic {{indexing_maps = [{full}, {proj}, {proj}, {proj}, {full}], iterator_types = [{parallel}]}} "
        f"ins({x}, {out}, {g}, {count} : {x_type}, {out_type}, {out_type}, {out_type}) "
        f"outs({b.op(f'tensor.empty() : {x_type}')} : {x_type}) {{\n"
        f"^bb0({a}: {el}, {o}: {el}, {dy}: {el}, {c}: {el}, {acc}: {el}):\n"
        f"{hit} = arith.cmpf oeq, {a}, {o} : {el}\n{share} = arith.divf {dy}, {c} : {el}\n"
        f"{zero} = arith.constant 0.0 : {el}\n{r} = arith.select {hit}, {share}, {zero} : {el}\n"
        f"linalg.yield {r} : {el}\n}} -> {x_type}"
    )


def _is_constant(v: ir.Value) -> bool:
    """Defined by ``arith.constant`` (canonicalize hoists body constants out of generics)."""
    owner = v.owner
    return isinstance(owner, (ir.Operation, ir.OpView)) and owner.operation.name == "arith.constant"


def generic(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """``linalg.generic``: max/min reductions here, every other form in ``vjp_linalg``.

    A body reading a float from outside the op (a gather: ``tensor.extract`` of a captured
    table, as ``janus.nn.embedding`` emits) would get no adjoint there: a located error.
    """
    if any(not _is_constant(v) for v in free_floats(op)):
        raise fail(op, "no gradient rule for a linalg.generic whose body reads a float defined outside it (a gather)")
    if is_extremum(op.regions[0].blocks[0]):
        return reduction(b, op, gs)
    return vjp_linalg.generic(b, op, gs)


def reduction(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """A max/min ``linalg.generic`` reduction whose input is read by the identity map."""
    (x,), (out,) = list(op.inputs), list(op.outputs)
    maps = list(op.attributes["indexing_maps"])
    n, x_dims = _map_dims(maps[0])
    if x_dims != list(range(n)):
        raise fail(op, "max/min reduction gradients need the input read by the identity map")
    out_dims = _map_dims(maps[1])[1]
    if None in out_dims:
        raise fail(op, "max/min reduction gradients need a projected result map")
    return [(x, _spread(b, b.name(x), x.type, b.name(op.results[0]), gs[0], out.type, out_dims))]  # type: ignore[arg-type]


def _strides(op: ir.OpView, name: str) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])] if name in op.attributes else [1, 1]


def pooling_nchw_max(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """Non-overlapping windows (stride == kernel, dilation 1); the uncovered edge gets 0."""
    x, window, _ = op.operands
    (n, c, h, w), (kh, kw), (oh, ow) = _shape(x.type), _shape(window.type), _shape(op.results[0].type)[2:]
    if _strides(op, "strides") != [kh, kw] or _strides(op, "dilations") != [1, 1]:
        raise fail(op, "max-pool gradients support only windows that tile the input (stride == kernel, no dilation)")
    el, out_t = _element(x.type), op.results[0].type
    covered_t = _tensor([n, c, oh * kh, ow * kw], el)
    covered = b.op(f"tensor.extract_slice {b.name(x)}[0, 0, 0, 0] [{n}, {c}, {oh * kh}, {ow * kw}] [1, 1, 1, 1] "
                   f": {x.type} to {covered_t}")
    tiles_t = _tensor([n, c, oh, kh, ow, kw], el)
    tiles = b.op(f"tensor.expand_shape {covered} [[0], [1], [2, 3], [4, 5]] output_shape [{n}, {c}, {oh}, {kh}, {ow}, {kw}] "
                 f": {covered_t} into {tiles_t}")
    d_tiles = _spread(b, tiles, tiles_t, b.name(op.results[0]), gs[0], out_t, [0, 1, 2, 4])
    d_covered = b.op(f"tensor.collapse_shape {d_tiles} [[0], [1], [2, 3], [4, 5]] : {tiles_t} into {covered_t}")
    if (oh * kh, ow * kw) == (h, w):
        return [(x, d_covered)]
    dx = b.op(f"tensor.insert_slice {d_covered} into {_zeros(b, x.type)}[0, 0, 0, 0] [{n}, {c}, {oh * kh}, {ow * kw}] "
              f"[1, 1, 1, 1] : {covered_t} into {x.type}")
    return [(x, dx)]
