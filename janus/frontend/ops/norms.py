"""``np.linalg.norm`` and ``np.kron``, lowered by applying other entries of the table
(abs, multiply, sum, max, sqrt, power, reshape), so janus-autodiff differentiates them
through those entries' rules; the tape VJPs are written out here.

Norms follow ``numpy.linalg.norm`` case by case: vector norms of any ``ord`` along one
axis (or the flattened array), matrix norms ``fro``, 1, -1, inf and -inf over two axes.
The 2-norm, -2-norm and nuclear norm of a matrix need singular values: they run in NumPy.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import normalize_axis, result_dtype, sample, shape_of
from janus.frontend.ops.registry import OPS, Args, Op, Spec, apply, register
from janus.frontend.values import NotConvertible, Tensor

Call = Callable[..., Any]
#: matrix ords whose reduction is (sum over rows first, then the extremum over columns)
MATRIX_EXTREMA = {1: ("max", 0), -1: ("min", 0), np.inf: ("max", 1), -np.inf: ("min", 1)}


def _norm_bind(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Args:
    return {"a": x, "ord": ord, "axis": axis, "keepdims": keepdims}


def _plan(args: Args) -> tuple[str, tuple[int, ...]]:
    """("vector" | "matrix", the reduced axes, normalized) as NumPy decides them."""
    ndim, axis, ord = len(shape_of(args["a"])), args["axis"], args["ord"]
    if not isinstance(args["keepdims"], bool) or isinstance(ord, Tensor):
        raise NotConvertible("norm with a traced ord or keepdims")
    if axis is None:
        if ord is None:
            return "vector", tuple(range(ndim))
        axis = tuple(range(ndim))
    axes = tuple(normalize_axis(a, ndim) for a in (axis if isinstance(axis, tuple) else (axis,)))
    if len(axes) == 1:
        if isinstance(ord, str):
            raise NotConvertible(f"norm: invalid norm order {ord!r} for vectors (NumPy raises)")
        return "vector", axes
    if len(axes) != 2 or axes[0] == axes[1]:
        raise NotConvertible("norm over more than two axes or a repeated axis (NumPy raises)")
    if ord not in (None, "fro") and ord not in MATRIX_EXTREMA:
        raise NotConvertible(f"matrix norm of order {ord!r} (singular values: runs in NumPy)")
    return "matrix", axes


def _norm_rule(args: Args) -> Spec:
    kind, axes = _plan(args)
    shape = shape_of(args["a"])
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape) if args["keepdims"] or i not in axes)
    return kept, result_dtype(np.linalg.norm, sample(args["a"]), args["ord"], args["axis"], args["keepdims"])


def _norm_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    def call(name: str, *operands: Any, **kwargs: Any) -> Any:
        return apply(em, OPS[name], operands, kwargs)

    kind, axes = _plan(args)
    x, ord = args["a"], args["ord"]
    if x.dtype != spec[1]:
        x = call("astype", x, spec[1])
    keep = args["keepdims"]
    if kind == "matrix" and ord in MATRIX_EXTREMA:
        extremum, first = MATRIX_EXTREMA[ord]
        sums = call("sum", call("absolute", x), axis=axes[first], keepdims=True)
        out = call(extremum, sums, axis=axes[1 - first], keepdims=True)
        return out if keep else call("reshape", out, spec[0])
    if ord is None or ord == "fro" or ord == 2:
        return call("sqrt", call("sum", call("multiply", x, x), axis=axes, keepdims=keep))
    if ord in (np.inf, -np.inf):
        return call("max" if ord > 0 else "min", call("absolute", x), axis=axes, keepdims=keep)
    if ord == 0:
        return call("sum", call("astype", call("not_equal", x, 0), spec[1]), axis=axes, keepdims=keep)
    if ord == 1:
        return call("sum", call("absolute", x), axis=axes, keepdims=keep)
    if not isinstance(ord, (int, float)):
        raise NotConvertible(f"norm of order {ord!r}")
    return call("power", call("sum", call("power", call("absolute", x), float(ord)), axis=axes, keepdims=keep), 1.0 / ord)


def _norm_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    kind, axes = _plan(args)
    x, ord = np.asarray(args["a"]), args["ord"]
    if not args["keepdims"]:
        g, out = np.expand_dims(g, axes), np.expand_dims(out, axes)
    sign = np.sign(x)
    if kind == "matrix" and ord in MATRIX_EXTREMA:
        extremum, first = MATRIX_EXTREMA[ord]
        sums = np.abs(x).sum(axis=axes[first], keepdims=True)
        hit = sums == out
        return {"a": g * sign * hit / hit.sum(axis=axes[1 - first], keepdims=True)}
    if ord is None or ord == "fro" or ord == 2:
        return {"a": g * np.divide(x, out, out=np.zeros(np.broadcast_shapes(x.shape, np.shape(out))), where=out != 0)}
    if ord in (np.inf, -np.inf):
        hit = np.abs(x) == out
        return {"a": g * sign * hit / hit.sum(axis=axes, keepdims=True)}
    if ord == 0:
        return {"a": np.zeros_like(x)}
    return {"a": g * sign * np.abs(x) ** (ord - 1) / out ** (ord - 1)}


# ---- kron: the operands' outer product with their dims interleaved, reshaped ---------------
def _kron_bind(a: Any, b: Any) -> Args:
    """Either operand may be a constant: a Python number or list is made an array, as NumPy does."""
    return {k: np.asanyarray(v) if isinstance(v, (list, tuple, int, float, complex)) else v for k, v in (("a", a), ("b", b))}


def _kron_shapes(args: Args) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(a's shape, b's shape, both as interleaved broadcast shapes), ranks padded with ones."""
    sa, sb = shape_of(args["a"]), shape_of(args["b"])
    ndim = max(len(sa), len(sb))
    sa, sb = (1,) * (ndim - len(sa)) + tuple(sa), (1,) * (ndim - len(sb)) + tuple(sb)
    return sa, sb, tuple(d * e for d, e in zip(sa, sb))


def _kron_rule(args: Args) -> Spec:
    return _kron_shapes(args)[2], result_dtype(np.multiply, sample(args["a"]), sample(args["b"]))


def _kron_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    sa, sb, _ = _kron_shapes(args)
    a, b = (v if isinstance(v, Tensor) else em.literal(v) for v in (args["a"], args["b"]))
    a = apply(em, OPS["reshape"], [a, tuple(d for n in sa for d in (n, 1))], {})
    b = apply(em, OPS["reshape"], [b, tuple(d for n in sb for d in (1, n))], {})
    return apply(em, OPS["reshape"], [apply(em, OPS["multiply"], [a, b], {}), spec[0]], {})


def _kron_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    a, b = np.asarray(args["a"]), np.asarray(args["b"])
    sa, sb, _ = _kron_shapes(args)
    blocks = np.reshape(g, tuple(d for pair in zip(sa, sb) for d in pair))
    a_axes, b_axes = tuple(range(1, 2 * len(sa), 2)), tuple(range(0, 2 * len(sa), 2))
    da = np.sum(blocks * b.reshape(tuple(d for n in sb for d in (1, n))), axis=a_axes)
    db = np.sum(blocks * a.reshape(tuple(d for n in sa for d in (n, 1))), axis=b_axes)
    return {"a": da.reshape(a.shape), "b": db.reshape(b.shape)}


register(
    Op("norm", np.linalg.norm, _norm_bind, _norm_rule, _norm_lower, vjp=_norm_vjp),
    Op("kron", np.kron, _kron_bind, _kron_rule, _kron_lower, vjp=_kron_vjp),
)
