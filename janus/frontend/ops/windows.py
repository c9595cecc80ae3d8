"""``np.lib.stride_tricks.sliding_window_view``: a read-only view of every window, compiled
as a gather of the flat operand at static positions (an im2col): the positions are
NumPy's own answer on ``arange(size)``, so every ``window_shape``/``axis`` form is NumPy's.

The result is left out of the trace's provenance (``registry.READ_ONLY_OPS``): a write into
it is refused and the call runs in Python, where NumPy raises (read-only) or writes through
(``writeable=True`` is refused here for that reason). Past ``MAX_ELEMENTS`` window elements
the call runs in NumPy (the positions would be a large constant).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import shape_of
from janus.frontend.ops.registry import Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor

#: the most window elements gathered (their positions are a constant of that size)
MAX_ELEMENTS = 1 << 20


def _bind(x: Any, window_shape: Any, axis: Any = None, *, subok: bool = False, writeable: bool = False) -> Args:
    if writeable is not False or subok is not False:
        raise NotConvertible("sliding_window_view with writeable=True (writes go through to the operand) or subok=True")
    return {"a": x, "window_shape": window_shape, "axis": axis}


def _positions(args: Args) -> np.ndarray:
    """Each window element's flat position in the operand (NumPy's view of ``arange``)."""
    shape = shape_of(args["a"])
    if any(isinstance(v, Tensor) for v in np.ravel(np.asarray(args["window_shape"], object))):
        raise NotConvertible("sliding_window_view with a traced window shape")
    try:
        return sliding_window_view(np.arange(int(np.prod(shape))).reshape(shape), args["window_shape"], args["axis"])
    except (TypeError, ValueError) as e:
        raise NotConvertible(f"NumPy rejects these arguments: {e}") from None


def _rule(args: Args) -> Spec:
    if not isinstance(args["a"], Tensor):
        raise NotConvertible("sliding_window_view of a static array (NumPy folds it)")
    positions = _positions(args)
    if positions.size > MAX_ELEMENTS:
        raise NotConvertible(f"sliding_window_view of {positions.size} window elements (more than {MAX_ELEMENTS}: runs in NumPy)")
    return positions.shape, args["a"].dtype


def _lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    return call(em, "gather", call(em, "ravel", args["a"]), np.ascontiguousarray(_positions(args)))


def _vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """Each window element's cotangent added back at its position."""
    a = np.asarray(args["a"])
    d = np.zeros(a.size, np.result_type(g))
    np.add.at(d, _positions({**args, "a": a}).ravel(), np.ravel(g))
    return {"a": d.reshape(a.shape)}


register(Op("sliding_window_view", sliding_window_view, _bind, _rule, _lower, vjp=_vjp))
