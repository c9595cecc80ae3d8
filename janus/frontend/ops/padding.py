"""``np.pad`` in constant mode with static widths: a filled tensor with the operand inserted.

Kept out of ``op_table`` (which only registers it) because it is the one op that builds its
result by ``tensor.insert_slice`` into a fill, and its VJP is a slice of the cotangent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.values import NotConvertible, Tensor, is_static

Args = dict[str, Any]


def bind(array: Any, pad_width: Any, mode: str = "constant", *, constant_values: Any = 0) -> Args:
    return {"array": array, "pad_width": pad_width, "mode": mode, "constant_values": constant_values}


def widths(args: Args) -> list[tuple[int, int]]:
    """(before, after) per dim, as ``np.pad`` broadcasts ``pad_width``; NotConvertible unless static."""
    ndim = np.ndim(args["array"]) if not isinstance(args["array"], Tensor) else args["array"].ndim
    try:
        table = np.broadcast_to(np.asarray(args["pad_width"]), (ndim, 2))
    except (ValueError, TypeError):
        raise NotConvertible(f"pad_width {args['pad_width']!r} is not static") from None
    if table.dtype.kind not in "iu" or (table < 0).any():
        raise NotConvertible(f"pad_width {args['pad_width']!r} is not a table of non-negative ints")
    return [(int(b), int(a)) for b, a in table]


def rule(args: Args) -> tuple[tuple[int, ...], np.dtype]:
    x, fill = args["array"], args["constant_values"]
    if args["mode"] != "constant":
        raise NotConvertible(f"np.pad mode {args['mode']!r} is not supported (only 'constant')")
    if not isinstance(x, Tensor) or not is_static(x.shape):
        raise NotConvertible("np.pad of an array with ? dims or of a static value")
    if isinstance(fill, Tensor) or np.ndim(fill) != 0:
        raise NotConvertible("np.pad constant_values must be one static scalar")
    return tuple(n + b + a for n, (b, a) in zip(x.shape, widths(args))), x.dtype


def lower(em: Emitter, args: Args, spec: tuple[tuple[int, ...], np.dtype]) -> Tensor:
    shape, dtype = spec
    x: Tensor = args["array"]
    fill = np.asarray(args["constant_values"]).astype(dtype)[()]  # NumPy casts the fill to the array's dtype
    base = em.filled(shape, dtype, fill)
    return em.insert_slice(x, base, [b for b, _ in widths(args)], x.shape, [1] * len(shape))


def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """The cotangent's interior (the fill is a constant)."""
    return {"array": g[tuple(slice(b, n - a) for (b, a), n in zip(widths(args), g.shape))]}
