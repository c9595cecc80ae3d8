"""VJP rules of gathers and permutations: a ``linalg.generic`` that reads a captured tensor
with ``tensor.extract`` (advanced indexing, ``np.take_along_axis``, ``janus.nn.embedding``)
and ``iree_linalg_ext.sort`` (``np.sort``).

Both send each cotangent element back to the position its value was read from: one
``iree_linalg_ext.scatter`` with ``add`` into zeros, O(result) work (a one-hot contraction
would visit every source element once per result element). Duplicate reads add up, as
NumPy's ``np.add.at`` does. The scatter writes its ``outs`` in place; they are a fresh
``linalg.fill``, and ``runtime/compiler.writes_arguments`` sees the op and keeps the
call's argument buffers unshared.
"""

from __future__ import annotations

from iree.compiler.dialects import arith, linalg, tensor

from janus.ir import ir
from janus.passes.autodiff.builder import (
    Adjoint, GradBuilder, body_ops, constant, fail, is_float, linalg_generic,
)
from janus.passes.autodiff.vjp_linalg import PARALLEL, Pairs, _element, _map, _map_dims, _shape, _tensor


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _flat(v: ir.Value, count: int) -> ir.Value:
    """``v`` (static shape, ``count`` elements) as a 1-d tensor."""
    shape = _shape(v.type)
    flat_t = _tensor([count], _element(v.type))
    if len(shape) == 1:
        return v
    if not shape:
        return tensor.expand_shape(flat_t, v, [], [], [count])
    return tensor.collapse_shape(flat_t, v, [list(range(len(shape)))])


def scatter_add(target_type: ir.Type, g: ir.Value, coords: list[ir.Value]) -> ir.Value:
    """Zeros of ``target_type`` with ``g``'s elements added at ``coords`` (one i64 tensor of
    ``g``'s shape per target dimension)."""
    if not ir.RankedTensorType(target_type).has_static_shape or not ir.RankedTensorType(g.type).has_static_shape:
        raise ValueError("scatter gradients need static shapes")
    count = 1
    for n in _shape(g.type):
        count *= n
    el = _element(target_type)
    column_t = _tensor([count, 1], _i64())
    columns = [tensor.expand_shape(column_t, _flat(c, count), [[0, 1]], [], [count, 1]) for c in coords]
    indices = columns[0] if len(columns) == 1 else tensor.concat(_tensor([count, len(coords)], _i64()), 1, columns)
    zeros = linalg.fill(constant(el, 0.0), outs=[tensor.EmptyOp(_shape(target_type), el).result])
    op = ir.Operation.create(
        "iree_linalg_ext.scatter", results=[target_type], operands=[_flat(g, count), indices, zeros],
        attributes={"dimension_map": ir.DenseI64ArrayAttr.get(list(range(len(coords)))),
                    "unique_indices": ir.BoolAttr.get(False)},
        regions=1)
    block = op.regions[0].blocks.append(el, el)
    with ir.InsertionPoint(block):
        ir.Operation.create("iree_linalg_ext.yield", operands=[arith.addf(block.arguments[1], block.arguments[0])])
    return op.result


# ---- gathers: ``yield tensor.extract %captured[coords]`` ------------------------------------
def gathered_source(op: ir.OpView) -> ir.Value | None:
    """The captured float tensor a generic's body yields an element of, else None."""
    block = op.regions[0].blocks[0]
    ops, terminator = body_ops(block)
    if len(terminator.operands) != 1:
        return None
    owner = terminator.operands[0].owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or owner.operation.name != "tensor.extract":
        return None
    source = owner.operands[0]
    inside = isinstance(source.owner, ir.Block) and source.owner == block
    return None if inside or not is_float(source.type) else source


def gather(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """``out[p] = src[c(p)]`` with ``c`` computed from integer inputs and loop indices:
    ``d src`` is the scatter-add of ``g`` at ``c(p)``."""
    block = op.regions[0].blocks[0]
    ops, terminator = body_ops(block)
    extract = terminator.operands[0].owner
    source = extract.operands[0]
    maps = list(op.attributes["indexing_maps"])
    n, out_dims = _map_dims(maps[-1])
    if out_dims != list(range(n)) or "reduction" in str(op.attributes["iterator_types"]):
        raise fail(op, "gather gradients need a parallel generic whose result is written by the identity map")
    index_ops = [o for o in ops if o.operation != extract.operation]
    if any(is_float(v.type) for o in index_ops for v in [*o.operands, *o.results]) or any(is_float(v.type) for v in op.inputs):
        raise fail(op, "gather gradients need coordinates computed from integers only")
    shape = _shape(op.results[0].type)
    in_args = list(block.arguments)[: len(op.inputs)]
    ins = [b.copy_of(v) for v in op.inputs]

    def coordinate(k: int) -> ir.Value:
        def body(*args: ir.Value) -> ir.Value:
            b.bind(in_args, list(args[: len(in_args)]))
            for o in index_ops:
                b.forward(o)
            return arith.index_cast(_i64(), b.copy_of(extract.operands[1 + k]))

        return linalg_generic(_tensor(shape, _i64()), ins, [tensor.EmptyOp(shape, _i64()).result],
                              maps[: len(ins)] + [_map(n, list(range(n)))], [PARALLEL] * n, body)

    rank = len(_shape(source.type))
    try:
        return [(source, scatter_add(source.type, gs[0], [coordinate(k) for k in range(rank)]))]
    except ValueError as e:
        raise fail(op, str(e)) from None


# ---- sort: values with their positions along the axis ---------------------------------------
def _is_positions(v: ir.Value, dim: int) -> bool:
    """Whether ``v`` is a generic's result holding each element's index along ``dim``
    (``index_cast(linalg.index dim)`` written by the identity map), as ``np.sort`` emits it."""
    owner = v.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or owner.operation.name != "linalg.generic":
        return False
    generic = owner.opview
    number = list(owner.results).index(v)
    n, dims = _map_dims(list(generic.attributes["indexing_maps"])[len(generic.inputs) + number])
    yielded = body_ops(generic.regions[0].blocks[0])[1].operands[number]
    cast = yielded.owner
    if dims != list(range(n)) or not isinstance(cast, (ir.Operation, ir.OpView)) or cast.operation.name != "arith.index_cast":
        return False
    index = cast.operands[0].owner
    return (isinstance(index, (ir.Operation, ir.OpView)) and index.operation.name == "linalg.index"
            and ir.IntegerAttr(index.attributes["dim"]).value == dim)


def sort(b: GradBuilder, op: ir.OpView, gs: list[Adjoint]) -> Pairs:
    """``(values, positions)`` sorted together along ``dimension``: the values' cotangent
    goes back to the positions the sorted elements came from."""
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    operands = list(op.operands)
    if len(operands) != 2 or not _is_positions(operands[1], dim):
        raise fail(op, "sort gradients need the values sorted with their positions along the axis")
    if gs[0] is None:
        return []
    values = operands[0]
    shape = _shape(values.type)
    n = len(shape)

    def loop_index(d: int) -> ir.Value:
        def body(*args: ir.Value) -> ir.Value:
            return arith.index_cast(_i64(), linalg.IndexOp(d).result)

        return linalg_generic(_tensor(shape, _i64()), [], [tensor.EmptyOp(shape, _i64()).result],
                              [_map(n, list(range(n)))], [PARALLEL] * n, body)

    coords = [b.copy_of(op.results[1]) if d == dim else loop_index(d) for d in range(n)]
    try:
        return [(values, scatter_add(values.type, gs[0], coords))]
    except ValueError as e:
        raise fail(op, str(e)) from None
