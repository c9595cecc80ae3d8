"""Cumulative reductions: cumsum and cumprod (functions and methods).

NumPy accumulates in the result dtype, which is not the operand's for small ints and
bools (int32 and bool accumulate in int64 on 64-bit Linux): the rule asks NumPy itself,
and the lowering casts the operand to that dtype before accumulating. Element ``i`` along
the axis is a reduction over ``j`` of the operand where ``j <= i``, else the identity
(one ``linalg.generic``, O(n²) along the axis, in order of ``j`` as NumPy's sequential
accumulate). The float identity of addition is -0.0, so ``cumsum([-0.0])`` keeps its sign.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from janus.frontend.emitter import Body, Emitter
from janus.frontend.ops.op_table import ScalarFn, by_kind, cast, normalize_axis, result_dtype, require_default, sample
from janus.frontend.ops.registry import METHODS, Args, Op, Spec, register
from janus.frontend.values import NotConvertible, Tensor


def _bind(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Args:
    return {"a": a, "axis": axis, "dtype": dtype, "out": out}


def _rule(eager: Callable[..., Any]) -> Callable[[Args], Spec]:
    def rule(args: Args) -> Spec:
        require_default(args, out=None)
        a = args["a"]
        if not isinstance(a, Tensor) or isinstance(args["dtype"], Tensor):
            raise NotConvertible("a cumulative reduction of a traced array with a static dtype")
        if args["axis"] is not None:
            normalize_axis(args["axis"], a.ndim)
        shape = (a.size,) if args["axis"] is None else a.shape
        return shape, result_dtype(eager, sample(a), axis=args["axis"], dtype=args["dtype"])

    return rule


def cumulative(name: str, eager: Callable[..., Any], combine: ScalarFn, identity: Callable[[np.dtype], Any], **story: Any) -> Op:
    """``eager``'s accumulate of ``combine`` along one axis (the flattened array for axis=None)."""

    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        shape, dtype = spec
        x = cast(em, args["a"], dtype)
        if args["axis"] is None:
            x = em.reshape(x, shape) if x.shape != shape else x
        axis, rank = (0 if args["axis"] is None else normalize_axis(args["axis"], x.ndim)), x.ndim
        reads = [f"d{rank}" if d == axis else f"d{d}" for d in range(rank)]
        init = em.filled(shape, dtype, identity(dtype))

        def body(b: Body, v: list[str]) -> str:
            inside = b.cmp("index", "ule", b.loop_index(rank), b.loop_index(axis))
            return combine(b, dtype, [v[1], b.select(inside, v[0], b.constant(identity(dtype), dtype), dtype)])

        return em.generic(rank + 1, [rank], [(x, reads)], init, [f"d{d}" for d in range(rank)], body)

    return Op(name, eager, _bind, _rule(eager), lower, **story)


def _along_last(vjp: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[np.ndarray, Any, Args], dict[str, Any]]:
    """A tape VJP from one along the last axis of the operand (flattened for axis=None)."""

    def rule(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        a = np.asarray(args["a"])
        if args["axis"] is None:
            return {"a": vjp(np.ravel(g), a.ravel()).reshape(a.shape)}
        axis = int(args["axis"]) % a.ndim
        moved = vjp(np.moveaxis(np.asarray(g), axis, -1), np.moveaxis(a, axis, -1))
        return {"a": np.moveaxis(moved, -1, axis)}

    return rule


def _cumsum_vjp(g: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Each element reaches every later sum: the reversed cumulative sum of ``g``."""
    return np.cumsum(g[..., ::-1], axis=-1)[..., ::-1]


def _cumprod_vjp(g: np.ndarray, a: np.ndarray) -> np.ndarray:
    """d out_i / d a_j = the product of a_k for k <= i, k != j (j <= i): cumulative products
    with a_j replaced by 1, row j of a square, so zeros in ``a`` are exact."""
    n = a.shape[-1]
    rows = np.broadcast_to(a[..., None, :], a.shape[:-1] + (n, n)).copy()
    rows[..., np.arange(n), np.arange(n)] = 1
    partial = np.cumprod(rows, axis=-1) * np.triu(np.ones((n, n), bool))
    return np.einsum("...ji,...i->...j", partial, g)


CUMULATIVE = [
    cumulative("cumsum", np.cumsum, by_kind("arith.addf", "arith.addi"), lambda dtype: -0.0 if dtype.kind == "f" else 0,
               vjp=_along_last(_cumsum_vjp)),
    cumulative("cumprod", np.cumprod, by_kind("arith.mulf", "arith.muli"), lambda dtype: 1, vjp=_along_last(_cumprod_vjp)),
]

register(*CUMULATIVE)
METHODS.update({op.name: (op, op.bind) for op in CUMULATIVE})
