"""Arrays assembled from others: ``np.atleast_1d``, ``np.atleast_2d``, ``np.append``,
``np.meshgrid``, ``np.select`` and ``np.cross``, each composed from the plain entries
(reshape, concatenate, broadcast_to, where, multiply, subtract, stack) in NumPy's own
order of operations, so janus-autodiff differentiates them through those entries' rules.

Result dtypes are NumPy's answer on one-element samples (``np.append(x_f32, 1)`` is
float64: NumPy makes ``1`` an array first); the pieces are cast to it before they meet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops import vjp_numpy
from janus.frontend.ops.op_table import broadcast_shapes, normalize_axis, result_dtype, sample, shape_of
from janus.frontend.ops.registry import Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor


def _as(em: Emitter, x: Any, dtype: np.dtype) -> Tensor:
    """``x`` as an array of ``dtype`` (a static one as NumPy's ``asarray`` makes it, then cast)."""
    return call(em, "astype", x if isinstance(x, Tensor) else em.literal(np.asarray(x)), dtype)


# ---- atleast_1d / atleast_2d ----------------------------------------------------------
def _one_bind(*arys: Any) -> Args:
    if len(arys) != 1:
        raise NotConvertible("atleast_nd of several arrays (a tuple result)")
    return {"a": arys[0]}


def at_least(name: str, eager: Any, ndim: int) -> Op:
    """A unit dim in front until the operand has ``ndim`` dims (the operand itself if it has them)."""

    def shape(args: Args) -> tuple:
        s = tuple(shape_of(args["a"]))
        return (1,) * (ndim - len(s)) + s if len(s) < ndim else s

    def rule(args: Args) -> Spec:
        if not isinstance(args["a"], Tensor):
            raise NotConvertible(f"{name} of a static value (NumPy folds it)")
        return shape(args), args["a"].dtype

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        return args["a"] if spec[0] == args["a"].shape else call(em, "reshape", args["a"], spec[0])

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        return {"a": np.reshape(g, np.shape(args["a"]))}

    return Op(name, eager, _one_bind, rule, lower, vjp=vjp)


# ---- append ------------------------------------------------------------------------------
def _append_bind(arr: Any, values: Any, axis: Any = None) -> Args:
    return {"arr": arr, "values": values, "axis": axis}


def _append_rule(args: Args) -> Spec:
    arr, values, axis = shape_of(args["arr"]), shape_of(args["values"]), args["axis"]
    if not any(isinstance(args[k], Tensor) for k in ("arr", "values")):
        raise NotConvertible("append of static values (NumPy folds it)")
    dtype = result_dtype(np.append, sample(args["arr"], len(arr)), sample(args["values"], len(values)))
    if axis is None:
        return (int(np.prod(arr)) + int(np.prod(values)),), dtype
    if len(arr) != len(values):
        raise NotConvertible("append of arrays of different ranks (NumPy raises)")
    ax = normalize_axis(axis, len(arr))
    if any(a != v for i, (a, v) in enumerate(zip(arr, values)) if i != ax):
        raise NotConvertible("append of arrays whose other dims differ (NumPy raises)")
    return tuple(a + v if i == ax else a for i, (a, v) in enumerate(zip(arr, values))), dtype


def _append_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    arr, values = _as(em, args["arr"], spec[1]), _as(em, args["values"], spec[1])
    if args["axis"] is None:
        return call(em, "concatenate", [call(em, "ravel", arr), call(em, "ravel", values)])
    return call(em, "concatenate", [arr, values], axis=args["axis"])


def _append_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    arr, values, axis = np.asarray(args["arr"]), np.asarray(args["values"]), args["axis"]
    if axis is None:
        return {"arr": g[:arr.size].reshape(arr.shape), "values": g[arr.size:].reshape(values.shape)}
    head, tail = np.split(g, [arr.shape[axis]], axis=axis)
    return {"arr": head, "values": tail}


# ---- meshgrid ----------------------------------------------------------------------------
def _meshgrid_bind(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> Args:
    if sparse is not False or indexing not in ("xy", "ij") or not xi:
        raise NotConvertible("meshgrid with sparse=True, another indexing or no arrays")
    return {"xi": xi, "indexing": indexing}


def _grid_shape(args: Args) -> tuple[int, ...]:
    sizes = [int(np.prod(shape_of(x))) for x in args["xi"]]
    if args["indexing"] == "xy" and len(sizes) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    return tuple(sizes)


def _grid_dim(i: int, args: Args) -> int:
    """The grid dim input ``i`` is laid along (``xy`` indexing swaps the first two)."""
    return (1, 0)[i] if args["indexing"] == "xy" and len(args["xi"]) > 1 and i < 2 else i


def _meshgrid_rule(args: Args) -> list[Spec]:
    if not any(isinstance(x, Tensor) for x in args["xi"]):
        raise NotConvertible("meshgrid of static arrays (NumPy folds it)")
    shape = _grid_shape(args)
    return [(shape, np.asarray(sample(x, 1)).dtype) for x in args["xi"]]


def _meshgrid_lower(em: Emitter, args: Args, spec: Any) -> tuple[Tensor, ...]:
    """Each input raveled, laid along its own dim of the grid, broadcast (NumPy's copy)."""
    xi, shape = args["xi"], _grid_shape(args)
    grids = []
    for i, x in enumerate(xi):
        dim = _grid_dim(i, args)
        unit = tuple(-1 if j == dim else 1 for j in range(len(shape)))
        laid = call(em, "reshape", _as(em, x, np.asarray(sample(x, 1)).dtype), unit)
        grids.append(call(em, "copy", call(em, "broadcast_to", laid, shape)))
    return tuple(grids)


def _meshgrid_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """Grid ``args["piece"]``'s cotangent summed over the grid's other dims, to its own input."""
    i, xi = args["piece"], args["xi"]
    dim = _grid_dim(i, args)
    summed = np.sum(g, axis=tuple(j for j in range(np.ndim(g)) if j != dim))
    return {"xi": [np.reshape(summed, np.shape(x)) if j == i else None for j, x in enumerate(xi)]}


# ---- select ------------------------------------------------------------------------------
def _select_bind(condlist: Any, choicelist: Any, default: Any = 0) -> Args:
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)) or len(condlist) != len(choicelist):
        raise NotConvertible("select of a condition list and a choice list of one length (else NumPy raises)")
    if not condlist:
        raise NotConvertible("select of empty lists (NumPy raises)")
    return {"condlist": list(condlist), "choicelist": list(choicelist), "default": default}


