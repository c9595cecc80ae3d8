"""``np.interp`` (real, no ``period``): NumPy's C loop as array expressions.

Per value ``x``: the interval ``j`` with ``xp[j] <= x < xp[j+1]`` (the count of ``xp`` not after
``x``, less one), then NumPy's cases in its order of precedence: NaN stays NaN, below the
first point ``left`` (``fp[0]``), above the last ``right`` (``fp[-1]``), on the last point or
on ``xp[j]`` itself ``fp[j]``, else ``slope * (x - xp[j]) + fp[j]`` (from ``xp[j+1]`` when that
is NaN, ``fp[j]`` when both are NaN and the two ``fp`` are equal). NumPy's binary search
assumes ``xp`` increasing: a traced ``xp`` is guarded to be (a ``raise`` guard: another one
runs in NumPy), a static one is checked now.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import shape_of
from janus.frontend.ops.registry import Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor

F64 = np.dtype(np.float64)


def _bind(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> Args:
    if period is not None or any(isinstance(v, Tensor) for v in (left, right)):
        raise NotConvertible("interp with period= or traced left/right")
    return {"x": x, "xp": xp, "fp": fp, "left": left, "right": right}


def _rule(args: Args) -> Spec:
    xp, fp = shape_of(args["xp"]), shape_of(args["fp"])
    if not any(isinstance(args[k], Tensor) for k in ("x", "xp", "fp")):
        raise NotConvertible("interp of static values (NumPy folds it)")
    if len(xp) != 1 or xp != fp or xp[0] < 2:
        raise NotConvertible("interp with xp and fp 1-d of one length of 2 or more (NumPy raises, or has a 1-point case)")
    for key in ("x", "xp", "fp"):
        value = args[key]
        if (value.dtype if isinstance(value, Tensor) else np.asarray(value).dtype).kind not in "biuf":
            raise NotConvertible("interp of complex or non-numeric values")
    return tuple(shape_of(args["x"])), F64


def _as_f64(em: Emitter, value: Any) -> Tensor:
    return call(em, "astype", value if isinstance(value, Tensor) else em.literal(np.asarray(value)), F64)


def _ensure_increasing(em: Emitter, xp: Any) -> None:
    if not isinstance(xp, Tensor):
        held = np.asarray(xp, np.float64)
        if not np.all(held[1:] > held[:-1]):
            raise NotConvertible("interp with xp not increasing (NumPy's answer is its binary search's)")
        return
    rising = call(em, "all", call(em, "greater", call(em, "getitem", xp, slice(1, None)), call(em, "getitem", xp, slice(None, -1))))
    em.guard(em.scalar_condition(rising), "raise", "np.interp: xp increases (else NumPy's answer is its binary search's)")


def _lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    _ensure_increasing(em, args["xp"])
    x, xp, fp = (_as_f64(em, args[k]) for k in ("x", "xp", "fp"))
    n = xp.shape[0]
    j = call(em, "subtract", call(em, "sum", call(em, "less_equal", xp, call(em, "expand_dims", x, -1)), axis=-1), 1)
    j = call(em, "clip", j, 0, n - 2)
    x0, x1, y0, y1 = (call(em, "gather", v, call(em, "add", j, k)) for v, k in ((xp, 0), (xp, 1), (fp, 0), (fp, 1)))
    slope = call(em, "divide", call(em, "subtract", y1, y0), call(em, "subtract", x1, x0))
    from_left = call(em, "add", call(em, "multiply", slope, call(em, "subtract", x, x0)), y0)
    from_right = call(em, "add", call(em, "multiply", slope, call(em, "subtract", x, x1)), y1)
    value = call(em, "where", call(em, "isnan", from_left), from_right, from_left)
    value = call(em, "where", call(em, "logical_and", call(em, "isnan", value), call(em, "equal", y0, y1)), y0, value)
    last_x, last_y = call(em, "getitem", xp, -1), call(em, "getitem", fp, -1)
    value = call(em, "where", call(em, "equal", x, x0), y0, value)
    value = call(em, "where", call(em, "equal", x, last_x), last_y, value)
    right = last_y if args["right"] is None else float(args["right"])
    left = call(em, "getitem", fp, 0) if args["left"] is None else float(args["left"])
    value = call(em, "where", call(em, "greater", x, last_x), right, value)
    value = call(em, "where", call(em, "less", x, call(em, "getitem", xp, 0)), left, value)
    return call(em, "where", call(em, "isnan", x), x, value)


def _vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """Inside an interval: ``d/dx = slope``, ``fp[j]`` and ``fp[j+1]`` weigh ``1 - t`` and ``t``,
    ``xp[j]`` and ``xp[j+1]`` get ``slope * (t - 1)`` and ``-slope * t``; outside, ``fp[0]`` or
    ``fp[-1]`` take the cotangent unless ``left``/``right`` replace them."""
    x, xp, fp = (np.asarray(args[k], np.float64) for k in ("x", "xp", "fp"))
    g = np.asarray(g, np.float64)
    n = xp.size
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)
    x0, x1, y0, y1 = xp[j], xp[j + 1], fp[j], fp[j + 1]
    slope, t = (y1 - y0) / (x1 - x0), (x - x0) / (x1 - x0)
    inside = (x >= xp[0]) & (x < xp[-1])
    gi = np.where(inside, g, 0.0)
    d_fp, d_xp = np.zeros(n), np.zeros(n)
    np.add.at(d_fp, j, gi * (1 - t))
    np.add.at(d_fp, j + 1, gi * t)
    np.add.at(d_xp, j, gi * slope * (t - 1))
    np.add.at(d_xp, j + 1, -gi * slope * t)
    d_fp[-1] += np.sum(np.where(x >= xp[-1], g, 0.0)) if args["right"] is None else 0.0
    d_fp[0] += np.sum(np.where(x < xp[0], g, 0.0)) if args["left"] is None else 0.0
    return {"x": np.where(inside, g * slope, 0.0), "xp": d_xp, "fp": d_fp}


register(Op("interp", np.interp, _bind, _rule, _lower, vjp=_vjp))
