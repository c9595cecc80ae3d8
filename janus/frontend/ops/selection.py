"""Selection entries with static arguments: flip (fliplr, flipud), roll, tile, repeat and
take (static indices) rearrange ``a`` by slices joined along an axis; triu and tril mask
it; broadcast_to broadcasts it; diagonal (and diag of a 2-d array) is a strided slice,
diag of a 1-d array a select into a square; rot90 is NumPy's own flips and axis swap. Each lowering is made of reshapes, ``extract_slice``,
``concat`` and one elementwise generic, whose compiled gradients janus-autodiff derives;
the shape and dtype are NumPy's own on a zero-memory stand-in, and every tape VJP is the
one of a linear selection (``selection_vjp``)."""

from __future__ import annotations

from typing import Any, Callable, Union

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import conform, normalize_axis
from janus.frontend.ops.registry import METHODS, OPS, Args, Op, Spec, apply, register
from janus.frontend.values import NotConvertible, Shape, Tensor

#: a plan step: a reshape to a shape, or (axis, [(start, stop), ...]): those runs joined along axis
Step = Union[Shape, tuple[int, list[tuple[int, int]]]]
PlanFn = Callable[[Args, Shape], list[Step]]


def _stand_in(a: Any) -> np.ndarray:
    if not isinstance(a, Tensor):
        raise NotConvertible("a selection of a traced array only")
    return np.broadcast_to(np.zeros((), a.dtype), a.shape)


def _numpy(numpy: Callable[..., Any], args: Args, a: Any) -> Any:
    """``numpy`` called on ``a`` and the other bound arguments, in order."""
    try:
        return np.asarray(numpy(a, *[v for k, v in args.items() if k != "a"]))
    except (TypeError, ValueError, IndexError) as e:
        raise NotConvertible(f"NumPy rejects these arguments: {e}") from None


def selection_vjp(numpy: Callable[..., Any]) -> Callable[[np.ndarray, Any, Args], dict[str, Any]]:
    """The VJP of a linear selection: ``numpy`` on the 1-based flat positions of ``a``
    says where each result element came from (0: a constant zero); ``g`` is summed back."""

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        shape = np.shape(args["a"])
        size = int(np.prod(shape, dtype=np.int64))
        source = _numpy(numpy, args, np.arange(1, size + 1).reshape(shape))
        total = np.bincount(source.ravel(), weights=np.ravel(g), minlength=size + 1)
        return {"a": total[1:].reshape(shape)}

    return vjp


def _rule(numpy: Callable[..., Any]) -> Callable[[Args], Spec]:
    def rule(args: Args) -> Spec:
        out = _numpy(numpy, args, _stand_in(args["a"]))
        return out.shape, out.dtype

    return rule


def _take_runs(em: Emitter, x: Tensor, axis: int, runs: list[tuple[int, int]]) -> Tensor:
    """The runs of ``x`` along ``axis`` joined (adjacent runs merged into one slice)."""
    merged: list[list[int]] = []
    for start, stop in runs:
        if merged and merged[-1][1] == start:
            merged[-1][1] = stop
        else:
            merged.append([start, stop])
    parts = []
    for start, stop in merged:
        sizes = list(x.shape)
        sizes[axis] = stop - start
        offsets = [start if d == axis else 0 for d in range(x.ndim)]
        parts.append(x if sizes == list(x.shape) else em.extract_slice(x, offsets, sizes, [1] * x.ndim, tuple(sizes)))
    shape = list(x.shape)
    shape[axis] = sum(stop - start for start, stop in merged)
    return em.concat(parts, axis, tuple(shape))


