"""``janus-convolutions-from-windows``: a concatenation of shifted windows of one tensor
becomes one gather (im2col), or with the matmul that reads it, a convolution.

A convolution written as shifted matmuls, once ``janus-merge-matmul-sums`` has merged its
k*k products, multiplies a concatenation of the input's windows by the stacked filter taps:

    concat(x[:, i:i+Ho, j:j+Wo, :].reshape(-1, C) for i < kh for j < kw, dim 1) @ concat(W[i, j], dim 0)

IREE copies the concatenation piece by piece: k*k dispatches, each writing C of every
k*k*C columns (LeNet-5's first layer, C = 1: 25 strided copies of 0.2 ms). When the window
offsets enumerate a box in row-major order, the concatenation is the im2col of a
convolution, a single gather with an affine map,

    col[b, h, w, i, j, c] = x[b, h + i, w + j, c]     collapsed to (B*Ho*Wo, kh*kw*C)

and when a plain matmul multiplies it, the product is the NHWC convolution

    collapse(linalg.conv_2d_nhwc_hwcf(x, expand(B to (kh, kw, C, F))))

IREE's convolution kernel vectorizes along the channels: with ``MIN_CONV_CHANNELS`` input
channels or more it runs best (one core, B = 64, 5x5 filters: C = 3, F = 16 on 14x14:
0.13 ms vs 0.44 ms as im2col + matmul vs 0.74 ms as concatenation + matmul; C = 6,
F = 16: 0.25 / 0.82 / 1.2 ms), with one channel the gather + matmul does (C = 1, F = 6 on
32x32: conv 2.2 ms, im2col 0.67 ms, concatenation 5.7 ms). A filter gradient's
concatenation of transposed windows (``x_ij.T @ d`` stacked by
``janus-merge-shared-operand-matmuls``) is left alone: as a gather it measured slower
(0.99 vs 0.66 ms for C = 6). The gather copies values and the convolution sums the same
products as the matmul (in another order, as any tiled matmul does).

A piece is ``tensor.collapse_shape`` of an ``extract_slice`` (static offsets and sizes,
unit strides, the source's rank) that folds every dimension but the last into rows, or of
the tensor the source was made from by an ``insert_slice`` (a padded image's centre). All
pieces of a concatenation slice one source with one size, differ in offsets along
dimensions other than the last, and their offsets enumerate a box over those dimensions
in row-major order. A convolution also needs a rank-4 source, taps along dimensions 1
and 2, and the concatenation's only use the left operand of a plain matmul.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from iree.compiler.dialects import linalg, tensor

from janus.ir import ir
from janus.passes.autodiff.builder import linalg_generic, static_slice
from janus.passes.matmuls import blocks, owner, plain_matmul, static, zero_constant
from janus.passes.registry import ModulePass, register_pass

#: input channels from which a convolution's taps become ``linalg.conv_2d_nhwc_hwcf``
#: (fewer: an im2col gather and a matmul)
MIN_CONV_CHANNELS = 3


@dataclass(frozen=True)
class Window:
    """A piece: ``collapse_shape(source[offsets : offsets + sizes])`` into (rows, last size)."""

    source: ir.Value
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    #: the ops that make the piece, last first (erased with the concatenation when unused elsewhere)
    ops: tuple[ir.Operation, ...]


@dataclass(frozen=True)
class Box:
    """Where the windows of one concatenation start: ``base`` plus a row-major index over ``extents``
    along the dimensions ``dims``."""

    base: tuple[int, ...]
    dims: tuple[int, ...]
    extents: tuple[int, ...]


def _piece(value: ir.Value) -> tuple[ir.Value, list[ir.Operation]] | None:
    """(what a piece collapses, its ops users first) when ``value`` is a piece of some window."""
    op = owner(value)
    if op is None or op.name != "tensor.collapse_shape":
        return None
    ops = [op]
    rank = ir.RankedTensorType(op.operands[0].type).rank
    groups = [[ir.IntegerAttr(d).value for d in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]
    return (op.operands[0], ops) if rank >= 2 and groups == [list(range(rank - 1)), [rank - 1]] else None


def _static_slice(op: ir.Operation | None, name: str, operands: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(offsets, sizes) of a ``tensor.extract_slice``/``insert_slice`` with static offsets,
    sizes and unit strides (dynamic ones are operands beyond the tensors)."""
    if op is None or op.name != name or len(op.operands) != operands:
        return None
    if any(s != 1 for s in ir.DenseI64ArrayAttr(op.attributes["static_strides"])):
        return None
    return tuple(ir.DenseI64ArrayAttr(op.attributes["static_offsets"])), tuple(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))


