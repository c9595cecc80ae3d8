"""Comparing what a peer program leaves behind (``tests/helpers/peer_programs``): results
and the state reachable from them (object attributes, dicts, RNGs) against plain Python."""

from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np
import pytest

import janus
from janus.frontend.jit import CHEAPER_IN_PYTHON, JitFunction
from tests.helpers import assert_same


def assert_compiled(jf: JitFunction) -> None:
    """Versions with no segment boundary ran compiled calls; nothing ran in Python."""
    assert jf.versions and not jf.fallbacks, janus.explain(jf)
    assert all(v.graph.boundary is None for v in jf.versions.values()), janus.explain(jf)
    assert sum(v.calls for v in jf.versions.values()) >= 1, janus.explain(jf)


def assert_split(jf: JitFunction, operation: str) -> None:
    """A version ending at ``operation`` (run in Python between compiled segments) ran compiled
    calls, and what follows each boundary is compiled too, unless it does no array work."""
    versions = [v for v in jf.versions.values() if v.graph.boundary is not None and v.calls >= 1]
    assert versions and not jf.fallbacks, janus.explain(jf)
    assert f"python: {operation} at" in janus.explain(jf)
    for version in jf.split_versions():
        assert set(version.resume.fallbacks.values()) <= {CHEAPER_IN_PYTHON}, janus.explain(jf)


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


def lockstep(entry: Callable, make: Callable[[], Any], calls: list[tuple], fallback: str = "warn") -> Any:
    """``entry`` jitted on one object and plain on another made alike, call by call: results and
    object state the same after each; the jitted function."""
    jf = janus.jit(entry, warmup=1, fallback=fallback)
    jitted, plain = make(), make()
    for args in calls:
        same_tree(jf(jitted, *copy.deepcopy(args)), entry(plain, *copy.deepcopy(args)))
        same_tree(jitted, plain)
    return jf
