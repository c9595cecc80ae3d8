"""Agreement of a compiled run with the plain Python run (the oracle).

Structures, types, dtypes, shapes, integers and booleans must be equal; floating-point
arrays and scalars agree when |got - want| <= rtol * |want| + atol * max(1, max |want|)
elementwise: float32 work summed in another order differs in the last bits, and the
scale term keeps a tolerance meaningful for parameters of any magnitude.
"""

from __future__ import annotations

from typing import Any

import numpy as np

RTOL, ATOL = 1e-4, 1e-5


def differences(got: Any, want: Any, where: str = "", rtol: float = RTOL, atol: float = ATOL) -> list[str]:
    """Where ``got`` and ``want`` disagree, one line each (empty: they agree)."""
    if type(got) is not type(want):
        return [f"{where or 'value'}: {type(got).__name__} instead of {type(want).__name__}"]
    if isinstance(want, dict):
        if got.keys() != want.keys():
            return [f"{where}: keys {sorted(got)} instead of {sorted(want)}"]
        return [d for k in want for d in differences(got[k], want[k], f"{where}.{k}" if where else str(k), rtol, atol)]
    if isinstance(want, (list, tuple)):
        if len(got) != len(want):
            return [f"{where}: length {len(got)} instead of {len(want)}"]
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in differences(g, w, f"{where}[{i}]", rtol, atol)]
    if isinstance(want, (np.ndarray, np.generic)):
        if got.dtype != want.dtype or np.shape(got) != np.shape(want):
            return [f"{where}: {got.dtype}{list(np.shape(got))} instead of {want.dtype}{list(np.shape(want))}"]
        if want.dtype.kind != "f":
            return [] if np.array_equal(got, want) else [f"{where}: values differ"]
        return _float_difference(np.asarray(got), np.asarray(want), where, rtol, atol)
    if isinstance(want, float):
        return _float_difference(np.asarray(got), np.asarray(want), where, rtol, atol)
    return [] if got == want else [f"{where}: {got!r} instead of {want!r}"]


def _float_difference(got: np.ndarray, want: np.ndarray, where: str, rtol: float, atol: float) -> list[str]:
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0))) if np.all(np.isfinite(want)) else 1.0
    if np.allclose(got, want, rtol=rtol, atol=atol * scale, equal_nan=True):
        return []
    error = float(np.max(np.abs(got.astype(np.float64) - want)))
    return [f"{where}: max abs difference {error:.3g} (max |want| {scale:.3g})"]
