"""``np.sort`` and ``np.argsort`` (and ``x.argsort()``): one ``iree_linalg_ext.sort`` of the
values with their positions along the axis, under NumPy's order (NaN last) with ties
broken by position, so the result is a stable sort's whatever the backend's algorithm.

NumPy's own result is that too for ``kind="stable"``/``"mergesort"`` (or ``stable=True``).
Its default kind is not stable: where ties are told apart (argsort's positions; sort's
-0.0 and 0.0, and NaNs) its order is the algorithm's. Then the graph guards that there
is nothing to tell apart (argsort: no two equal values in a lane; sort of floats: no
-0.0 and no NaN), and a call that has some runs in NumPy (a ``raise`` guard: the graph
stays for the other calls).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Body, Emitter, affine_map
from janus.frontend.ops.op_table import normalize_axis
from janus.frontend.ops.registry import METHODS, Args, Op, Spec, register
from janus.frontend.values import ELEMENT_TYPES, NotConvertible, Tensor

_I64 = np.dtype(np.int64)
KINDS = (None, "quicksort", "heapsort", "mergesort", "stable")


def _bind(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Args:
    return {"a": a, "axis": axis, "kind": kind, "order": order, "stable": stable}


def _checked(args: Args) -> tuple[Tensor, int | None, bool]:
    """(the operand, the axis or None for the flattened array, whether a stable sort is asked)."""
    a, axis = args["a"], args["axis"]
    if not isinstance(a, Tensor) or args["order"] is not None or args["kind"] not in KINDS or args["stable"] not in (None, True, False):
        raise NotConvertible("sort of a traced array by value, with a NumPy sort kind and no order=")
    if args["kind"] is not None and args["stable"] is not None:
        raise NotConvertible("sort with both kind= and stable= (NumPy raises)")
    if axis is not None:
        axis = normalize_axis(axis, a.ndim)
    return a, axis, args["stable"] is True or args["kind"] in ("mergesort", "stable")


def _less(b: Body, t: np.dtype, x: str, y: str) -> str:
    """NumPy's sort order: NaN after every number."""
    if t.kind != "f":
        return b.cmp(t, ("olt", "slt", "ult"), x, y)
    nan_first = b.op("arith.andi", [b.cmp(t, ("uno", "", ""), y, y), b.cmp(t, ("ord", "", ""), x, x)], "i1")
    return b.op("arith.ori", [b.cmp(t, ("olt", "", ""), x, y), nan_first], "i1")


def _tie(b: Body, t: np.dtype, x: str, y: str) -> str:
    neither = b.op("arith.ori", [_less(b, t, x, y), _less(b, t, y, x)], "i1")
    return b.op("arith.xori", [neither, b.constant(True, np.dtype(bool))], "i1")


def _sorted(em: Emitter, x: Tensor, axis: int) -> tuple[Tensor, Tensor]:
    """(values, positions) of ``x`` sorted along ``axis``, ties in position order."""
    t = x.dtype
    x, positions = _with_positions(em, x, axis)
    element = ELEMENT_TYPES[t.name]
    a, c, ia, ic = em.argument(element), em.argument(element), em.argument("i64"), em.argument("i64")
    b = Body(em)
    before = b.op("arith.ori", [_less(b, t, a, c), b.op("arith.andi", [_tie(b, t, a, c), b.cmp("i64", "slt", ia, ic)], "i1")], "i1")
    name = em.fresh()
    types = f"{x.type}, {positions.type}"
    region = "\n".join(["{", f"^bb0({a}: {element}, {c}: {element}, {ia}: i64, {ic}: i64):", *b.lines,
                        f"iree_linalg_ext.yield {before} : i1", f"}} -> {types}"])
    em.append(f"{name}:2 = iree_linalg_ext.sort dimension({axis}) outs({x.name}, {positions.name} : {types}) {region}",
              [(x.name, x.type), (positions.name, positions.type)], [(f"{name}#0", x.type), (f"{name}#1", positions.type)])
    return Tensor(f"{name}#0", x.shape, t), Tensor(f"{name}#1", x.shape, _I64)


