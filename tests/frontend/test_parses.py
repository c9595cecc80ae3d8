"""One IR-building path: a jit compile parses the generated module text once (the
``canonicalize,cse`` a recursive module needs runs on that module inside the compile, not
through a print and parse of its own), and lowering an ``ir.Module`` never parses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import janus
from janus.frontend.jit import JitFunction
from janus.ir import ir, parse_module
from janus.runtime import compile_module
from tests.helpers import GUARD_PIPELINE, assert_same, module_path


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts ``ir.Module.parse`` is given from now on."""
    seen: list[str] = []
    parse = ir.Module.parse

    def counting(text: str, *args: Any, **kwargs: Any) -> ir.Module:
        seen.append(text)
        return parse(text, *args, **kwargs)

    monkeypatch.setattr(ir.Module, "parse", counting)
    return seen


def mlp_step(params: list, x: np.ndarray) -> np.ndarray:
    W1, b1, W2, b2 = params
    return np.tanh(x @ W1 + b1) @ W2 + b2


def fib(n: int) -> int:
    return 1 if n < 2 else fib(n - 1) + fib(n - 2)


def mlp_loss(params: list, x: np.ndarray) -> Any:
    y = mlp_step(params, x)
    return np.mean(y * y)


def compile_counting(jf: JitFunction, args: tuple, parses: list[str]) -> int:
    """The parses of ``jf``'s first call, which compiles it (a one-call warm-up)."""
    parses.clear()
    jf(*args)
    assert jf.versions and jf.warmup == 1, janus.explain(jf)
    return len(parses)


RNG = np.random.default_rng(0)
PARAMS = [RNG.standard_normal(s).astype(np.float32) for s in ((3, 8), (8,), (8, 2), (2,))]
X = RNG.standard_normal((4, 3)).astype(np.float32)


def test_an_mlp_step_is_parsed_once(parses: list[str]) -> None:
    jf = janus.jit(mlp_step, warmup=1)
    assert compile_counting(jf, (PARAMS, X), parses) == 1
    assert_same(jf(PARAMS, X), mlp_step(PARAMS, X))


def test_a_recursive_function_is_parsed_once(parses: list[str]) -> None:
    jf = janus.jit(fib, warmup=1)
    assert compile_counting(jf, (12,), parses) == 1
    assert_same(jf(15), fib(15))


def test_a_gradient_is_parsed_once(parses: list[str]) -> None:
    # the frontend's text only: janus-autodiff builds its gradient functions in memory
    assert compile_counting(janus.jit(janus.grad(mlp_loss, warmup=1)), (PARAMS, X), parses) == 1


def test_lowering_a_module_does_not_parse(parses: list[str]) -> None:
    module = parse_module(module_path("guards").read_text())
    parses.clear()
    compile_module(module, pipeline=GUARD_PIPELINE)
    assert parses == []
