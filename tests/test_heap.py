"""The heap manifest on real Python objects, and its round trip through the pass."""

from __future__ import annotations

import json
import re
import types

import numpy as np
import pytest

from janus.ir import ir, parse_module
from janus.passes import run_pipeline
from janus.passes.heap.heap_model import HEAP_OPS
from janus.heap import (
    AccessPath,
    HeapAliasError,
    HeapError,
    HeapManifest,
    ObjectSlot,
)


class Obj:
    """A plain object whose attributes the tests read and write."""

    def __init__(self, **attrs: object) -> None:
        self.__dict__.update(attrs)


def make_cell(value: object) -> types.CellType:
    """A real closure cell holding ``value`` (what a nonlocal lives in)."""

    def inner() -> object:
        return value

    return inner.__closure__[0]


def attr(slot: int, *names: str) -> AccessPath:
    return AccessPath(slot, tuple(("attr", n) for n in names))


# -- AccessPath ----------------------------------------------------------------------------


def test_describe_names_attributes_and_items() -> None:
    assert attr(0, "state").describe() == "slot0.state"
    assert AccessPath(1, (("item", "W"),)).describe() == "slot1['W']"
    assert AccessPath(0, (("attr", "cache"), ("item", 3))).describe() == "slot0.cache[3]"


def test_read_follows_attributes_items_modules_and_cells() -> None:
    module = types.ModuleType("model")
    module.lr = 0.5
    cell = make_cell(7)
    self = Obj(layers=[Obj(W="w0"), Obj(W="w1")], cache={"k": (1, 2)})
    objects = [self, module, cell]
    assert AccessPath(0, (("attr", "layers"), ("item", 1), ("attr", "W"))).read(objects) == "w1"
    assert AccessPath(0, (("attr", "layers"), ("item", -2), ("attr", "W"))).read(objects) == "w0"
    assert AccessPath(0, (("attr", "cache"), ("item", "k"), ("item", 1))).read(objects) == 2
    assert attr(1, "lr").read(objects) == 0.5
    assert attr(2, "cell_contents").read(objects) == 7


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (attr(3, "x"), "cannot resolve slot3.x: object slot 3 is missing (the table has 1)"),
        (attr(0, "nope"), "cannot resolve slot0.nope: slot0 has no attribute 'nope'"),
        (AccessPath(0, (("attr", "d"), ("item", "k"))), "cannot resolve slot0.d['k']: slot0.d has no item 'k'"),
        (AccessPath(0, (("attr", "xs"), ("item", 5))), "cannot resolve slot0.xs[5]: slot0.xs has no item 5"),
    ],
)
def test_read_errors_name_the_path(path: AccessPath, message: str) -> None:
    with pytest.raises(HeapError, match="^" + re.escape(message)):
        path.read([Obj(d={}, xs=[1])])


def test_bad_steps_are_rejected() -> None:
    with pytest.raises(ValueError, match="step kind"):
        AccessPath(0, (("index", "x"),))
    with pytest.raises(ValueError, match="bad attr key 3"):
        AccessPath(0, (("attr", 3),))
    with pytest.raises(ValueError, match="bad item key True"):
        AccessPath(0, (("item", True),))


# -- HeapManifest: a call ------------------------------------------------------------------


def test_read_inputs_and_commit_on_objects_dicts_lists_modules_and_cells() -> None:
    module = types.ModuleType("model")
    module.step = 3
    cell = make_cell(np.zeros(2))
    self = Obj(h=np.ones(2), cache={"W": np.full(2, 2.0)}, history=[0, 0])
    objects = [self, module, cell]
    manifest = HeapManifest(
        reads=(attr(0, "h"), AccessPath(0, (("attr", "cache"), ("item", "W"))), attr(1, "step")),
        writes=(
            attr(0, "h"),
            attr(1, "step"),
            attr(2, "cell_contents"),
            AccessPath(0, (("attr", "history"), ("item", -1))),
            AccessPath(0, (("attr", "cache"), ("item", "new"))),
        ),
    )
    h, w, step = manifest.read_inputs(objects)
    np.testing.assert_array_equal(h, [1.0, 1.0])
    np.testing.assert_array_equal(w, [2.0, 2.0])
    assert step == 3
    manifest.commit(objects, [h * w, step + 1, h + w, "last", "made"])
    np.testing.assert_array_equal(self.h, [2.0, 2.0])
    assert module.step == 4
    np.testing.assert_array_equal(cell.cell_contents, [3.0, 3.0])
    assert self.history == [0, "last"]
    assert self.cache["new"] == "made"


def test_aliased_written_paths_are_detected() -> None:
    shared = Obj(x=1)
    manifest = HeapManifest(reads=(attr(0, "x"),), writes=(attr(1, "x"),))
    with pytest.raises(HeapAliasError, match=r"slot1\.x and slot0\.x are the same location"):
        manifest.read_inputs([shared, shared])
    assert manifest.read_inputs([shared, Obj(x=2)]) == [1]


