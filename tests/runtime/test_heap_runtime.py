"""Heap state through the full ``janus-to-iree`` pipeline: reads from live objects, writes
committed only after a successful call, nothing committed when a guard fails.

The oracle is the Python function heap_state.mlir was generated from (``step`` below).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from tests.helpers import module_path

from janus.runtime import Artifact, CompiledModule, GuardFailure, compile_module

X = np.array([0.5, -1.0, 2.0, 4.0], dtype=np.float32)


class Layer:
    def __init__(self) -> None:
        self.state = np.array([1.0, 2.0, 3.0, -4.0], dtype=np.float32)
        self.steps = 0


def step(self: Layer, x: np.ndarray, scale: float) -> np.ndarray:
    """heap_state.mlir's source, run imperatively."""
    self.state = self.state * np.float32(scale) + x
    self.steps = self.steps + 1
    assert scale > 0
    return self.state


@pytest.fixture(scope="module")
def artifact() -> Artifact:
    path = module_path("heap_state")
    return compile_module(path.read_text(), "cpu", filename=str(path))


@pytest.fixture(scope="module")
def heap_module(artifact: Artifact) -> CompiledModule:
    return CompiledModule(artifact)


def test_heap_inputs_and_outputs_are_hidden_from_the_caller(artifact: Artifact) -> None:
    info = artifact.functions["step"]
    assert len(info.heap.reads) == 2 and len(info.heap.writes) == 2
    assert len(info.inputs) == 4 and len(info.results) == 3


def test_read_modify_write_is_committed_after_success(heap_module: CompiledModule) -> None:
    layer, reference = Layer(), Layer()
    expected = step(reference, X, 2.0)
    result = heap_module["step"](X, 2.0, objects=[layer])
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(layer.state, reference.state)
    assert layer.state.dtype == np.float32
    assert layer.steps == 1 and type(layer.steps) is int


def test_each_call_reads_the_live_objects(heap_module: CompiledModule) -> None:
    layer, reference = Layer(), Layer()
    heap_module["step"](X, 2.0, objects=[layer])
    step(reference, X, 2.0)
    layer.state = reference.state = np.full(4, 10.0, dtype=np.float32)  # changed by Python in between
    heap_module["step"](X, 0.5, objects=[layer])
    step(reference, X, 0.5)
    np.testing.assert_array_equal(layer.state, reference.state)
    assert layer.steps == reference.steps == 2


def test_guard_failure_leaves_the_object_unchanged(heap_module: CompiledModule) -> None:
    layer = Layer()
    state_before, snapshot = layer.state, copy.deepcopy(vars(layer))
    with pytest.raises(GuardFailure) as info:
        heap_module["step"](X, -3.0, objects=[layer])
    assert (info.value.guard_id, info.value.kind, info.value.source) == (1, "value", "model.py:22")
    assert layer.state is state_before
    np.testing.assert_array_equal(layer.state, snapshot["state"])
    assert layer.steps == snapshot["steps"]
    # The module stays usable and the next call commits.
    heap_module["step"](X, 1.0, objects=[layer])
    np.testing.assert_array_equal(layer.state, snapshot["state"] + X)
    assert layer.steps == 1


def test_heap_manifest_survives_the_sidecar(artifact: Artifact, tmp_path) -> None:
    path = tmp_path / "heap_state.vmfb"
    artifact.save(path)
    layer = Layer()
    CompiledModule.load(path)["step"](X, 3.0, objects=[layer])
    np.testing.assert_array_equal(layer.state, Layer().state * 3 + X)
    assert layer.steps == 1
