"""NumPy implementations and NumPy VJP rules of the ``janus.nn`` ops.

The implementations are what a plain Python call runs, the tracer's constant folder and
the oracle of every compiled test; the VJP rules (``vjp_numpy`` convention: cotangent,
result, bound arguments -> cotangent per argument name) drive the eager tape of
``janus.grad``. Ties of a max share the cotangent evenly, as ``np.max``'s rule and the
compiled rules (``janus/passes/autodiff/vjp_extremum.py``) do; ``relu`` sends it to ``x`` at 0,
as ``np.maximum(x, 0)`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

Args = dict[str, Any]


def pair(v: Any) -> tuple[int, int]:
    """An int or a pair of ints (stride, padding, kernel) as a pair."""
    return (v, v) if isinstance(v, (int, np.integer)) else tuple(v)  # type: ignore[return-value]


def check_indices(ids: Any, size: int, what: str) -> np.ndarray:
    """Integer class indices / ids in ``[0, size)`` (negative ones are an error, not wrapped)."""
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{what} must be an integer array, not {ids.dtype}")
    if ids.size and (ids.min() < 0 or ids.max() >= size):
        raise IndexError(f"{what} out of range [0, {size})")
    return ids


# ---- forward ------------------------------------------------------------------------------
def relu(x: Any) -> Any:
    return np.maximum(x, 0)


def sigmoid(x: Any) -> Any:
    return 1 / (1 + np.exp(-x))


def softmax(x: Any, axis: int = -1) -> Any:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: int = -1) -> Any:
    s = x - np.max(x, axis=axis, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


def cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean over the batch of ``-log_softmax(logits)[i, labels[i]]``; logits (N, C)."""
    logits = np.asarray(logits)
    labels = check_indices(labels, logits.shape[-1], "labels")
    if logits.ndim != 2 or labels.shape != logits.shape[:1]:
        raise ValueError(f"cross_entropy takes (N, C) logits and (N,) labels, not {logits.shape} and {labels.shape}")
    return -np.mean(log_softmax(logits)[np.arange(len(labels)), labels])


def embedding(table: Any, ids: Any) -> Any:
    """Rows of ``table`` (V, D) for each id: shape ``ids.shape + (D,)``."""
    table = np.asarray(table)
    return table[check_indices(ids, table.shape[0], "ids")]


def _windows(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int]) -> np.ndarray:
    """(N, C, OH, OW, KH, KW) view of the windows of an NCHW array."""
    return sliding_window_view(x, kernel, axis=(2, 3))[:, :, :: stride[0], :: stride[1]]


def _pad(x: np.ndarray, padding: tuple[int, int]) -> np.ndarray:
    return np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))


def conv2d(x: Any, w: Any, b: Any = None, stride: Any = 1, padding: Any = 0) -> Any:
    """Cross-correlation of NCHW ``x`` with FCHW ``w`` (zero padding), plus ``b`` (F,) per channel."""
    x, w = np.asarray(x), np.asarray(w)
    windows = _windows(_pad(x, pair(padding)), w.shape[2:], pair(stride))
    out = np.einsum("nchwkl,fckl->nfhw", windows, w)
    return out if b is None else out + np.asarray(b)[:, None, None]


def max_pool2d(x: Any, kernel: Any, stride: Any = None) -> Any:
    """Max over ``kernel`` windows of NCHW ``x``, ``stride`` defaulting to the kernel (no padding)."""
    x = np.asarray(x)
    return _windows(x, pair(kernel), pair(kernel if stride is None else stride)).max(axis=(-2, -1))


# ---- VJP rules ----------------------------------------------------------------------------
def relu_vjp(g: Any, out: Any, args: Args) -> Args:
    return {"x": g * (np.asarray(args["x"]) >= 0)}


def sigmoid_vjp(g: Any, out: Any, args: Args) -> Args:
    return {"x": g * out * (1 - out)}


def softmax_vjp(g: Any, out: Any, args: Args) -> Args:
    return {"x": out * (g - np.sum(g * out, axis=args["axis"], keepdims=True))}


def log_softmax_vjp(g: Any, out: Any, args: Args) -> Args:
    return {"x": g - np.exp(out) * np.sum(g, axis=args["axis"], keepdims=True)}


def cross_entropy_vjp(g: Any, out: Any, args: Args) -> Args:
    logits, labels = np.asarray(args["logits"]), np.asarray(args["labels"])
    d = softmax(logits)
    d[np.arange(len(labels)), labels] -= 1
    return {"logits": d * (g / len(labels)), "labels": None}


def embedding_vjp(g: Any, out: Any, args: Args) -> Args:
    """Scatter-add: an id used twice gets both rows' cotangents."""
    table = np.asarray(args["table"])
    d = np.zeros(table.shape, np.result_type(g))
    np.add.at(d, np.asarray(args["ids"]), g)
    return {"table": d, "ids": None}


def conv2d_vjp(g: Any, out: Any, args: Args) -> Args:
    x, w = np.asarray(args["x"]), np.asarray(args["w"])
    (sh, sw), (ph, pw) = pair(args["stride"]), pair(args["padding"])
    xp = _pad(x, (ph, pw))
    kh, kw = w.shape[2:]
    oh, ow = np.shape(g)[2:]
    dw = np.einsum("nchwkl,nfhw->fckl", _windows(xp, (kh, kw), (sh, sw)), g)
    dxp = np.zeros(xp.shape, np.result_type(g))
    for k in range(kh):
        for l in range(kw):
            dxp[:, :, k : k + sh * oh : sh, l : l + sw * ow : sw] += np.einsum("nfhw,fc->nchw", g, w[:, :, k, l])
    dx = dxp[:, :, ph : ph + x.shape[2], pw : pw + x.shape[3]]
    return {"x": dx, "w": dw, "b": None if args["b"] is None else np.sum(g, axis=(0, 2, 3))}


def max_pool2d_vjp(g: Any, out: Any, args: Args) -> Args:
    """Each window's cotangent shared evenly by the window's maxima."""
    x = np.asarray(args["x"])
    (kh, kw), (sh, sw) = pair(args["kernel"]), pair(args["kernel"] if args["stride"] is None else args["stride"])
    oh, ow = np.shape(out)[2:]
    windows = _windows(x, (kh, kw), (sh, sw))
    hits = windows == np.asarray(out)[..., None, None]
    share = np.asarray(g)[..., None, None] * hits / hits.sum(axis=(-2, -1), keepdims=True)
    dx = np.zeros(x.shape, np.result_type(g))
    for k in range(kh):
        for l in range(kw):
            dx[:, :, k : k + sh * oh : sh, l : l + sw * ow : sw] += share[..., k, l]
    return {"x": dx}
