"""Boolean mask reads ``x[mask]`` (``X[labels == k]``): a result whose row count is a value.

The result's first dim is a new ``?`` symbol bound to the number of true entries, computed
in the graph, so a mask read inside a helper, a comprehension or a loop body stays compiled
(no segment boundary, no fallback). An inclusive ``iree_linalg_ext.scan`` of the mask gives
each selected row its place and the count; an ``iree_linalg_ext.scatter`` writes the
selected rows there and every other row into one spare row past the end; the first
``count`` rows are the result: O(n) work and one read of the count, which IREE sizes the
result with. NumPy's rules are kept: the mask covers the leading dims of ``x`` with exactly
their shape (else NumPy raises ``IndexError``: refused, the call runs in Python), the result
is a copy in ``x``'s dtype, its rows in order, empty when nothing is selected. What follows
sees a ``?`` dim: ``len`` is a graph value, ``mean`` over it is guarded non-empty.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

import numpy as np

from janus.frontend.emitter import Body, Emitter
from janus.frontend.ops import registry
from janus.frontend.ops import vjp_numpy
from janus.frontend.ops.op_table import _getitem_bind, cast
from janus.frontend.ops.registry import Args, Op, Spec
from janus.frontend.values import ELEMENT_TYPES, NotConvertible, Tensor

_I64 = np.dtype(np.int64)
#: names of the ``?`` dims mask reads make (each read its own: two masks select unrelated counts)
_SYMBOLS = itertools.count()


def is_mask(key: Any) -> bool:
    """Whether a key is one boolean array (alone, or alone in a tuple): a graph value, or
    NumPy's on the eager tape."""
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    return isinstance(k, (Tensor, np.ndarray)) and k.dtype.kind == "b" and k.ndim > 0


def mask_of(key: Any) -> Tensor | None:
    """The boolean graph array a key is (``is_mask``), else None."""
    k = key[0] if isinstance(key, tuple) else key
    return k if isinstance(k, Tensor) and is_mask(key) else None


def _rule(args: Args) -> Spec:
    x, mask = args["a"], mask_of(args["key"])
    if not isinstance(x, Tensor) or mask is None:
        raise NotConvertible("a mask read other than x[mask] with one boolean array")
    k = mask.ndim
    if k > x.ndim or mask.shape != x.shape[:k]:
        raise NotConvertible(f"a boolean index of shape {mask.type} for an array {x.type} (NumPy raises IndexError "
                             "unless it has the shape of the leading dims)")
    return (f"masked{next(_SYMBOLS)}", *x.shape[k:]), x.dtype


def _lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    x, mask = args["a"], mask_of(args["key"])
    (symbol, *rest), dtype = spec
    for d, size in enumerate(mask.shape):
        if isinstance(size, str):
            em.bind_dim(size, mask, d)
    if mask.ndim > 1:  # the leading dims as one
        rows = em.product_dim(mask.shape, f"rows{next(_SYMBOLS)}")
        x, mask = em.collapse_leading(x, mask.ndim, rows), em.collapse_leading(mask, mask.ndim, rows)
    rows = x.shape[0]
    prefix, count = _inclusive_count(em, cast(em, mask, _I64))
    b = em.scalars()
    em.dims[symbol] = b.index_cast(em.scalar(count), "i64", "index")
    spare = b.index_cast(em.dims[rows], "index", "i64") if isinstance(rows, str) else b.constant(rows, _I64)

    def place(body: Body, v: list[str]) -> str:  # a selected row's place, the spare row for the others
        return body.select(v[0], body.op("arith.subi", [v[1], body.constant(1, _I64)], _I64), spare, _I64)

    places = em.generic(2, (), [(mask, ["d0"]), (prefix, ["d0"])], em.empty((rows, 1), _I64), ["d0", "d1"], place)
    scattered = _scatter_rows(em, x, places, _plus_one(em, rows))
    sizes = [em.dims[symbol], *(em.size(d) for d in rest)]
    return em.extract_slice(scattered, [0] * x.ndim, sizes, [1] * x.ndim, (symbol, *rest))


def _plus_one(em: Emitter, rows: int | str) -> int | str:
    """A dim one longer than ``rows`` (a new symbol when ``rows`` is one)."""
    if not isinstance(rows, str):
        return rows + 1
    symbol = f"spare{next(_SYMBOLS)}"
    em.dims[symbol] = em.scalars().op("arith.addi", [em.dims[rows], em.index_constant(1)], "index")
    return symbol


def _inclusive_count(em: Emitter, flags: Tensor) -> tuple[Tensor, Tensor]:
    """(the inclusive prefix sums of the 1-d i64 ``flags``, their total as a 0-d tensor): one scan."""
    name, out, total = em.fresh(), em.empty(flags.shape, _I64), em.filled((), _I64, 0)
    a, acc = em.argument("i64"), em.argument("i64")
    body = Body(em)
    added = body.op("arith.addi", [a, acc], _I64)
    prefix, count = Tensor(f"{name}#0", flags.shape, _I64), Tensor(f"{name}#1", (), _I64)
    region = "\n".join(["{", f"^bb0({a}: i64, {acc}: i64):", *body.lines, f"iree_linalg_ext.yield {added} : i64",
                        f"}} -> {out.type}, {total.type}"])
    em.append(f"{name}:2 = iree_linalg_ext.scan dimension(0) inclusive(true) ins({flags.name} : {flags.type}) "
              f"outs({out.name}, {total.name} : {out.type}, {total.type}) {region}",
              [(flags.name, flags.type), (out.name, out.type), (total.name, total.type)],
              [(prefix.name, prefix.type), (count.name, count.type)])
    return prefix, count


def _scatter_rows(em: Emitter, x: Tensor, places: Tensor, rows: int | str) -> Tensor:
    """A fresh array of ``rows`` rows with row ``i`` of ``x`` at row ``places[i]`` (the spare
    row, written by every unselected row, is never read)."""
    target = em.empty((rows, *x.shape[1:]), x.dtype)
    element = ELEMENT_TYPES[x.dtype.name]
    update, current = em.argument(element), em.argument(element)
    region = "\n".join(["{", f"^bb0({update}: {element}, {current}: {element}):", f"iree_linalg_ext.yield {update} : {element}",
                        f"}} -> {target.type}"])
    return em.emit(f"iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins({x.name}, {places.name} : "
                   f"{x.type}, {places.type}) outs({target.name} : {target.type}) {region}",
                   target.shape, target.dtype, [x, places, target])


MASK_READ = Op("mask_read", operator.getitem, _getitem_bind, _rule, _lower, dynamic=True, vjp=vjp_numpy.getitem_vjp,
               no_mlir_vjp="its row count is a value: janus-autodiff differentiates loops of static sizes only")
registry.register(MASK_READ)


def read(em: Emitter, x: Tensor, key: Any) -> Tensor:
    """``x[key]`` for a boolean mask ``key`` (``mask_of``)."""
    return registry.apply(em, MASK_READ, [x, key], {})
