"""End to end on the CPU: janus modules compiled, loaded and called, checked against NumPy."""

from __future__ import annotations

import json
import re
import threading

import numpy as np
import pytest
from iree import runtime as rt
from tests.helpers import GUARD_PIPELINE, module_path
from tests.helpers.arrays import placed

from janus.ir import ir, make_context, parse_module
from janus.runtime import (
    Artifact,
    CompiledModule,
    CompileError,
    GuardFailure,
    compile_module,
    lower,
)
from janus.runtime import compiler as compiler_module
from janus.runtime.artifact import MANIFEST_VERSION
from janus.runtime.values import FloatType, TensorType, from_json, to_json

X = np.array([1.0, -2.0, 3.5, 0.25], dtype=np.float32)


# -- guards ---------------------------------------------------------------------------


def test_guard_that_holds_returns_the_numpy_result(guards: CompiledModule) -> None:
    y = guards["scale"](X, 2.5)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, X * np.float32(2.5))
    assert guards.call("next_below", 3, 10) == 4


def test_failed_guard_raises_guard_failure_naming_the_guard(guards: CompiledModule) -> None:
    with pytest.raises(GuardFailure) as info:
        guards["scale"](X, -1.0)
    failure = info.value
    assert (failure.guard_id, failure.kind, failure.source, failure.function) == (1, "value", "model.py:10", "scale")
    assert str(failure) == "guard 1 (value, model.py:10) failed in @scale"
    assert "FAILED_PRECONDITION" in str(failure.__cause__)


def test_the_module_answers_correctly_after_a_guard_failure(guards: CompiledModule) -> None:
    with pytest.raises(GuardFailure) as info:
        guards["next_below"](10, 3)
    assert (info.value.guard_id, info.value.kind, info.value.source) == (2, "branch", "model.py:14")
    assert guards["next_below"](1, 5) == 2
    np.testing.assert_array_equal(guards["scale"](X, 3.0), X * np.float32(3.0))


def test_scalar_calls_from_two_threads_and_guard_failures_between_them(guards: CompiledModule) -> None:
    next_below, errors = guards["next_below"], []

    def run(start: int) -> None:
        for n in range(start, start + 300):
            try:
                if next_below(n, start + 200) != n + 1 or n >= start + 200:
                    errors.append(n)
            except GuardFailure:
                if n < start + 200:
                    errors.append(n)

    threads = [threading.Thread(target=run, args=(start,)) for start in (0, 10**6, -(10**6))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# -- argument and result conversion ----------------------------------------------------


def test_scalars_of_every_kind_round_trip(scalars: CompiledModule) -> None:
    result = scalars["mix"](2**40, -7, 1.5, 0.1, True, 21)
    assert result == (2**40 - 7, 1.5 * 0.1, False, 42)
    assert [type(v) for v in result] == [int, float, bool, int]


def test_numpy_scalars_are_accepted(scalars: CompiledModule) -> None:
    result = scalars["mix"](np.int64(5), np.int32(6), np.float32(0.5), np.float64(4.0), np.bool_(False), np.int64(1))
    assert result == (11, 2.0, True, 2)


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((1.5, 1, 1.0, 1.0, True, 1), TypeError, "argument 0 of @mix (i64): expected an int"),
        ((1, 2**31, 1.0, 1.0, True, 1), OverflowError, "argument 1 of @mix (i32): 2147483648 does not fit in i32"),
        ((1, 1, "1.5", 1.0, True, 1), TypeError, "argument 2 of @mix (f32): expected a real number"),
        ((1, 1, 1.0, True, True, 1), TypeError, "argument 3 of @mix (f64): expected a real number"),
        ((1, 1, 1.0, 1.0, 1, 1), TypeError, "argument 4 of @mix (i1): expected a bool"),
        ((1, 1, 1.0, 1.0, True, True), TypeError, "argument 5 of @mix (index): expected an int"),
    ],
)
def test_bad_scalar_arguments_are_named(scalars: CompiledModule, args: tuple, error: type, message: str) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        scalars["mix"](*args)


