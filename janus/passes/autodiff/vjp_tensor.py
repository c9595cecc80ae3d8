"""VJP rules of ``tensor`` ops: an adjoint scatters back where the forward op gathered."""

from __future__ import annotations

import numpy as np

from janus.ir import ir
from janus.passes.autodiff.builder import GradBuilder

Pairs = list[tuple[ir.Value, str]]
DYNAMIC = ir.ShapedType.get_dynamic_size()


def _indices(b: GradBuilder, values) -> str:
    return ", ".join(b.name(v) for v in values)


def _mixed(b: GradBuilder, static, dynamic) -> str:
    """``[0, %i, 4]`` from a static list with dynamic placeholders and their operands."""
    names = iter(b.name(v) for v in dynamic)
    return "[" + ", ".join(next(names) if s == DYNAMIC else str(s) for s in static) + "]"


def _slice_spec(b: GradBuilder, op: ir.OpView) -> str:
    return " ".join(
        _mixed(b, static, dynamic)
        for static, dynamic in (
            (op.static_offsets, op.offsets),
            (op.static_sizes, op.sizes),
            (op.static_strides, op.strides),
        )
    )


def _one_hot(b: GradBuilder, op: ir.OpView, hit_value: str, miss: str | None) -> str:
    """A ``linalg.generic`` over the indexed tensor: ``hit_value`` at the op's indices,
    elsewhere ``miss``'s element (or zero).

    Used instead of a scalar ``tensor.insert``, which IREE 3.13 miscompiles for 64-bit
    elements (its fill writes 32 bytes: the neighbours are overwritten).
    """
    t = op.results[0] if op.operation.name == "tensor.insert" else op.operands[0]
    tt = ir.RankedTensorType(t.type)
    element, n = tt.element_type, tt.rank
    dims = ", ".join(f"d{i}" for i in range(n))
    identity = f"affine_map<({dims}) -> ({dims})>"
    parallel = ", ".join(['"parallel"'] * n)
    indices = list(op.operands)[1:] if op.operation.name == "tensor.extract" else list(op.operands)[2:]
    lines, hit = [], None
    for i, v in enumerate(indices):
        at, eq = b.fresh(), b.fresh()
        lines += [f"{at} = linalg.index {i} : index", f"{eq} = arith.cmpi eq, {at}, {b.name(v)} : index"]
        if hit is not None:
            both = b.fresh()
            lines.append(f"{both} = arith.andi {hit}, {eq} : i1")
            eq = both
        hit = eq
    args, picked = [b.fresh(), b.fresh()], b.fresh()
    if miss is None:
        otherwise = b.fresh()
        lines.insert(0, f"{otherwise} = arith.constant 0.0 : {element}")
        ins, maps, header = "", identity, f"{args[1]}: {element}"
    else:
        otherwise = args[0]
        ins, maps, header = f"ins({miss} : {t.type}) ", f"{identity}, {identity}", f"{args[0]}: {element}, {args[1]}: {element}"
    lines += [f"{picked} = arith.select {hit}, {hit_value}, {otherwise} : {element}", f"linalg.yield {picked} : {element}"]
    empty = b.op(f"tensor.empty() : {t.type}")
    body = "\n".join(lines)
    return b.op(
        f"linalg.generic {{indexing_maps = [{maps}], iterator_types = [{parallel}]}} {ins}outs({empty} : {t.type}) {{\n"
        f"^bb0({header}):\n{body}\n}} -> {t.type}"
    )


def extract(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    t = op.operands[0]
    if ir.RankedTensorType(t.type).rank == 0:
        return [(t, b.op(f"tensor.from_elements {gs[0]} : {t.type}"))]
    return [(t, _one_hot(b, op, gs[0], None))]


def from_elements(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """Each element's adjoint is the adjoint's element at its row-major position."""
    t = ir.RankedTensorType(op.results[0].type)
    pairs = []
    for flat, element in enumerate(op.operands):
        position = [int(i) for i in np.unravel_index(flat, t.shape)] if t.rank else []
        idx = ", ".join(b.op(f"arith.constant {i} : index") for i in position)
        pairs.append((element, b.op(f"tensor.extract {gs[0]}[{idx}] : {t}")))
    return pairs


def insert(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    scalar, dest = op.operands[0], op.operands[1]
    idx = _indices(b, list(op.operands)[2:])
    d_scalar = b.op(f"tensor.extract {gs[0]}[{idx}] : {op.results[0].type}")
    return [(scalar, d_scalar), (dest, _one_hot(b, op, b.zeros(scalar), gs[0]))]


def extract_slice(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    src = op.operands[0]
    spec = _slice_spec(b, op)
    return [(src, b.op(f"tensor.insert_slice {gs[0]} into {b.zeros(src)}{spec} : {op.results[0].type} into {src.type}"))]


def insert_slice(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    src, dest = op.operands[0], op.operands[1]
    spec = _slice_spec(b, op)
    t = op.results[0].type
    d_src = b.op(f"tensor.extract_slice {gs[0]}{spec} : {t} to {src.type}")
    d_dest = b.op(f"tensor.insert_slice {b.zeros(src)} into {gs[0]}{spec} : {src.type} into {t}")
    return [(src, d_src), (dest, d_dest)]


def _reassociation(op: ir.OpView) -> str:
    groups = ir.ArrayAttr(op.attributes["reassociation"])
    return "[" + ", ".join("[" + ", ".join(str(ir.IntegerAttr(i).value) for i in ir.ArrayAttr(g)) + "]" for g in groups) + "]"


def expand_shape(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    src = op.operands[0]
    return [(src, b.op(f"tensor.collapse_shape {gs[0]} {_reassociation(op)} : {op.results[0].type} into {src.type}"))]


def collapse_shape(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    src = op.operands[0]
    shape = ", ".join(map(str, ir.RankedTensorType(src.type).shape))
    text = f"tensor.expand_shape {gs[0]} {_reassociation(op)} output_shape [{shape}] : {op.results[0].type} into {src.type}"
    return [(src, b.op(text))]


def concat(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """Each part's adjoint is its slice of the result's adjoint."""
    dim = ir.IntegerAttr(op.attributes["dim"]).value
    out, offset = [], 0
    for part in op.operands:
        shape = ir.RankedTensorType(part.type).shape
        offsets = [offset if i == dim else 0 for i in range(len(shape))]
        spec = f"[{', '.join(map(str, offsets))}] [{', '.join(map(str, shape))}] [{', '.join('1' for _ in shape)}]"
        out.append((part, b.op(f"tensor.extract_slice {gs[0]}{spec} : {op.results[0].type} to {part.type}")))
        offset += shape[dim]
    return out


def no_operands(b: GradBuilder, op: ir.OpView, gs: list) -> Pairs:
    """Ops whose float result depends on no float operand (constants, ``tensor.empty``)."""
    return []
