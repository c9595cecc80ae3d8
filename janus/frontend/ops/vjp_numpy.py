"""NumPy VJP rules for the op table (``registry.Op.vjp``), used by the eager tape.

A rule gets the output cotangent ``g``, the op's NumPy result ``out`` and the op's bound
arguments (``Op.bind``'s dict, arrays unwrapped) and returns, per argument name, the
cotangent of that argument (a list for the ``xs``/``arrays`` sequences; None where there
is none). The tape casts each cotangent to its operand's dtype. Elementwise rules give
per-operand partials; ``elementwise`` sums them back over broadcast dims.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

Args = dict[str, Any]
Cotangents = dict[str, Any]
VJP = Callable[[np.ndarray, Any, Args], Cotangents]
Partials = Callable[..., tuple]


def unbroadcast(d: Any, x: Any) -> Any:
    """``d`` (the shape of a broadcast result) summed back to ``x``'s shape."""
    shape = np.shape(x)
    d = np.asarray(d)
    if d.shape == shape:
        return d
    lead = d.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and d.shape[lead + i] != 1)
    return d.sum(axis=axes, keepdims=True).reshape(shape) if axes else d.reshape(shape)


def elementwise(partials: Partials) -> VJP:
    """A rule from ``partials(g, out, *xs)``: one cotangent (or None) per operand."""

    def vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
        xs = args["xs"]
        return {"xs": [None if d is None else unbroadcast(d, x) for d, x in zip(partials(g, out, *xs), xs)]}

    return vjp


add = elementwise(lambda g, out, x, y: (g, g))
subtract = elementwise(lambda g, out, x, y: (g, -g))
multiply = elementwise(lambda g, out, x, y: (g * y, g * x))
divide = elementwise(lambda g, out, x, y: (g / y, -g * out / y))
negative = elementwise(lambda g, out, x: (-g,))
tanh = elementwise(lambda g, out, x: (g * (1 - out * out),))
exp = elementwise(lambda g, out, x: (g * out,))
log = elementwise(lambda g, out, x: (g / x,))
sqrt = elementwise(lambda g, out, x: (g / (2 * out),))
absolute = elementwise(lambda g, out, x: (g * np.sign(x),))
# ties go to the first operand, as the compiled rules do (arith.maximumf: x >= y)
maximum = elementwise(lambda g, out, x, y: (g * (x >= y), g * (x < y)))
minimum = elementwise(lambda g, out, x, y: (g * (x <= y), g * (x > y)))
where = elementwise(lambda g, out, c, x, y: (None, np.where(c, g, 0), np.where(c, 0, g)))


def _reduced_axes(a: Any, axis: Any) -> tuple[int, ...]:
    ndim = np.ndim(a)
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(int(x) % ndim for x in axes))


def expand(g: Any, args: Args) -> np.ndarray:
    """The reduction's cotangent with the reduced axes back (as unit dims)."""
    g = np.asarray(g)
    return g if args["keepdims"] else np.expand_dims(g, _reduced_axes(args["a"], args["axis"]))


def sum_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    return {"a": np.broadcast_to(expand(g, args), np.shape(args["a"]))}


def mean_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    count = int(np.prod([np.shape(args["a"])[i] for i in _reduced_axes(args["a"], args["axis"])]))
    return {"a": np.broadcast_to(expand(g, args) / count, np.shape(args["a"]))}


def extremum_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    """max/min: the cotangent is shared evenly by the elements equal to the extremum."""
    a, axes = args["a"], _reduced_axes(args["a"], args["axis"])
    hit = a == expand(out, args)
    return {"a": hit * (expand(g, args) / hit.sum(axis=axes, keepdims=True))}


def matmul_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    """``a @ b`` with 1-d operands promoted as NumPy does; batch dims are unbroadcast."""
    a, b = np.asarray(args["a"]), np.asarray(args["b"])
    if a.ndim == 0 or b.ndim == 0 or "out" in args and b.ndim > 2:
        raise NotImplementedError("no VJP for np.dot of 0-d operands or a more than 2-d second operand")
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = np.asarray(g)
    if a.ndim == 1:
        g2 = np.expand_dims(g2, -2)
    if b.ndim == 1:
        g2 = np.expand_dims(g2, -1)
    da = unbroadcast(g2 @ np.swapaxes(b2, -1, -2), a2).reshape(a.shape)
    db = unbroadcast(np.swapaxes(a2, -1, -2) @ g2, b2).reshape(b.shape)
    return {"a": da, "b": db}


def outer_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    """``np.outer(a, b)`` of the flattened operands: da = g b, db = aᵀ g."""
    a, b = np.asarray(args["a"]), np.asarray(args["b"])
    return {"a": (g @ b.ravel()).reshape(a.shape), "b": (a.ravel() @ g).reshape(b.shape)}


def transpose_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    ndim = np.ndim(args["a"])
    perm = list(range(ndim))[::-1] if args["axes"] is None else [int(p) % ndim for p in args["axes"]]
    return {"a": np.transpose(g, np.argsort(perm))}


def reshape_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    return {"a": np.reshape(g, np.shape(args["a"]))}


def astype_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    return {"a": g if np.asarray(args["a"]).dtype.kind == "f" else None}