def test_aliasing_through_two_attribute_paths_to_one_object() -> None:
    inner = Obj(x=1)
    manifest = HeapManifest(reads=(AccessPath(0, (("attr", "a"), ("attr", "x"))),),
                            writes=(AccessPath(0, (("attr", "b"), ("attr", "x"))), attr(0, "y")))
    with pytest.raises(HeapAliasError, match=r"slot0\.b\.x and slot0\.a\.x are the same location"):
        manifest.read_inputs([Obj(a=inner, b=inner, y=0)])
    assert manifest.read_inputs([Obj(a=inner, b=Obj(x=2), y=0)]) == [1]


def test_aliasing_through_containers_and_negative_indices() -> None:
    xs = [1, 2, 3]
    via_attr = HeapManifest(writes=(AccessPath(0, (("attr", "xs"), ("item", 0))), AccessPath(1, (("item", 0),))))
    with pytest.raises(HeapAliasError):
        via_attr.read_inputs([Obj(xs=xs), xs])
    negative = HeapManifest(
        reads=(AccessPath(0, (("item", 2),)),),
        writes=(AccessPath(0, (("item", -1),)),),
    )
    with pytest.raises(HeapAliasError, match=r"slot0\[-1\] and slot0\[2\]"):
        negative.read_inputs([xs])


def test_read_only_aliases_are_harmless() -> None:
    shared = Obj(W=np.arange(3))
    manifest = HeapManifest(reads=(attr(0, "W"), attr(1, "W")))
    first, second = manifest.read_inputs([shared, shared])
    assert first is second is shared.W


