"""The NumPy conformance suite, generated from the op table: call forms of every NumPy
entry (each ufunc on one and two operands and a Python scalar, each operator, each
array method, and written forms for the rest), run on a few dtypes, values and dtypes
compared with NumPy. Forms are batched into few jitted functions per dtype group.

A form the graph generator refuses (``NotConvertible``, found by tracing alone, no IREE)
is a listed gap with its reason; a form NumPy itself rejects for a dtype is not a form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from janus.frontend.generate import generate
from janus.frontend.ops.registry import METHODS, OPERATORS, OPS, Op
from janus.frontend.profiler import Profile
from janus.frontend.values import NotConvertible

#: results per inner tuple (CPython builds a longer one with LIST_TO_TUPLE) and per jitted function
TUPLE, BATCH = 24, 96
#: ops tested elsewhere: the ``janus.nn`` entries (tests/frontend/ops/test_nn.py)
NN_MODULE = "janus.frontend.ops.nn_ops"


def _inputs(dtype: str) -> dict[str, np.ndarray]:
    """x: (3, 4) with -0.0, NaN and inf among normal values (floats); y: (4,), nonzero-free
    ints with 0 and -1 (integer division by zero and MIN // -1)."""
    rng = np.random.default_rng(3)
    if dtype == "bool":
        return {"x": rng.random((3, 4)) > 0.5, "y": rng.random(4) > 0.5}
    if dtype == "int64":
        x = rng.integers(-9, 10, (3, 4))
        x[0, 0] = np.iinfo(np.int64).min
        return {"x": x, "y": np.array([0, -1, 3, -4])}
    x = rng.standard_normal((3, 4)).astype(dtype)
    x[0, :3] = [-0.0, np.nan, np.inf]
    return {"x": x, "y": np.array([0.0, -1.5, 0.7, 2.0], dtype)}


GROUPS = {name: _inputs(name) for name in ("float32", "float64", "int64", "bool")}

#: written forms of the entries that are not ufuncs, operators or argument-free methods
WRITTEN: dict[str, list[str]] = {
    "where": ["np.where(x > 0, x, y)", "np.where(x, 1, 0)"],
    "sum": ["np.sum(x, axis=0)", "x.sum(axis=-1, keepdims=True)", "np.sum(x, axis=(0, 1))"],
    "mean": ["np.mean(x, axis=1)", "x.mean(0, keepdims=True)"],
    "max": ["np.max(x, axis=0)", "np.amax(x, axis=1, keepdims=True)"],
    "min": ["np.min(x, axis=1)", "np.amin(x)"],
    "matmul": ["x @ x.T", "np.matmul(x, y)", "x[None] @ np.stack([x.T, x.T])", "y @ np.stack([x.T, -x.T])",
               "np.stack([x, x]) @ np.stack([x.T, x.T])"],
    "bincount": ["np.bincount(np.argmax(x, axis=1), minlength=4)", "np.bincount(x.ravel() > 0, minlength=3)"],
    "dot": ["np.dot(x, y)", "x.dot(x.T)"],
    "outer": ["np.outer(x, y)"],
    "transpose": ["np.transpose(x)", "x.transpose(1, 0)"],
    "reshape": ["x.reshape(-1)", "np.reshape(x, (4, 3))"],
    "astype": ["x.astype(np.float64)", "x.astype(np.int64)", "x.astype(bool)"],
    "concatenate": ["np.concatenate([x, x], axis=1)", "np.concatenate((x, x * 2))"],
    "stack": ["np.stack([y, y], axis=1)"],
    "array": ["np.array([y, y * 2])", "np.array([[x[0, 0], -x[1, 1]], [x[1, 1], x[0, 0]]])", "np.array([[y, y], (y, y)])",
              "np.array([[x[0, 0], 1], [2, x[2, 3]]])"],
    "getitem": ["x[1:, ::2]", "x[..., 1]", "x[None, 2]"],
    "mask_read": ["x[x > 0]", "y[y != 0]", "x[x[:, 0] > 0]", "x[np.isnan(x)]", "x[x > 100]"],
    "gather": ["x[[0, 2, 0]]", "y[np.array([3, 1])]", "x[:, [0, 2, 0]]", "x[None][:, 1, np.array([[3], [0]])]", "x[:, range(1, 3)]"],
    "copy": ["np.copy(x)"],
    "zeros_like": ["np.zeros_like(x)"],
    "ones_like": ["np.ones_like(x, dtype=np.float32)"],
    "full_like": ["np.full_like(x, 2)"],
    "empty_like": ["np.zeros_like(np.empty_like(x)) + x", "np.empty_like(x).shape[0] + y"],
    "pad": ["np.pad(x, 1)", "np.pad(x, ((1, 0), (0, 2)), constant_values=3)", "np.pad(x, 1, mode='edge')",
            "np.pad(x, ((2, 0), (0, 3)), 'edge')", "np.pad(y, (0, 2), mode='edge')"],
    "round": ["np.round(x)", "np.around(y)", "x.round()"],
    "flatten": ["x.flatten()", "x[:, 1:].flatten()"],
    "ravel": ["np.ravel(x)"],
    "average": ["np.average(x)", "np.average(x, axis=1, keepdims=True)"],
    "vstack": ["np.vstack([x, y])", "np.vstack((y, y * 2))"],
    "hstack": ["np.hstack([x, x[:, :1]])", "np.hstack((y, y, x[0]))", "np.hstack([y, 2])"],
    "einsum": ['np.einsum("ij,j->i", x, y)', 'np.einsum("ij,kj->ik", x, x)', 'np.einsum("ij,ij,j->", x, x, y)',
               'np.einsum("ji", x)', 'np.einsum("i,j", y, y)', 'np.einsum("ii->i", x[:, :3])'],
    "inner": ["np.inner(x, y)", "np.inner(x, x)", "np.inner(y, y)"],
    "tensordot": ["np.tensordot(x, x, axes=([1], [1]))", "np.tensordot(x, y, 1)", "np.tensordot(x, x)"],
    "trace": ["np.trace(x)", "x[:, :3].trace()", "np.trace(x[None], axis1=1, axis2=2)"],
    "clip": ["np.clip(x, -0.5, y)", "x.clip(-1, 1)", "np.clip(x, a_min=0, a_max=0)"],
    "argmax": ["np.argmax(x)", "x.argmax(axis=0)", "np.argmax(x, axis=1, keepdims=True)"],
    "argmin": ["np.argmin(x, axis=0)", "x.argmin()", "np.argmin(y, keepdims=True)"],
    "squeeze": ["np.squeeze(x[None, :, None])", "x[:1].squeeze(axis=0)"],
    "expand_dims": ["np.expand_dims(x, 1)", "np.expand_dims(y, (0, 2))"],
    "swapaxes": ["np.swapaxes(x, 0, 1)", "x[None].swapaxes(2, 0)"],
    "moveaxis": ["np.moveaxis(x[None], 0, -1)", "np.moveaxis(x[None], (0, 1), (2, 0))"],
    "prod": ["np.prod(x, axis=0)", "x.prod(axis=1, keepdims=True)", "np.prod(y)"],
    "all": ["np.all(x, axis=0)", "x.all()"],
    "any": ["np.any(x, axis=1, keepdims=True)", "y.any()"],
    "var": ["np.var(x, axis=0)", "x.var(ddof=1)", "np.var(y, keepdims=True)"],
    "std": ["np.std(x, axis=1)", "x.std(ddof=1, keepdims=True)", "np.std(y)"],
    "flip": ["np.flip(x)", "np.flip(x, 1)", "np.flip(y, axis=(0,))"],
    "rot90": ["np.rot90(x)", "np.rot90(x, 2)", "np.rot90(x, -1)", "np.rot90(x, 3, axes=(1, 0))", "np.rot90(x[None], 1, (0, 2))"],
    "column_stack": ["np.column_stack([y, y * 2])", "np.column_stack((x, x[:, :1]))", "np.column_stack([x[:, 0], x])"],
    "dstack": ["np.dstack([x, x])", "np.dstack((y, y))", "np.dstack([x[0], y])"],
    "isclose": ["np.isclose(x, y)", "np.isclose(x, x + 1e-7)", "np.isclose(x, 2, rtol=0.5)", "np.isclose(x, x, equal_nan=True)",
                "np.isclose(y, x, atol=0.1)"],
    "fliplr": ["np.fliplr(x)"],
    "flipud": ["np.flipud(x)"],
    "roll": ["np.roll(x, 1)", "np.roll(x, -1, axis=1)", "np.roll(x, (1, 2), axis=(0, 1))", "np.roll(y, 6)"],
    "tile": ["np.tile(y, 2)", "np.tile(x, (2, 1, 2))"],
    "repeat": ["np.repeat(x, 2)", "np.repeat(x, [1, 0, 2], axis=0)", "np.repeat(y, 2, axis=-1)", "x.repeat(2, axis=0)"],
    "take": ["np.take(x, [2, 0, 2])", "np.take(x, [[1, -1], [0, 0]], axis=1)", "np.take(y, 3)", "x.take([2, 0], axis=1)", "y.take(1)"],
    "triu": ["np.triu(x)", "np.triu(x, 1)", "np.triu(x[None], -1)"],
    "tril": ["np.tril(x)", "np.tril(x, -1)", "np.tril(x, 2)"],
    "broadcast_to": ["np.broadcast_to(y, (3, 4))", "np.broadcast_to(x[:, :1], (2, 3, 4))"],
    "diagonal": ["np.diagonal(x)", "np.diagonal(x, 1)", "np.diagonal(x, -2)", "np.diagonal(x[None], 0, 2, 1)", "np.diagonal(x, 5)", "x.diagonal(1)"],
    "diag": ["np.diag(x)", "np.diag(x, 2)", "np.diag(y)", "np.diag(y, -1)", "np.diag(y, 2)"],
    "diagflat": ["np.diagflat(y)", "np.diagflat(x, 1)", "np.diagflat(y[:, None], -2)", "np.diagflat(x[0, 0])"],
    "invert": ["~x", "~y"],
    "sort": ["np.sort(np.where(x == x, x, 1.0) + 0.0, axis=0)", "np.sort(x, kind='stable')", "np.sort(x, axis=None, stable=True)"],
    "argsort": ["np.argsort(y * 0 + np.array([3, 0, 2, 1]))", "np.argsort(x, kind='stable')", "np.argsort(x, axis=0, kind='mergesort')",
                "x.argsort(axis=None, kind='stable')"],
    "take_along_axis": ["np.take_along_axis(x, np.argmax(x, axis=1, keepdims=True), axis=1)",
                        "np.take_along_axis(x, np.array([[0], [3], [-1]]), 1)", "np.take_along_axis(x, np.array([[2, 0, 1, 1]]), axis=0)",
                        "np.take_along_axis(y, np.array([3, 0, 0]), 0)", "np.take_along_axis(x[:, :1], np.zeros((3, 2), int), axis=0)"],
    "split": ["np.split(x, 2, axis=1)[1]", "np.split(x, [1, 3], axis=1)[2]", "np.split(x, [2, 1])[1]", "np.split(y, 4)[3]"],
    "hsplit": ["np.hsplit(x, 2)[1]", "np.hsplit(y, [1, 3])[1]"],
    "vsplit": ["np.vsplit(x, [1])[1]", "np.vsplit(x, 3)[2]"],
    "array_split": ["np.array_split(y, 3)[0]", "np.array_split(x, 3, axis=-1)[2]", "np.array_split(x, 5)[4]"],
    "norm": ["np.linalg.norm(x)", "np.linalg.norm(x, axis=1)", "np.linalg.norm(x, 1)", "np.linalg.norm(x, np.inf, keepdims=True)",
             "np.linalg.norm(y, -np.inf)", "np.linalg.norm(y, 0)", "np.linalg.norm(x, 3, axis=0)", "np.linalg.norm(x, 'fro')",
             "np.linalg.norm(x, -1, axis=(1, 0))", "np.linalg.norm(x, 2, axis=1, keepdims=True)"],
    "kron": ["np.kron(x, y)", "np.kron(y, x[:2])", "np.kron(x, np.eye(2))", "np.kron([1, 2], y)", "np.kron(y, 2.0)"],
    "cumsum": ["np.cumsum(x)", "np.cumsum(x, axis=0)", "x.cumsum(1)", "np.cumsum(y, dtype=np.float32)", "np.cumsum(x[:, :0], 1)"],
    "cumprod": ["np.cumprod(x, axis=-1)", "x.cumprod()", "np.cumprod(y, 0)"],
    "power": ["x ** 2", "x ** 3", "y ** 0", "x ** -1", "2 ** y", "np.power(x, 0.5)"],
    "diff": ["np.diff(x)", "np.diff(x, axis=0)", "np.diff(x, n=2)", "np.diff(y, 3)", "np.diff(x, n=0)"],
    "nan_to_num": ["np.nan_to_num(x)", "np.nan_to_num(x, nan=-1.0, posinf=5.0)", "np.nan_to_num(y, neginf=-7.0)"],
    "median": ["np.median(x)", "np.median(x, axis=1)", "np.median(y, keepdims=True)", "np.median(x[:, :3], axis=0, keepdims=True)"],
    "quantile": ["np.quantile(x, 0.3, axis=0)", "np.quantile(np.where(x < -100, x, -x), 0.3, axis=0)", "np.quantile(y, [0.1, 0.5, 1.0])", "np.quantile(x, 1)", "np.quantile(y, 0.25, keepdims=True)"],
    "percentile": ["np.percentile(x, 90, axis=1, keepdims=True)", "np.percentile(y, [25, 75])", "np.percentile(x, 50.0)"],
    "nansum": ["np.nansum(x)", "np.nansum(x, axis=1)", "np.nansum(y, keepdims=True)"],
    "nanmean": ["np.nanmean(x, axis=0, keepdims=True)", "np.nanmean(y)", "np.nanmean(x, axis=1)"],
    "nanmax": ["np.nanmax(x, axis=1)", "np.nanmax(y)", "np.nanmax(np.where(x > 100, np.nan, x + 1), axis=0)"],
    "nanmin": ["np.nanmin(x)", "np.nanmin(x, axis=0, keepdims=True)"],
    "nanargmax": ["np.nanargmax(x, axis=1)", "np.nanargmax(y)"],
    "nanargmin": ["np.nanargmin(x, axis=0)", "np.nanargmin(y, keepdims=True)"],
    "ptp": ["np.ptp(x, axis=0)", "np.ptp(y)", "np.ptp(x, axis=1, keepdims=True)"],
    "count_nonzero": ["np.count_nonzero(x)", "np.count_nonzero(x > 0, axis=1)", "np.count_nonzero(y, keepdims=True, axis=0)"],
    "allclose": ["np.allclose(x, x + 1e-9)", "np.allclose(x, y)", "np.allclose(y, 0.7, atol=2.0)", "np.allclose(x, x, equal_nan=True)"],
    "array_equal": ["np.array_equal(x, x)", "np.array_equal(x, y)", "np.array_equal(y, y * 1)", "np.array_equal(x, x, equal_nan=True)"],
    "atleast_1d": ["np.atleast_1d(x.sum())", "np.atleast_1d(y) * 2"],
    "atleast_2d": ["np.atleast_2d(y)", "np.atleast_2d(x) + 1", "np.atleast_2d(y.max())"],
    "append": ["np.append(x, y)", "np.append(y, 1)", "np.append(x, x[:1], axis=0)", "np.append(y, [2, 3])"],
    "meshgrid": ["np.meshgrid(y, x[0, :3])[0]", "np.meshgrid(y, x[0], indexing='ij')[1]", "np.meshgrid(y)[0]"],
    "select": ["np.select([x > 0, x < -1], [x, x * 2])", "np.select([y > 0], [y], default=-1)", "np.select([x > 0], [y], 5)"],
    "cross": ["np.cross(x[:, :3], y[:3])", "np.cross(y[1:], y[:3])"],
    "searchsorted": ["np.searchsorted(np.sort(y), x)", "np.searchsorted(np.sort(y), x, side='right')", "np.searchsorted([0, 1, 2], y)",
                     "np.searchsorted(np.cumsum(np.abs(y)), 2)"],
    "digitize": ["np.digitize(x, np.linspace(-2, 2, 5))", "np.digitize(x, [3, 1, 0], right=True)", "np.digitize(y, np.sort(y))"],
    "isin": ["np.isin(x, y)", "np.isin(y, [1, 2, 0], invert=True)"],
    "unravel_index": ["np.unravel_index(np.argmax(np.abs(y)), (2, 2))[0]", "np.unravel_index(np.argmin(x, axis=0) + 8, (3, 4), order='F')[1]",
                      "np.unravel_index(np.argmin(x, axis=1) + 4, (3, 4))[0]"],
    "solve": ["np.linalg.solve(np.eye(3) * 4 + np.outer(y[:3], y[1:]), y[:3])",
              "np.linalg.solve(np.eye(4) * 3 + np.outer(y, y), np.stack([y, y * 2], axis=1))"],
    "inv": ["np.linalg.inv(np.eye(4) * 3 + np.outer(y, y))", "np.linalg.inv(np.diag(y) + np.eye(4) * 5)"],
    "det": ["np.linalg.det(np.eye(4) * 3 + np.outer(y, y))", "np.linalg.det(np.outer(y, y)[1:, 1:] + np.diag(y[1:]))"],
    "convolve": ["np.convolve(x[0], y)", "np.convolve(y, x[1, :3], 'same')", "np.convolve(x[2], y[:2], mode='valid')",
                 "np.convolve(y, [0.25, 0.5, 0.25], 'same')"],
    "correlate": ["np.correlate(x[0], y[:3])", "np.correlate(y, x[2], 'full')", "np.correlate(x[2], [1, 0.5], 'same')"],
    "cov": ["np.cov(x[1:])", "np.cov(x[1:], rowvar=False)", "np.cov(y)", "np.cov(y, x[0])", "np.cov(x, bias=True)"],
    "corrcoef": ["np.corrcoef(x[1:])", "np.corrcoef(y, x[2])", "np.corrcoef(x[1:].T, rowvar=False)"],
    "add.reduce": ["np.add.reduce(x)", "np.add.reduce(x, axis=1, keepdims=True)", "np.add.reduce(y, axis=None)"],
    "multiply.reduce": ["np.multiply.reduce(x, axis=None)", "np.multiply.reduce(y)"],
    "maximum.reduce": ["np.maximum.reduce(x)", "np.maximum.reduce(x, axis=1)"],
    "minimum.reduce": ["np.minimum.reduce(y)", "np.minimum.reduce(x, axis=-1, keepdims=True)"],
    "add.accumulate": ["np.add.accumulate(x)", "np.add.accumulate(x, axis=1)"],
    "multiply.accumulate": ["np.multiply.accumulate(y)", "np.multiply.accumulate(x, 1)"],
    "add.outer": ["np.add.outer(y, x[0])", "np.add.outer(2.5, y)"],
    "subtract.outer": ["np.subtract.outer(x[0], 2)", "np.subtract.outer(y, y)"],
    "multiply.outer": ["np.multiply.outer(x, y)"],
    "maximum.outer": ["np.maximum.outer(y, y)"],
    "minimum.outer": ["np.minimum.outer(y, x[1])"],
    "interp": ["np.interp(x, np.cumsum(np.abs(y) + 1), y * 2)", "np.interp(y, [-1.0, 0.0, 2.0], [0.0, 1.0, -1.0])", "np.interp(2.5, np.arange(4.0), y)",
               "np.interp(x, np.linspace(-2, 2, 5), np.arange(5.0), left=-7.0, right=9)"],
    "sliding_window_view": ["np.lib.stride_tricks.sliding_window_view(y, 3)", "np.lib.stride_tricks.sliding_window_view(x, (2, 2))",
                            "np.lib.stride_tricks.sliding_window_view(x, 2, axis=0).sum(-1)"],
}
#: folded creation functions: the form adds the constant to a traced operand
CREATION: dict[str, str] = {
    "zeros": "np.zeros(4)", "ones": "np.ones((3, 4))", "full": "np.full(4, 2)", "arange": "np.arange(4)",
    "empty": "np.zeros_like(np.empty(4))", "eye": "np.eye(3, 4)", "identity": "np.identity(4)[1]",
    "linspace": "np.linspace(0, 1, 4)", "tri": "np.tri(3, 4)", "finfo": "np.finfo(np.float32).eps",
    "iinfo": "np.iinfo(np.int8).max", "logspace": "np.logspace(0, 1, 4)",
}


@dataclass
class Form:
    op: str
    source: str
    group: str


def forms_of(op: Op) -> list[str]:
    """The call forms of ``op``: written ones, its ufunc calls, operators and methods."""
    forms = list(WRITTEN.get(op.name, []))
    if op.name in CREATION:
        forms.append(f"x + {CREATION[op.name]}")
    if isinstance(op.eager, np.ufunc) and op.eager is getattr(np, op.eager.__name__, None):
        name = op.eager.__name__
        forms += [f"np.{name}(x)"] if op.eager.nin == 1 else [f"np.{name}(x, y)", f"np.{name}(x, 2)", f"np.{name}(3, y)"]
    forms += [f"x {symbol} y" for symbol, o in OPERATORS.items() if o is op]
    forms += [f"x.{method}()" for method, (o, _) in METHODS.items() if o is op and op.name not in WRITTEN]
    return forms


def numpy_accepts(source: str, inputs: dict[str, np.ndarray]) -> bool:
    try:
        with np.errstate(all="ignore"):
            evaluate(source, inputs)
    except (TypeError, ValueError):
        return False
    return True


def evaluate(source: str, inputs: dict[str, np.ndarray]) -> Any:
    return eval(source, {"np": np}, dict(inputs))


def function(sources: list[str]) -> Callable[..., tuple]:
    """``def f(x, y): return ((form, ...), ...)`` with ``np`` its only global."""
    chunks = [f"({', '.join(sources[i : i + TUPLE])},)" for i in range(0, len(sources), TUPLE)]
    namespace: dict[str, Any] = {"np": np}
    exec(f"def conformance(x, y):\n    return ({', '.join(chunks)},)\n", namespace)
    return namespace["conformance"]


def flat(results: tuple) -> list[Any]:
    return [r for chunk in results for r in chunk]


def why_not_traced(source: str, inputs: dict[str, np.ndarray]) -> str | None:
    """The graph generator's reason for refusing ``source`` on ``inputs`` (None: it traces)."""
    try:
        generate(function([source]), (inputs["x"], inputs["y"]), Profile())
    except NotConvertible as e:
        return str(e)
    return None


def numpy_ops() -> list[Op]:
    """The NumPy entries (the ``janus.nn`` ones have their own suite)."""
    return [op for op in OPS.values() if op.lower.__module__ != NN_MODULE and op.rule.__module__ != NN_MODULE]


def plan() -> tuple[dict[str, list[Form]], list[tuple[Form, str]]]:
    """(forms that trace, by dtype group; forms that do not, with the reason)."""
    traced: dict[str, list[Form]] = {group: [] for group in GROUPS}
    gaps: list[tuple[Form, str]] = []
    for op in numpy_ops():
        for source in forms_of(op):
            for group, inputs in GROUPS.items():
                if not numpy_accepts(source, inputs):
                    continue
                form = Form(op.name, source, group)
                reason = why_not_traced(source, inputs)
                if reason is None:
                    traced[group].append(form)
                else:
                    gaps.append((form, reason))
    return traced, gaps


def batches(forms: list[Form]) -> list[list[Form]]:
    return [forms[i : i + BATCH] for i in range(0, len(forms), BATCH)]