@pytest.mark.parametrize(
    "value, message",
    [
        (X.astype(np.float64), "expected dtype float32 for tensor<4xf32>, got float64"),
        (X[:3], r"expected shape \(4,\) for tensor<4xf32>, got \(3,\)"),
        (X.reshape(2, 2), r"expected shape \(4,\) for tensor<4xf32>, got \(2, 2\)"),
        (X.tolist(), "expected a NumPy array for tensor<4xf32>, got list"),
    ],
)
def test_bad_array_arguments_raise_type_error(guards: CompiledModule, value: object, message: str) -> None:
    with pytest.raises(TypeError, match=r"argument 0 of @scale \(tensor<4xf32>\): " + message):
        guards["scale"](value, 1.0)


def test_dynamic_dimensions_accept_any_length(scalars: CompiledModule) -> None:
    for n in (1, 3, 17):
        x = np.linspace(0.0, 1.0, n)
        np.testing.assert_array_equal(scalars["double"](x), x + x)
    with pytest.raises(TypeError, match=r"expected shape \(\?,\)"):
        scalars["double"](np.zeros((2, 2)))


def test_non_contiguous_arrays_are_passed_by_value(guards: CompiledModule) -> None:
    strided = np.arange(8, dtype=np.float32)[::2]
    np.testing.assert_array_equal(guards["scale"](strided, 2.0), strided * 2)


def test_bool_tensors(scalars: CompiledModule) -> None:
    mask = np.array([True, False, True])
    result = scalars["invert"](mask)
    assert result.dtype == np.bool_
    np.testing.assert_array_equal(result, ~mask)


def test_results_are_fresh_writable_arrays(guards: CompiledModule) -> None:
    first = guards["scale"](X, 1.0)
    first[:] = 99.0
    np.testing.assert_array_equal(guards["scale"](X, 1.0), X)


def test_result_arity(scalars: CompiledModule) -> None:
    assert scalars["nothing"](3) is None
    assert isinstance(scalars["mix"](1, 1, 1.0, 1.0, True, 1), tuple)


def test_wrong_argument_count(guards: CompiledModule) -> None:
    with pytest.raises(TypeError, match=r"@scale takes 2 arguments, got 1"):
        guards["scale"](X)


def test_unknown_function_lists_the_exports(guards: CompiledModule) -> None:
    with pytest.raises(KeyError, match="no function @missing; the module exports scale, next_below"):
        guards["missing"]


# -- drivers and loading ---------------------------------------------------------------


def test_driver_defaults_to_the_target_and_can_be_overridden(guards_artifact: Artifact, guards: CompiledModule) -> None:
    assert guards.driver == "local-sync"
    threaded = CompiledModule(guards_artifact, driver="local-task")
    assert threaded.driver == "local-task"
    np.testing.assert_array_equal(threaded["scale"](X, 2.0), X * 2)
    with pytest.raises(GuardFailure):
        threaded["scale"](X, 0.0)


def test_unknown_driver_is_a_clear_error(guards_artifact: Artifact) -> None:
    with pytest.raises(ValueError, match="unknown IREE driver 'warp-drive'; available: .*local-sync"):
        CompiledModule(guards_artifact, driver="warp-drive")


def test_vmfb_and_sidecar_load_from_disk(guards_artifact: Artifact, tmp_path) -> None:
    path = tmp_path / "guards.vmfb"
    guards_artifact.save(path)
    manifest = json.loads((tmp_path / "guards.vmfb.json").read_text())
    assert manifest["target"] == "cpu"
    assert manifest["functions"]["scale"]["inputs"] == [{"tensor": [4], "element": "f32"}, {"scalar": "f32"}]
    loaded = CompiledModule.load(path)
    assert loaded.function_names == ["scale", "next_below"]
    np.testing.assert_array_equal(loaded["scale"](X, 4.0), X * 4)
    with pytest.raises(GuardFailure, match="guard 2"):
        loaded["next_below"](5, 5)


