"""The typed emission layer: an op with an unknown operand, an operand of another type or
a ``tensor.extract`` of the wrong rank is an ``EmissionError`` when it is emitted, named
after the traced Python line; every op carries that line's ``loc``, so an MLIR diagnostic
at verify time names it too."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import janus
from janus.frontend.backend import compile_function
from janus.frontend.emitter import Emitter
from janus.frontend.generate import generate
from janus.frontend.profiler import Profile, run_profiled
from janus.frontend.values import EmissionError, NotConvertible, Tensor
from janus.runtime import CompileError

X = np.ones((2, 3), np.float32)
W = np.ones((3, 4), np.float32)


def emitter_with(*params: Tensor) -> Emitter:
    em = Emitter()
    em.define(*params)
    return em


def test_an_unknown_operand_is_refused_when_emitted() -> None:
    em = emitter_with()
    with pytest.raises(EmissionError, match="operand %arg0 .* is not a value of this function"):
        em.transpose(Tensor("%arg0", (2, 3), np.float32), (1, 0))


def test_an_operand_of_another_type_is_refused_when_emitted() -> None:
    em = emitter_with(Tensor("%arg0", (2, 3), np.float32))
    with pytest.raises(EmissionError, match=r"operand %arg0 is a tensor<2x3xf32>, used as a tensor<3x2xf32>"):
        em.transpose(Tensor("%arg0", (3, 2), np.float32), (1, 0))
    with pytest.raises(EmissionError, match=r"operand %arg0 is a tensor<2x3xf32>, used as a i1"):
        em.negate("%arg0")


def test_an_extract_of_the_wrong_rank_is_refused_when_emitted() -> None:
    x = Tensor("%arg0", (2, 3), np.float32)
    em = emitter_with(x)
    with pytest.raises(EmissionError, match=r"tensor.extract of %arg0 \(tensor<2x3xf32>\) with 0 indices"):
        em.scalar(x)
    assert em.scalars().extract(x, [em.index_constant(0), em.index_constant(1)]) in em.types


def product(x, w):
    return np.tanh(x @ w)


PRODUCT_LINE = inspect.getsourcelines(product)[1] + 1


def test_the_tracer_names_the_python_line_of_an_emission_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def wrong_matmul(em: Emitter, a: Tensor, b: Tensor) -> Tensor:  # a frontend bug: the operand's type is wrong
        return em.transpose(Tensor(a.name, a.shape[::-1], a.dtype), (1, 0))

    monkeypatch.setattr(Emitter, "matmul", wrong_matmul)
    with pytest.raises(NotConvertible, match=rf"used as a tensor<3x2xf32> \(at {__file__}:{PRODUCT_LINE}\)"):
        generate(product, (X, W), Profile())


def test_ops_carry_the_location_of_their_python_line() -> None:
    graph = generate(product, (X, W), Profile())
    assert 'linalg.matmul ins(%arg0, %arg1' in graph.text
    assert graph.text.count(f'loc("{__file__}":{PRODUCT_LINE}:') >= 2  # the matmul and the tanh


def test_a_verifier_diagnostic_names_the_python_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def bad_transpose(em: Emitter, x: Tensor, perm: list[int]) -> Tensor:  # a permutation MLIR rejects
        init = em.empty(x.shape, x.dtype)
        return em.emit(f"linalg.transpose ins({x.name} : {x.type}) outs({init.name} : {init.type}) permutation = [0, 0]",
                       x.shape, x.dtype, [x, init])

    def swapped(x):
        return x.T

    monkeypatch.setattr(Emitter, "transpose", bad_transpose)
    square = np.ones((3, 3), np.float32)
    run_profiled(swapped, (square,), {}, profile := Profile())
    with pytest.raises(CompileError) as info:
        compile_function(generate(swapped, (square,), profile))
    (diagnostic,) = info.value.diagnostics
    assert (diagnostic.file, diagnostic.line) == (__file__, inspect.getsourcelines(swapped)[1] + 1)


def test_compiled_results_are_unchanged() -> None:
    jf = janus.jit(product, warmup=1)
    jf(X, W)
    np.testing.assert_allclose(jf(X, W), product(X, W), rtol=1e-6)
    assert jf.versions


def large_constants(x):
    table = np.arange(6000, dtype=np.float32).reshape(60, 100) * 0.5 - 7.25
    ids = (np.arange(5000) * 7) % 100
    return x + table, x[0, ids] * np.linspace(-1.0, 1.0, 5000)


def too_large_constant(x):
    return x[0, 0] * np.arange(2 ** 17 + 1.0)


def test_large_constants_are_inlined_as_hex_bytes_up_to_a_limit() -> None:
    """Arrays past the nested-list limit are MLIR's little-endian hex form (exact values,
    float32, int64 and float64 alike); past ``MAX_HEX_LITERAL_BYTES`` the call runs in Python."""
    x = np.ones((60, 100), np.float32)
    em = Emitter()
    em.literal(np.arange(5000, dtype=np.int64))
    assert 'dense<"0x00000000000000000100000000000000' in "\n".join(em.lines)
    jf = janus.jit(large_constants, warmup=1)
    for _ in range(3):
        for got, want in zip(jf(x), large_constants(x)):
            np.testing.assert_array_equal(got, want)
    assert jf.versions
    with pytest.raises(NotConvertible, match="too large to inline"):
        generate(too_large_constant, (x,), Profile())
