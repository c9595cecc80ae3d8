"""Shared test helpers: every compiled result is checked against the same function run
imperatively; the shared test modules (tests/modules/*.mlir) and how to compile them."""

from __future__ import annotations

from typing import Any, Callable

from pathlib import Path

import numpy as np

import janus
from janus.frontend.jit import JitFunction
from janus.runtime import Artifact, compile_module

MODULES = Path(__file__).parent.parent / "modules"

#: Passes that suffice for modules without heap access or calls.
GUARD_PIPELINE = "janus-verify,janus-lower-guards,canonicalize,cse,janus-check-iree-ready"


def module_path(name: str) -> Path:
    return MODULES / f"{name}.mlir"


def compile_test_module(name: str, target: str = "cpu", pipeline: str = GUARD_PIPELINE) -> Artifact:
    path = module_path(name)
    return compile_module(path.read_text(encoding="utf-8"), target, pipeline=pipeline, filename=str(path))


def assert_same(got: Any, want: Any) -> None:
    """Same structure, types, dtypes and values (rtol 1e-5, as float32 allows)."""
    if isinstance(want, dict):
        assert type(got) is dict and list(got) == list(want), (got, want)
        for k in want:
            assert_same(got[k], want[k])
        return
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    else:
        assert got == want


def in_python(jf: JitFunction) -> bool:
    """Whether what ``jf`` cannot convert runs in Python: no compiled version, or each one
    ends at a segment boundary (co-execution) with the operation run in Python."""
    return all(version.graph.boundary is not None for version in jf.versions.values())


def compiled(fn: Callable, *args: Any, warmup: int = 1) -> JitFunction:
    """``fn`` jitted and warmed up on ``args``; fails (with the report) unless it compiled."""
    jf = janus.jit(fn, warmup=warmup)
    for _ in range(warmup):
        assert_same(jf(*args), fn(*args))
    assert jf.versions, janus.explain(jf)
    return jf


def check_compiled(fn: Callable, *args: Any) -> JitFunction:
    """Compile ``fn`` on ``args``, then check one compiled call against NumPy."""
    jf = compiled(fn, *args)
    (version,) = jf.versions.values()
    assert_same(jf(*args), fn(*args))
    assert version.calls == 1
    return jf


def rand(*shape: int, dtype: Any = np.float32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + len(shape) * 7 + sum(shape))
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    return rng.integers(-5, 6, shape).astype(dtype)


def with_print(x):
    """A call that runs wholly in Python: a print while a view of the argument is live (no
    segment boundary there: Python shares the buffer, two graph inputs could not)."""
    head = x[:1]
    print("side effect")
    return x + head
