"""One gradient case per op-table entry: a function of float64 arrays that uses the op.

tests/frontend/test_grad.py checks the tape rules on them against finite differences,
tests/frontend/ops/test_gradients.py each op's declared gradient story (tape and
janus-autodiff) on the same calls. Each case is written so the graph generator traces it
too (the op's traced form is the one the tape records).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tests.helpers.nn_cases import LIMIT_CASES as NN_LIMIT_CASES
from tests.helpers.nn_cases import TAPE_CASES as NN_CASES

Case = tuple[Callable[..., Any], list[Any]]
RNG = np.random.default_rng(11)


def signed(*shape: int) -> np.ndarray:
    """float64 entries of magnitude in [0.5, 1.5) and random sign (no kinks near 0)."""
    return RNG.uniform(0.5, 1.5, shape) * RNG.choice([-1.0, 1.0], shape)


def central_differences(loss: Callable[..., Any], args: list[Any], i: int, eps: float = 1e-6) -> np.ndarray:
    """d loss / d args[i] by central differences (float64 arrays: error ~ eps²)."""
    out = np.zeros(np.shape(args[i]))
    for j in range(out.size):
        plus, minus = [np.array(a, copy=True) for a in args], [np.array(a, copy=True) for a in args]
        plus[i].flat[j] += eps
        minus[i].flat[j] -= eps
        out.flat[j] = (loss(*plus) - loss(*minus)) / (2 * eps)
    return out


def positive(*shape: int) -> np.ndarray:
    return RNG.uniform(0.5, 1.5, shape)


def unit(*shape: int) -> np.ndarray:
    """float64 entries of magnitude in [0.1, 0.8) (inside arcsin's and arctanh's domain)."""
    return RNG.uniform(0.1, 0.8, shape) * RNG.choice([-1.0, 1.0], shape)


#: ops/ufuncs.py entries
UFUNC_CASES: dict[str, Case] = {
    **{name: (getattr(np, name), [signed(2, 3)]) for name in (
        "exp2", "expm1", "cbrt", "tan", "arctan", "sinh", "cosh", "arcsinh", "sin", "cos", "square", "positive",
        "fabs", "sign", "floor", "ceil", "rint", "trunc", "deg2rad", "rad2deg")},
    "round": (lambda x: np.round(x) * x, [signed(2, 3)]),
    **{name: (getattr(np, name), [positive(2, 3)]) for name in ("log1p", "log2", "log10", "reciprocal")},
    **{name: (getattr(np, name), [unit(2, 3)]) for name in ("arcsin", "arccos", "arctanh")},
    "arccosh": (lambda x: np.arccosh(x + 1.0), [positive(2, 3)]),
    "power": (lambda x, y: x ** 2 + np.power(x, y) + x ** 3.0, [positive(2, 3), signed(3)]),
    "float_power": (np.float_power, [positive(2, 3), signed(3)]),
    **{name: (getattr(np, name), [signed(2, 3), signed(3)]) for name in (
        "arctan2", "copysign", "fmax", "fmin", "remainder", "fmod", "floor_divide", "hypot", "logaddexp", "logaddexp2")},
    "heaviside": (lambda x: np.heaviside(x, 0.5) * x, [signed(2, 3)]),
    **{name: (lambda x, f=getattr(np, name): np.where(f(x), x, 0.0), [signed(3)]) for name in (
        "isnan", "isinf", "isfinite", "signbit")},
    **{name: (lambda x, y, f=getattr(np, name): np.where(f(x > 0, y > 0), x, y), [signed(3), signed(3)]) for name in (
        "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor")},
    "logical_not": (lambda x: np.where(np.logical_not(x > 0), x, 0.0), [signed(3)]),
    "invert": (lambda x: np.where(np.invert(x > 0), x, 0.0), [signed(3)]),
    "left_shift": (lambda x: np.where(((x > 0).astype(np.int64) << 1) > 1, x, 0.0), [signed(3)]),
    "right_shift": (lambda x: np.where((np.full(3, 4) >> (x > 0).astype(np.int64)) > 2, x, 0.0), [signed(3)]),
}

#: op-table entry -> (function of the inputs, inputs); each function uses that op on its inputs.
CASES: dict[str, Case] = {
    "add": (lambda x, y: x + y, [signed(3, 4), signed(4)]),
    "subtract": (lambda x, y: x - y, [signed(3, 1), signed(1, 4)]),
    "multiply": (lambda x, y: x * y * 2.0, [signed(3, 4), signed(3, 4)]),
    "divide": (lambda x, y: x / y, [signed(3, 4), positive(4)]),
    "negative": (lambda x: -x, [signed(5)]),
    "tanh": (np.tanh, [signed(2, 3)]),
    "exp": (np.exp, [signed(2, 3)]),
    "log": (np.log, [positive(2, 3)]),
    "sqrt": (np.sqrt, [positive(2, 3)]),
    "absolute": (abs, [signed(2, 3)]),
    "maximum": (np.maximum, [signed(3, 4), signed(3, 4)]),
    "minimum": (np.minimum, [signed(3, 4), signed(4)]),
    "less": (lambda x, y: np.where(x < y, x, y), [signed(3), signed(3)]),
    "less_equal": (lambda x, y: np.where(np.less_equal(x, y), x, y), [signed(3), signed(3)]),
    "greater": (lambda x, y: np.where(x > y, x, y), [signed(3), signed(3)]),
    "greater_equal": (lambda x, y: np.where(x >= y, x, y), [signed(3), signed(3)]),
    "equal": (lambda x, y: np.where(x == y, x, y), [signed(3), signed(3)]),
    "not_equal": (lambda x, y: np.where(x != y, x, y), [signed(3), signed(3)]),
    "where": (lambda x, y: np.where(x > y, x * y, y), [signed(3, 4), signed(3, 4)]),
    "sum": (lambda x: np.sum(x, axis=0) + x.sum(axis=(0, 1), keepdims=True), [signed(3, 4)]),
    "mean": (lambda x: x.mean(axis=1, keepdims=True) * np.mean(x), [signed(3, 4)]),
    "max": (lambda x: np.max(x, axis=1) + x.max(), [signed(3, 4)]),
    "min": (lambda x: np.min(x, axis=0), [signed(3, 4)]),
    "matmul": (lambda a, b, v, t, s: (a @ b) * (v @ b) + (t @ b).sum(0) + (t @ v).T + (t @ s)[0, :, :2] + (a @ s).sum(0)[:, :2]
               + (v @ s).T[:, :2], [signed(3, 4), signed(4, 2), signed(4), signed(2, 3, 4), signed(2, 4, 3)]),
    "dot": (lambda a, b, t: np.dot(a, b) + a.dot(b) + np.dot(t, b)[1], [signed(3, 4), signed(4, 2), signed(2, 3, 4)]),
    "outer": (lambda a, b: np.outer(a, b) * np.outer(b, a).T, [signed(3), signed(2, 2)]),
    "transpose": (lambda x: np.transpose(x, (1, 0, 2)) * x.T.transpose(1, 2, 0), [signed(2, 3, 4)]),
    "reshape": (lambda x: x.reshape(6, 2) * np.reshape(x, (6, -1)), [signed(3, 4)]),
    "astype": (lambda x: x.astype(np.float64) * x, [signed(3)]),
    "copy": (lambda x: np.copy(x) * x.copy(), [signed(3)]),
    "concatenate": (lambda x, y: np.concatenate([x, y, x], axis=1), [signed(2, 3), signed(2, 1)]),
    "stack": (lambda x, y: np.stack([x, y], axis=-1), [signed(2, 3), signed(2, 3)]),
    "array": (lambda x, y: np.array([x, y]) * 2.0, [signed(3), signed(3)]),
    "getitem": (lambda x: x[1:3, ::2] * x[1, None, ::2], [signed(3, 4)]),
    "gather": (lambda x: x[[0, 2, 0]] * x[np.array([1, 1, 2]), np.array([0, 3, 3])][:, None], [signed(3, 4)]),
    "mask_read": (lambda x: (x[x[:, 0] > 0] * 2.0).sum(axis=0) + x[x > 0].sum(), [signed(4, 3)]),
    "zeros_like": (lambda x: np.zeros_like(x) + x * x, [signed(3)]),
    "ones_like": (lambda x: np.ones_like(x) * x, [signed(3)]),
    "full_like": (lambda x, s: np.full_like(x, s) * x, [signed(3), np.float64(0.7)]),
    "empty_like": (lambda x: np.zeros_like(np.empty_like(x)) + x * x, [signed(3)]),
    "zeros": (lambda x: np.zeros(3) + x, [signed(3)]),
    "ones": (lambda x: np.ones((3,)) * x, [signed(3)]),
    "full": (lambda x: np.full((3,), 0.5) * x, [signed(3)]),
    "arange": (lambda x: np.arange(3.0) * x, [signed(3)]),
    "empty": (lambda x: np.zeros_like(np.empty(3)) + x, [signed(3)]),
    "eye": (lambda x: np.eye(3)[1] * x, [signed(3)]),
    "identity": (lambda x: np.identity(3) @ x, [signed(3)]),
    "linspace": (lambda x: np.linspace(0.0, 1.0, 3) * x, [signed(3)]),
    "tri": (lambda x: np.tri(3) @ x, [signed(3)]),
    "logspace": (lambda x: np.logspace(0.0, 1.0, 3) * x, [signed(3)]),
    "finfo": (lambda x: x * np.finfo(x.dtype).eps * 1e12 + x * x, [signed(3)]),
    "iinfo": (lambda x: x * np.iinfo(np.int8).max, [signed(3)]),
    "diff": (lambda x: (np.diff(x) * x[:, 1:]).sum() + np.diff(x, n=2, axis=0) * x, [signed(3, 4)]),
    "nan_to_num": (lambda x: np.nan_to_num(x * 2.0) * x + np.nan_to_num(x, nan=1.0, posinf=2.0), [signed(3, 4)]),
    "pad": (lambda x: np.pad(x, ((1, 0), (0, 2)), constant_values=0.5) * 2.0 + np.pad(x, ((1, 0), (0, 2)), mode="edge") * x[0, 0],
            [signed(2, 3)]),
    **UFUNC_CASES,
    "clip": (lambda x, lo: np.clip(x, lo, 0.9) + np.clip(x, -0.7, 0.6), [signed(2, 3), signed(3)]),
    "argmax": (lambda x: x[np.argmax(np.sum(x, axis=1))] * 2.0, [signed(3, 4)]),
    "argmin": (lambda x: np.where(np.argmin(x, axis=0) > 0, x, 0.0), [signed(3, 4)]),
    "bincount": (lambda x: np.where(np.bincount(np.argmax(x, axis=1), minlength=4) > 0, x, 0.0), [signed(3, 4)]),
    "einsum": (lambda a, b, v: np.einsum("ij,jk->ik", a, b) + np.einsum("ij,j,jk->ik", a, v, b) + np.einsum("ij->", a),
               [signed(3, 4), signed(4, 2), signed(4)]),
    "inner": (lambda a, b: np.inner(a, b) * 2.0, [signed(3, 4), signed(2, 4)]),
    "tensordot": (lambda a, b: np.tensordot(a, b, axes=([1, 2], [0, 1])), [signed(2, 3, 4), signed(3, 4, 2)]),
    "trace": (lambda a: np.trace(a) * a, [signed(3, 3)]),
    "vstack": (lambda x, v: np.vstack([x, v, x]) * 2.0, [signed(2, 3), signed(3)]),
    "hstack": (lambda x, v: np.hstack((x, x)) + np.hstack([v, v]).sum(), [signed(2, 3), signed(3)]),
    "average": (lambda x: np.average(x, axis=0) * np.average(x), [signed(3, 4)]),
    "ravel": (lambda x: np.ravel(x) * 2.0, [signed(2, 3)]),
    "flatten": (lambda x: x.flatten() * x.ravel(), [signed(2, 3)]),
    "squeeze": (lambda x: np.squeeze(x, axis=0) * np.squeeze(x), [signed(1, 3)]),
    "expand_dims": (lambda x: np.expand_dims(x, (0, 2)) * 2.0, [signed(2, 3)]),
    "swapaxes": (lambda x: np.swapaxes(x, 0, 2) * np.swapaxes(x, 2, 0), [signed(2, 3, 4)]),
    "moveaxis": (lambda x: np.moveaxis(x, 0, -1) * 2.0, [signed(2, 3, 4)]),
    "prod": (lambda x: np.prod(x, axis=0) + np.prod(x), [signed(3, 4)]),
    "norm": (lambda x: np.linalg.norm(x) * np.linalg.norm(x, 1, axis=0) + np.linalg.norm(x, np.inf, axis=1, keepdims=True)
             + np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 3, axis=0) + np.linalg.norm(x, 1) + np.linalg.norm(x, -np.inf, (1, 0)),
             [signed(3, 4)]),
    "kron": (lambda a, b: np.kron(a, b) * 2.0 + np.kron(b[0], a).sum(), [signed(2, 3), signed(3, 2)]),
    "split": (lambda x: np.split(x, [1, 3], axis=1)[2] * 2.0 + np.split(x, 3)[0][:, :1] * np.split(x, 3)[2][:, 1:2],
              [signed(3, 4)]),
    "hsplit": (lambda x: np.hsplit(x, 2)[1] * np.hsplit(x[0], [1, 3])[1], [signed(3, 4)]),
    "vsplit": (lambda x: np.vsplit(x, [1])[1] * 3.0, [signed(3, 4)]),
    "array_split": (lambda x: np.array_split(x, 3, axis=1)[1] * np.array_split(x, 3, axis=1)[0], [signed(3, 4)]),
    "take_along_axis": (lambda x: np.take_along_axis(x, np.array([[0, 3, 3], [1, 1, 0], [2, 0, 0]]), axis=1) * 2.0, [signed(3, 4)]),
    "sort": (lambda x: np.sort(x, axis=0) * np.arange(4.0) + np.sort(x, axis=None, kind="stable")[:4], [signed(3, 4)]),
    "argsort": (lambda x: np.where(np.argsort(x, axis=1, kind="stable") > 1, x, 0.0), [signed(3, 4)]),
    "cumsum": (lambda x: np.cumsum(x, axis=0) * x + x.cumsum().reshape(3, 4), [signed(3, 4)]),
    "cumprod": (lambda x: np.cumprod(x, axis=1) + x.cumprod().reshape(3, 4) * 0.5, [signed(3, 4)]),
    "all": (lambda x: np.where(np.all(x > 0, axis=0), x, 0.0), [signed(3, 4)]),
    "any": (lambda x: np.where(np.any(x > 0, axis=0), x, 0.0), [signed(3, 4)]),
    "var": (lambda x: np.var(x, axis=0) + np.var(x, ddof=1), [signed(3, 4)]),
    "std": (lambda x: np.std(x, axis=1, keepdims=True) * np.std(x), [signed(3, 4)]),
    "flip": (lambda x: np.flip(x) * 2.0 + np.flip(x, 1), [signed(3, 4)]),
    "rot90": (lambda x: np.rot90(x) * np.rot90(x, -1) + np.rot90(x, 2).T, [signed(3, 4)]),
    "column_stack": (lambda x, v: np.column_stack([x, v]) * 2.0 + np.column_stack([v, v]).sum(), [signed(3, 2), signed(3)]),
    "dstack": (lambda x, y: np.dstack([x, y]) * np.dstack([y, x]), [signed(2, 3), signed(2, 3)]),
    "isclose": (lambda x: np.where(np.isclose(x, 0.5, atol=0.3), x, 0.0), [signed(3, 4)]),
    "fliplr": (lambda x: np.fliplr(x) * 2.0, [signed(3, 4)]),
    "flipud": (lambda x: np.flipud(x) * 2.0, [signed(3, 4)]),
    "roll": (lambda x: np.roll(x, 1, axis=1) * np.roll(x, -2), [signed(3, 4)]),
    "tile": (lambda x: np.tile(x, (2, 1, 2)) * 2.0, [signed(3, 4)]),
    "repeat": (lambda x: np.repeat(x, [1, 0, 2], axis=0) * 2.0 + np.repeat(x, 2)[:12].reshape(3, 4)[0], [signed(3, 4)]),
    "take": (lambda x: np.take(x, [[1, -1], [1, 0]], axis=1) * 2.0, [signed(3, 4)]),
    "triu": (lambda x: np.triu(x, 1) * 2.0, [signed(3, 4)]),
    "tril": (lambda x: np.tril(x) * 2.0, [signed(3, 4)]),
    "broadcast_to": (lambda x: np.broadcast_to(x, (2, 3, 4)) * 2.0, [signed(3, 4)]),
    "diagonal": (lambda x: np.diagonal(x, 1) * 2.0 + np.diagonal(x[None], -1, 2, 1)[0, :3], [signed(3, 4)]),
    "diag": (lambda x, v: np.diag(x, -1) * 2.0 + np.diag(v, 1)[:, :3].sum(0)[:2], [signed(3, 4), signed(3)]),
    "diagflat": (lambda x: np.diagflat(x, 1) * np.arange(25.0).reshape(5, 5), [signed(2, 2)]),
    "median": (lambda x: np.median(x, axis=1) * 2.0 + np.median(x) + np.median(x[:, :3], axis=1), [signed(3, 4)]),
    "quantile": (lambda x: np.quantile(x, [0.3, 0.9], axis=0) * 2.0 + np.quantile(x, 0.5), [signed(3, 4)]),
    "percentile": (lambda x: np.percentile(x, 25, axis=1, keepdims=True) * x + np.percentile(x, [10, 80]).sum(), [signed(3, 4)]),
    "nansum": (lambda x: np.nansum(x, axis=0) * 2.0 + np.nansum(x), [signed(3, 4)]),
    "nanmean": (lambda x: np.nanmean(x, axis=1, keepdims=True) * x + np.nanmean(x), [signed(3, 4)]),
    "nanmax": (lambda x: np.nanmax(x, axis=1) + np.nanmax(x), [signed(3, 4)]),
    "nanmin": (lambda x: np.nanmin(x, axis=0) * 2.0, [signed(3, 4)]),
    "nanargmax": (lambda x: x[np.nanargmax(np.sum(x, axis=1))] * 2.0, [signed(3, 4)]),
    "nanargmin": (lambda x: np.where(np.nanargmin(x, axis=0) > 0, x, 0.0), [signed(3, 4)]),
    "ptp": (lambda x: np.ptp(x, axis=0) * 2.0 + np.ptp(x), [signed(3, 4)]),
    "count_nonzero": (lambda x: np.where(np.count_nonzero(x > 0, axis=0) > 1, x, 0.0), [signed(3, 4)]),
    "allclose": (lambda x: x * np.allclose(x, 0.0, atol=5.0), [signed(3, 4)]),
    "array_equal": (lambda x: x * np.array_equal(x, x), [signed(3, 4)]),
    "atleast_1d": (lambda x: np.atleast_1d(np.sum(x)) * x, [signed(3, 4)]),
    "atleast_2d": (lambda x: np.atleast_2d(x[0]) * x, [signed(3, 4)]),
    "append": (lambda x, v: np.append(x, v) * 2.0 + np.append(x, x[:1], axis=0).sum(), [signed(2, 3), signed(3)]),
    "meshgrid": (lambda a, b: np.meshgrid(a, b)[0] * np.meshgrid(a, b, indexing="ij")[1].T, [signed(3), signed(2)]),
    "select": (lambda x, v: np.select([x > 0.9, x < -0.9], [x * 2.0, v], default=0.5) * x, [signed(3, 4), signed(4)]),
    "cross": (lambda a, b: np.cross(a, b) * 2.0, [signed(2, 3), signed(3)]),
    "searchsorted": (lambda x: np.where(np.searchsorted([-0.5, 0.0, 0.5], x) > 1, x, 0.0), [signed(3, 4)]),
    "digitize": (lambda x: np.where(np.digitize(x, [-1.0, 0.0, 1.0]) > 1, x, 0.0), [signed(3, 4)]),
    "isin": (lambda x: np.where(np.isin(np.argmax(x, axis=1), [0, 2]), x.sum(axis=1), 0.0), [signed(3, 4)]),
    "unravel_index": (lambda x: x[np.unravel_index(np.argmax(x), x.shape)] * x, [signed(3, 4)]),
    "solve": (lambda a, b: np.linalg.solve(a @ a.T + 3.0 * np.eye(3), b) + np.linalg.solve(a + 4.0 * np.eye(3), np.stack([b, b * b], axis=1)).sum(0)[0],
              [signed(3, 3), signed(3)]),
    "inv": (lambda a: np.linalg.inv(a @ a.T + 3.0 * np.eye(3)), [signed(3, 3)]),
    "det": (lambda a: np.linalg.det(a + 3.0 * np.eye(3)) * a, [signed(3, 3)]),
    "convolve": (lambda a, v: np.convolve(a, v) * 2.0 + np.convolve(v, a, "same").sum(), [signed(5), signed(3)]),
    "correlate": (lambda a, v: np.correlate(a, v, "full") + np.correlate(a, v).sum(), [signed(5), signed(3)]),
    "cov": (lambda x: np.cov(x) + np.cov(x, rowvar=False).sum(), [signed(3, 4)]),
    "corrcoef": (lambda x, v: np.corrcoef(x) * 2.0 + np.corrcoef(v, x[0]).sum(), [signed(3, 4), signed(4)]),
    "add.reduce": (lambda x: np.add.reduce(x) * 2.0 + np.add.reduce(x, axis=None), [signed(3, 4)]),
    "multiply.reduce": (lambda x: np.multiply.reduce(x, axis=1), [signed(3, 4)]),
    "maximum.reduce": (lambda x: np.maximum.reduce(x) * 2.0, [signed(3, 4)]),
    "minimum.reduce": (lambda x: np.minimum.reduce(x, axis=1, keepdims=True) * x, [signed(3, 4)]),
    "add.accumulate": (lambda x: np.add.accumulate(x) * x, [signed(3, 4)]),
    "multiply.accumulate": (lambda x: np.multiply.accumulate(x, axis=1) * 2.0, [signed(3, 4)]),
    **{f"{name}.outer": (lambda a, b, f=getattr(np, name): f.outer(a, b) * 2.0, [signed(3), signed(2, 2)])
       for name in ("add", "subtract", "multiply", "maximum", "minimum")},
    "interp": (lambda x, xp, fp: np.interp(x, xp, fp) * 2.0 + np.interp(x, xp, fp, left=0.0, right=1.0),
               [RNG.uniform(0.0, 6.0, 7), np.cumsum(positive(5)), signed(5)]),
    "sliding_window_view": (lambda x: np.lib.stride_tricks.sliding_window_view(x, (2, 3)).sum(axis=(2, 3)) * x[:2, :2], [signed(3, 4)]),
    **NN_CASES,  # the janus.nn entries
}

#: op-table entry -> a call in an argument form its ``mlir_vjp_limit`` excludes
LIMIT_CASES: dict[str, Case] = {**NN_LIMIT_CASES}