class Failing:
    """An object whose attribute ``x`` is a property that raises ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    @property
    def x(self) -> object:
        raise self.error


@pytest.mark.parametrize("error", [KeyError("k"), TypeError("t")])
def test_attribute_reads_that_raise_name_the_path(error: Exception) -> None:
    manifest = HeapManifest(reads=(attr(0, "a"), attr(0, "b", "x")))
    assert manifest.read_inputs([Obj(a=1, b=Obj(x=2))]) == [1, 2]
    with pytest.raises(HeapError, match=r"^cannot resolve slot0\.b\.x: slot0\.b has no attribute 'x'"):
        manifest.read_inputs([Obj(a=1, b=Failing(error))])
    with pytest.raises(HeapError, match=r"^cannot resolve slot0\.b\.x: slot0 has no attribute 'b'"):
        manifest.read_inputs([Obj(a=1)])
    with pytest.raises(HeapError, match="object slot 0 is missing"):
        manifest.read_inputs([])


def test_equal_paths_hash_alike() -> None:
    assert {attr(0, "W"): 1}[AccessPath(0, (("attr", "W"),))] == 1
    assert attr(0, "W") not in {attr(1, "W"), attr(0, "b"), AccessPath(0, (("item", "W"),))}


def test_alias_error_is_a_heap_error() -> None:
    assert issubclass(HeapAliasError, HeapError)


@pytest.mark.parametrize(
    ("late_write", "message"),
    [
        (AccessPath(0, (("attr", "missing"), ("item", "k"))), "cannot resolve slot0.missing"),
        (AccessPath(0, (("attr", "xs"), ("item", 9))), r"cannot write slot0.xs\[9\]: index 9 is out of range"),
        (AccessPath(0, (("attr", "t"), ("item", 0))), r"tuple does not support item assignment"),
        (attr(4, "x"), "object slot 4 is missing"),
    ],
)
def test_commit_is_all_or_nothing(late_write: AccessPath, message: str) -> None:
    self = Obj(a=1, xs=[0], t=(0,))
    manifest = HeapManifest(writes=(attr(0, "a"), late_write))
    with pytest.raises(HeapError, match=message):
        manifest.commit([self], [100, 200])
    assert self.a == 1 and self.xs == [0]


def test_commit_checks_the_value_count() -> None:
    with pytest.raises(HeapError, match="commit needs 1 values, got 2"):
        HeapManifest(writes=(attr(0, "a"),)).commit([Obj()], [1, 2])


# -- HeapManifest: formats -----------------------------------------------------------------


MANIFEST = HeapManifest(
    reads=(attr(0, "state"), AccessPath(1, (("attr", "cache"), ("item", "W"), ("item", -3)))),
    writes=(attr(2, "cell_contents"),),
    objects=(ObjectSlot(0, "arg", "self"), ObjectSlot(1, "module", "model"), ObjectSlot(2, "cell", "n")),
)


def test_json_round_trip() -> None:
    data = json.loads(json.dumps(MANIFEST.to_json()))
    assert data["reads"][1] == {"slot": 1, "path": [["attr", "cache"], ["item", "W"], ["item", -3]]}
    assert HeapManifest.from_json(data) == MANIFEST


def test_attribute_round_trip() -> None:
    module = parse_module("func.func @f() { return }")
    with module.context:
        fn = module.body.operations[0]
        for name, value in MANIFEST.to_attributes().items():
            fn.attributes[name] = value
        text = str(fn.attributes["janus.heap_reads"])
        assert HeapManifest.from_function(fn) == MANIFEST
    assert text == (
        '[{path = [["attr", "state"]], slot = 0 : i64}, '
        '{path = [["attr", "cache"], ["item", "W"], ["item", -3]], slot = 1 : i64}]'
    )


PROGRAM = """
func.func @step(%x: tensor<4xf32>, %n: i64) -> tensor<4xf32> {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ni = arith.index_cast %n : i64 to index
  scf.for %i = %c0 to %ni step %c1 {
    %h = "janus.get_attr"(%self) {name = "h"} : (!janus.obj) -> tensor<4xf32>
    %w = "janus.invoke"() {callee = @weights} : () -> tensor<4xf32>
    %hw = arith.mulf %h, %w : tensor<4xf32>
    %nh = arith.addf %hw, %x : tensor<4xf32>
    "janus.set_attr"(%self, %nh) {name = "h"} : (!janus.obj, tensor<4xf32>) -> ()
  }
  %cell = "janus.object"() {slot = 2 : i64, origin = "cell", name = "calls"} : () -> !janus.obj
  %calls = "janus.get_attr"(%cell) {name = "cell_contents"} : (!janus.obj) -> i64
  %one = arith.constant 1 : i64
  %calls1 = arith.addi %calls, %one : i64
  "janus.set_attr"(%cell, %calls1) {name = "cell_contents"} : (!janus.obj, i64) -> ()
  %h = "janus.get_attr"(%self) {name = "h"} : (!janus.obj) -> tensor<4xf32>
  %log = "janus.get_attr"(%self) {name = "log"} : (!janus.obj) -> !janus.obj
  "janus.set_item"(%log, %h) {key = "last"} : (!janus.obj, tensor<4xf32>) -> ()
  return %h : tensor<4xf32>
}
func.func private @weights() -> tensor<4xf32> {
  %m = "janus.object"() {slot = 1 : i64, origin = "module", name = "model"} : () -> !janus.obj
  %w = "janus.get_attr"(%m) {name = "W"} : (!janus.obj) -> tensor<4xf32>
  return %w : tensor<4xf32>
}
"""


def step_in_python(self: Obj, model: types.ModuleType, cell: types.CellType, x: np.ndarray, n: int) -> np.ndarray:
    """The imperative program PROGRAM was made from: the oracle."""
    for _ in range(n):
        self.h = self.h * model.W + x
    cell.cell_contents += 1
    self.log["last"] = self.h
    return self.h


def externalized() -> ir.Module:
    module = parse_module(PROGRAM)
    run_pipeline(module, "builtin.module(janus-externalize-heap)")
    return module


def test_from_function_reads_what_the_pass_wrote() -> None:
    module = externalized()
    step, weights = (op.operation for op in module.body.operations)
    manifest = HeapManifest.from_function(step)
    assert manifest == HeapManifest(
        reads=(attr(0, "h"), attr(1, "W"), attr(2, "cell_contents")),
        writes=(attr(0, "h"), attr(2, "cell_contents"), AccessPath(0, (("attr", "log"), ("item", "last")))),
        objects=(ObjectSlot(0, "arg", "self"), ObjectSlot(1, "module", "model"), ObjectSlot(2, "cell", "calls")),
    )
    ftype = step.attributes["function_type"].value
    assert [str(t) for t in ftype.inputs] == ["tensor<4xf32>", "i64", "tensor<4xf32>", "tensor<4xf32>", "i64"]
    assert [str(t) for t in ftype.results] == ["tensor<4xf32>", "tensor<4xf32>", "i64", "tensor<4xf32>"]
    assert not HeapManifest.from_function(weights)
    text = str(module)
    assert "!janus.obj" not in text
    assert not [name for name in HEAP_OPS if name in text]


def test_compiled_pure_function_computes_the_new_heap_state() -> None:
    import iree.compiler
    import iree.runtime

    module = externalized()
    run_pipeline(module, "janus-inline-invokes,inline,canonicalize,cse,symbol-dce,janus-check-iree-ready")
    manifest = HeapManifest.from_function(module.body.operations[0])
    vmfb = iree.compiler.compile_str(
        str(module), target_backends=["llvm-cpu"], extra_args=["--iree-llvmcpu-target-cpu=host"]
    )
    compiled = iree.runtime.load_vm_flatbuffer(vmfb, driver="local-sync").step

    def fresh() -> list[object]:
        model = types.ModuleType("model")
        model.W = np.array([0.5, 1.0, 2.0, -1.0], np.float32)
        return [Obj(h=np.ones(4, np.float32), log={}), model, make_cell(10)]

    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    expected_heap = fresh()
    expected = step_in_python(*expected_heap, x, 3)

    heap = fresh()
    before = heap[0].h.copy()
    outputs = compiled(x, 3, *manifest.read_inputs(heap))
    result, *writes = [np.asarray(o.to_host() if hasattr(o, "to_host") else o) for o in outputs]
    np.testing.assert_array_equal(heap[0].h, before)  # nothing reaches Python before commit
    manifest.commit(heap, writes)

    np.testing.assert_allclose(result, expected)
    np.testing.assert_allclose(heap[0].h, expected_heap[0].h)
    np.testing.assert_allclose(heap[0].log["last"], expected_heap[0].log["last"])
    assert int(heap[2].cell_contents) == int(expected_heap[2].cell_contents) == 11
