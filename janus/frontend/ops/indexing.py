"""Indexing an array with a traced int (``emb[node.word]``): a guarded dynamic offset.

Basic indexing with static ints and slices is the op table's ``getitem``. An index that
is a 0-d integer graph value (a ``Weak`` Python int, or an int64 scalar) becomes a
dynamic offset of ``tensor.extract_slice``; Python's rules are kept: a negative index
counts from the end, and an index out of range (``IndexError``) fails a guard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from janus.frontend.ops import advanced
from janus.frontend.ops import masks
from janus.frontend.ops import registry
from janus.frontend.ops.op_table import slice_plan
from janus.frontend.values import NotConvertible, Tensor

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer


def is_dynamic(key: Any) -> bool:
    """Whether ``key`` (an index or a tuple of them) holds a graph value."""
    return isinstance(key, Tensor) or isinstance(key, tuple) and any(isinstance(k, Tensor) for k in key) or advanced.is_advanced(key)


def has_bool_mask(key: Any) -> bool:
    """Whether ``key`` holds a boolean graph array (a mask read: its result's length is a value)."""
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, Tensor) and k.dtype.kind == "b" and k.ndim > 0 for k in keys)


def getitem(tracer: "Tracer", x: Tensor, key: Any) -> Tensor:
    """``x[key]`` where some indices are 0-d integer graph values (the rest static), a boolean
    mask (``masks``) or integer arrays (``advanced``)."""
    if masks.mask_of(key) is not None:
        return masks.read(tracer.em, x, key)
    if advanced.is_advanced(key):
        return advanced.gather(tracer, x, key)
    key = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis for k in key) or len(key) > x.ndim:
        raise NotConvertible("an array index mixing a traced int with ... or too many indices")
    for k in key:
        if isinstance(k, Tensor) and (k.shape or k.dtype.kind != "i"):
            raise NotConvertible(f"indexing with a {k.type} array (advanced indexing is not supported)")
    offsets, sizes, strides, kept = traced_plan(tracer, x, key)
    em = tracer.em
    view = em.extract_slice(x, offsets, [em.size(d) for d in sizes], strides, tuple(sizes[d] for d in kept))
    registry.record(em, "getitem", {"a": x}, view)
    return view


def traced_plan(tracer: "Tracer", x: Tensor, key: tuple) -> tuple[list, list[int | str], list[int], list[int]]:
    """``slice_plan`` of a key holding 0-d int graph values: each such index a guarded dynamic
    offset of size 1 (into a static dim, or a ``?`` one: planned as ``:``, then narrowed)."""
    if any(k is Ellipsis for k in key) and any(isinstance(k, Tensor) for k in key):
        raise NotConvertible("an array index mixing a traced int with ...")
    static = tuple((slice(None) if isinstance(n, str) else 0) if isinstance(k, Tensor) else k
                   for k, n in zip(key, x.shape))
    offsets, sizes, strides, kept = slice_plan(x.shape, static + key[len(static):])
    for dim, n in enumerate(x.shape):
        if isinstance(n, str):
            tracer.em.bind_dim(n, x, dim)
    for dim, k in enumerate(key):
        if isinstance(k, Tensor):
            offsets[dim] = checked_index(tracer, tracer.em.scalar(k), x.shape[dim], x, dim)
            sizes[dim] = 1
            kept = [d for d in kept if d != dim]
    return offsets, sizes, strides, kept


def checked_index(tracer: "Tracer", index: str, size: int | str, x: Tensor | None = None, dim: int = 0) -> str:
    """An ``index`` value for Python's ``index`` into a dim of ``size`` (a ``?`` dim: the symbol
    of ``x``'s dim ``dim``), guarded in range."""
    em = tracer.em
    if isinstance(size, str):
        em.bind_dim(size, x, dim)
    b = em.scalars()
    zero = b.constant(0, "i64")
    high = b.index_cast(em.dims[size], "index", "i64") if isinstance(size, str) else b.constant(size, "i64")
    low = b.op("arith.subi", [zero, high], "i64")
    ok = b.op("arith.andi", [b.cmp("i64", "sge", index, low), b.cmp("i64", "slt", index, high)], "i1")
    tracer.guard(ok, "raise", f"index in range of a dim of size {'?' if isinstance(size, str) else size} (IndexError)")
    b = em.scalars()
    negative = b.cmp("i64", "slt", index, zero)
    chosen = b.select(negative, b.op("arith.addi", [index, high], "i64"), index, "i64")
    return b.index_cast(chosen, "i64", "index")
