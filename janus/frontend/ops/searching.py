"""``np.searchsorted``, ``np.digitize`` and ``np.isin``: lookups of values in a (sorted)
array, as counts and matches over the broadcast comparison of every value with every
element (no data-dependent control flow; one fused reduction). ``np.unravel_index``: where
flat indices fall in a static shape, by integer division and remainder, guarded in range.

NumPy's binary search answers the count of elements before the value in NumPy's sort order
(NaN after every number) only if the array is sorted: a traced array gets a ``raise``
guard that it is (an unsorted one runs in NumPy, whose answer then is its own), a static
one is checked now. ``digitize`` is ``searchsorted`` on the side NumPy picks for
increasing or decreasing bins. The comparison is ``m*n`` elements: past ``MAX_PAIRS`` the
call runs in NumPy (a split) rather than spend quadratic work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import BOOL_RESULT, result_dtype, sample, shape_of
from janus.frontend.ops.registry import Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor

#: the largest value-by-element comparison compiled (beyond it the call runs in NumPy)
MAX_PAIRS = 1 << 22
INTEGER_RESULT = "an integer result"


def _size(x: Any) -> int:
    return int(np.prod(shape_of(x)))


def _check_pairs(name: str, a: Any, v: Any) -> None:
    if not any(isinstance(x, Tensor) for x in (a, v)):
        raise NotConvertible(f"{name} of static values (NumPy folds it)")
    if _size(a) * _size(v) > MAX_PAIRS:
        raise NotConvertible(f"{name} of {_size(v)} values in {_size(a)} elements (quadratic work: runs in NumPy)")


def _less(em: Emitter, x: Tensor, y: Tensor) -> Tensor:
    """``x < y`` in NumPy's sort order (NaN after every number)."""
    lt = call(em, "less", x, y)
    if any(t.dtype.kind == "f" for t in (x, y)):
        nan_after = call(em, "logical_and", call(em, "isnan", y), call(em, "logical_not", call(em, "isnan", x)))
        lt = call(em, "logical_or", lt, nan_after)
    return lt


def _operand(em: Emitter, x: Any) -> Any:
    return x if isinstance(x, Tensor) else em.literal(np.asarray(x))


def _ensure_sorted(em: Emitter, a: Any, name: str) -> None:
    """A static ``a`` must be sorted now; a traced one is guarded."""
    if not isinstance(a, Tensor):
        held = np.asarray(a)
        if not np.array_equal(np.sort(held), held, equal_nan=held.dtype.kind == "f"):
            raise NotConvertible(f"{name} in an unsorted array (NumPy's answer is its binary search's)")
        return
    if a.shape[0] > 1:
        descending = _less(em, call(em, "getitem", a, slice(1, None)), call(em, "getitem", a, slice(None, -1)))
        em.guard(em.scalar_condition(call(em, "logical_not", call(em, "any", descending))), "raise",
                 f"np.{name}: the array is sorted (else NumPy's answer is its binary search's)")


def _count_before(em: Emitter, a: Any, v: Any, side: str) -> Tensor:
    """Per value: the elements of ``a`` before it (``left``) or not after it (``right``)."""
    values = call(em, "expand_dims", _operand(em, v), -1)
    elements = _operand(em, a)
    before = _less(em, elements, values) if side == "left" else call(em, "logical_not", _less(em, values, elements))
    return call(em, "sum", before, axis=-1)


