"""Advanced (integer-array) indexing: ``E[ids]`` and ``p[rows, cols]``, read and written.

The supported form: full slices, then integer arrays (or ints) on adjacent axes,
broadcast together, then only full slices. The result has the sliced dims, the broadcast
index shape, then the remaining dims, and is a copy (``np.take_along_axis`` is a gather
too). Indices are wrapped as NumPy wraps
negatives and guarded in range (kind ``raise``: out of range, Python raises the real
IndexError). Assignment ``a[idx] = v`` is exact for duplicate targets too: the last
write wins, as in NumPy (every update aimed at a target carries its last value).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from janus.frontend.ops import op_table
from janus.frontend.ops import registry
from janus.frontend.ops import vjp_numpy
from janus.frontend.emitter import Body, Emitter
from janus.frontend.ops.registry import Args, Op, Spec
from janus.frontend.values import ELEMENT_TYPES, NotConvertible, Shape, Tensor

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer

_I64 = np.dtype(np.int64)


def _is_array(k: Any) -> bool:
    return isinstance(k, Tensor) and k.ndim > 0 or isinstance(k, (np.ndarray, list, range))


def is_advanced(key: Any) -> bool:
    """Whether ``key`` holds an integer array index."""
    return any(_is_array(k) for k in (key if isinstance(key, tuple) else (key,)))


def _full(k: Any) -> bool:
    return isinstance(k, slice) and k == slice(None)


def _split(x: Tensor, key: Any) -> tuple[int, list[Any], Shape]:
    """(the number of leading full slices, the index arrays after them, their broadcast
    shape); NotConvertible for other forms. Adjacent index arrays put their dims in place
    of the axes they index (NumPy's rule), after the sliced ones."""
    keys = list(key) if isinstance(key, tuple) else [key]
    sliced = next((i for i, k in enumerate(keys) if not _full(k)), len(keys))
    keys, x = keys[sliced:], Tensor(x.name, x.shape[sliced:], x.dtype)
    lead = 0
    while lead < len(keys) and (_is_array(keys[lead]) or isinstance(keys[lead], (int, np.integer, Tensor))):
        lead += 1
    if lead > x.ndim or not all(_full(k) for k in keys[lead:]):
        raise NotConvertible("advanced indexing other than full slices, then int arrays on adjacent axes, then full slices")
    indices = []
    for k in keys[:lead]:
        k = k if isinstance(k, Tensor) else np.asarray(k)
        if k.dtype.kind != "i":
            raise NotConvertible(f"an index array of dtype {k.dtype} (only integer arrays)")
        indices.append(k)
    shape = op_table.broadcast_shapes(*(op_table.shape_of(k) for k in indices))
    return sliced, indices, shape  # type: ignore[return-value]


def _wrapped(em: Emitter, index: Any, size: int | str, shape: Shape) -> Tensor:
    """``index`` broadcast to ``shape`` as int64, negatives wrapped, guarded in range of
    an axis of ``size`` (an int, or the symbol of a ``?`` dim)."""
    t = op_table.cast(em, index, _I64)
    # a ``?`` size: its i64 value, defined before the regions that compare with it
    dynamic = em.scalars().index_cast(em.dims[size], "index", "i64") if isinstance(size, str) else None

    def bound(b: Body, negative: bool) -> str:
        if dynamic is None:
            return b.constant(-size if negative else size, _I64)  # type: ignore[operator]
        return b.op("arith.subi", [b.constant(0, _I64), dynamic], _I64) if negative else dynamic

    def check(b: Body, a: list[str]) -> str:
        low = b.cmp(_I64, ("", "sge", ""), a[0], bound(b, True))
        high = b.cmp(_I64, ("", "slt", ""), a[0], bound(b, False))
        return b.op("arith.andi", [b.op("arith.andi", [low, high], np.dtype(bool)), a[1]], np.dtype(bool))

    every = [f"d{i}" for i in range(t.ndim)]
    ok = em.generic(t.ndim, range(t.ndim), [(t, every)], em.literal(np.array(True)), [], check)
    em.guard(em.scalar_condition(ok), "raise",
             f"index in range of an axis of size {'?' if dynamic else size} (IndexError)")

    def wrap(b: Body, a: list[str]) -> str:
        negative = b.cmp(_I64, ("", "slt", ""), a[0], b.constant(0, _I64))
        return b.select(negative, b.op("arith.addi", [a[0], bound(b, False)], _I64), a[0], _I64)

    return em.elementwise([t], shape, _I64, wrap)


def _loop_i64(b: Body, dim: int) -> str:
    return b.index_cast(b.loop_index(dim), "index", "i64")


# ---- gather: the op-table entry -----------------------------------------------------------
def _rule(args: Args) -> Spec:
    x = args["a"]
    sliced, indices, shape = _split(x, args["key"])
    return x.shape[:sliced] + shape + x.shape[sliced + len(indices) :], x.dtype


def _lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    x, (shape, dtype) = args["a"], spec
    s, indices, bshape = _split(x, args["key"])
    n, r = len(indices), len(bshape)
    wrapped = [_wrapped(em, k, x.shape[s + i], bshape) for i, k in enumerate(indices)]

    def body(b: Body, a: list[str]) -> str:
        coords = [b.loop_index(d) for d in range(s)] + [b.index_cast(a[i], "i64", "index") for i in range(n)]
        coords += [b.loop_index(s + r + d) for d in range(len(shape) - s - r)]
        return b.extract(x, coords)

    every = [f"d{i}" for i in range(len(shape))]
    return em.generic(len(shape), (), [(w, every[s : s + r]) for w in wrapped], em.empty(shape, dtype), every, body)


GATHER = Op("gather", operator.getitem, op_table._getitem_bind, _rule, _lower, dynamic=True, vjp=vjp_numpy.getitem_vjp)
registry.register(GATHER)


# ---- take_along_axis: element i of the result reads the operand at i, its axis coordinate
# replaced by the index there -------------------------------------------------------------
def _along_bind(arr: Any, indices: Any, axis: Any = -1) -> Args:
    return {"a": arr, "indices": indices, "axis": axis}


def _along_plan(args: Args) -> tuple[int, tuple[int, ...]]:
    """(the axis, the result shape: the indices and the operand's other dims broadcast)."""
    a, indices, axis = args["a"], args["indices"], args["axis"]
    index_shape = op_table.shape_of(indices)
    dtype = indices.dtype if isinstance(indices, Tensor) else np.asarray(indices).dtype
    if not isinstance(a, Tensor) or axis is None or dtype.kind not in "iu" or len(index_shape) != a.ndim:
        raise NotConvertible("take_along_axis needs a traced array, an int axis and integer indices of its rank")
    axis = op_table.normalize_axis(axis, a.ndim)
    others = tuple(1 if d == axis else n for d, n in enumerate(a.shape))
    return axis, op_table.broadcast_shapes(index_shape, others)


def _along_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a, (shape, dtype) = args["a"], spec
    axis, _ = _along_plan(args)
    index = _wrapped(em, args["indices"], a.shape[axis], shape)

    def body(b: Body, v: list[str]) -> str:
        coords = [b.index_cast(v[0], "i64", "index") if d == axis else b.loop_index(d) if a.shape[d] != 1
                  else b.constant(0, "index") for d in range(a.ndim)]
        return b.extract(a, coords)

    every = [f"d{i}" for i in range(len(shape))]
    return em.generic(len(shape), (), [(index, every)], em.empty(shape, dtype), every, body)


def _along_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """Scatter-add at the read positions (NumPy's fancy index of take_along_axis)."""
    a = np.asarray(args["a"])
    axis = int(args["axis"]) % a.ndim
    indices = np.asarray(args["indices"])
    key = tuple(indices if d == axis else np.arange(n).reshape([-1 if e == d else 1 for e in range(a.ndim)])
                for d, n in enumerate(a.shape))
    d = np.zeros(a.shape, np.result_type(g))
    np.add.at(d, key, g)
    return {"a": d}


TAKE_ALONG_AXIS = Op("take_along_axis", np.take_along_axis, _along_bind,
                     lambda args: (_along_plan(args)[1], args["a"].dtype), _along_lower, vjp=_along_vjp)
registry.register(TAKE_ALONG_AXIS)


def gather(tracer: "Tracer", x: Tensor, key: Any) -> Tensor:
    return registry.apply(tracer.em, GATHER, [x, key], {})


# ---- scatter: ``a[idx] = v`` ----------------------------------------------------------------
def scatter(tracer: "Tracer", target: Tensor, key: Any, value: Any, accumulate: bool = False) -> Tensor:
    """``target`` with ``value`` written at the indexed positions (the last write wins), or
    with ``accumulate``, added there (``np.add.at``: every duplicate adds, in order).

    One ``iree_linalg_ext.scatter`` over the updates: O(updates x slice) work, where a
    ``linalg.generic`` must visit every target element once per update (in the LSTM's
    embedding gradient, 1000x128 x 32 compares per step, 45% of its time)."""

    em = tracer.em
    sliced, indices, bshape = _split(target, key)
    if sliced:
        return _scatter_after_slices(tracer, target, key, value, accumulate, sliced, len(indices), bshape)
    n = len(indices)
    trailing = target.shape[n:]
    if not op_table.is_static(bshape) and len(bshape) != 1:
        raise NotConvertible("assignment through index arrays of ? dims broadcast to more than one dim")
    count = bshape[0] if not op_table.is_static(bshape) else int(np.prod(bshape, dtype=np.int64))  # a symbol: ? updates
    if count == 0:
        return target
    flat = [em.reshape(_wrapped(em, k, target.shape[i], bshape), (count,)) for i, k in enumerate(indices)]
    values = em.reshape(op_table.conform(em, value, Tensor("", bshape + trailing, target.dtype), "item assignment"),
                        (count,) + trailing)
    if not accumulate and (isinstance(count, str) or count > 1):
        values = _final_values(em, flat, values)
    coords = em.concat([em.reshape(f, (count, 1)) for f in flat], 1, (count, n))
    element = ELEMENT_TYPES[target.dtype.name]
    update, current = em.argument(element), em.argument(element)
    body = Body(em)
    combined = update
    if accumulate:
        opname = "arith.addf" if target.dtype.kind == "f" else "arith.ori" if target.dtype.kind == "b" else "arith.addi"
        combined = body.op(opname, [current, update], target.dtype)
    dims = ", ".join(map(str, range(n)))
    region = "\n".join(["{", f"^bb0({update}: {element}, {current}: {element}):", *body.lines,
                        f"iree_linalg_ext.yield {combined} : {element}", f"}} -> {target.type}"])
    return em.emit(
        f"iree_linalg_ext.scatter dimension_map = [{dims}] unique_indices(false) "
        f"ins({values.name}, {coords.name} : {values.type}, {coords.type}) outs({target.name} : {target.type}) {region}",
        target.shape, target.dtype, [values, coords, target])


def _scatter_after_slices(tracer: "Tracer", target: Tensor, key: tuple, value: Any, accumulate: bool, sliced: int,
                          indexed: int, bshape: tuple[int, ...]) -> Tensor:
    """``target[:, ..., idx...] = value``: the sliced axes moved last, scattered at the
    leading index arrays, moved back."""
    em, nd = tracer.em, target.ndim
    perm = list(range(sliced, nd)) + list(range(sliced))
    moved = em.transpose(target, perm)
    rest = target.shape[sliced + indexed :]
    shape = target.shape[:sliced] + bshape + rest
    values = op_table.conform(em, value, Tensor("", shape, target.dtype), "item assignment")
    values = em.transpose(values, list(range(sliced, len(shape))) + list(range(sliced)))
    updated = scatter(tracer, moved, tuple(key[sliced:]), values, accumulate)
    return em.transpose(updated, [int(i) for i in np.argsort(perm)])


def _final_values(em: Emitter, flat: list[Tensor], values: Tensor) -> Tensor:
    """``values`` with each update replaced by the last one aimed at the same target: every
    write to a position then stores the value NumPy leaves there, in whatever order a
    backend applies duplicate updates."""
    n, count = len(flat), values.shape[0]

    def last(b: Body, a: list[str]) -> str:  # over (k, l): the largest l hitting k's target
        same = b.constant(True, np.dtype(bool))
        for i in range(n):
            same = b.op("arith.andi", [same, b.cmp(_I64, ("", "eq", ""), a[i], a[n + i])], np.dtype(bool))
        return b.op("arith.maxsi", [a[-1], b.select(same, _loop_i64(b, 1), a[-1], _I64)], _I64)

    position = em.generic(2, (1,), [(f, ["d0"]) for f in flat] + [(f, ["d1"]) for f in flat],
                          em.filled((count,), _I64, 0), ["d0"], last)

    def pick(b: Body, a: list[str]) -> str:
        return b.extract(values, [b.index_cast(a[0], "i64", "index")] + [b.loop_index(d) for d in range(1, values.ndim)])

    every = [f"d{i}" for i in range(values.ndim)]
    return em.generic(values.ndim, (), [(position, ["d0"])], em.empty(values.shape, values.dtype), every, pick)


# ---- bincount: counts of each value, a one-hot sum --------------------------------------
def _bincount_bind(x: Any, weights: Any = None, minlength: Any = 0) -> Args:
    return {"a": x, "weights": weights, "minlength": minlength}


def _bincount_rule(args: Args) -> Spec:
    """A 1-d int array and a static ``minlength``: the result has ``minlength`` counts, the
    values guarded below it (a larger value makes NumPy's result longer: the call runs in Python)."""
    x, minlength = args["a"], args["minlength"]
    if args["weights"] is not None:
        raise NotConvertible("np.bincount with weights is not supported")
    if not isinstance(x, Tensor) or x.ndim != 1 or x.dtype.kind not in "iub":
        raise NotConvertible("np.bincount of anything but a 1-d integer array (NumPy may raise)")
    if not isinstance(minlength, (int, np.integer)) or isinstance(minlength, bool) or minlength <= 0:
        raise NotConvertible("np.bincount without a static positive minlength (its length would depend on the values)")
    return (int(minlength),), op_table.result_dtype(np.bincount, np.zeros(1, x.dtype))


def _bincount_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """``counts[k] = sum_i (x[i] == k)`` over (k, i), after a guard that ``0 <= x < minlength``
    (NumPy raises on a negative value; a larger one lengthens the result)."""
    x = op_table.cast(em, args["a"], _I64)
    (length,), dtype = spec

    def check(b: Body, a: list[str]) -> str:
        low = b.cmp(_I64, ("", "sge", ""), a[0], b.constant(0, _I64))
        high = b.cmp(_I64, ("", "slt", ""), a[0], b.constant(length, _I64))
        return b.op("arith.andi", [b.op("arith.andi", [low, high], np.dtype(bool)), a[1]], np.dtype(bool))

    ok = em.generic(1, (0,), [(x, ["d0"])], em.literal(np.array(True)), [], check)
    em.guard(em.scalar_condition(ok), "raise", f"np.bincount values in [0, {length}) (else NumPy raises or makes more bins)")

    def count(b: Body, a: list[str]) -> str:
        hit = b.cmp(_I64, ("", "eq", ""), a[0], _loop_i64(b, 0))
        one = b.cast(hit, np.dtype(bool), dtype)
        return b.op("arith.addi", [a[1], one], dtype)

    return em.generic(2, (1,), [(x, ["d1"])], em.filled((length,), dtype, 0), ["d0"], count)


BINCOUNT = Op("bincount", np.bincount, _bincount_bind, _bincount_rule, _bincount_lower, no_grad="an integer result")
registry.register(BINCOUNT)
