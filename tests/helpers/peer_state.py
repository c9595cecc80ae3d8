"""Comparing what a peer program leaves behind (``tests/helpers/peer_programs``): results
and the state reachable from them (object attributes, dicts, RNGs) against plain Python."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from tests.helpers import assert_same


def same_tree(got: Any, want: Any) -> None:
    """``assert_same`` through the attributes of plain objects too."""
    if hasattr(want, "__dict__") and not isinstance(want, (np.ndarray, np.generic, type)):
        assert type(got) is type(want)
        same_tree(vars(got), vars(want))
    elif isinstance(want, np.random.Generator):
        assert got.bit_generator.state == want.bit_generator.state
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            same_tree(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            same_tree(g, w)
    elif type(want) is float:  # a Python float from float32 work: its rounding, as for arrays
        assert type(got) is float and got == pytest.approx(want, rel=1e-5)
    else:
        assert_same(got, want)


def snapshot(module: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """Copies of a script's module-level state (its model and optimizer live in globals)."""
    return {name: copy.deepcopy(getattr(module, name)) for name in names}


def restore(module: Any, saved: dict[str, Any]) -> None:
    """Put ``saved`` back: arrays written into the very arrays (the script holds them), dicts refilled."""
    for name, value in saved.items():
        current = getattr(module, name)
        if isinstance(current, np.ndarray):
            np.copyto(current, value)
        elif isinstance(current, dict):
            current.clear()
            current.update(copy.deepcopy(value))
        else:
            setattr(module, name, copy.deepcopy(value))