def _windows_of(pieces: list[tuple[ir.Value, list[ir.Operation]]]) -> list[Window] | None:
    """The pieces as windows of one static source. A piece that is not sliced out of the
    source may be the very tensor the source was made by inserting (canonicalization folds
    ``extract_slice(insert_slice(x))`` at the same place to ``x``: a padded image's centre)."""
    sliced = {}
    for collapsed, ops in pieces:
        op = owner(collapsed)
        found = _static_slice(op, "tensor.extract_slice", 1)
        if found is not None and ir.RankedTensorType(collapsed.type).rank == len(found[1]):  # not rank-reducing
            sliced[collapsed] = (op.operands[0], *found, [*ops, op])
    sources = {entry[0] for entry in sliced.values()}
    if len(sources) != 1:
        return None
    source = sources.pop()
    if not static(source.type):
        return None
    insert = owner(source)
    windows = []
    for collapsed, ops in pieces:
        if collapsed in sliced:
            _, offsets, sizes, chain = sliced[collapsed]
            windows.append(Window(source, offsets, sizes, tuple(chain)))
            continue
        found = _static_slice(insert, "tensor.insert_slice", 2)
        if found is None or insert.operands[0] != collapsed or found[1] != tuple(ir.RankedTensorType(collapsed.type).shape):
            return None
        windows.append(Window(source, found[0], found[1], tuple(ops)))
    rank = ir.RankedTensorType(source.type).rank
    return windows if all(len(w.offsets) == rank for w in windows) else None


def _box(windows: list[Window]) -> Box | None:
    """The box the windows' offsets enumerate in row-major order, if they do."""
    rank = len(windows[0].offsets)
    base = tuple(min(w.offsets[d] for w in windows) for d in range(rank))
    dims = tuple(d for d in range(rank) if any(w.offsets[d] != base[d] for w in windows))
    if rank - 1 in dims:
        return None
    extents = tuple(max(w.offsets[d] for w in windows) - base[d] + 1 for d in dims)
    if prod(extents) != len(windows):
        return None
    for taps, w in zip(_row_major(list(extents)), windows):
        expected = list(base)
        for d, tap in zip(dims, taps):
            expected[d] += tap
        if tuple(expected) != w.offsets:
            return None
    return Box(base, dims, extents)


def _windows(concat: ir.Operation) -> tuple[list[Window], Box] | None:
    """The windows and their box, when ``concat`` is an im2col."""
    if ir.IntegerAttr(concat.attributes["dim"]).value != 1 or len(concat.operands) < 2:
        return None
    pieces = [_piece(v) for v in concat.operands]
    if any(p is None for p in pieces):
        return None
    windows = _windows_of(pieces)  # type: ignore[arg-type]
    if windows is None or any(w.sizes != windows[0].sizes for w in windows):
        return None
    box = _box(windows)
    sizes = windows[0].sizes
    if box is None or list(ir.RankedTensorType(concat.results[0].type).shape) != [
            prod(sizes[:-1]), len(windows) * sizes[-1]]:
        return None
    return windows, box


def _im2col(source: ir.Value, sizes: tuple[int, ...], box: Box) -> ir.Value:
    """``col[rows..., taps..., c] = source[rows + base (+ tap along box.dims), c]``, collapsed to 2-D."""
    rank = len(sizes)
    loops = rank + len(box.dims)
    element = ir.RankedTensorType(source.type).element_type
    shape = [*sizes[:-1], *box.extents, sizes[-1]]
    exprs = []
    for d in range(rank):
        loop = d if d < rank - 1 else loops - 1
        expr = ir.AffineDimExpr.get(loop) + box.base[d]
        if d in box.dims:
            expr = expr + ir.AffineDimExpr.get(rank - 1 + box.dims.index(d))
        exprs.append(expr)
    maps = [ir.AffineMapAttr.get(ir.AffineMap.get(loops, 0, exprs)),
            ir.AffineMapAttr.get(ir.AffineMap.get_identity(loops))]
    out_type = ir.RankedTensorType.get(shape, element)
    empty = tensor.EmptyOp(shape, element).result
    col = linalg_generic(out_type, [source], [empty], maps, [linalg.IteratorType.parallel] * loops, lambda x, _: x)
    flat = ir.RankedTensorType.get([prod(sizes[:-1]), prod(shape[rank - 1:])], element)
    return tensor.CollapseShapeOp(flat, col, [list(range(rank - 1)), list(range(rank - 1, loops))]).result


def _convolution_matmul(concat: ir.Operation, windows: list[Window], box: Box) -> ir.Operation | None:
    """The plain matmul that makes ``concat`` a convolution's, if it is one."""
    uses = list(concat.results[0].uses)
    if len(uses) != 1 or uses[0].operand_number != 0:
        return None
    matmul = uses[0].owner
    if not plain_matmul(matmul) or len(windows[0].sizes) != 4 or box.dims != (1, 2):
        return None
    return matmul if windows[0].sizes[3] >= MIN_CONV_CHANNELS else None


