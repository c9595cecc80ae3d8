"""``np.linalg.solve``, ``np.linalg.inv`` and ``np.linalg.det`` of small square matrices,
compiled: LU with partial pivoting (LAPACK's ``getrf``: the row of largest magnitude at
each step), unrolled over the ``n`` columns of a static ``n <= MAX_ORDER``.

Why compiled and not a split to NumPy on the host: IREE has no LAPACK, but these matrices
are small (a Gaussian process's kernel, a 3x3 transform, a regression's normal equations);
``n`` unrolled steps of a few fused ops each cost less than leaving the graph, and a split
is refused where a view of an array is live across it. Past ``MAX_ORDER`` the call runs
in NumPy (a split where one can be made).

The elimination is done on ``[A | B]`` (``B``: ``b``, or the identity for ``inv``), then back
substitution on ``U``; ``det`` is NumPy's ``sign * exp(sum(log|u_kk|))`` with the sign of the
row swaps. Results match NumPy's to float rounding, not bit for bit (LAPACK blocks the
updates). A singular matrix (a zero pivot) or one holding inf or NaN fails a ``raise``
guard: NumPy then runs the call (it raises ``LinAlgError``, or answers with its own NaN).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import result_dtype, shape_of
from janus.frontend.ops.registry import Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor

#: the largest order compiled (the elimination is unrolled, one step per column)
MAX_ORDER = 16


def _square(a: Any, name: str) -> int:
    shape = shape_of(a)
    if not isinstance(a, Tensor) or len(shape) != 2 or shape[0] != shape[1]:
        raise NotConvertible(f"{name} of a traced 2-d square matrix only (batches and static matrices run in NumPy)")
    if not 0 < shape[0] <= MAX_ORDER:
        raise NotConvertible(f"{name} of order {shape[0]} (compiled up to {MAX_ORDER}; NumPy's LAPACK runs it)")
    return shape[0]


def _eliminate(em: Emitter, m: Tensor, n: int) -> tuple[Tensor, Tensor]:
    """``[A | B]`` reduced to ``[U | L^-1 P B]`` by LU with partial pivoting; also the row
    swaps' parity (an int64 0-d: how many steps swapped two different rows)."""
    rows = np.arange(n)
    width = m.shape[1]
    swaps: Any = 0
    for k in range(n):
        pivot_at = call(em, "add", call(em, "argmax", call(em, "absolute", call(em, "getitem", m, (slice(k, None), k)))), k)
        order = call(em, "where", rows == k, pivot_at, call(em, "where", call(em, "equal", rows, pivot_at), k, rows))
        m = call(em, "take_along_axis", m, call(em, "broadcast_to", call(em, "reshape", order, (n, 1)), (n, width)), axis=0)
        swaps = call(em, "add", swaps, call(em, "astype", call(em, "not_equal", pivot_at, k), np.int64))
        if k < n - 1:
            row, pivot = call(em, "getitem", m, (slice(k, k + 1),)), call(em, "getitem", m, (k, k))
            below = call(em, "getitem", m, (slice(k + 1, None),))
            factors = call(em, "divide", call(em, "getitem", below, (slice(None), slice(k, k + 1))), pivot)
            below = call(em, "subtract", below, call(em, "multiply", factors, row))
            m = call(em, "concatenate", [call(em, "getitem", m, (slice(None, k + 1),)), below], axis=0)
    return m, swaps


def _guard_regular(em: Emitter, a: Tensor, u: Tensor, name: str) -> None:
    finite = call(em, "all", call(em, "isfinite", a))
    pivots = call(em, "all", call(em, "not_equal", call(em, "diagonal", u), 0))
    em.guard(em.scalar_condition(call(em, "logical_and", finite, pivots)), "raise",
             f"np.linalg.{name} of a finite nonsingular matrix (else NumPy raises LinAlgError or answers NaN)")


