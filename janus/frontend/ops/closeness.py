"""``np.isclose``: NumPy's own expression, op by op, so that its casts and its handling
of infinities and NaN are NumPy's:
``|x - y| <= atol + rtol * |y| & isfinite(y) | x == y`` (``| isnan(x) & isnan(y)`` with
``equal_nan``), ``y`` first cast to its dtype promoted with a float.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import BOOL_RESULT, broadcast_shapes, result_dtype, sample, shape_of
from janus.frontend.ops.registry import OPS, Args, Op, Spec, apply, register
from janus.frontend.values import NotConvertible, Tensor


def _bind(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Args:
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if type(tol) not in (int, float) or not np.isfinite(tol):
            raise NotConvertible(f"isclose with {name}={tol!r} (a finite Python number only)")
    if type(equal_nan) is not bool:
        raise NotConvertible("isclose's equal_nan must be a static bool")
    return {"a": a, "b": b, "rtol": rtol, "atol": atol, "equal_nan": equal_nan}


def _rule(args: Args) -> Spec:
    shape = broadcast_shapes(shape_of(args["a"]), shape_of(args["b"]))
    if not shape:
        raise NotConvertible("isclose of 0-d operands (NumPy returns a NumPy bool scalar)")
    return shape, result_dtype(np.isclose, sample(args["a"]), sample(args["b"]))


def _lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    def op(name: str, *xs: Any) -> Any:
        return apply(em, OPS[name], list(xs), {})

    x, y = args["a"], args["b"]
    if isinstance(y, Tensor):
        y = apply(em, OPS["astype"], [y, np.result_type(sample(y), 1.0)], {})
    elif isinstance(y, int):
        y = float(y)
    near = op("less_equal", op("absolute", op("subtract", x, y)), op("add", args["atol"], op("multiply", args["rtol"], op("absolute", y))))
    result = op("bitwise_or", op("bitwise_and", near, op("isfinite", y)), op("equal", x, y))
    if args["equal_nan"]:
        result = op("bitwise_or", result, op("bitwise_and", op("isnan", x), op("isnan", y)))
    return result


register(Op("isclose", np.isclose, _bind, _rule, _lower, no_grad=BOOL_RESULT))
