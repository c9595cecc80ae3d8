"""``np.shape``, ``np.ndim`` and ``np.size`` of traced arrays: what the array's type says
(``for i in range(np.size(self.classes_))``), with a ``?`` dim followed as a graph int where
the answer is that dim; NumPy's own answer on static values."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from janus.frontend.ops import op_table
from janus.frontend.trace import scalars
from janus.frontend.values import NotConvertible, Tensor, contains_tensor

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer


def _array(fn: Callable[..., Any], args: list, kwargs: dict) -> Tensor | None:
    """The traced array ``fn`` asks about, or None when NumPy can answer on static values."""
    if not contains_tensor(args) and not contains_tensor(kwargs):
        return None
    if not args or not isinstance(args[0], Tensor) or contains_tensor(args[1:]) or contains_tensor(kwargs):
        raise NotConvertible(f"np.{fn.__name__} of a value holding arrays that is not one array")
    return args[0]


def _shape(tracer: "Tracer", args: list, kwargs: dict) -> Any:
    a = _array(np.shape, args, kwargs)
    return np.shape(*args, **kwargs) if a is None else scalars.array_shape(tracer.em, a)


def _ndim(tracer: "Tracer", args: list, kwargs: dict) -> int:
    a = _array(np.ndim, args, kwargs)
    return np.ndim(*args, **kwargs) if a is None else a.ndim


def _size(tracer: "Tracer", args: list, kwargs: dict) -> Any:
    """``np.size(a, axis=None)``: the element count, or the length of dim ``axis``."""
    a = _array(np.size, args, kwargs)
    if a is None:
        return np.size(*args, **kwargs)
    axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
    if axis is not None:
        return scalars.dim_length(tracer.em, a, op_table.normalize_axis(axis, a.ndim))
    if any(isinstance(d, str) for d in a.shape):
        raise NotConvertible("np.size of an array with ? dims (a product of graph ints)")
    return math.prod(a.shape)


#: NumPy's shape queries the trace answers itself (merged into ``builtin_calls.HANDLERS``)
HANDLERS: dict[Any, Callable[["Tracer", list, dict], Any]] = {np.shape: _shape, np.ndim: _ndim, np.size: _size}
