"""``np.split``, ``np.array_split``, ``np.hsplit`` and ``np.vsplit``: the op table's
multi-result entries.

The result is a list of pieces, each a basic slice of the operand along the axis (as in
NumPy, a view), so the lowering applies ``getitem`` once per piece and janus-autodiff
differentiates those slices. The eager tape records one node per piece (``Tape.apply``
on a list result), each carrying its position as the bound argument ``piece``; its VJP
puts the piece's cotangent back in its place. Where the pieces lie is NumPy's own
answer on ``arange(n)``, so uneven and out-of-range split points are NumPy's.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import normalize_axis, shape_of
from janus.frontend.ops.registry import OPS, Args, Op, apply, register
from janus.frontend.values import NotConvertible, Tensor


def _bind(ary: Any, indices_or_sections: Any, axis: Any = 0) -> Args:
    return {"a": ary, "indices_or_sections": indices_or_sections, "axis": axis}


def _ndim(ary: Any) -> int:
    """The rank of a graph, tape-traced or NumPy array (without NumPy's dispatch)."""
    return ary.ndim if hasattr(ary, "ndim") else np.ndim(ary)


def _hsplit_bind(ary: Any, indices_or_sections: Any) -> Args:
    """Along axis 1 (axis 0 of a 1-d array), as ``np.split``."""
    ndim = _ndim(ary)
    if ndim == 0:
        raise NotConvertible("hsplit of a 0-d array (NumPy raises)")
    return _bind(ary, indices_or_sections, 1 if ndim > 1 else 0)


def _vsplit_bind(ary: Any, indices_or_sections: Any) -> Args:
    """Along axis 0 of an array of 2 or more dims, as ``np.split``."""
    if _ndim(ary) < 2:
        raise NotConvertible("vsplit of an array of less than 2 dims (NumPy raises)")
    return _bind(ary, indices_or_sections, 0)


def _keys(numpy: Callable[..., list], args: Args) -> list[tuple]:
    """The basic index of each piece (``numpy``'s split of the positions along the axis)."""
    shape, where = shape_of(args["a"]), args["indices_or_sections"]
    if isinstance(where, Tensor) or isinstance(args["axis"], Tensor):
        raise NotConvertible("split points and axis must be static")
    axis = normalize_axis(args["axis"], len(shape))
    try:
        pieces = numpy(np.arange(shape[axis]), where)
    except (TypeError, ValueError) as e:
        raise NotConvertible(f"NumPy rejects these arguments: {e}") from None
    lead = (slice(None),) * axis
    return [lead + (slice(int(p[0]), int(p[0]) + p.size) if p.size else slice(0, 0),) for p in pieces]


def splitting(name: str, numpy: Callable[..., list], eager: Callable[..., list] | None = None,
              bind: Callable[..., Args] = _bind) -> Op:
    """A split by ``numpy`` (``np.split`` or ``np.array_split``) into getitem pieces
    (``eager``: the NumPy function, ``numpy`` by default; ``bind`` says the axis)."""

    def rule(args: Args) -> list[tuple]:
        if not isinstance(args["a"], Tensor):
            raise NotConvertible(f"{name} of a traced array only")
        return [OPS["getitem"].rule({"a": args["a"], "key": key}) for key in _keys(numpy, args)]

    def lower(em: Emitter, args: Args, spec: Any) -> list[Tensor]:
        return [apply(em, OPS["getitem"], [args["a"], key], {}) for key in _keys(numpy, args)]

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        """Piece ``args["piece"]``'s cotangent in its place, zeros elsewhere."""
        d = np.zeros(np.shape(args["a"]), np.result_type(g))
        d[_keys(numpy, args)[args["piece"]]] = g
        return {"a": d}

    return Op(name, eager or numpy, bind, rule, lower, vjp=vjp)  # type: ignore[arg-type]


register(
    splitting("split", np.split),
    splitting("array_split", np.array_split),
    splitting("hsplit", np.split, np.hsplit, _hsplit_bind),
    splitting("vsplit", np.split, np.vsplit, _vsplit_bind),
)