def _select_rule(args: Args) -> Spec:
    conds, choices, default = args["condlist"], args["choicelist"], args["default"]
    if any(not isinstance(c, Tensor) or c.dtype.kind != "b" for c in conds):
        raise NotConvertible("select's conditions must be traced bool arrays (NumPy raises on other dtypes)")
    shape = broadcast_shapes(*(shape_of(x) for x in (*conds, *choices, default)))
    return shape, result_dtype(np.select, [np.ones(1, bool)] * len(conds), [sample(c) for c in choices], sample(default))


def _select_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """NumPy's order: the default, then each choice from the last to the first where its condition holds."""
    result = call(em, "broadcast_to", _as(em, args["default"], spec[1]), spec[0])
    for cond, choice in reversed(list(zip(args["condlist"], args["choicelist"]))):
        result = call(em, "where", cond, _as(em, choice, spec[1]), result)
    return result


def _select_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """Each choice gets the cotangent where it was the one picked (the first condition that holds)."""
    taken = np.zeros(np.shape(g), bool)
    grads = []
    for cond, choice in zip(args["condlist"], args["choicelist"]):
        picked = np.asarray(cond) & ~taken
        taken |= picked
        grads.append(vjp_numpy.unbroadcast(np.where(picked, g, 0), choice))
    return {"choicelist": grads, "default": vjp_numpy.unbroadcast(np.where(taken, 0, g), args["default"])}


# ---- cross -------------------------------------------------------------------------------
def _cross_bind(a: Any, b: Any, axisa: Any = -1, axisb: Any = -1, axisc: Any = -1, axis: Any = None) -> Args:
    if (axisa, axisb, axisc, axis) != (-1, -1, -1, None):
        raise NotConvertible("cross along an axis other than the last")
    return {"a": a, "b": b}


def _cross_rule(args: Args) -> Spec:
    a, b = shape_of(args["a"]), shape_of(args["b"])
    if not a or not b or a[-1] != 3 or b[-1] != 3:
        raise NotConvertible("cross of vectors of 3 components only (2-component cross is deprecated in NumPy)")
    vectors = (np.ones(3, np.asarray(sample(args[k])).dtype) for k in ("a", "b"))
    return broadcast_shapes(a, b), result_dtype(np.cross, *vectors)


def _cross_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a, b = (_as(em, args[k], spec[1]) for k in ("a", "b"))
    c = [call(em, "getitem", x, (Ellipsis, i)) for x in (a, b) for i in range(3)]
    a0, a1, a2, b0, b1, b2 = c
    parts = [call(em, "subtract", call(em, "multiply", p, q), call(em, "multiply", r, s))
             for p, q, r, s in ((a1, b2, a2, b1), (a2, b0, a0, b2), (a0, b1, a1, b0))]
    return call(em, "concatenate", [call(em, "broadcast_to", call(em, "expand_dims", p, -1), spec[0][:-1] + (1,)) for p in parts], axis=-1)


def _cross_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    a, b = np.asarray(args["a"]), np.asarray(args["b"])
    return {"a": vjp_numpy.unbroadcast(np.cross(b, g), a), "b": vjp_numpy.unbroadcast(np.cross(g, a), b)}


register(
    at_least("atleast_1d", np.atleast_1d, 1),
    at_least("atleast_2d", np.atleast_2d, 2),
    Op("append", np.append, _append_bind, _append_rule, _append_lower, vjp=_append_vjp),
    Op("meshgrid", np.meshgrid, _meshgrid_bind, _meshgrid_rule, _meshgrid_lower, vjp=_meshgrid_vjp),  # type: ignore[arg-type]
    Op("select", np.select, _select_bind, _select_rule, _select_lower, vjp=_select_vjp),
    Op("cross", np.cross, _cross_bind, _cross_rule, _cross_lower, vjp=_cross_vjp),
)
