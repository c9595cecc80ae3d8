"""``np.median``, ``np.quantile`` and ``np.percentile`` (the default ``linear`` method): a
stable sort along the axis, then NumPy's own arithmetic on the order statistics it picks.

The positions and weights come from the static ``q`` and the axis length, on the host, as
NumPy computes them (``_get_indexes``, ``_get_gamma``): the virtual index
``n*q + (1 - q) - 1``, its floor and the next one, clipped at the ends, then NumPy's
``_lerp`` (``a + (b-a)*t``, or ``b - (b-a)*(1-t)`` where ``t >= 0.5``); ``median`` is the
mean of the middle one or two. A slice holding a NaN gives NaN, as NumPy's (after the
sort a NaN is last). The VJP sends the cotangent to the order statistics' positions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import normalize_axis, result_dtype, sample, shape_of
from janus.frontend.ops.registry import Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor


def _bind(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, method: str = "linear",
          keepdims: bool = False, *, weights: Any = None, interpolation: Any = None) -> Args:
    if out is not None or overwrite_input is not False or method != "linear" or weights is not None or interpolation is not None:
        raise NotConvertible("quantile with out=, overwrite_input=, weights= or a method other than 'linear'")
    return {"a": a, "q": q, "axis": axis, "keepdims": keepdims}


def _median_bind(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False) -> Args:
    if out is not None or overwrite_input is not False:
        raise NotConvertible("median with out= or overwrite_input=")
    return {"a": a, "q": 0.5, "axis": axis, "keepdims": keepdims}


def _static_q(q: Any, percent: bool) -> tuple[np.ndarray, bool]:
    """(q as NumPy holds it, in [0, 1]; whether it promotes weakly: a Python int or float)."""
    if isinstance(q, Tensor) or any(isinstance(v, Tensor) for v in np.ravel(np.asarray(q, object))):
        raise NotConvertible("quantile of a traced q (only static quantiles)")
    weak = type(q) in (int, float)
    held = np.true_divide(q, 100) if percent else np.asanyarray(q)
    if held.dtype.kind not in "iuf" or not (np.all(held >= 0) and np.all(held <= 1)):
        raise NotConvertible("quantiles outside [0, 1] or not real (NumPy raises)")
    return np.asarray(held), weak


def _plan(args: Args, percent: bool) -> tuple[int | None, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """(axis or None, length n, q, the positions below and above each quantile, gamma or None
    where the positions are exact, whether q promotes weakly)."""
    shape, axis = shape_of(args["a"]), args["axis"]
    if type(args["keepdims"]) is not bool:
        raise NotConvertible("quantile with a traced keepdims")
    if axis is not None:
        axis = normalize_axis(axis, len(shape))
    n = int(np.prod(shape)) if axis is None else shape[axis]
    if n == 0:
        raise NotConvertible("quantile of an empty axis (NumPy raises or warns)")
    q, weak = _static_q(args["q"], percent)
    virtual = np.asarray(n * q + (1 + q * (1 - 1 - 1)) - 1)  # NumPy's _compute_virtual_index, alpha = beta = 1
    if virtual.dtype.kind in "iu":
        exact = np.asarray(virtual, np.int64)
        return axis, n, q, exact, exact, None, weak
    previous = np.array(np.floor(virtual))
    following = np.array(previous + 1)
    following[virtual >= n - 1] = previous[virtual >= n - 1] = -1
    gamma = np.asarray(virtual - previous, virtual.dtype)  # NumPy's _get_gamma, from the clipped floor
    return axis, n, q, previous.astype(np.int64) % n, following.astype(np.int64) % n, gamma, weak


def _out_shape(args: Args, q: np.ndarray, axis: int | None) -> tuple[int, ...]:
    shape = shape_of(args["a"])
    if args["keepdims"]:
        rest = tuple(1 if axis is None or i == axis else d for i, d in enumerate(shape))
    else:
        rest = () if axis is None else tuple(d for i, d in enumerate(shape) if i != axis)
    return q.shape + rest


def quantile_op(name: str, eager: Any, bind: Any, percent: bool) -> Op:
    def rule(args: Args) -> Spec:
        if not isinstance(args["a"], Tensor):
            raise NotConvertible(f"{name} of a static array (NumPy folds it)")
        axis, _, q, _, _, _, weak = _plan(args, percent)
        if name == "median":
            return _out_shape(args, q, axis), result_dtype(eager, sample(args["a"]))
        return _out_shape(args, q, axis), result_dtype(eager, sample(args["a"]), args["q"])

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        axis, n, q, previous, following, gamma, weak = _plan(args, percent)
        a = args["a"]
        x = call(em, "ravel", a) if axis is None else call(em, "moveaxis", a, axis, 0)
        s = call(em, "sort", call(em, "astype", x, spec[1]) if x.dtype.kind == "f" else x, axis=0, kind="stable")
        if name == "median":
            k = n // 2
            mid = call(em, "getitem", s, slice(k - 1 + n % 2, k + 1))
            result = call(em, "mean", mid, axis=0)
        elif gamma is None:
            result = call(em, "take", s, previous.tolist() if q.ndim else int(previous), axis=0)
        else:
            result = _lerp(em, s, previous, following, gamma, weak or q.ndim == 0, spec[1])
        if spec[1].kind == "f" and s.dtype.kind == "f":
            result = call(em, "where", call(em, "isnan", call(em, "getitem", s, -1)), np.nan, result)
        return call(em, "reshape", call(em, "astype", result, spec[1]), spec[0])

    return Op(name, eager, bind, rule, lower, vjp=_vjp(percent))


def _lerp(em: Emitter, s: Tensor, previous: np.ndarray, following: np.ndarray, gamma: np.ndarray, scalar: bool,
          dtype: np.dtype) -> Tensor:
    """NumPy's ``_lerp`` of the order statistics at ``previous`` and ``following`` (axis 0 of ``s``)."""
    pick = (lambda idx: int(idx)) if scalar else (lambda idx: idx.tolist())
    below, above = call(em, "take", s, pick(previous), axis=0), call(em, "take", s, pick(following), axis=0)
    unit = gamma.shape + (1,) * (s.ndim - 1)
    t, rest = (dtype.type(gamma), dtype.type(1 - gamma)) if scalar else (gamma.reshape(unit).astype(dtype), (1 - gamma).reshape(unit).astype(dtype))
    diff = call(em, "astype", call(em, "subtract", above, below), dtype)  # in the operand's dtype: integers wrap, as NumPy's
    below, above = call(em, "astype", below, dtype), call(em, "astype", above, dtype)
    low = call(em, "add", below, call(em, "multiply", diff, t))
    high = call(em, "subtract", above, call(em, "multiply", diff, rest))
    return call(em, "where", np.asarray(gamma >= 0.5).reshape(() if scalar else unit), high, low)