def join_vjp(new_axis: bool) -> VJP:
    """concatenate / stack: the cotangent split back into the joined pieces."""

    def vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
        axis = int(args["axis"]) % np.ndim(g)
        if new_axis:
            return {"arrays": [np.take(g, i, axis=axis) for i in range(len(args["arrays"]))]}
        ends = np.cumsum([np.shape(x)[axis] for x in args["arrays"]])[:-1]
        return {"arrays": np.split(g, ends, axis=axis)}

    return vjp


def getitem_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    """Scatter-add, so repeated advanced indices accumulate."""
    a = np.asarray(args["a"])
    d = np.zeros(a.shape, np.result_type(g))
    np.add.at(d, args["key"], g)
    return {"a": d}


def like_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    """``zeros_like`` and kin: only the fill value (``full_like``'s) reaches the result."""
    return {"fill": np.sum(g)}


# ---- ufuncs (ops/ufuncs.py) ----------------------------------------------------------------
exp2 = elementwise(lambda g, out, x: (g * out * np.log(2.0),))
expm1 = elementwise(lambda g, out, x: (g * (out + 1),))
log1p = elementwise(lambda g, out, x: (g / (1 + x),))
log2 = elementwise(lambda g, out, x: (g / (x * np.log(2.0)),))
log10 = elementwise(lambda g, out, x: (g / (x * np.log(10.0)),))
deg2rad = elementwise(lambda g, out, x: (g * (np.pi / 180),))
rad2deg = elementwise(lambda g, out, x: (g * (180 / np.pi),))
cbrt = elementwise(lambda g, out, x: (g / (3 * out * out),))
sin = elementwise(lambda g, out, x: (g * np.cos(x),))
cos = elementwise(lambda g, out, x: (-g * np.sin(x),))
tan = elementwise(lambda g, out, x: (g * (1 + out * out),))
arcsin = elementwise(lambda g, out, x: (g / np.sqrt(1 - x * x),))
arccos = elementwise(lambda g, out, x: (-g / np.sqrt(1 - x * x),))
arctan = elementwise(lambda g, out, x: (g / (1 + x * x),))
sinh = elementwise(lambda g, out, x: (g * np.cosh(x),))
cosh = elementwise(lambda g, out, x: (g * np.sinh(x),))
arcsinh = elementwise(lambda g, out, x: (g / np.sqrt(x * x + 1),))
arccosh = elementwise(lambda g, out, x: (g / np.sqrt(x * x - 1),))
arctanh = elementwise(lambda g, out, x: (g / (1 - x * x),))
square = elementwise(lambda g, out, x: (2 * g * x,))
reciprocal = elementwise(lambda g, out, x: (-g * out * out,))
positive = elementwise(lambda g, out, x: (g,))
# d x^y = y x^(y-1) dx + x^y log(x) dy (log taken where x > 0, as a real power needs)
power = elementwise(lambda g, out, x, y: (g * y * np.power(x, y - 1), g * out * np.log(np.where(np.greater(x, 0), x, 1))))
arctan2 = elementwise(lambda g, out, y, x: (g * x / (x * x + y * y), -g * y / (x * x + y * y)))
hypot = elementwise(lambda g, out, x, y: (g * x / out, g * y / out))
logaddexp = elementwise(lambda g, out, x, y: (g * np.exp(x - out), g * np.exp(y - out)))
logaddexp2 = elementwise(lambda g, out, x, y: (g * np.exp2(x - out), g * np.exp2(y - out)))
copysign = elementwise(lambda g, out, x, y: (g * np.where(np.signbit(x) == np.signbit(out), 1.0, -1.0), None))
# NaN-ignoring extrema: the gradient goes to the chosen operand (the first on ties)
fmax = elementwise(lambda g, out, x, y: (g * ((x >= y) | np.isnan(y)), g * ~((x >= y) | np.isnan(y))))
fmin = elementwise(lambda g, out, x, y: (g * ((x <= y) | np.isnan(y)), g * ~((x <= y) | np.isnan(y))))
remainder = elementwise(lambda g, out, x, y: (g, -g * np.floor_divide(x, y)))
fmod = elementwise(lambda g, out, x, y: (g, -g * np.trunc(x / y)))
# piecewise-constant ops (floor, floor_divide, ...): zero almost everywhere, as JAX defines it
zero = elementwise(lambda g, out, *xs: tuple(np.zeros(np.shape(g)) for _ in xs))


def prod_vjp(g: np.ndarray, out: Any, args: Args) -> Cotangents:
    """The product of the other elements (exclusive cumulative products from both ends, so
    zeros in the operand are exact), times the cotangent."""
    a = np.asarray(args["a"])
    axes = _reduced_axes(a, args["axis"])
    moved = np.moveaxis(a, axes, range(a.ndim - len(axes), a.ndim))
    flat = moved.reshape(moved.shape[: a.ndim - len(axes)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), flat.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = np.moveaxis((left * right).reshape(moved.shape), range(a.ndim - len(axes), a.ndim), axes)
    return {"a": others * expand(g, args)}


def _clip_partials(g: Any, out: Any, x: Any, low: Any, high: Any) -> tuple:
    """NumPy's clip is max then min with NaN kept and ties to ``x`` (``ops/ufuncs._clip``)."""
    keep_x = np.isnan(x) | (x >= low)
    m = np.where(keep_x, x, low)
    keep_m = np.isnan(m) | (m <= high)
    return g * keep_x * keep_m, g * ~keep_x * keep_m, g * ~keep_m


clip = elementwise(_clip_partials)
