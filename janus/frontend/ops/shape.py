"""Shape entries beyond reshape and transpose: ravel, squeeze and expand_dims (a
reshape each), swapaxes and moveaxis (a transpose each), vstack and hstack (reshapes and a
concatenate). Each is one record built by ``reshaping``, ``permuting`` or ``stacking``, so
both gradients are those of the reshape, transpose or concatenate."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops import vjp_numpy
from janus.frontend.ops.op_table import normalize_axis, sample, shape_of
from janus.frontend.ops.registry import METHODS, OPS, Args, Op, Spec, register
from janus.frontend.values import NotConvertible, Shape, Tensor

ShapeFn = Callable[[Args], Shape]
PermFn = Callable[[Args, int], list[int]]


def reshaping(name: str, eager: Callable[..., Any], bind: Callable[..., Args], shape: ShapeFn) -> Op:
    """An entry whose result is ``a`` reshaped to ``shape(args)``."""

    def rule(args: Args) -> Spec:
        if args.get("order", "C") not in ("C", "A", "K"):
            raise NotConvertible(f"{name} in order {args['order']!r}")
        return shape(args), args["a"].dtype

    return Op(name, eager, bind, rule, lambda em, args, spec: em.reshape(args["a"], spec[0]), vjp=vjp_numpy.reshape_vjp)


def permuting(name: str, eager: Callable[..., Any], bind: Callable[..., Args], perm: PermFn) -> Op:
    """An entry whose result is ``a`` transposed by ``perm(args, ndim)``."""

    def rule(args: Args) -> Spec:
        dims = shape_of(args["a"])
        return tuple(dims[p] for p in perm(args, len(dims))), args["a"].dtype

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        p = perm(args, args["a"].ndim)
        return args["a"] if p == sorted(p) else em.transpose(args["a"], p)

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        return {"a": np.transpose(g, np.argsort(perm(args, np.ndim(args["a"]))))}

    return Op(name, eager, bind, rule, lower, dynamic=True, vjp=vjp)


def _axes(axis: Any, ndim: int) -> list[int]:
    axes = [normalize_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    if len(set(axes)) != len(axes):
        raise NotConvertible(f"repeated axis in {axis!r}")
    return axes


def _ravel_bind(a: Any, order: str = "C") -> Args:
    return {"a": a, "order": order}


def _squeeze_bind(a: Any, axis: Any = None) -> Args:
    return {"a": a, "axis": axis}


def _squeezed(args: Args) -> Shape:
    shape = shape_of(args["a"])
    if args["axis"] is None:
        return tuple(d for d in shape if d != 1)
    axes = _axes(args["axis"], len(shape))
    if any(shape[i] != 1 for i in axes):
        raise NotConvertible("squeeze of an axis whose size is not 1 (NumPy raises)")
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _expand_dims_bind(a: Any, axis: Any) -> Args:
    return {"a": a, "axis": axis}


def _expanded(args: Args) -> Shape:
    shape = list(shape_of(args["a"]))
    axes = sorted(_axes(args["axis"], len(shape) + (len(args["axis"]) if isinstance(args["axis"], (tuple, list)) else 1)))
    for i in axes:
        shape.insert(i, 1)
    return tuple(shape)


def _swapaxes_bind(a: Any, axis1: Any, axis2: Any) -> Args:
    return {"a": a, "axis1": axis1, "axis2": axis2}


def _swapped(args: Args, ndim: int) -> list[int]:
    i, j = normalize_axis(args["axis1"], ndim), normalize_axis(args["axis2"], ndim)
    perm = list(range(ndim))
    perm[i], perm[j] = j, i
    return perm


def _moveaxis_bind(a: Any, source: Any, destination: Any) -> Args:
    return {"a": a, "source": source, "destination": destination}


def _moved(args: Args, ndim: int) -> list[int]:
    """NumPy's ``moveaxis`` order: the other axes in order, each source at its destination."""
    source, destination = _axes(args["source"], ndim), _axes(args["destination"], ndim)
    if len(source) != len(destination):
        raise NotConvertible("moveaxis needs as many destinations as sources (NumPy raises)")
    order = [n for n in range(ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return order


def _size(args: Args) -> Shape:
    return (args["a"].size,)


def _flatten(a: Any, order: str = "C") -> Any:
    """``ndarray.flatten`` as a function (always a copy, where ``ravel`` may be a view)."""
    return np.asarray(a).flatten(order)


SHAPE_OPS = [
    reshaping("ravel", np.ravel, _ravel_bind, _size),
    reshaping("flatten", _flatten, _ravel_bind, _size),
    reshaping("squeeze", np.squeeze, _squeeze_bind, _squeezed),
    reshaping("expand_dims", np.expand_dims, _expand_dims_bind, _expanded),
    permuting("swapaxes", np.swapaxes, _swapaxes_bind, _swapped),
    permuting("moveaxis", np.moveaxis, _moveaxis_bind, _moved),
]

register(*SHAPE_OPS)
METHODS.update({name: (OPS[name], OPS[name].bind) for name in ("ravel", "flatten", "squeeze", "swapaxes")})


# ---- vstack / hstack: each operand reshaped as NumPy's atleast_2d / atleast_1d, then joined
def _stack_bind(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Args:
    if not isinstance(tup, (list, tuple)) or not tup or dtype is not None:
        raise NotConvertible("vstack/hstack of a non-empty list or tuple, without dtype=")
    return {"arrays": list(tup)}


def _vstack_shape(shape: Shape) -> Shape:
    return shape if len(shape) >= 2 else (1, *shape) if shape else (1, 1)


def _hstack_shape(shape: Shape) -> Shape:
    return shape if shape else (1,)


def _column_shape(shape: Shape) -> Shape:
    """``np.column_stack``: 1-d (and 0-d) operands as columns."""
    return (*shape, 1) if len(shape) == 1 else shape if shape else (1, 1)


def _dstack_shape(shape: Shape) -> Shape:
    """NumPy's ``atleast_3d``: (n,) as (1, n, 1), (m, n) as (m, n, 1)."""
    return {0: (1, 1, 1), 1: (1, *shape, 1), 2: (*shape, 1)}.get(len(shape), shape)


def stacking(name: str, eager: Callable[..., Any], reshape: Callable[[Shape], Shape], axis: Callable[[int], int]) -> Op:
    """``concatenate`` along ``axis(ndim)`` of the operands reshaped by ``reshape``."""

    def joined(args: Args) -> Args:
        shapes = [reshape(shape_of(x)) for x in args["arrays"]]
        return {"arrays": shapes, "axis": axis(len(shapes[0])), "out": None, "dtype": None}

    def stand_ins(args: Args) -> Args:
        """Zero-memory arrays of the reshaped operands' shapes and dtypes, for concatenate's rule."""
        plan = joined(args)
        dtypes = [sample(x, 0).dtype for x in args["arrays"]]  # a Python scalar becomes an array: strong
        return {**plan, "arrays": [np.broadcast_to(np.zeros((), d), s) for d, s in zip(dtypes, plan["arrays"])]}

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        plan = joined(args)
        parts = [em.reshape(x, s) if isinstance(x, Tensor) and x.shape != s else x for x, s in zip(args["arrays"], plan["arrays"])]
        parts = [np.reshape(x, s) if not isinstance(x, Tensor) else x for x, s in zip(parts, plan["arrays"])]
        return OPS["concatenate"].lower(em, {**plan, "arrays": parts}, spec)

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        plan = joined(args)
        ends = np.cumsum([s[plan["axis"]] for s in plan["arrays"]])[:-1]
        return {"arrays": [np.reshape(d, np.shape(x)) for d, x in zip(np.split(g, ends, axis=plan["axis"]), args["arrays"])]}

    return Op(name, eager, _stack_bind, lambda args: OPS["concatenate"].rule(stand_ins(args)), lower, vjp=vjp)


STACKS = [
    stacking("vstack", np.vstack, _vstack_shape, lambda ndim: 0),
    stacking("hstack", np.hstack, _hstack_shape, lambda ndim: 0 if ndim == 1 else 1),
    stacking("column_stack", np.column_stack, _column_shape, lambda ndim: 1),
    stacking("dstack", np.dstack, _dstack_shape, lambda ndim: 2),
]
register(*STACKS)