def _vjp(percent: bool) -> Any:
    """Each quantile's cotangent goes to the two order statistics it interpolates (weights
    ``1 - gamma`` and ``gamma``; the median's middle ones alike), at their places in ``a``
    (a stable argsort, as the lowering's sort)."""

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        a = np.asarray(args["a"])
        axis, n, q, previous, following, gamma, _ = _plan(args, percent)
        x = a.reshape(-1) if axis is None else np.moveaxis(a, axis, 0)
        g = np.asarray(g).reshape(q.shape + x.shape[1:])
        t = np.zeros(q.shape) if gamma is None else gamma
        by_rank = np.zeros(x.shape, np.result_type(g, np.float64))
        for j in np.ndindex(q.shape):
            by_rank[previous[j]] += g[j] * (1 - t[j])
            by_rank[following[j]] += g[j] * t[j]
        grad = np.zeros_like(by_rank)
        np.put_along_axis(grad, np.argsort(x, axis=0, kind="stable"), by_rank, axis=0)
        return {"a": grad.reshape(a.shape) if axis is None else np.moveaxis(grad, 0, axis)}

    return vjp


register(
    quantile_op("median", np.median, _median_bind, percent=False),
    quantile_op("quantile", np.quantile, _bind, percent=False),
    quantile_op("percentile", np.percentile, _bind, percent=True),
)
