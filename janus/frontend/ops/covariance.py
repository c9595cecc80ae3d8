"""``np.cov`` and ``np.corrcoef`` without weights, in NumPy's own steps: the variables as
rows (``rowvar``; ``y`` stacked under ``m``), as float64 or wider (``result_type(m,
float64)``), centered by their means, ``X @ X.T`` times ``1 / (N - ddof)``, squeezed;
``corrcoef`` divides by the standard deviations on both sides and clips to [-1, 1].
Composed from the plain entries, so janus-autodiff differentiates them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import shape_of
from janus.frontend.ops.registry import Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor


def _cov_bind(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None, fweights: Any = None,
              aweights: Any = None, *, dtype: Any = None) -> Args:
    if fweights is not None or aweights is not None or dtype is not None:
        raise NotConvertible("cov with fweights=, aweights= or dtype=")
    if type(rowvar) is not bool or type(bias) is not bool or not (ddof is None or type(ddof) is int):
        raise NotConvertible("cov with a traced rowvar, bias or ddof")
    return {"m": m, "y": y, "rowvar": rowvar, "bias": bias, "ddof": ddof}


def _corrcoef_bind(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Args:
    return _cov_bind(x, y, rowvar, dtype=dtype)


def _rows_shape(x: Any, rowvar: bool) -> tuple[int, int]:
    shape = shape_of(x)
    if len(shape) > 2:
        raise NotConvertible("cov of an array of more than 2 dims (NumPy raises)")
    rows = (1, shape[0]) if len(shape) == 1 else tuple(shape) if len(shape) == 2 else (1, 1)
    return rows if rowvar or rows[0] == 1 else (rows[1], rows[0])


def _plan(args: Args) -> tuple[int, int, float]:
    """(variables, observations, NumPy's factor ``1 / (N - ddof)``)."""
    variables, observations = _rows_shape(args["m"], args["rowvar"])
    if args["y"] is not None:
        more, n = _rows_shape(args["y"], args["rowvar"])
        if n != observations:
            raise NotConvertible("cov of m and y with different numbers of observations (NumPy raises)")
        variables += more
    ddof = args["ddof"] if args["ddof"] is not None else 0 if args["bias"] else 1
    if variables == 0 or observations - ddof <= 0:
        raise NotConvertible("cov of no variables or too few observations (NumPy warns and answers inf or NaN)")
    return variables, observations, float(np.true_divide(1, observations - ddof))


def _dtype(args: Args) -> np.dtype:
    """NumPy's ``result_type(m, y, float64)``."""
    return np.result_type(*(args[k].dtype if isinstance(args[k], Tensor) else np.asarray(args[k]).dtype
                            for k in ("m", "y") if args[k] is not None), np.float64)


def _as_rows(em: Emitter, x: Any, rowvar: bool, dtype: np.dtype) -> Tensor:
    x = call(em, "astype", x if isinstance(x, Tensor) else em.literal(np.asarray(x)), dtype)
    rows = _rows_shape(x, rowvar)
    return call(em, "reshape", x, rows) if x.ndim < 2 or rows[0] == 1 else x if rowvar else call(em, "transpose", x)


def _covariance(em: Emitter, args: Args, dtype: np.dtype) -> Tensor:
    """The (variables, variables) covariance before NumPy's squeeze."""
    _, _, factor = _plan(args)
    x = _as_rows(em, args["m"], args["rowvar"], dtype)
    if args["y"] is not None:
        x = call(em, "concatenate", [x, _as_rows(em, args["y"], args["rowvar"], dtype)], axis=0)
    centered = call(em, "subtract", x, call(em, "mean", x, axis=1, keepdims=True))
    return call(em, "multiply", call(em, "matmul", centered, call(em, "transpose", centered)), factor)


def _cov_rule(args: Args) -> Spec:
    if not any(isinstance(args[k], Tensor) for k in ("m", "y")):
        raise NotConvertible("cov of static values (NumPy folds it)")
    variables, _, _ = _plan(args)
    return ((variables, variables) if variables > 1 else ()), _dtype(args)


def _cov_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    return call(em, "reshape", _covariance(em, args, spec[1]), spec[0])


def _corrcoef_lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
    c = _covariance(em, args, spec[1])
    if not spec[0]:
        return call(em, "reshape", call(em, "divide", c, c), ())  # NumPy: c / c of a scalar covariance
    deviations = call(em, "sqrt", call(em, "diagonal", c))
    c = call(em, "divide", call(em, "divide", c, call(em, "reshape", deviations, (-1, 1))), call(em, "reshape", deviations, (1, -1)))
    return call(em, "clip", c, -1, 1)


# ---- tape VJPs: through the centered rows X (cov = X X^T f) --------------------------------
def _rows(args: Args) -> tuple[np.ndarray, list[tuple[Any, int]]]:
    """The stacked rows NumPy forms, and per operand (its shape, its row count)."""
    parts, layout = [], []
    for key in ("m", "y"):
        if args[key] is None:
            continue
        x = np.asarray(args[key], np.float64)
        rows = np.atleast_2d(x)
        flipped = not args["rowvar"] and rows.shape[0] != 1
        parts.append(rows.T if flipped else rows)
        layout.append((key, x.shape, parts[-1].shape[0], flipped))
    return np.concatenate(parts, axis=0), layout


def _back_to_operands(g_rows: np.ndarray, args: Args, layout: list) -> dict[str, Any]:
    grads, start = {}, 0
    for key, shape, count, flipped in layout:
        part = g_rows[start:start + count]
        start += count
        grads[key] = part.T if flipped else part.reshape(shape)
    return grads


def _cov_grad(gc: np.ndarray, args: Args) -> dict[str, Any]:
    x, layout = _rows(args)
    _, _, factor = _plan(args)
    centered = x - x.mean(axis=1, keepdims=True)
    gc = np.asarray(gc).reshape(x.shape[0], x.shape[0])
    g_centered = factor * (gc + gc.T) @ centered
    return _back_to_operands(g_centered - g_centered.mean(axis=1, keepdims=True), args, layout)


def _cov_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    return _cov_grad(g, args)


def _corrcoef_vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
    """``r = c / (s s^T)``, ``s = sqrt(diag c)``: the direct term and the one through ``s``."""
    x, _ = _rows(args)
    _, _, factor = _plan(args)
    centered = x - x.mean(axis=1, keepdims=True)
    c = factor * centered @ centered.T
    if c.shape == (1, 1):
        return _cov_grad(np.zeros((1, 1)), args)
    s = np.sqrt(np.diag(c))
    g = np.asarray(g)
    r = c / np.outer(s, s)
    gs = -((g * r).sum(axis=1) + (g * r).sum(axis=0)) / s
    return _cov_grad(g / np.outer(s, s) + np.diag(gs / (2 * s)), args)


register(
    Op("cov", np.cov, _cov_bind, _cov_rule, _cov_lower, vjp=_cov_vjp),
    Op("corrcoef", np.corrcoef, _corrcoef_bind, _cov_rule, _corrcoef_lower, vjp=_corrcoef_vjp),
)