def _back_substitute(em: Emitter, u: Tensor, y: Tensor, n: int) -> Tensor:
    """``U x = y`` for upper triangular ``U``, from the last row up."""
    solved: list[Tensor] = []
    for k in reversed(range(n)):
        rhs = call(em, "getitem", y, (k,))
        if solved:
            rhs = call(em, "subtract", rhs, call(em, "matmul", call(em, "getitem", u, (k, slice(k + 1, None))), call(em, "stack", solved)))
        solved.insert(0, call(em, "divide", rhs, call(em, "getitem", u, (k, k))))
    return call(em, "stack", solved)


def _solve_system(em: Emitter, a: Tensor, b: Tensor, dtype: np.dtype, name: str) -> Tensor:
    n = a.shape[0]
    vector = b.ndim == 1
    rhs = call(em, "reshape", b, (n, 1)) if vector else b
    m, _ = _eliminate(em, call(em, "concatenate", [call(em, "astype", a, dtype), call(em, "astype", rhs, dtype)], axis=1), n)
    u = call(em, "getitem", m, (slice(None), slice(None, n)))
    _guard_regular(em, a, u, name)
    x = _back_substitute(em, u, call(em, "getitem", m, (slice(None), slice(n, None))), n)
    return call(em, "reshape", x, (n,)) if vector else x


# ---- solve ---------------------------------------------------------------------------------
def _solve_bind(a: Any, b: Any) -> Args:
    return {"a": a, "b": b}


def _solve_rule(args: Args) -> Spec:
    n, b = _square(args["a"], "solve"), shape_of(args["b"])
    if not isinstance(args["b"], Tensor) or len(b) not in (1, 2) or b[0] != n:
        raise NotConvertible("solve with b of shape (n,) or (n, k), traced (NumPy raises on other shapes)")
    return tuple(b), result_dtype(np.linalg.solve, np.ones((1, 1), args["a"].dtype), np.ones((1,) * len(b), args["b"].dtype))


def _solve_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    return _solve_system(em, args["a"], args["b"], spec[1], "solve")


def _solve_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """``gb = A^-T g``, ``gA = -gb x^T``."""
    a, x = np.asarray(args["a"]), np.asarray(out)
    gb = np.linalg.solve(a.T, g)
    return {"a": -(np.outer(gb, x) if x.ndim == 1 else gb @ x.T), "b": gb}


# ---- inv -----------------------------------------------------------------------------------
def _inv_bind(a: Any) -> Args:
    return {"a": a}


def _inv_rule(args: Args) -> Spec:
    n = _square(args["a"], "inv")
    return (n, n), result_dtype(np.linalg.inv, np.ones((1, 1), args["a"].dtype))


def _inv_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    n = spec[0][0]
    return _solve_system(em, args["a"], em.literal(np.eye(n, dtype=spec[1])), spec[1], "inv")


def _inv_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    inverse = np.asarray(out)
    return {"a": -inverse.T @ g @ inverse.T}


# ---- det -----------------------------------------------------------------------------------
def _det_rule(args: Args) -> Spec:
    _square(args["a"], "det")
    return (), result_dtype(np.linalg.det, np.ones((1, 1), args["a"].dtype))


def _det_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    a, dtype = args["a"], spec[1]
    n = a.shape[0]
    u, swaps = _eliminate(em, call(em, "astype", a, dtype), n)
    _guard_regular(em, a, u, "det")
    diagonal = call(em, "diagonal", u)
    negatives = call(em, "add", swaps, call(em, "sum", call(em, "less", diagonal, 0)))
    sign = call(em, "subtract", 1.0, call(em, "multiply", 2.0, call(em, "astype", call(em, "remainder", negatives, 2), dtype)))
    return call(em, "multiply", sign, call(em, "exp", call(em, "sum", call(em, "log", call(em, "absolute", diagonal)))))


def _det_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """``g * det(A) * A^-T``."""
    return {"a": g * out * np.linalg.inv(np.asarray(args["a"])).T}


register(
    Op("solve", np.linalg.solve, _solve_bind, _solve_rule, _solve_lower, vjp=_solve_vjp),
    Op("inv", np.linalg.inv, _inv_bind, _inv_rule, _inv_lower, vjp=_inv_vjp),
    Op("det", np.linalg.det, _inv_bind, _det_rule, _det_lower, vjp=_det_vjp),
)
