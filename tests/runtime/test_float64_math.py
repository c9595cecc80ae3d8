"""float64 transcendentals on llvm-cpu: llvm-cpu calls libm for them (its polynomial
approximations are f32-only) and the embedded ELF has no libm, so such modules link as a
system library; what still fails is refused with IREE's own message."""

from __future__ import annotations

import numpy as np
import pytest

import janus
from janus.runtime import CompileError, CompiledModule, cache, compile_module
from janus.runtime.compiler import iree_compile
from janus.runtime.targets import get_target

OPS = {"tanh": np.tanh, "sin": np.sin, "cos": np.cos, "atan": np.arctan, "log10": np.log10}


def unary(op: str) -> str:
    return (f"func.func @f(%a: tensor<5xf64>) -> tensor<5xf64> {{\n  %0 = math.{op} %a : tensor<5xf64>\n"
            "  return %0 : tensor<5xf64>\n}\n")


@pytest.fixture(autouse=True)
def no_cache() -> None:
    cache.set_directory(None)
    yield
    cache.set_directory()


def test_float64_libm_ops_compile_and_match_numpy() -> None:
    text = "".join(unary(op).replace("@f", f"@{op}") for op in OPS)
    module = CompiledModule(compile_module(text))
    x = np.linspace(0.1, 3.0, 5)
    for op, fn in OPS.items():
        np.testing.assert_allclose(module[op](x), fn(x), rtol=1e-14)


def test_link_failure_reports_the_linker_message() -> None:
    flags = get_target("cpu").compile_flags()
    with pytest.raises(CompileError) as info:
        iree_compile(unary("tanh"), flags, (), "t.mlir")
    first = str(info.value).splitlines()[0]  # what janus.explain shows of a failed compile
    assert first.endswith("error: failed to link executable and generate target dylib: "
                          "iree-lld: undefined symbol: tanh"), first


def test_ops_iree_cannot_lower_are_refused_with_its_message() -> None:
    with pytest.raises(CompileError, match="failed to legalize operation 'math.erf'"):
        compile_module(unary("erf"))


def test_jitted_float64_tanh_runs_compiled() -> None:
    def f(x):
        return np.tanh(x) * 2.0

    x = np.linspace(-2.0, 2.0, 7)
    jf = janus.jit(f, warmup=1)
    jf(x)
    np.testing.assert_allclose(jf(x), f(x), rtol=1e-14)
    assert [v.calls for v in jf.versions.values()] == [1], janus.explain(jf)