# ---- searchsorted ------------------------------------------------------------------------
def _searchsorted_bind(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Args:
    if sorter is not None or side not in ("left", "right"):
        raise NotConvertible("searchsorted with sorter= or a side other than 'left'/'right'")
    return {"a": a, "v": v, "side": side}


def _searchsorted_rule(args: Args) -> Spec:
    if len(shape_of(args["a"])) != 1:
        raise NotConvertible("searchsorted in an array that is not 1-d (NumPy raises)")
    _check_pairs("searchsorted", args["a"], args["v"])
    result_dtype(np.searchsorted, np.ones(1, np.asarray(sample(args["a"])).dtype), sample(args["v"]))
    return tuple(shape_of(args["v"])), np.dtype(np.int64)


def _searchsorted_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    _ensure_sorted(em, args["a"], "searchsorted")
    return _count_before(em, args["a"], args["v"], args["side"])


# ---- digitize ----------------------------------------------------------------------------
def _digitize_bind(x: Any, bins: Any, right: bool = False) -> Args:
    if type(right) is not bool:
        raise NotConvertible("digitize's right must be a static bool")
    return {"x": x, "bins": bins, "right": right}


def _digitize_rule(args: Args) -> Spec:
    if len(shape_of(args["bins"])) != 1:
        raise NotConvertible("digitize with bins that are not 1-d (NumPy raises)")
    _check_pairs("digitize", args["bins"], args["x"])
    result_dtype(np.digitize, sample(args["x"]), np.ones(1, np.asarray(sample(args["bins"])).dtype))
    return tuple(shape_of(args["x"])), np.dtype(np.int64)


def _digitize_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """Increasing bins (a traced array is guarded to be): ``searchsorted(bins, x, side)`` with
    side ``right`` unless ``right=True``; decreasing static bins: ``n - searchsorted(bins[::-1], x, other side)``."""
    bins, side = args["bins"], "left" if args["right"] else "right"
    if not isinstance(bins, Tensor):
        held = np.asarray(bins)
        if held.dtype.kind == "f" and np.isnan(held).any():
            raise NotConvertible("digitize with bins that hold NaN")
        if np.any(held[1:] < held[:-1]):
            if np.any(held[1:] > held[:-1]):
                raise NotConvertible("digitize with bins that are not monotonic (NumPy raises)")
            return call(em, "subtract", held.size, _count_before(em, held[::-1].copy(), args["x"], side))
    elif bins.shape[0] > 1:
        rising = call(em, "all", call(em, "greater_equal", call(em, "getitem", bins, slice(1, None)), call(em, "getitem", bins, slice(None, -1))))
        em.guard(em.scalar_condition(rising), "raise", "np.digitize: the bins increase (else NumPy's other formula or its error)")
    return _count_before(em, bins, args["x"], side)


# ---- isin --------------------------------------------------------------------------------
def _isin_bind(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, *, kind: Any = None) -> Args:
    if type(invert) is not bool or kind not in (None, "sort", "table"):
        raise NotConvertible("isin with a traced invert= or an unknown kind")
    return {"element": element, "test_elements": test_elements, "invert": invert}


def _isin_rule(args: Args) -> Spec:
    _check_pairs("isin", args["test_elements"], args["element"])
    result_dtype(np.equal, sample(args["element"]), sample(args["test_elements"]))
    return tuple(shape_of(args["element"])), np.dtype(bool)


def _isin_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    tests = call(em, "ravel", _operand(em, args["test_elements"]))
    found = call(em, "any", call(em, "equal", call(em, "expand_dims", _operand(em, args["element"]), -1), tests), axis=-1)
    return call(em, "logical_not", found) if args["invert"] else found


# ---- unravel_index ------------------------------------------------------------------------
def _unravel_bind(indices: Any, shape: Any, order: str = "C") -> Args:
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if not isinstance(dims, (tuple, list)) or not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n > 0
                                                      for n in dims) or order not in ("C", "F"):
        raise NotConvertible("unravel_index into a static shape of positive ints, order 'C' or 'F'")
    return {"indices": indices, "dims": tuple(int(n) for n in dims), "order": order}


def _unravel_rule(args: Args) -> list[Spec]:
    x = args["indices"]
    if not isinstance(x, Tensor):
        raise NotConvertible("unravel_index of static indices (NumPy folds it)")
    if x.dtype.kind not in "iu" or x.dtype == np.uint64:
        raise NotConvertible("unravel_index of indices that are not signed or small unsigned integers (NumPy raises)")
    return [(tuple(x.shape), np.dtype(np.intp))] * len(args["dims"])


def _unravel_lower(em: Emitter, args: Args, spec: Any) -> tuple[Tensor, ...]:
    """The index of each dim by remainder, the rest by floor division, from the fastest dim
    (the last in C order); first a guard that every index is in ``[0, size)`` (NumPy raises)."""
    dims, flat = args["dims"], call(em, "astype", args["indices"], np.dtype(np.intp))
    size = int(np.prod(dims))
    inside = call(em, "logical_and", call(em, "greater_equal", flat, 0), call(em, "less", flat, size))
    em.guard(em.scalar_condition(call(em, "all", inside)), "raise", f"np.unravel_index of indices in [0, {size}) (ValueError)")
    order = range(len(dims) - 1, -1, -1) if args["order"] == "C" else range(len(dims))
    found: dict[int, Tensor] = {}
    for d in order:
        found[d] = call(em, "remainder", flat, dims[d])
        flat = call(em, "floor_divide", flat, dims[d])
    return tuple(found[d] for d in range(len(dims)))


register(
    Op("unravel_index", np.unravel_index, _unravel_bind, _unravel_rule, _unravel_lower, no_grad=INTEGER_RESULT),
    Op("searchsorted", np.searchsorted, _searchsorted_bind, _searchsorted_rule, _searchsorted_lower, no_grad=INTEGER_RESULT),
    Op("digitize", np.digitize, _digitize_bind, _digitize_rule, _digitize_lower, no_grad=INTEGER_RESULT),
    Op("isin", np.isin, _isin_bind, _isin_rule, _isin_lower, no_grad=BOOL_RESULT),
)
