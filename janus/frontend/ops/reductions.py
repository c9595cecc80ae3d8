"""Reductions beyond sum/mean/max/min: prod, all, any (``op_table.reduction`` records) and
var/std, composed from mean, subtract, multiply, sum and divide so that janus-autodiff
differentiates them through those entries' rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops import vjp_numpy
from janus.frontend.ops.op_table import (BOOL_RESULT, _axes, _element_count, by_kind, normalize_axis, reduction, require_default,
                                         result_dtype, sample, shape_of)
from janus.frontend.ops.registry import METHODS, OPS, Args, Op, Spec, apply, register
from janus.frontend.values import NotConvertible, Tensor, Weak, is_static

BOOL = np.dtype(bool)


def _moments_bind(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: bool = False) -> Args:
    return {"a": a, "axis": axis, "dtype": dtype, "out": out, "ddof": ddof, "keepdims": keepdims}


def _count(args: Args) -> float | None:
    """NumPy's divisor ``max(n - ddof, 0)`` (a zero one gives inf or NaN, as NumPy's); None
    when a reduced dim is ``?`` (``_graph_count``)."""
    if not isinstance(args["ddof"], (int, float, np.integer, np.floating)) or isinstance(args["ddof"], bool):
        raise NotConvertible("ddof must be a static number")
    sizes = [shape_of(args["a"])[i] for i in _axes(args)]
    return float(max(int(np.prod(sizes)) - args["ddof"], 0)) if is_static(sizes) else None


def _graph_count(em: Emitter, args: Args) -> Weak:
    """``max(n - ddof, 0)`` over ``?`` dims, a weakly typed Python float in the graph (NumPy
    divides by an int, which keeps a float32 sum float32)."""
    f64 = np.dtype(np.float64)
    n = _element_count(em, [args["a"].shape[i] for i in _axes(args)], f64)
    b = em.scalars()
    less = b.op("arith.subf", [n, b.constant(float(args["ddof"]), f64)], f64)
    return em.from_scalar(b.op("arith.maximumf", [less, b.constant(0.0, f64)], f64), f64, Weak)


def moment(name: str, eager: Any, root: bool) -> Op:
    """var (``root`` False) or std: sum((a - mean)²) / (n - ddof), its square root for std."""

    def rule(args: Args) -> Spec:
        require_default(args, dtype=None, out=None)
        _count(args)
        mean_shape, _ = OPS["sum"].rule({**args, "dtype": None, "out": None})
        return mean_shape, result_dtype(eager, sample(args["a"]), axis=args["axis"], keepdims=args["keepdims"])

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        a, axis = args["a"], args["axis"]
        mean = apply(em, OPS["mean"], [a], {"axis": axis, "keepdims": True})
        centered = apply(em, OPS["subtract"], [a, mean], {})
        squares = apply(em, OPS["multiply"], [centered, centered], {})
        total = apply(em, OPS["sum"], [squares], {"axis": axis, "keepdims": args["keepdims"]})
        count = _count(args)
        var = apply(em, OPS["divide"], [total, _graph_count(em, args) if count is None else count], {})
        return apply(em, OPS["sqrt"], [var], {}) if root else var

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        a = np.asarray(args["a"])
        centered = a - a.mean(axis=args["axis"], keepdims=True)
        scale = vjp_numpy.expand(g, args) / _count({**args, "a": a})
        return {"a": scale * centered / vjp_numpy.expand(out, args) if root else 2 * scale * centered}

    return Op(name, eager, _moments_bind, rule, lower, dynamic=True, vjp=vjp)


def _average_bind(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims: bool = False) -> Args:
    if weights is not None or returned:
        raise NotConvertible("np.average with weights= or returned=")
    return {"a": a, "axis": axis, "dtype": None, "out": None, "keepdims": keepdims}


#: ``np.average`` without weights: the mean's rule, lowering and VJPs under its own name
AVERAGE = Op("average", np.average, _average_bind, OPS["mean"].rule, OPS["mean"].lower, dynamic=True, vjp=vjp_numpy.mean_vjp)


def _logical(combine: str) -> Any:
    return lambda b, dtype, xs: b.op(combine, xs, BOOL)


REDUCTIONS = [
    reduction("prod", np.prod, by_kind("arith.mulf", "arith.muli"), lambda dtype: 1, vjp=vjp_numpy.prod_vjp),
    reduction("all", np.all, _logical("arith.andi"), lambda dtype: True, no_grad=BOOL_RESULT),
    reduction("any", np.any, _logical("arith.ori"), lambda dtype: False, no_grad=BOOL_RESULT),
    moment("var", np.var, root=False),
    moment("std", np.std, root=True),
    AVERAGE,
]

register(*REDUCTIONS)
METHODS.update({op.name: (op, op.bind) for op in REDUCTIONS if op is not AVERAGE})


# ---- argmax / argmin: the first position equal to the extremum (NaN: the first NaN) -------
def _arg_bind(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Args:
    return {"a": a, "axis": axis, "out": out, "keepdims": keepdims}


def arg_extremum(name: str, eager: Any, extremum: str) -> Op:
    """``extremum`` (max or min) kept, then the least index along the axis where the operand
    equals it or is NaN: NumPy's first occurrence, NaN first."""

    def rule(args: Args) -> Spec:
        require_default(args, out=None)
        if not isinstance(args["keepdims"], bool) or args["a"].dtype.kind == "b":
            raise NotConvertible(f"{name} of bools or with a traced keepdims")
        shape, keep = shape_of(args["a"]), args["keepdims"]
        if args["a"].size == 0:
            raise NotConvertible(f"{name} of an empty array (NumPy raises)")
        if args["axis"] is None:
            reduced = (1,) * len(shape) if keep else ()
        else:
            axis = normalize_axis(args["axis"], len(shape))
            reduced = tuple(1 if i == axis else d for i, d in enumerate(shape) if keep or i != axis)
        return reduced, np.dtype(np.int64)

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        a, axis = args["a"], args["axis"]
        if axis is None:
            a, axis = em.reshape(a, (a.size,)), 0
        axis = int(axis) % a.ndim
        m = apply(em, OPS[extremum], [a], {"axis": axis, "keepdims": True})
        t = a.dtype

        def body(b: Any, xs: list[str]) -> str:
            hit = b.cmp(t, ("oeq", "eq", "eq"), xs[0], xs[1])
            if t.kind == "f":
                hit = b.op("arith.ori", [hit, b.cmp(t, ("uno", "", ""), xs[0], xs[0])], "i1")
            index = b.index_cast(b.loop_index(axis), "index", "i64")
            return b.select(hit, index, b.constant(a.shape[axis], "i64"), "i64")

        positions = em.elementwise([a, m], a.shape, np.dtype(np.int64), body)
        first = apply(em, OPS["min"], [positions], {"axis": axis, "keepdims": args["keepdims"] and args["axis"] is not None})
        return em.reshape(first, spec[0]) if first.shape != spec[0] else first

    return Op(name, eager, _arg_bind, rule, lower, no_grad="an integer result")


ARG_EXTREMA = [arg_extremum("argmax", np.argmax, "max"), arg_extremum("argmin", np.argmin, "min")]
register(*ARG_EXTREMA)
METHODS.update({op.name: (op, op.bind) for op in ARG_EXTREMA})
