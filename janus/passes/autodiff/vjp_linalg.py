"""VJP rules of ``linalg`` ops (static shapes).

``linalg.generic`` is what the frontend emits for elementwise maps (with NumPy
broadcasting in the indexing maps) and sums: its body is differentiated scalar-wise with
the elementwise rules in one adjoint ``linalg.generic`` over the iteration space, and each
input's adjoint is then summed over the loops its indexing map does not use.
"""

from __future__ import annotations

from janus.ir import ir, unit_dims_reassociation
from janus.passes.autodiff.builder import GradBuilder, body_ops, fail, is_float

Pairs = list[tuple[ir.Value, str]]


def _shape(t: ir.Type) -> list[int]:
    return list(ir.RankedTensorType(t).shape)


def _element(t: ir.Type) -> ir.Type:
    return ir.RankedTensorType(t).element_type


def _tensor(shape: list[int], element: ir.Type) -> ir.Type:
    return ir.RankedTensorType.get(shape, element)


def _zeros(b: GradBuilder, t: ir.Type) -> str:
    return b.op(f"arith.constant dense<0.0> : {t}")


def _map_text(n: int, results: list[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


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


def sum_to(b: GradBuilder, full: str, full_type: ir.Type, dims: list[int | None], target: ir.Type) -> str:
    """Sum ``full`` (one entry per loop) over the loops ``dims`` does not read, into ``target``.

    ``dims`` lists, per target dimension, the loop it reads, or None for a broadcast unit
    dimension (reinserted with ``tensor.expand_shape``).
    """
    n = len(_shape(full_type))
    kept = [d for d in dims if d is not None]
    if kept == list(range(n)) and len(dims) == n:
        return full
    element = _element(full_type)
    sizes = _shape(full_type)
    reduced_type = _tensor([sizes[d] for d in kept], element)
    iterators = ", ".join('"parallel"' if i in kept else '"reduction"' for i in range(n))
    maps = f"[{_map_text(n, [f'd{i}' for i in range(n)])}, {_map_text(n, [f'd{d}' for d in kept])}]"
    x, acc, s = b.fresh(), b.fresh(), b.fresh()
    reduced = b.op(
        f"linalg.generic {{indexing_maps = {maps}, iterator_types = [{iterators}]}} "
        f"ins({full} : {full_type}) outs({_zeros(b, reduced_type)} : {reduced_type}) {{\n"
        f"^bb0({x}: {element}, {acc}: {element}):\n{s} = arith.addf {x}, {acc} : {element}\n"
        f"linalg.yield {s} : {element}\n}} -> {reduced_type}"
    )
    if len(kept) == len(dims):
        return reduced
    positions = [p for p, d in enumerate(dims) if d is not None]
    groups = unit_dims_reassociation(tuple(_shape(reduced_type)), positions, len(dims))
    text = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
    shape = ", ".join(map(str, _shape(target)))
    return b.op(f"tensor.expand_shape {reduced} {text} output_shape [{shape}] : {reduced_type} into {target}")


def _loop_sizes(op: ir.OpView, n: int) -> list[int]:
    sizes: list[int | None] = [None] * n
    for v, attr in zip(op.operands, op.attributes["indexing_maps"]):
        for size, d in zip(_shape(v.type), _map_dims(attr)[1]):
            if d is not None and size != ir.ShapedType.get_dynamic_size():
                sizes[d] = size
    if None in sizes:
        raise fail(op, "linalg.generic gradients need static loop sizes")
    return sizes  # type: ignore[return-value]


def generic(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """Elementwise maps and sums: ``out = f(ins)`` or ``out = init + sum f(ins)``."""
    ins, outs = list(op.inputs), list(op.outputs)
    block = op.regions[0].blocks[0]
    if len(outs) != 1:
        raise fail(op, "linalg.generic gradients support one output")
    in_args, acc = list(block.arguments)[: len(ins)], block.arguments[len(ins)]
    ops, terminator = body_ops(block)
    uses = [o for o in ops if any(v == acc for v in o.operands)]
    summed = bool(uses)
    if summed and (len(uses) != 1 or uses[0].operation.name != "arith.addf" or uses[0].result != terminator.operands[0]):
        raise fail(op, "no gradient rule for a linalg.generic reduction other than a sum")
    maps = list(op.attributes["indexing_maps"])
    n = _map_dims(maps[0])[0]
    iterators = str(op.attributes["iterator_types"])
    if not summed and "reduction" in iterators:
        raise fail(op, "no gradient rule for a linalg.generic reduction that ignores its accumulator")
    sizes = _loop_sizes(op, n)
    wanted = [i for i, v in enumerate(ins) if is_float(v.type) and isinstance(v.type, ir.RankedTensorType)]
    pairs: Pairs = [(outs[0], gs[0])] if summed else []
    if not wanted:
        return pairs
    # One generic per input: a multi-result generic's inits are identical tensor.empty ops
    # that cse merges, and iree-compile 3.13 then fails on the generic ("expected number
    # of yield values (2) to match the number of inits")
    for i in wanted:
        full_type = _tensor(sizes, _element(ins[i].type))
        pairs.append((ins[i], sum_to(b, _input_gradient(b, op, sizes, i, gs[0], full_type), full_type,
                                     _map_dims(maps[i])[1], ins[i].type)))
    return pairs


def _input_gradient(b: GradBuilder, op: ir.OpView, sizes: list[int], i: int, g_out: str, full_type: ir.Type) -> str:
    """The cotangent of input ``i`` of the generic ``op`` at every point of its loop space."""
    ins, outs = list(op.inputs), list(op.outputs)
    block = op.regions[0].blocks[0]
    in_args, acc = list(block.arguments)[: len(ins)], block.arguments[len(ins)]
    maps = list(op.attributes["indexing_maps"])
    n = len(sizes)
    identity = _map_text(n, [f"d{k}" for k in range(n)])
    map_list = ", ".join([str(m) for m in maps[: len(ins)]] + [str(maps[-1]), identity])
    parallel = ", ".join('"parallel"' for _ in range(n))
    in_names = [b.name(v) for v in ins] + [g_out]
    in_types = [str(v.type) for v in ins] + [str(outs[0].type)]
    init = b.op(f"tensor.empty() : {full_type}")
    full = b.op(
        f"linalg.generic {{indexing_maps = [{map_list}], iterator_types = [{parallel}]}} "
        f"ins({', '.join(in_names)} : {', '.join(in_types)}) outs({init} : {full_type}) {{"
    )
    args = [b.fresh() for _ in ins]
    g, slot = b.fresh(), b.fresh()
    arg_types = [_element(v.type) if isinstance(v.type, ir.RankedTensorType) else v.type for v in ins]
    header = [f"{a}: {t}" for a, t in zip(args, arg_types)] + [f"{g}: {acc.type}", f"{slot}: {_element(full_type)}"]
    b.line(f"^bb0({', '.join(header)}):")
    b.bind(in_args + [acc], args + [g])
    (grad,) = b.block_vjp(block, [g], [in_args[i]])
    b.line(f"linalg.yield {b.or_zeros(in_args[i], grad)} : {_element(full_type)}")
    b.line(f"}} -> {full_type}")
    return full


def _transpose(b: GradBuilder, x: str, t: ir.Type, perm: list[int]) -> tuple[str, ir.Type]:
    out = _tensor([_shape(t)[p] for p in perm], _element(t))
    init = b.op(f"tensor.empty() : {out}")
    text = f"linalg.transpose ins({x} : {t}) outs({init} : {out}) permutation = [{', '.join(map(str, perm))}]"
    return b.op(text), out


def contraction(opname: str, swap: list[int]):
    """matmul / batch_matmul: dA = g Bᵀ, dB = Aᵀ g, dC = g (``swap`` transposes the last two dims)."""

    def rule(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
        a, bb, c = op.operands

        def product(x: str, xt: ir.Type, y: str, yt: ir.Type, out: ir.Type) -> str:
            return b.op(f"{opname} ins({x}, {y} : {xt}, {yt}) outs({_zeros(b, out)} : {out}) -> {out}")

        bt_name, bt = _transpose(b, b.name(bb), bb.type, swap)
        at_name, at = _transpose(b, b.name(a), a.type, swap)
        return [
            (a, product(gs[0], c.type, bt_name, bt, a.type)),
            (bb, product(at_name, at, gs[0], c.type, bb.type)),
            (c, gs[0]),
        ]

    return rule


def transpose(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    perm = list(op.attributes["permutation"])
    inverse = [perm.index(i) for i in range(len(perm))]
    return [(op.operands[0], _transpose(b, gs[0], op.results[0].type, inverse)[0])]


def fill(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """The fill value's adjoint is the sum of the result's; the init is overwritten."""
    value, t = op.operands[0], op.results[0].type
    total = sum_to(b, gs[0], t, [], _tensor([], _element(t)))
    return [(value, b.op(f"tensor.extract {total}[] : {_tensor([], _element(t))}"))]


def broadcast(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    x, t = op.operands[0], op.results[0].type
    added = list(op.attributes["dimensions"])
    kept: list[int | None] = [d for d in range(len(_shape(t))) if d not in added]
    return [(x, sum_to(b, gs[0], t, kept, x.type))]


def reduce(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """Sums only: the input's adjoint is the result's broadcast back; the init's is the result's."""
    x, init = op.operands
    ops, terminator = body_ops(op.regions[0].blocks[0])
    if len(ops) != 1 or ops[0].operation.name != "arith.addf":
        raise fail(op, "no gradient rule for a linalg.reduce other than a sum")
    dims = ", ".join(str(d) for d in op.attributes["dimensions"])
    empty = b.op(f"tensor.empty() : {x.type}")
    dx = b.op(f"linalg.broadcast ins({gs[0]} : {init.type}) outs({empty} : {x.type}) dimensions = [{dims}]")
    return [(x, dx), (init, gs[0])]


def _pair(op: ir.OpView, name: str) -> list[int]:
    """A conv's ``strides`` / ``dilations`` (default 1)."""
    if name not in op.attributes:
        return [1, 1]
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def _reverse(b: GradBuilder, x: str, t: ir.Type, dim: int) -> str:
    """``x`` reversed along ``dim``: its unit slices concatenated in reverse order."""
    shape = _shape(t)
    piece_t = _tensor([1 if i == dim else n for i, n in enumerate(shape)], _element(t))
    sizes = ", ".join(str(1 if i == dim else n) for i, n in enumerate(shape))
    ones = ", ".join("1" for _ in shape)
    pieces = []
    for k in reversed(range(shape[dim])):
        offsets = ", ".join(str(k if i == dim else 0) for i in range(len(shape)))
        pieces.append(b.op(f"tensor.extract_slice {x}[{offsets}] [{sizes}] [{ones}] : {t} to {piece_t}"))
    if len(pieces) == 1:
        return pieces[0]
    return b.op(f"tensor.concat dim({dim}) {', '.join(pieces)} : ({', '.join([str(piece_t)] * len(pieces))}) -> {t}")


def conv_2d_nchw_fchw(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """``out = init + conv(x, w)``, out[n,f,i,j] += x[n,c,i*s+k*d,j*t+l*e] w[f,c,k,l].

    dW correlates x with the cotangent (a ``linalg.generic`` over the 7 loops); dx is the
    cotangent spread to stride positions of a zero tensor padded by (K-1)*d on each side,
    convolved (stride 1, same dilation) with the filter flipped and its channels swapped.
    The flip is slices and a concat: a generic reading ``K-1-k`` defeats IREE's tiling.
    """
    x, w, init = op.operands
    (n, c, h, wd), (f, _, kh, kw) = _shape(x.type), _shape(w.type)
    oh, ow = _shape(init.type)[2:]
    (s0, s1), (d0, d1) = _pair(op, "strides"), _pair(op, "dilations")
    if ir.ShapedType.get_dynamic_size() in (n, c, h, wd, f, kh, kw):
        raise fail(op, "conv gradients need static shapes")
    el, g, wt = _element(x.type), gs[0], w.type
    # dW: loops (n, f, oh, ow, c, kh, kw)
    maps = ", ".join([
        _map_text(7, ["d0", "d4", f"d2 * {s0} + d5 * {d0}", f"d3 * {s1} + d6 * {d1}"]),
        _map_text(7, ["d0", "d1", "d2", "d3"]),
        _map_text(7, ["d1", "d4", "d5", "d6"]),
    ])
    kinds = ", ".join(f'"{k}"' for k in ("reduction", "parallel", "reduction", "reduction", "parallel", "parallel", "parallel"))
    zeros_w = _zeros(b, wt)
    a, dy, acc, p, q = (b.fresh() for _ in range(5))
    dw = b.op(
        f"linalg.generic {{indexing_maps = [{maps}], iterator_types = [{kinds}]}} "
        f"ins({b.name(x)}, {g} : {x.type}, {init.type}) outs({zeros_w} : {wt}) {{\n"
        f"^bb0({a}: {el}, {dy}: {el}, {acc}: {el}):\n{p} = arith.mulf {a}, {dy} : {el}\n"
        f"{q} = arith.addf {acc}, {p} : {el}\nlinalg.yield {q} : {el}\n}} -> {wt}"
    )
    # dx: the spread, padded cotangent convolved with the flipped, transposed filter
    pad0, pad1 = (kh - 1) * d0, (kw - 1) * d1
    spread_t = _tensor([n, f, h + pad0, wd + pad1], el)
    zeros_spread = _zeros(b, spread_t)
    spread = b.op(
        f"tensor.insert_slice {g} into {zeros_spread}[0, 0, {pad0}, {pad1}] [{n}, {f}, {oh}, {ow}] "
        f"[1, 1, {s0}, {s1}] : {init.type} into {spread_t}"
    )
    flipped, flipped_t = _transpose(b, _reverse(b, _reverse(b, b.name(w), wt, 2), wt, 3), wt, [1, 0, 2, 3])
    zeros_x = _zeros(b, x.type)
    dx = b.op(
        f"linalg.conv_2d_nchw_fchw {{dilations = dense<[{d0}, {d1}]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} "
        f"ins({spread}, {flipped} : {spread_t}, {flipped_t}) outs({zeros_x} : {x.type}) -> {x.type}"
    )
    return [(x, dx), (w, dw), (init, g)]
