"""Reductions that skip NaN (``np.nansum``, ``np.nanmean``, ``np.nanmax``, ``np.nanmin``,
``np.nanargmax``, ``np.nanargmin``), ``np.count_nonzero`` and ``np.ptp``: each composed
from the plain entries the way NumPy computes it, so janus-autodiff differentiates it
through their rules.

NaN is replaced by the reduction's identity (0 for sums, -inf/+inf for extrema) and a
slice of NaN only is NaN again (nanmax) or a count of 0 (nanmean: 0/0, NaN, as NumPy's).
On integers and bools they are the plain reductions, as in NumPy. ``nanargmax`` of a slice
of NaN only raises in NumPy: the graph guards that there is none (a ``raise`` guard: such
a call runs in NumPy, which raises).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops import vjp_numpy
from janus.frontend.ops.op_table import require_default, result_dtype, sample
from janus.frontend.ops.registry import OPS, Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor

NO_VALUE = np._NoValue


def _plain(keepdims: Any) -> bool:
    return False if keepdims is NO_VALUE else keepdims


def _sum_bind(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = NO_VALUE,
              initial: Any = NO_VALUE, where: Any = NO_VALUE) -> Args:
    if initial is not NO_VALUE or where is not NO_VALUE:
        raise NotConvertible("nan-reduction with initial= or where=")
    return {"a": a, "axis": axis, "dtype": dtype, "out": out, "keepdims": _plain(keepdims)}


def _mean_bind(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = NO_VALUE, *, where: Any = NO_VALUE) -> Args:
    return _sum_bind(a, axis, dtype, out, keepdims, where=where)


def _extremum_bind(a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO_VALUE, initial: Any = NO_VALUE,
                   where: Any = NO_VALUE) -> Args:
    return _sum_bind(a, axis, None, out, keepdims, initial, where)


def _arg_bind(a: Any, axis: Any = None, out: Any = None, *, keepdims: Any = NO_VALUE) -> Args:
    return {"a": a, "axis": axis, "out": out, "keepdims": _plain(keepdims)}


def _ptp_bind(a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO_VALUE) -> Args:
    return {"a": a, "axis": axis, "dtype": None, "out": out, "keepdims": _plain(keepdims)}


def _count_bind(a: Any, axis: Any = None, *, keepdims: bool = False) -> Args:
    return {"a": a, "axis": axis, "dtype": None, "out": None, "keepdims": keepdims}


def _floats(a: Any) -> bool:
    if not isinstance(a, Tensor):
        raise NotConvertible("a nan-reduction of a static value (NumPy folds it)")
    return a.dtype.kind == "f"


def _reduced(args: Args) -> dict[str, Any]:
    return {"axis": args["axis"], "keepdims": args["keepdims"]}


def _rule(eager: Any, shape_of: str) -> Any:
    def rule(args: Args) -> Spec:
        require_default(args, dtype=None, out=None)
        shape, _ = OPS[shape_of].rule({**args, "dtype": None, "out": None})
        return shape, result_dtype(eager, sample(args["a"]), **_reduced(args))

    return rule


def _without_nan(em: Emitter, a: Tensor, fill: float) -> Tensor:
    return call(em, "where", call(em, "isnan", a), fill, a)


def _nansum(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a = args["a"]
    return call(em, "sum", _without_nan(em, a, 0.0) if _floats(a) else a, **_reduced(args))


def _nanmean(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a = args["a"]
    if not _floats(a):
        return call(em, "mean", a, **_reduced(args))
    count = call(em, "sum", call(em, "logical_not", call(em, "isnan", a)), **_reduced(args))
    return call(em, "astype", call(em, "divide", _nansum(em, args, spec), count), spec[1])  # NumPy divides, then casts


def _nan_extremum(extremum: str, fill: float) -> Any:
    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        a = args["a"]
        if not _floats(a):
            return call(em, extremum, a, **_reduced(args))
        found = call(em, extremum, _without_nan(em, a, fill), **_reduced(args))
        return call(em, "where", call(em, "all", call(em, "isnan", a), **_reduced(args)), np.nan, found)

    return lower


def _nan_arg_extremum(arg: str, fill: float) -> Any:
    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        a = args["a"]
        if not _floats(a):
            return call(em, arg, a, axis=args["axis"], keepdims=args["keepdims"])
        numbers = call(em, "logical_not", call(em, "isnan", a))
        every_slice = call(em, "all", call(em, "any", numbers, axis=args["axis"]))
        em.guard(em.scalar_condition(every_slice), "raise", f"np.nan{arg} of a slice with a number (else NumPy raises)")
        return call(em, arg, _without_nan(em, a, fill), axis=args["axis"], keepdims=args["keepdims"])

    return lower


def _ptp(em: Emitter, args: Args, spec: Spec) -> Tensor:
    return call(em, "subtract", call(em, "max", args["a"], **_reduced(args)), call(em, "min", args["a"], **_reduced(args)))


def _count_nonzero(em: Emitter, args: Args, spec: Spec) -> Tensor:
    return call(em, "sum", call(em, "not_equal", args["a"], 0), **_reduced(args))


# ---- tape VJPs --------------------------------------------------------------------------
def _numbers(args: Args) -> np.ndarray:
    return ~np.isnan(np.asarray(args["a"], np.float64))


def _nansum_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    return {"a": vjp_numpy.expand(g, args) * _numbers(args)}


def _nanmean_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    kept = _numbers(args)
    return {"a": vjp_numpy.expand(g, args) * kept / kept.sum(axis=args["axis"], keepdims=True)}


def _nan_extremum_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """As max/min's: the elements equal to the extremum share it (NaN equals nothing)."""
    return vjp_numpy.extremum_vjp(g, out, args)


def _ptp_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    a, reduced = np.asarray(args["a"]), _reduced(args)
    high = vjp_numpy.extremum_vjp(g, np.max(a, **reduced), args)["a"]
    return {"a": high - vjp_numpy.extremum_vjp(g, np.min(a, **reduced), args)["a"]}


def _arg_rule(arg: str) -> Any:
    def rule(args: Args) -> Spec:
        require_default(args, out=None)
        return OPS[arg].rule(args)

    return rule


INTEGER_RESULT = "an integer result"

NAN_REDUCTIONS = [
    Op("nansum", np.nansum, _sum_bind, _rule(np.nansum, "sum"), _nansum, vjp=_nansum_vjp),
    Op("nanmean", np.nanmean, _mean_bind, _rule(np.nanmean, "sum"), _nanmean, vjp=_nanmean_vjp),
    Op("nanmax", np.nanmax, _extremum_bind, _rule(np.nanmax, "sum"), _nan_extremum("max", -np.inf), vjp=_nan_extremum_vjp),
    Op("nanmin", np.nanmin, _extremum_bind, _rule(np.nanmin, "sum"), _nan_extremum("min", np.inf), vjp=_nan_extremum_vjp),
    Op("nanargmax", np.nanargmax, _arg_bind, _arg_rule("argmax"), _nan_arg_extremum("argmax", -np.inf), no_grad=INTEGER_RESULT),
    Op("nanargmin", np.nanargmin, _arg_bind, _arg_rule("argmin"), _nan_arg_extremum("argmin", np.inf), no_grad=INTEGER_RESULT),
    Op("ptp", np.ptp, _ptp_bind, _rule(np.ptp, "sum"), _ptp, vjp=_ptp_vjp),
    Op("count_nonzero", np.count_nonzero, _count_bind, _rule(np.count_nonzero, "sum"), _count_nonzero, no_grad=INTEGER_RESULT),
]
register(*NAN_REDUCTIONS)
