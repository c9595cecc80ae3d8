"""NumPy's floating-point error settings at a call (``np.seterr``, ``np.errstate``).

A compiled graph reports no floating-point errors: that is what ``"ignore"`` asks for, and
``"warn"`` differs only in a warning (not reproduced, as everywhere in compiled code). A
call made while a setting asks to ``"raise"`` or ``"call"`` must raise (or call) where
NumPy would, so it runs in Python (``JitFunction.__call__``). The settings live in a
context variable in NumPy 2: the last value seen to be harmless is remembered, so the
check per call is one lookup and an identity test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # NumPy 2: the settings object of the current context
    from numpy._core._ufunc_config import _extobj_contextvar as _SETTINGS
except ImportError:  # pragma: no cover - another NumPy: np.geterr() on every call
    _SETTINGS = None

#: settings under which a graph's silence is not what NumPy would do
OBSERVED = frozenset({"raise", "call"})
_harmless: list[Any] = [object()]  # the last settings object seen without an OBSERVED setting


def observed_test() -> tuple[str, dict[str, Any]]:
    """``errors_observed()`` as an expression for generated code (a fused call,
    ``guards.EntryGuards.fuse``), with the names it uses: the usual call, whose settings
    were seen harmless, decided without a function call."""
    names = {"errors_observed": errors_observed, "FP_SETTINGS": _SETTINGS, "FP_HARMLESS": _harmless}
    if _SETTINGS is None:
        return "errors_observed()", names
    return "(FP_SETTINGS.get() is not FP_HARMLESS[0] and errors_observed())", names


def errors_observed() -> bool:
    """Whether a floating-point error would raise or call a function under the current settings."""
    current = _SETTINGS.get() if _SETTINGS is not None else None
    if current is not None and current is _harmless[0]:
        return False
    observed = not OBSERVED.isdisjoint(np.geterr().values())
    if not observed and current is not None:
        _harmless[0] = current
    return observed
