"""Ufunc methods as entries of their own, each the record NumPy itself reduces it to:
``np.add.reduce`` is ``np.sum`` with ``axis=0`` by default (``multiply`` prod, ``maximum``
max, ``minimum`` min), ``np.add.accumulate`` is ``np.cumsum`` along axis 0
(``multiply``: cumprod), and ``np.f.outer(a, b)`` is ``f`` of ``a`` reshaped to
``a.shape + (1,) * b.ndim`` with ``b`` (both made arrays first, as NumPy does: a Python
scalar operand promotes as an array, ``np.subtract.outer(x_f32, 2)`` is float64). Shapes, lowerings and both VJPs are those records'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import result_dtype, sample, shape_of
from janus.frontend.ops.registry import OPS, Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor

#: ufunc -> the reduction entry its ``reduce`` is
REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}
#: ufunc -> the cumulative entry its ``accumulate`` is
ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}
#: ufuncs whose ``outer`` is compiled (through their elementwise entries)
OUTER = ("add", "subtract", "multiply", "maximum", "minimum")


def _reduce_bind(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None, keepdims: bool = False,
                 initial: Any = np._NoValue, where: Any = True) -> Args:
    if initial is not np._NoValue or where is not True:
        raise NotConvertible("ufunc.reduce with initial= or where=")
    return {"a": array, "axis": axis, "dtype": dtype, "out": out, "keepdims": keepdims}


def _accumulate_bind(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None) -> Args:
    return {"a": array, "axis": axis, "dtype": dtype, "out": out}


def as_method(method: Any, target: str) -> Op:
    """``method`` (a bound ufunc method) as the entry ``target`` with the method's defaults."""
    record = OPS[target]

    def rule(args: Args) -> Spec:
        shape, dtype = record.rule(args)
        kwargs = {k: args[k] for k in ("axis", "keepdims") if k in args}
        if result_dtype(method, sample(args["a"]), **kwargs) != dtype:
            raise NotConvertible(f"{method.__self__.__name__}.{method.__name__} of {dtype}: another result dtype than {target}'s")
        return shape, dtype

    bind = _reduce_bind if method.__name__ == "reduce" else _accumulate_bind
    return Op(f"{method.__self__.__name__}.{method.__name__}", method, bind, rule, record.lower, vjp=record.vjp)


def _outer_bind(a: Any, b: Any, /) -> Args:
    return {"a": a, "b": b}


def _raised(a: Any, b: Any) -> Any:
    """``a`` with unit dims after it, one per dim of ``b``."""
    return np.reshape(a, np.shape(a) + (1,) * len(shape_of(b)))


def outer(name: str) -> Op:
    ufunc, record = getattr(np, name), OPS[name]

    def rule(args: Args) -> Spec:
        a, b = args["a"], args["b"]
        if not any(isinstance(x, Tensor) for x in (a, b)):
            raise NotConvertible(f"{name}.outer of static values (NumPy folds it)")
        return tuple(shape_of(a)) + tuple(shape_of(b)), result_dtype(ufunc.outer, np.asarray(sample(a)), np.asarray(sample(b)))

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        a, b = args["a"], args["b"]
        raised = call(em, "reshape", a, spec[0][:len(shape_of(a))] + (1,) * len(shape_of(b))) if isinstance(a, Tensor) else _raised(a, b)
        return call(em, name, raised, b if isinstance(b, Tensor) else em.literal(np.asarray(b)))  # NumPy: arrays, strong

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        a, b = args["a"], args["b"]
        ga, gb = record.vjp(g, out, {"xs": [_raised(np.asarray(a), b), b]})["xs"]
        return {"a": None if ga is None else np.reshape(ga, np.shape(a)), "b": gb}

    return Op(f"{name}.outer", ufunc.outer, _outer_bind, rule, lower, vjp=vjp)


register(
    *(as_method(getattr(np, ufunc).reduce, target) for ufunc, target in REDUCE.items()),
    *(as_method(getattr(np, ufunc).accumulate, target) for ufunc, target in ACCUMULATE.items()),
    *(outer(name) for name in OUTER),
)
