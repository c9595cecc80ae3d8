"""1-d ``np.correlate`` and ``np.convolve`` (modes ``full``, ``same``, ``valid``): a gather
of the zero-padded signal's windows (static positions, an im2col) times the kernel, one
matrix-vector product (a reversed kernel reads the windows backwards instead).

Output ``k`` of the full correlation is ``sum_i a_pad[k + i] * v[i]`` (``a`` padded with
``m - 1`` zeros each side); ``same`` and ``valid`` are NumPy's windows of it (``_window``:
when ``v`` is the longer, NumPy swaps the operands and reverses, which is the mirrored
window). ``convolve`` is NumPy's own reduction to it: the longer operand first, the other
reversed. janus-autodiff differentiates the gather and the product.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from janus.frontend.emitter import Emitter
from janus.frontend.ops.op_table import result_dtype, shape_of
from janus.frontend.ops.registry import Args, Op, Spec, call, register
from janus.frontend.values import NotConvertible, Tensor

MODES = ("full", "same", "valid")


def _bind(default: str) -> Any:
    def bind(a: Any, v: Any, mode: str = default) -> Args:
        if mode not in MODES:
            raise NotConvertible(f"mode {mode!r} (NumPy raises on modes other than {MODES})")
        return {"a": a, "v": v, "mode": mode}

    return bind


def _window(n: int, m: int, mode: str) -> tuple[int, int]:
    """(first output, length) of ``mode`` within the full correlation of lengths ``n`` and ``m``."""
    full = n + m - 1
    if mode == "full":
        return 0, full
    big, small = max(n, m), min(n, m)
    length, start = (big, (small - 1) - small // 2) if mode == "same" else (big - small + 1, small - 1)
    return (start, length) if n >= m else (full - start - length, length)


def _operands(args: Args, convolve: bool) -> tuple[Any, Any, bool]:
    """(signal, kernel, whether the kernel is reversed) as NumPy's ``correlate`` sees them."""
    a, v = args["a"], args["v"]
    if convolve and shape_of(v)[0] > shape_of(a)[0]:
        a, v = v, a
    return a, v, convolve


def _rule(eager: Any, convolve: bool) -> Any:
    def rule(args: Args) -> Spec:
        a, v = args["a"], args["v"]
        if not any(isinstance(x, Tensor) for x in (a, v)) or len(shape_of(a)) != 1 or len(shape_of(v)) != 1:
            raise NotConvertible("convolve/correlate of two 1-d arrays, one traced (NumPy raises on other ranks)")
        n, m = shape_of(a)[0], shape_of(v)[0]
        if n == 0 or m == 0:
            raise NotConvertible("convolve/correlate of an empty array (NumPy raises)")
        dtype = result_dtype(eager, np.ones(1, _dtype(a)), np.ones(1, _dtype(v)))
        a, v, _ = _operands(args, convolve)
        return (_window(shape_of(a)[0], shape_of(v)[0], args["mode"])[1],), dtype

    return rule


def _dtype(x: Any) -> np.dtype:
    return x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype


def _positions(n: int, m: int, mode: str) -> np.ndarray:
    start, length = _window(n, m, mode)
    return start + np.arange(length)[:, None] + np.arange(m)[None, :]


def _lower(convolve: bool) -> Any:
    def lower(em: Emitter, args: Args, spec: Spec) -> Tensor:
        a, v, reverse = _operands(args, convolve)
        n, m = shape_of(a)[0], shape_of(v)[0]
        a, v = (call(em, "astype", x if isinstance(x, Tensor) else em.literal(np.asarray(x)), spec[1]) for x in (a, v))
        padded = call(em, "pad", a, (m - 1, m - 1))
        positions = _positions(n, m, args["mode"])
        return call(em, "matmul", call(em, "gather", padded, positions[:, ::-1] if reverse else positions), v)

    return lower


def _vjp(convolve: bool) -> Any:
    """The windows' adjoint: each output's cotangent times the kernel back at its positions,
    and the kernel's as the cotangent-weighted sum of the windows."""

    def vjp(g: np.ndarray, out: Any, args: Args) -> dict[str, Any]:
        a, v, reverse = _operands({"a": np.asarray(args["a"]), "v": np.asarray(args["v"])}, convolve)
        n, m = a.shape[0], v.shape[0]
        kernel = v[::-1] if reverse else v
        positions = _positions(n, m, args["mode"])
        d_padded = np.zeros(n + 2 * (m - 1), np.result_type(g, kernel))
        np.add.at(d_padded, positions, g[:, None] * kernel[None, :])
        d_kernel = g @ np.pad(a, (m - 1, m - 1))[positions]
        da, dv = d_padded[m - 1:m - 1 + n], d_kernel[::-1] if reverse else d_kernel
        swapped = convolve and np.shape(args["v"])[0] > np.shape(args["a"])[0]
        return {"a": dv, "v": da} if swapped else {"a": da, "v": dv}

    return vjp


register(
    Op("correlate", np.correlate, _bind("valid"), _rule(np.correlate, False), _lower(False), vjp=_vjp(False)),
    Op("convolve", np.convolve, _bind("full"), _rule(np.convolve, True), _lower(True), vjp=_vjp(True)),
)