def _convolution(matmul: ir.Operation, window: Window, box: Box) -> ir.Value:
    """``matmul``'s product as ``linalg.conv_2d_nhwc_hwcf`` over the part of the source the windows cover."""
    batch, rows, cols, channels = window.sizes
    kh, kw = box.extents
    source_type = ir.RankedTensorType(window.source.type)
    element = source_type.element_type
    covered = [batch, rows + kh - 1, cols + kw - 1, channels]
    image = window.source
    if list(box.base) != [0] * 4 or covered != list(source_type.shape):
        image = tensor.ExtractSliceOp(ir.RankedTensorType.get(covered, element), image,
                                      *static_slice(list(box.base), covered)).result
    taps = matmul.operands[1]
    features = ir.RankedTensorType(taps.type).shape[1]
    shape = [kh, kw, channels, features]
    filters = tensor.ExpandShapeOp(ir.RankedTensorType.get(shape, element), taps, [[0, 1, 2], [3]], [], shape).result
    out = zero_constant(ir.RankedTensorType.get([batch, rows, cols, features], element))
    conv = linalg.conv_2d_nhwc_hwcf(image, filters, outs=[out], strides=[1, 1], dilations=[1, 1])
    return tensor.CollapseShapeOp(matmul.results[0].type, conv, [[0, 1, 2], [3]]).result


def _stacked_whole(concat: ir.Operation) -> ir.Value | None:
    """The tensor T when ``concat`` stacks along rows T's trailing 2-D blocks ``T[i, j, ...]``
    in row-major order, as ``concat(W[i, j] for i for j, dim 0)`` stacks a filter's taps:
    the concatenation is T collapsed to 2-D, with nothing copied."""
    if ir.IntegerAttr(concat.attributes["dim"]).value != 0:
        return None
    slices = [owner(v) for v in concat.operands]
    found = [_static_slice(op, "tensor.extract_slice", 1) for op in slices]
    if any(f is None for f in found):
        return None
    whole = slices[0].operands[0]  # type: ignore[union-attr]
    shape = list(ir.RankedTensorType(whole.type).shape) if static(whole.type) else []
    if len(shape) < 3 or list(ir.RankedTensorType(concat.results[0].type).shape) != [prod(shape[:-1]), shape[-1]]:
        return None
    leading = [(*index, 0, 0) for index in _row_major(shape[:-2])]
    if len(leading) != len(slices) or any(
            op.operands[0] != whole or f != (offsets, (*[1] * (len(shape) - 2), *shape[-2:]))  # type: ignore[union-attr]
            for op, f, offsets in zip(slices, found, leading)):
        return None
    return whole


def _row_major(extents: list[int]) -> list[tuple[int, ...]]:
    """Every index of a box of ``extents``, last dimension fastest."""
    indices: list[tuple[int, ...]] = [()]
    for extent in extents:
        indices = [(*index, i) for index in indices for i in range(extent)]
    return indices


def _collapse_stacked(concat: ir.Operation, whole: ir.Value) -> None:
    rank = ir.RankedTensorType(whole.type).rank
    with concat.location, ir.InsertionPoint(concat):
        flat = tensor.CollapseShapeOp(concat.results[0].type, whole, [list(range(rank - 1)), [rank - 1]]).result
    concat.results[0].replace_all_uses_with(flat)
    slices = [owner(v) for v in concat.operands]
    concat.erase()
    for op in slices:
        if not list(op.results[0].uses):  # type: ignore[union-attr]
            op.erase()  # type: ignore[union-attr]


def _rewrite(concat: ir.Operation, windows: list[Window], box: Box) -> None:
    matmul = _convolution_matmul(concat, windows, box)
    replaced = concat if matmul is None else matmul
    with replaced.location, ir.InsertionPoint(replaced):
        result = _im2col(windows[0].source, windows[0].sizes, box) if matmul is None \
            else _convolution(matmul, windows[0], box)
    replaced.results[0].replace_all_uses_with(result)
    replaced.erase()
    if matmul is not None:
        concat.erase()
    for w in windows:
        for op in w.ops:  # the piece's ops, users first: each erased once nothing else reads it
            if any(list(r.uses) for r in op.results):
                break
            op.erase()


@register_pass
class ConvolutionsFromWindows(ModulePass):
    name = "janus-convolutions-from-windows"
    summary = ("Rewrite a concatenation of shifted windows of one tensor (a convolution's taps) into one im2col "
               "gather, or with the matmul reading it into linalg.conv_2d_nhwc_hwcf.")

    def apply(self, module_op: ir.Operation) -> None:
        for block in list(blocks(module_op)):
            windows = []
            for op in [op.operation for op in block.operations if op.operation.name == "tensor.concat"]:
                # the stacked filter taps first: the convolutions read them
                if (whole := _stacked_whole(op)) is not None:
                    _collapse_stacked(op, whole)
                else:
                    windows.append(op)
            for op in windows:
                if (found := _windows(op)) is not None:
                    _rewrite(op, *found)
