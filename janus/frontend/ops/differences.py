"""``np.diff`` and ``np.nan_to_num``: the differences and cleaning steps of data pipelines.

``diff`` is ``n`` rounds of ``a[1:] - a[:-1]`` along the axis (``!=`` for bools, as NumPy),
emitted through ``getitem`` and ``subtract`` so that janus-autodiff differentiates it.
``nan_to_num`` is one elementwise select per special value; its defaults are NumPy's
(0.0 for NaN, the dtype's largest and smallest finite values for ±inf).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from janus.frontend.emitter import Body, Emitter
from janus.frontend.ops.op_table import elementwise, normalize_axis, result_dtype, sample, shape_of
from janus.frontend.ops.registry import OPS, Args, Op, Spec, apply, register
from janus.frontend.values import NotConvertible, Tensor


def _diff_bind(a: Any, n: int = 1, axis: int = -1, prepend: Any = np._NoValue, append: Any = np._NoValue) -> Args:
    if prepend is not np._NoValue or append is not np._NoValue:
        raise NotConvertible("diff with prepend= or append=")
    return {"a": a, "n": n, "axis": axis}


def _diff_plan(args: Args) -> tuple[int, int]:
    """(n, axis), checked as NumPy checks them."""
    n, shape = args["n"], shape_of(args["a"])
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise NotConvertible(f"diff order n={n!r} (NumPy raises unless it is an int >= 0)")
    if not shape:
        raise NotConvertible("diff of a 0-d array (NumPy raises)")
    return int(n), normalize_axis(args["axis"], len(shape))


def _diff_rule(args: Args) -> Spec:
    n, axis = _diff_plan(args)
    shape = list(shape_of(args["a"]))
    shape[axis] = max(shape[axis] - n, 0)
    return tuple(shape), result_dtype(np.diff, np.ones((2,), sample(args["a"]).dtype))


def _diff_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    n, axis = _diff_plan(args)
    a = args["a"]
    step = OPS["not_equal"] if a.dtype.kind == "b" else OPS["subtract"]
    lead = (slice(None),) * axis
    for _ in range(n):
        a = apply(em, step, [apply(em, OPS["getitem"], [a, lead + (slice(1, None),)], {}),
                             apply(em, OPS["getitem"], [a, lead + (slice(None, -1),)], {})], {})
    return a


def _diff_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """The adjoint of one difference (``-g`` padded after, ``g`` padded before), ``n`` times."""
    n, axis = _diff_plan(args)
    for _ in range(n):
        before, after = [(0, 0)] * g.ndim, [(0, 0)] * g.ndim
        before[axis], after[axis] = (1, 0), (0, 1)
        g = np.pad(g, before) - np.pad(g, after)
    return {"a": g}


def _nan_to_num_bind(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Args:
    if any(isinstance(v, Tensor) for v in (nan, posinf, neginf)):
        raise NotConvertible("nan_to_num with array replacement values")
    return {"xs": (x,), "nan": nan, "posinf": posinf, "neginf": neginf}


def _nan_to_num_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    (x,), dtype = args["xs"], spec[1]
    if dtype.kind != "f":
        return x  # NumPy returns ints and bools unchanged
    info = np.finfo(dtype)
    nan = args["nan"]
    posinf = info.max if args["posinf"] is None else args["posinf"]
    neginf = info.min if args["neginf"] is None else args["neginf"]

    def body(b: Body, xs: list[str]) -> str:
        v = xs[0]
        out = b.select(b.cmp(dtype, ("uno", "", ""), v, v), b.constant(dtype.type(nan), dtype), v, dtype)
        out = b.select(b.cmp(dtype, ("oeq", "", ""), v, b.constant(np.inf, dtype)), b.constant(dtype.type(posinf), dtype), out, dtype)
        return b.select(b.cmp(dtype, ("oeq", "", ""), v, b.constant(-np.inf, dtype)), b.constant(dtype.type(neginf), dtype), out, dtype)

    return em.elementwise([x], spec[0], dtype, body)


def _nan_to_num_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """1 where ``x`` is finite (kept), 0 where it was replaced by a constant."""
    return {"xs": [g * np.isfinite(args["xs"][0])]}


_ELEMENTWISE = elementwise("nan_to_num", np.nan_to_num, lambda b, t, xs: xs[0], 1, vjp=_nan_to_num_vjp)
NAN_TO_NUM = replace(_ELEMENTWISE, bind=_nan_to_num_bind, lower=_nan_to_num_lower, dynamic=False)

register(
    Op("diff", np.diff, _diff_bind, _diff_rule, _diff_lower, vjp=_diff_vjp),
    NAN_TO_NUM,
)