def rearranging(name: str, eager: Callable[..., Any], bind: Callable[..., Args], plan: PlanFn,
                numpy: Callable[..., Any] | None = None) -> Op:
    """An entry that runs ``plan``'s reshapes and joined runs on ``a`` (``numpy``: the
    NumPy function of ``a`` and the bound arguments, ``eager`` by default)."""
    numpy = numpy or eager

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        x = args["a"]
        for step in plan(args, x.shape):
            if len(step) == 2 and isinstance(step[1], list):
                x = _take_runs(em, x, step[0], step[1])
            elif tuple(step) != x.shape:
                x = em.reshape(x, tuple(step))
        return x if x.shape == spec[0] else em.reshape(x, spec[0])

    return Op(name, eager, bind, _rule(numpy), lower, vjp=selection_vjp(numpy))


def _axes(axis: Any, ndim: int) -> list[int]:
    axes = list(range(ndim)) if axis is None else axis if isinstance(axis, (tuple, list)) else [axis]
    return [normalize_axis(a, ndim) for a in axes]


def _static_ints(value: Any, what: str) -> np.ndarray:
    if isinstance(value, Tensor):
        raise NotConvertible(f"{what} must be static")
    array = np.asarray(value)
    if array.dtype.kind not in "iub":
        raise NotConvertible(f"{what} must be integers")
    return array.astype(np.int64)


# ---- flip
def _flip_bind(m: Any, axis: Any = None) -> Args:
    return {"a": m, "axis": axis}


def _flip_plan(args: Args, shape: Shape) -> list[Step]:
    return [(ax, [(i, i + 1) for i in reversed(range(shape[ax]))]) for ax in _axes(args["axis"], len(shape))]


def _flip_axis(axis: int) -> Callable[[Any], Args]:
    return lambda m: {"a": m, "axis": axis}


# ---- rot90: NumPy's own flips and transpose
def _rot90_bind(m: Any, k: Any = 1, axes: Any = (0, 1)) -> Args:
    return {"a": m, "k": k, "axes": axes}


def _rot90_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """``np.rot90``'s steps: k % 4 quarter turns as flips and one axis swap."""
    m, k = args["a"], int(_static_ints(args["k"], "rot90's k")) % 4
    first, second = (normalize_axis(a, m.ndim) for a in args["axes"])
    perm = list(range(m.ndim))
    perm[first], perm[second] = perm[second], perm[first]
    flip, transpose = OPS["flip"], OPS["transpose"]
    if k == 0:
        return m
    if k == 2:
        return apply(em, flip, [apply(em, flip, [m, first], {}), second], {})
    if k == 1:
        return apply(em, transpose, [apply(em, flip, [m, second], {}), perm], {})
    return apply(em, flip, [apply(em, transpose, [m, perm], {}), second], {})


# ---- roll
def _roll_bind(a: Any, shift: Any, axis: Any = None) -> Args:
    return {"a": a, "shift": shift, "axis": axis}


def _roll_plan(args: Args, shape: Shape) -> list[Step]:
    flat = args["axis"] is None
    dims = (int(np.prod(shape, dtype=np.int64)),) if flat else shape
    axes = [0] if flat else _axes(args["axis"], len(shape))
    shifts = _static_ints(args["shift"], "roll's shift").ravel()
    if shifts.size != 1 and shifts.size != len(axes):
        raise NotConvertible("roll: shift and axis of different lengths (NumPy raises)")
    total = {ax: 0 for ax in axes}
    for ax, s in zip(axes, np.broadcast_to(shifts, (len(axes),))):
        total[ax] += int(s)
    steps: list[Step] = [dims]
    for ax, s in total.items():
        n = dims[ax]
        s = s % n if n else 0
        steps.append((ax, [(n - s, n), (0, n - s)]))
    return steps


# ---- tile
def _tile_bind(A: Any, reps: Any) -> Args:
    return {"a": A, "reps": reps}


def _tile_plan(args: Args, shape: Shape) -> list[Step]:
    reps = tuple(int(r) for r in _static_ints(args["reps"], "tile's reps").ravel())
    ndim = max(len(reps), len(shape))
    dims = (1,) * (ndim - len(shape)) + tuple(shape)
    reps = (1,) * (ndim - len(reps)) + reps
    return [dims, *((ax, [(0, dims[ax])] * r) for ax, r in enumerate(reps) if r != 1)]


