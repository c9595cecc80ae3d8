"""Data tiling chosen per module from its matmul shapes, and the data-tiled module's answers."""

from __future__ import annotations

import numpy as np
import pytest

from janus.ir import parse_module
from janus.runtime.artifact import Artifact
from janus.runtime.compiler import compile_tuned, module_flags, public_functions
from janus.runtime.contractions import Matmul, matmuls, wants_data_tiling
from janus.runtime.module import CompiledModule
from janus.runtime.targets import get_target


def matmul_module(*shapes: tuple[int, int, int], transposed_lhs: bool = False, dtype: str = "f32") -> str:
    """A function adding the products of (M, N, K) matmuls of its arguments, one result each."""
    args, body, results = [], [], []
    lhs_map = "affine_map<(d0, d1, d2) -> (d2, d0)>" if transposed_lhs else "affine_map<(d0, d1, d2) -> (d0, d2)>"
    maps = f"indexing_maps = [{lhs_map}, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]"
    for i, (m, n, k) in enumerate(shapes):
        a = f"tensor<{k}x{m}x{dtype}>" if transposed_lhs else f"tensor<{m}x{k}x{dtype}>"
        b, c = f"tensor<{k}x{n}x{dtype}>", f"tensor<{m}x{n}x{dtype}>"
        args += [f"%a{i}: {a}", f"%b{i}: {b}", f"%c{i}: {c}"]
        body.append(f"%r{i} = linalg.matmul {maps} ins(%a{i}, %b{i} : {a}, {b}) outs(%c{i} : {c}) -> {c}")
        results.append((f"%r{i}", c))
    return (f"func.func @f({', '.join(args)}) -> ({', '.join(t for _, t in results)}) {{\n  " + "\n  ".join(body)
            + f"\n  return {', '.join(r for r, _ in results)} : {', '.join(t for _, t in results)}\n}}")


def test_matmul_shapes_read_from_the_module() -> None:
    module = parse_module(matmul_module((64, 128, 784), (384, 1024, 32), transposed_lhs=True))
    assert list(matmuls(module)) == [Matmul(1, 64, 128, 784), Matmul(1, 384, 1024, 32)]


@pytest.mark.parametrize("shapes, tiled", [
    ([(64, 128, 784), (128, 784, 64)], True),  # the GAN's layers
    ([(32, 1024, 384), (384, 1024, 640), (64, 1, 128)], True),  # a thin one with few FLOPs
    ([(6400, 16, 6), (6, 16, 6400), (6400, 16, 150)], False),  # LeNet-5's shifted matmuls: K or M of 6
    ([(1, 128, 256)], False),  # one tree node
])
def test_data_tiling_only_when_the_flops_are_in_large_matmuls(shapes: list, tiled: bool) -> None:
    module = parse_module(matmul_module(*shapes))
    assert wants_data_tiling(module) is tiled
    cpu = get_target("cpu")
    assert module_flags(cpu, module) == (cpu.data_tiling_flags if tiled else ())
    assert module_flags(get_target("vulkan"), module) == ()


@pytest.mark.parametrize("dtype, numpy_dtype", [("f32", np.float32), ("f64", np.float64)])
def test_a_data_tiled_module_computes_numpys_products(dtype: str, numpy_dtype: type) -> None:
    text = matmul_module((64, 96, 80), (48, 64, 40), transposed_lhs=True, dtype=dtype)
    assert wants_data_tiling(parse_module(text))
    rng = np.random.default_rng(0)
    a0, b0, c0 = (rng.standard_normal(s).astype(numpy_dtype) for s in ((80, 64), (80, 96), (64, 96)))
    a1, b1, c1 = (rng.standard_normal(s).astype(numpy_dtype) for s in ((40, 48), (40, 64), (48, 64)))
    r0, r1 = CompiledModule.from_mlir(text, pipeline="canonicalize")["f"](a0, b0, c0, a1, b1, c1)
    np.testing.assert_allclose(r0, c0 + a0.T @ b0, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(r1, c1 + a1.T @ b1, rtol=1e-5, atol=1e-4)


def test_flags_chosen_for_a_module_never_fail_its_compile() -> None:
    """A chosen flag iree-compile rejects: the module compiles without it, and runs."""
    text = matmul_module((4, 4, 4))
    cpu = get_target("cpu")
    lowered = parse_module(text)
    vmfb = compile_tuned(str(lowered), cpu, (), ("--iree-no-such-option",), "x.mlir")
    artifact = Artifact(vmfb, "cpu", public_functions(lowered))
    a, b, c = (np.full((4, 4), v, np.float32) for v in (1.0, 2.0, 0.5))
    np.testing.assert_array_equal(CompiledModule(artifact)["f"](a, b, c), np.full((4, 4), 8.5, np.float32))
