"""``np.isclose``, ``np.allclose`` and ``np.array_equal``. ``isclose`` is NumPy's own expression, op by op, so that its casts and its handling
of infinities and NaN are NumPy's:
``|x - y| <= atol + rtol * |y| & isfinite(y) | x == y`` (``| isnan(x) & isnan(y)`` with
``equal_nan``), ``y`` first cast to its dtype promoted with a float.

``allclose`` and ``array_equal`` return a Python bool, as NumPy's: the graph holds it as a
``Weak`` bool (a branch on it is speculated and guarded like any other). Operands whose
shapes differ are ``False`` for ``array_equal`` without a look at the values (NumPy's rule).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import BOOL_RESULT, broadcast_shapes, result_dtype, sample, shape_of
from janus.frontend.ops.registry import OPS, Args, Op, Spec, apply, call, register
from janus.frontend.values import NotConvertible, Tensor, Weak


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


def _as_python_bool(t: Tensor) -> Weak:
    return Weak(t.name, (), t.dtype)


def _traced(*operands: Any) -> None:
    if not any(isinstance(x, Tensor) for x in operands):
        raise NotConvertible("a comparison of static values (NumPy folds it)")


def _allclose_rule(args: Args) -> Spec:
    _traced(args["a"], args["b"])
    broadcast_shapes(shape_of(args["a"]), shape_of(args["b"]))
    result_dtype(np.isclose, sample(args["a"]), sample(args["b"]))
    return (), np.dtype(bool)


def _at_least_1d(em: Emitter, x: Any) -> Any:
    return call(em, "reshape", x, (1,)) if isinstance(x, Tensor) and x.ndim == 0 else x


def _allclose_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a, b = _at_least_1d(em, args["a"]), _at_least_1d(em, args["b"])
    if not shape_of(a) and not shape_of(b):
        a = np.reshape(a, (1,))
    close = call(em, "isclose", a, b, rtol=args["rtol"], atol=args["atol"], equal_nan=args["equal_nan"])
    return _as_python_bool(call(em, "all", close))


def _equal_bind(a1: Any, a2: Any, equal_nan: bool = False) -> Args:
    if type(equal_nan) is not bool:
        raise NotConvertible("array_equal's equal_nan must be a static bool")
    return {"a": a1, "b": a2, "equal_nan": equal_nan}


def _equal_rule(args: Args) -> Spec:
    _traced(args["a"], args["b"])
    result_dtype(np.equal, sample(args["a"]), sample(args["b"]))
    return (), np.dtype(bool)


def _equal_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a, b = args["a"], args["b"]
    if shape_of(a) != shape_of(b):
        return _as_python_bool(em.literal(np.asarray(False)))
    same = call(em, "equal", a, b)
    if args["equal_nan"] and any(isinstance(x, Tensor) and x.dtype.kind == "f" for x in (a, b)):
        same = call(em, "bitwise_or", same, call(em, "bitwise_and", call(em, "isnan", a), call(em, "isnan", b)))
    return _as_python_bool(call(em, "all", same))


register(
    Op("isclose", np.isclose, _bind, _rule, _lower, no_grad=BOOL_RESULT),
    Op("allclose", np.allclose, _bind, _allclose_rule, _allclose_lower, no_grad=BOOL_RESULT),
    Op("array_equal", np.array_equal, _equal_bind, _equal_rule, _equal_lower, no_grad=BOOL_RESULT),
)