def test_loading_without_sidecar_names_it(guards_artifact: Artifact, tmp_path) -> None:
    path = tmp_path / "bare.vmfb"
    path.write_bytes(guards_artifact.vmfb)
    with pytest.raises(FileNotFoundError, match=r"bare\.vmfb\.json: no janus manifest"):
        CompiledModule.load(path)


def test_signatures_are_types_read_from_the_lowered_module(guards_artifact: Artifact) -> None:
    scale = guards_artifact.functions["scale"]
    assert scale.inputs == (TensorType((4,), "f32", np.dtype(np.float32), rt.HalElementType.FLOAT_32), FloatType("f32"))
    assert [to_json(t) for t in scale.results] == [{"tensor": [4], "element": "f32"}]


_SORT = """func.func @sort(%x: tensor<8192xf32>) -> tensor<8192xf32> {
  %0 = iree_linalg_ext.sort dimension(0) outs(%x : tensor<8192xf32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<8192xf32>
  return %0 : tensor<8192xf32>
}"""


def test_functions_that_may_write_an_argument_are_marked_and_their_arguments_copied(guards_artifact: Artifact) -> None:
    """IREE 3.13 sorts (and scatters) in place on an argument's buffer: the manifest says so,
    the runtime copies even a large aligned argument, and the caller's array is untouched."""
    assert not guards_artifact.functions["scale"].writes_arguments
    module = CompiledModule.from_mlir(f"module {{ {_SORT} }}")
    info = module["sort"]._info
    assert info.writes_arguments
    assert type(info).from_json("sort", json.loads(json.dumps(info.to_json()))).writes_arguments
    old = {k: v for k, v in info.to_json().items() if k != "writes_arguments"}  # a manifest from before the flag
    assert type(info).from_json("sort", old).writes_arguments  # assumed: copies are always safe
    x = placed(np.random.default_rng(0).standard_normal(8192).astype(np.float32), 0)  # 32 KiB, aligned
    kept = x.copy()
    np.testing.assert_array_equal(module["sort"](x), np.sort(kept))
    np.testing.assert_array_equal(x, kept)
    assert module["sort"].traffic.shared == 0 and module["sort"].traffic.copied >= x.nbytes


@pytest.mark.parametrize("mlir", ["tensor<2x?xi64>", "tensor<f64>", "index", "i1", "!util.buffer", "tensor<3xcomplex<f32>>"])
def test_signature_types_round_trip_through_the_manifest(mlir: str) -> None:
    kind = compiler_module.value_type(ir.Type.parse(mlir, make_context()))
    assert kind.text == mlir and from_json(json.loads(json.dumps(to_json(kind)))) == kind


