"""``np.pad`` with static widths, in constant mode (a filled tensor with the operand
inserted; its VJP is a slice of the cotangent) or edge mode (per axis, the first and last
slices broadcast and joined around the operand; its VJP adds each padded element's
cotangent into the edge element it copies).

Kept out of ``op_table`` (which only registers it) because it builds its result by
``tensor.insert_slice`` into a fill or by joins of broadcast slices.
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
    x, fill, mode = args["array"], args["constant_values"], args["mode"]
    if mode not in LOWERINGS:
        raise NotConvertible(f"np.pad mode {mode!r} is not supported (only {', '.join(map(repr, LOWERINGS))})")
    if not isinstance(x, Tensor) or not is_static(x.shape):
        raise NotConvertible("np.pad of an array with ? dims or of a static value")
    if isinstance(fill, Tensor) or np.ndim(fill) != 0 or mode != "constant" and fill != 0:
        raise NotConvertible("np.pad constant_values must be one static scalar (in constant mode only)")
    if mode == "edge" and any(n == 0 and b + a for n, (b, a) in zip(x.shape, widths(args))):
        raise NotConvertible("np.pad of an empty axis in edge mode (NumPy raises)")
    return tuple(n + b + a for n, (b, a) in zip(x.shape, widths(args))), x.dtype


def _constant(em: Emitter, args: Args, spec: tuple[tuple[int, ...], np.dtype]) -> Tensor:
    shape, dtype = spec
    x: Tensor = args["array"]
    fill = np.asarray(args["constant_values"]).astype(dtype)[()]  # NumPy casts the fill to the array's dtype
    base = em.filled(shape, dtype, fill)
    return em.insert_slice(x, base, [b for b, _ in widths(args)], x.shape, [1] * len(shape))


def _edge(em: Emitter, args: Args, spec: tuple[tuple[int, ...], np.dtype]) -> Tensor:
    x: Tensor = args["array"]
    if 0 in x.shape:  # an empty axis is not padded (the rule refused that): the result is empty too
        return em.literal(np.zeros(spec[0], spec[1]))
    for axis, (before, after) in enumerate(widths(args)):
        parts = [x]
        for at, width in ((0, before), (x.shape[axis] - 1, after)):
            if width:
                sizes = [1 if d == axis else n for d, n in enumerate(x.shape)]
                edge = em.extract_slice(x, [at if d == axis else 0 for d in range(x.ndim)], sizes, [1] * x.ndim, tuple(sizes))
                wide = tuple(width if d == axis else n for d, n in enumerate(x.shape))
                parts.insert(0 if at == 0 else len(parts), em.elementwise([edge], wide, x.dtype, lambda b, v: v[0]))
        if len(parts) > 1:
            x = em.concat(parts, axis, tuple(n + before + after if d == axis else n for d, n in enumerate(x.shape)))
    return x


#: the supported modes' lowerings
LOWERINGS = {"constant": _constant, "edge": _edge}


def lower(em: Emitter, args: Args, spec: tuple[tuple[int, ...], np.dtype]) -> Tensor:
    return LOWERINGS[args["mode"]](em, args, spec)


def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """Constant mode: the cotangent's interior (the fill is a constant). Edge mode: each
    element's cotangent added into the element it copies (``np.pad`` of 1-based positions
    says which)."""
    if args["mode"] == "constant":
        return {"array": g[tuple(slice(b, n - a) for (b, a), n in zip(widths(args), g.shape))]}
    shape = np.shape(args["array"])
    size = int(np.prod(shape, dtype=np.int64))
    source = np.pad(np.arange(1, size + 1).reshape(shape), widths(args), mode="edge")
    return {"array": np.bincount(source.ravel(), weights=np.ravel(g), minlength=size + 1)[1:].reshape(shape)}