def _with_positions(em: Emitter, x: Tensor, axis: int) -> tuple[Tensor, Tensor]:
    """A copy of ``x`` and each element's position along ``axis``, made by one generic.
    The sort works in place on its ``outs``; given ``x`` itself (or a plain copy, which
    IREE elides), IREE 3.13 also returned the sorted buffer for ``x`` where the function
    returned ``x`` unchanged."""
    every = affine_map(x.ndim, [f"d{i}" for i in range(x.ndim)])
    values, positions = em.empty(x.shape, x.dtype), em.empty(x.shape, _I64)
    element = ELEMENT_TYPES[x.dtype.name]
    v, p0, p1 = em.argument(element), em.argument(element), em.argument("i64")
    b = Body(em)
    position = b.index_cast(b.loop_index(axis), "index", "i64")
    name = em.fresh()
    types = f"{values.type}, {positions.type}"
    iterators = ", ".join(['"parallel"'] * x.ndim)
    region = "\n".join(["{", f"^bb0({v}: {element}, {p0}: {element}, {p1}: i64):", *b.lines,
                        f"linalg.yield {v}, {position} : {element}, i64", f"}} -> ({types})"])
    em.append(f"{name}:2 = linalg.generic {{indexing_maps = [{every}, {every}, {every}], iterator_types = [{iterators}]}} "
              f"ins({x.name} : {x.type}) outs({values.name}, {positions.name} : {types}) {region}",
              [(x.name, x.type), (values.name, values.type), (positions.name, positions.type)],
              [(f"{name}#0", values.type), (f"{name}#1", positions.type)])
    return Tensor(f"{name}#0", x.shape, x.dtype), Tensor(f"{name}#1", x.shape, _I64)


def _require(em: Emitter, inputs: list[Tensor], found: Any, what: str) -> None:
    """Guard (kind ``raise``) that ``found`` on the elements of ``inputs`` holds nowhere."""
    x = inputs[0]
    every = [f"d{i}" for i in range(x.ndim)]

    def none(b: Body, v: list[str]) -> str:
        hit = found(b, *v[:-1])
        return b.op("arith.andi", [v[-1], b.op("arith.xori", [hit, b.constant(True, np.dtype(bool))], "i1")], "i1")

    ok = em.generic(x.ndim, range(x.ndim), [(t, every) for t in inputs], em.literal(np.array(True)), [], none)
    em.guard(em.scalar_condition(ok), "raise", what)


def _flat(em: Emitter, a: Tensor, axis: int | None) -> tuple[Tensor, int]:
    return (em.reshape(a, (a.size,)), 0) if axis is None else (a, axis)


def _sort_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a, axis, stable = _checked(args)
    x, axis = _flat(em, a, axis)
    t = x.dtype
    if not stable and t.kind == "f" and x.size:
        def told_apart(b: Body, v: str) -> str:
            zero = b.cmp(t, ("oeq", "", ""), v, b.constant(0, t))
            negative = b.cmp(f"i{t.itemsize * 8}", "slt", b.bitcast(v, t, f"i{t.itemsize * 8}"), b.constant(0, f"i{t.itemsize * 8}"))
            return b.op("arith.ori", [b.op("arith.andi", [zero, negative], "i1"), b.cmp(t, ("uno", "", ""), v, v)], "i1")

        _require(em, [x], told_apart, "sort (default kind) of floats without -0.0 or NaN (NumPy's order of those is its algorithm's)")
    return _sorted(em, x, axis)[0]


def _argsort_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a, axis, stable = _checked(args)
    x, axis = _flat(em, a, axis)
    values, positions = _sorted(em, x, axis)
    n = x.shape[axis]
    if not stable and n > 1:
        sizes = [n - 1 if d == axis else s for d, s in enumerate(x.shape)]
        ends = [em.extract_slice(values, [start if d == axis else 0 for d in range(x.ndim)], sizes, [1] * x.ndim, tuple(sizes))
                for start in (0, 1)]
        _require(em, ends, lambda b, u, v: _tie(b, x.dtype, u, v),
                 "argsort (default kind) without equal values in a lane (NumPy's order of ties is its algorithm's)")
    return positions


def _rule(dtype: Any) -> Any:
    def rule(args: Args) -> Spec:
        a, axis, _ = _checked(args)
        return ((a.size,) if axis is None else a.shape), (a.dtype if dtype is None else np.dtype(dtype))

    return rule


def _sort_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """The cotangent sent back to where each sorted element came from."""
    a = np.asarray(args["a"])
    axis = args["axis"]
    flat = a.ravel() if axis is None else a
    order = np.argsort(flat, axis=-1 if axis is None else axis, kind="stable")
    d = np.zeros(flat.shape, np.result_type(g))
    np.put_along_axis(d, order, g, axis=-1 if axis is None else axis)
    return {"a": d.reshape(a.shape)}


SORTING = [
    Op("sort", np.sort, _bind, _rule(None), _sort_lower, vjp=_sort_vjp),
    Op("argsort", np.argsort, _bind, _rule(np.int64), _argsort_lower, no_grad="an integer result"),
]
register(*SORTING)
METHODS["argsort"] = (SORTING[1], SORTING[1].bind)