@pytest.mark.parametrize("manifest, problem", [
    ({"janus_manifest": 1, "target": "cpu", "functions": {}}, "unsupported janus manifest version 1"),
    ({"janus_manifest": MANIFEST_VERSION, "target": "cpu", "functions": {"f": {"inputs": ["f32"], "results": []}}},
     "malformed janus manifest: ValueError: not a signature type: 'f32'"),
])
def test_a_sidecar_janus_cannot_read_is_a_clear_error(guards_artifact: Artifact, tmp_path, manifest, problem) -> None:
    path = tmp_path / "old.vmfb"
    path.write_bytes(guards_artifact.vmfb)
    (tmp_path / "old.vmfb.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=re.escape(f"old.vmfb.json: {problem}")):
        CompiledModule.load(path)


def test_from_mlir_compiles_in_memory() -> None:
    module = CompiledModule.from_mlir(module_path("guards").read_text(), pipeline=GUARD_PIPELINE)
    assert module["next_below"](-4, 0) == -3


# -- compile errors ----------------------------------------------------------------------

IREE_REJECTS = """\
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<4xf32>
  %m = memref.alloc() : memref<4xf32>
  memref.store %v, %m[%c0] : memref<4xf32>
  %t = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  return %t : tensor<4xf32>
}
"""


def test_iree_compile_errors_carry_located_diagnostics() -> None:
    with pytest.raises(CompileError) as info:
        compile_module(IREE_REJECTS, pipeline=GUARD_PIPELINE, filename="rejected.mlir")
    first = info.value.diagnostics[0]
    assert (first.severity, first.file, first.line, first.col) == ("error", "rejected.mlir", 6, 8)
    assert "failed to legalize operation 'bufferization.to_tensor'" in first.message
    assert str(info.value).startswith("rejected.mlir:6:8: error: failed to legalize")


def test_an_iree_compile_past_its_time_limit_is_a_located_compile_error(monkeypatch) -> None:
    """``JANUS_COMPILE_TIMEOUT``: a compile that would hold the program fails clearly instead."""
    monkeypatch.setattr(compiler_module, "COMPILE_TIMEOUT_S", 1e-4)
    text = lower(module_path("guards").read_text(), GUARD_PIPELINE)
    with pytest.raises(CompileError) as info:
        compiler_module.iree_compile(str(text), ["--iree-hal-target-device=local"], (), "slow.mlir")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.file == "slow.mlir" and "did not finish within 0.0001 s (JANUS_COMPILE_TIMEOUT" in diagnostic.message


def test_janus_verifier_errors_are_located() -> None:
    text = 'func.func @f(%c: i1) {\n  "janus.guard"(%c) {id = 1 : i64, kind = "hunch", source = "m.py:1"} : (i1) -> ()\n  return\n}\n'
    with pytest.raises(CompileError) as info:
        compile_module(text, pipeline=GUARD_PIPELINE, filename="m.mlir")
    (diagnostic,) = info.value.diagnostics
    assert (diagnostic.file, diagnostic.line) == ("m.mlir", 2)
    assert "attribute 'kind' must be one of" in diagnostic.message


def test_unknown_pass_is_a_compile_error() -> None:
    with pytest.raises(CompileError, match="invalid pass pipeline"):
        lower(module_path("guards").read_text(), "janus-verify,no-such-pass")


def test_unknown_target_lists_the_presets() -> None:
    with pytest.raises(ValueError, match="unknown target 'tpu'; known targets: cpu, cuda, vulkan"):
        compile_module(module_path("guards").read_text(), "tpu", pipeline=GUARD_PIPELINE)


@pytest.mark.parametrize("pipeline", [GUARD_PIPELINE, "janus-verify"])
def test_cyclic_call_graph_never_reaches_iree_compile(monkeypatch, pipeline: str) -> None:
    def must_not_run(*args, **kwargs):
        raise AssertionError("iree-compile was called on a cyclic call graph (it would never return)")

    monkeypatch.setattr(compiler_module, "_compile_str", must_not_run)
    path = module_path("recursive")
    with pytest.raises(CompileError) as info:
        compile_module(path.read_text(), pipeline=pipeline, filename=str(path))
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.line == 3
    assert "call graph has a cycle (@factorial)" in diagnostic.message


def test_lower_leaves_its_input_module_unchanged() -> None:
    module = parse_module(module_path("guards").read_text())
    before = str(module)
    lowered = lower(module, GUARD_PIPELINE)
    assert str(module) == before
    assert '"janus.guard"(' in before
    assert '"janus.guard"(' not in str(lowered) and "cf.assert" in str(lowered)


def test_a_call_after_one_with_zero_pushes_negative_zero() -> None:
    """The argument list is reused when a call pushes the same items; ``-0.0 == 0.0`` must
    not count as the same item (the product's sign would be lost)."""
    module = CompiledModule.from_mlir("""
    func.func @scale(%x: tensor<3xf32>, %s: f32) -> tensor<3xf32> {
      %e = tensor.from_elements %s, %s, %s : tensor<3xf32>
      %r = arith.mulf %x, %e : tensor<3xf32>
      return %r : tensor<3xf32>
    }""")
    x = np.ones(3, np.float32)
    for s in (0.0, -0.0, -0.0, 0.0):
        assert np.array_equal(np.signbit(module["scale"](x, s)), np.signbit(x * np.float32(s)))
