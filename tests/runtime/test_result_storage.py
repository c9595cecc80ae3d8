"""Small static results written into storage the runtime passes (``result_storage``):
which results get it, that every way a function can produce a result still gives the
right array, that a kept result never changes under its holder, a failed guard, calls
from two threads, and artifacts for IREE's own tools keeping the plain signature."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from janus.runtime import CompiledModule, GuardFailure, compile_module
from janus.runtime.artifact import FunctionInfo
from janus.runtime.result_storage import OUTPUT_ATTR
from janus.runtime.values import SHARE_MIN_BYTES

BIG = SHARE_MIN_BYTES // 4  # float32 elements of a result handed out over its IREE buffer
MLIR = f"""
func.func @double(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}}
func.func @same(%a: tensor<4xf32>) -> tensor<4xf32> {{ return %a : tensor<4xf32> }}
func.func @both(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {{
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0, %0, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}}
func.func @constant() -> tensor<2xi64> {{
  %c = arith.constant dense<[3, 4]> : tensor<2xi64>
  return %c : tensor<2xi64>
}}
func.func @mixed(%a: tensor<?xf32>, %b: tensor<{BIG}xf32>, %s: f64) -> (tensor<?xf32>, tensor<{BIG}xf32>, f64, tensor<f64>, tensor<2xi1>) {{
  %t = tensor.from_elements %s : tensor<f64>
  %c = arith.constant dense<[true, false]> : tensor<2xi1>
  return %a, %b, %s, %t, %c : tensor<?xf32>, tensor<{BIG}xf32>, f64, tensor<f64>, tensor<2xi1>
}}
func.func @checked(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %0 = arith.addf %a, %a : tensor<4xf32>
  %i = arith.constant 0 : index
  %e = tensor.extract %0[%i] : tensor<4xf32>
  %z = arith.constant 0.0 : f32
  %ok = arith.cmpf ogt, %e, %z : f32
  cf.assert %ok, "janus.guard id=3 kind=value source=test.py:1"
  return %0 : tensor<4xf32>
}}
"""


@pytest.fixture(scope="module", params=["local-sync", "local-task"])
def module(request: pytest.FixtureRequest) -> CompiledModule:
    return CompiledModule.from_mlir(MLIR, driver=request.param)


def ramp() -> np.ndarray:
    return np.arange(1, 5, dtype=np.float32)


def test_small_static_results_get_storage(module: CompiledModule) -> None:
    functions = module.artifact.functions
    assert functions["double"].storage == (0,)
    assert functions["both"].storage == (0, 1, 2)
    assert functions["constant"].storage == (0,)
    assert functions["mixed"].storage == (3, 4)  # not a ? dim, a large result or a scalar
    assert len(functions["mixed"].inputs) == 3  # storage is no input a caller passes


def test_every_kind_of_result_comes_back_right(module: CompiledModule) -> None:
    x = ramp()
    np.testing.assert_array_equal(module["double"](x), 2 * x)
    same = module["same"](x)
    np.testing.assert_array_equal(same, x)
    assert not np.shares_memory(same, x)
    first, second, third = module["both"](x)
    np.testing.assert_array_equal(first, 2 * x)
    np.testing.assert_array_equal(second, 2 * x)
    np.testing.assert_array_equal(third, x)
    assert not np.shares_memory(first, second)
    np.testing.assert_array_equal(module["constant"](), [3, 4])
    big = np.full(BIG, 2.0, np.float32)
    a, b, s, t, c = module["mixed"](x[:3], big, 0.5)
    np.testing.assert_array_equal(a, x[:3])
    np.testing.assert_array_equal(b, big)
    assert s == 0.5 and t.shape == () and t == 0.5 and t.dtype == np.float64
    np.testing.assert_array_equal(c, [True, False])
    assert c.dtype == np.bool_


def test_a_kept_result_never_changes_under_its_holder(module: CompiledModule) -> None:
    double = module["double"]
    kept = double(ramp())
    for _ in range(3):
        double(np.full(4, 7.0, np.float32))
    np.testing.assert_array_equal(kept, 2 * ramp())
    kept[:] = 0  # the holder's own memory, not the storage
    np.testing.assert_array_equal(double(ramp()), 2 * ramp())


def test_a_failed_guard_leaves_the_next_call_right(module: CompiledModule) -> None:
    checked = module["checked"]
    kept = checked(ramp())
    with pytest.raises(GuardFailure):
        checked(-ramp())
    np.testing.assert_array_equal(kept, 2 * ramp())
    np.testing.assert_array_equal(checked(3 * ramp()), 6 * ramp())


def test_calls_from_two_threads(module: CompiledModule) -> None:
    double, errors = module["double"], []

    def run(start: float) -> None:
        for i in range(300):
            x = np.full(4, start + i, np.float32)
            if not np.array_equal(double(x), 2 * x):
                errors.append((start, i))

    threads = [threading.Thread(target=run, args=(s,)) for s in (0.0, 1000.0, 5000.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_artifacts_for_iree_tools_keep_the_plain_signature() -> None:
    artifact = compile_module(MLIR)
    assert all(info.storage == () for info in artifact.functions.values())
    assert len(artifact.functions["mixed"].inputs) == 3


def test_the_manifest_keeps_the_storage() -> None:
    info = CompiledModule.from_mlir(MLIR).artifact.functions["mixed"]
    assert FunctionInfo.from_json("mixed", info.to_json()) == info
    assert OUTPUT_ATTR == "iree.abi.output"