# ---- repeat
def _repeat_bind(a: Any, repeats: Any, axis: Any = None) -> Args:
    return {"a": a, "repeats": repeats, "axis": axis}


def _repeat_plan(args: Args, shape: Shape) -> list[Step]:
    flat = args["axis"] is None
    dims = (int(np.prod(shape, dtype=np.int64)),) if flat else shape
    ax = 0 if flat else normalize_axis(args["axis"], len(shape))
    repeats = np.broadcast_to(_static_ints(args["repeats"], "repeat's repeats"), (dims[ax],))
    return [dims, (ax, [(i, i + 1) for i, r in enumerate(repeats) for _ in range(int(r))])]


# ---- take (static indices, mode="raise")
def _take_bind(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Args:
    if out is not None or mode != "raise":
        raise NotConvertible("take with out= or a mode other than 'raise'")
    return {"a": a, "indices": indices, "axis": axis}


def _take_plan(args: Args, shape: Shape) -> list[Step]:
    flat = args["axis"] is None
    dims = (int(np.prod(shape, dtype=np.int64)),) if flat else shape
    ax = 0 if flat else normalize_axis(args["axis"], len(shape))
    indices = _static_ints(args["indices"], "take's indices (a traced index array is the gather entry, a[idx])")
    if ((indices < -dims[ax]) | (indices >= dims[ax])).any():
        raise NotConvertible("take: an index out of range (NumPy raises)")
    return [dims, (ax, [(i, i + 1) for i in (indices.ravel() % dims[ax])])]


def _take(a: Any, indices: Any, axis: Any = None) -> Any:
    return np.take(a, indices, axis)


REARRANGING = [
    rearranging("flip", np.flip, _flip_bind, _flip_plan),
    Op("rot90", np.rot90, _rot90_bind, _rule(np.rot90), _rot90_lower, vjp=selection_vjp(np.rot90)),
    rearranging("fliplr", np.fliplr, _flip_axis(1), _flip_plan, numpy=np.flip),
    rearranging("flipud", np.flipud, _flip_axis(0), _flip_plan, numpy=np.flip),
    rearranging("roll", np.roll, _roll_bind, _roll_plan),
    rearranging("tile", np.tile, _tile_bind, _tile_plan),
    rearranging("repeat", np.repeat, _repeat_bind, _repeat_plan),
    rearranging("take", np.take, _take_bind, _take_plan, numpy=_take),
]


# ---- triu / tril: a select against a static mask; broadcast_to: an elementwise broadcast
def _tri_bind(m: Any, k: Any = 0) -> Args:
    if not isinstance(k, (int, np.integer)):
        raise NotConvertible("triu/tril with a traced k")
    return {"a": m, "k": k}


def masking(name: str, eager: Callable[..., Any]) -> Op:
    """``a`` where ``eager`` of a ones mask keeps it, else zero (2-d and more)."""

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        a = args["a"]
        if a.ndim < 2:
            raise NotConvertible(f"{name} of a {a.ndim}-d array (NumPy makes it 2-d)")
        mask = em.literal(np.broadcast_to(eager(np.ones(a.shape[-2:], bool), args["k"]), a.shape).copy())
        return em.elementwise([mask, a], a.shape, a.dtype, lambda b, v: b.select(v[0], v[1], b.constant(0, a.dtype), a.dtype))

    return Op(name, eager, _tri_bind, _rule(eager), lower, vjp=selection_vjp(eager))


def _broadcast_to_bind(array: Any, shape: Any, subok: bool = False) -> Args:
    if subok:
        raise NotConvertible("broadcast_to with subok=True")
    return {"a": array, "shape": shape}


def _broadcast_to_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    return conform(em, args["a"], Tensor("", spec[0], spec[1]), "broadcast_to")


# ---- diagonal: a strided slice of the two axes flattened; diag: that, or a select into a square
def _diagonal_bind(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> Args:
    if not isinstance(offset, (int, np.integer)):
        raise NotConvertible("diagonal with a traced offset")
    return {"a": a, "offset": int(offset), "axis1": axis1, "axis2": axis2}


def _diagonal(em: Emitter, a: Tensor, k: int, axis1: int, axis2: int) -> Tensor:
    """The k-th diagonal of ``a`` over (axis1, axis2), last, as NumPy's ``diagonal``."""
    i, j = normalize_axis(axis1, a.ndim), normalize_axis(axis2, a.ndim)
    if i == j:
        raise NotConvertible("diagonal: axis1 and axis2 are the same (NumPy raises)")
    perm = [d for d in range(a.ndim) if d not in (i, j)] + [i, j]
    x = a if perm == list(range(a.ndim)) else em.transpose(a, perm)
    lead, (n, m) = x.shape[:-2], x.shape[-2:]
    x = em.reshape(x, (*lead, n * m))
    start, length = (k, max(0, min(n, m - k))) if k >= 0 else (-k * m, max(0, min(n + k, m)))
    if length == 0:
        return em.literal(np.zeros((*lead, 0), a.dtype))
    return em.extract_slice(x, [0] * len(lead) + [start], [*lead, length], [1] * len(lead) + [m + 1], (*lead, length))


def _diag_bind(v: Any, k: Any = 0) -> Args:
    if not isinstance(k, (int, np.integer)):
        raise NotConvertible("diag with a traced k")
    return {"a": v, "k": int(k)}


def _diag_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """2-d: the k-th diagonal; 1-d: ``a`` padded with |k| zeros, broadcast along the
    square's rows (k < 0) or columns (k >= 0), kept on the k-th diagonal."""
    a, k = args["a"], args["k"]
    if a.ndim == 2:
        return _diagonal(em, a, k, 0, 1)
    size = spec[0][0]
    padded = em.concat([a, em.literal(np.zeros(abs(k), a.dtype))], 0, (size,)) if k else a
    line = em.reshape(padded, (1, size) if k < 0 else (size, 1))
    mask = em.literal(np.eye(size, k=k, dtype=bool))
    return em.elementwise([mask, line], spec[0], a.dtype, lambda b, v: b.select(v[0], v[1], b.constant(0, a.dtype), a.dtype))


def _diagflat_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    """``diag`` of ``a`` flattened: ``a``'s elements on the k-th diagonal of a square."""
    a = args["a"]
    if not a.static:
        raise NotConvertible("diagflat of an array with ? dims (the square's size would be unknown)")
    flat = a if a.ndim == 1 else em.reshape(a, (int(np.prod(a.shape, dtype=np.int64)),))
    return _diag_lower(em, {"a": flat, "k": args["k"]}, spec)


OTHERS = [
    Op("diagonal", np.diagonal, _diagonal_bind, _rule(np.diagonal),
       lambda em, args, spec: _diagonal(em, args["a"], args["offset"], args["axis1"], args["axis2"]),
       vjp=selection_vjp(np.diagonal)),
    Op("diag", np.diag, _diag_bind, _rule(np.diag), _diag_lower, vjp=selection_vjp(np.diag)),
    Op("diagflat", np.diagflat, _diag_bind, _rule(np.diagflat), _diagflat_lower, vjp=selection_vjp(np.diagflat)),
    masking("triu", np.triu),
    masking("tril", np.tril),
    Op("broadcast_to", np.broadcast_to, _broadcast_to_bind, _rule(np.broadcast_to), _broadcast_to_lower,
       vjp=selection_vjp(np.broadcast_to)),
]

register(*REARRANGING, *OTHERS)
#: ndarray methods with NumPy's function signature less the array (``x.take(idx, axis)``)
METHODS.update({name: (OPS[name], OPS[name].bind) for name in ("take", "repeat", "diagonal")})
