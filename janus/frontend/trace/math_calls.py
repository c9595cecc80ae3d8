"""``math`` functions on traced Python scalars, computed as NumPy's float64 functions.

CPython's ``math`` computes in double precision and raises where the C result is a NaN
from inputs that are not NaN (``ValueError``: ``math.sqrt(-1)``, ``math.log(0)`` gives
-inf, ``math.sin(inf)``) or an infinity from finite inputs (``OverflowError``:
``math.exp(1000)``); NumPy returns those NaNs and infinities. So the graph computes
NumPy's function and guards (kind ``raise``) that no NaN or infinity appeared that the
inputs did not hold: where one did, the call runs in Python, which raises math's own
exception. A few functions (``degrees`` of a huge value) return an infinity that math
does not raise for: those calls run in Python too, with Python's result.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from janus.frontend.ops import op_table, registry
from janus.frontend.values import NotConvertible, Tensor, Weak, contains_tensor

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer

#: math function -> the op-table entry computing it on float64 (one or two operands)
#: (tan, asin, acos, sinh, cosh, asinh, acosh, atanh and atan2 are left to Python: on a
#: float64 scalar IREE 3.13 fails to compile them, "failed to legalize math.copysign")
MATH_OPS: dict[str, str] = {
    "sqrt": "sqrt", "exp": "exp", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "expm1": "expm1", "sin": "sin", "cos": "cos", "atan": "arctan", "tanh": "tanh", "fabs": "fabs",
    "degrees": "rad2deg", "radians": "deg2rad", "hypot": "hypot", "pow": "power",
}
_FLOAT64 = np.dtype(np.float64)


def _operand(tracer: "Tracer", value: Any) -> Tensor:
    """A math operand as a float64 graph scalar (Python converts it to a C double)."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise NotConvertible("a math function of an array of rank >= 1 (NumPy's conversion to a scalar)")
        if value.dtype.kind not in "biuf":
            raise NotConvertible(f"a math function of a {value.dtype} value")
        return op_table.cast(tracer.em, value, _FLOAT64)
    if type(value) not in (bool, int, float):
        raise NotConvertible(f"a math function of a {type(value).__name__}")
    return tracer.em.literal(np.asarray(value, _FLOAT64))


def _apply(tracer: "Tracer", name: str, *args: Any) -> Tensor:
    return registry.apply(tracer.em, registry.OPS[name], list(args), {})


def no_new_specials(tracer: "Tracer", operands: list[Tensor], result: Tensor) -> Tensor:
    """True where ``result`` is a NaN only if an operand is, and infinite only if an operand is
    (``operands``: the float ones; an int holds neither)."""
    ok = None
    for test in ("isnan", "isinf"):
        fine = _apply(tracer, "logical_not", _apply(tracer, test, result))
        for operand in operands:
            fine = _apply(tracer, "logical_or", fine, _apply(tracer, test, operand))
        ok = fine if ok is None else _apply(tracer, "logical_and", ok, fine)
    return ok


def handler(fn: Callable, name: str) -> Callable[["Tracer", list, dict], Any]:
    """The trace's ``math.<fn>``: Python's own on static values, else NumPy's under a raise guard."""
    arity = 2 if name in ("hypot", "pow") else 1

    def call(tracer: "Tracer", args: list, kwargs: dict) -> Any:
        if kwargs or len(args) != arity or not contains_tensor(args):
            if contains_tensor(args) or contains_tensor(kwargs):
                raise NotConvertible(f"math.{name} with {len(args)} arguments on array values")
            return fn(*args, **kwargs)  # Python's value, or its TypeError
        operands = [_operand(tracer, a) for a in args]
        result = _apply(tracer, MATH_OPS[name], *operands)
        condition = tracer.em.scalar_condition(no_new_specials(tracer, operands, result))
        tracer.guard(condition, "raise", f"math.{name} gives no NaN or infinity its arguments do not hold (else ValueError/OverflowError)")
        return Weak(result.name, (), _FLOAT64)

    return call


HANDLERS: dict[Any, Callable[["Tracer", list, dict], Any]] = {
    getattr(math, name): handler(getattr(math, name), name) for name in MATH_OPS
}
