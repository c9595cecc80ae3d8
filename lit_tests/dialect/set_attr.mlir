// RUN: janus-opt %s | FileCheck %s
// RUN: janus-opt %s | janus-opt | FileCheck %s

// CHECK-LABEL: func.func @set_attr
// CHECK: "janus.set_attr"(%arg0, %arg1) {name = "state"} : (!janus.obj, tensor<1x64xf32>) -> ()
// CHECK-NEXT: "janus.set_attr"(%arg0, %arg2) {name = "child"} : (!janus.obj, !janus.obj) -> ()
func.func @set_attr(%self: !janus.obj, %h: tensor<1x64xf32>, %other: !janus.obj) {
  "janus.set_attr"(%self, %h) {name = "state"} : (!janus.obj, tensor<1x64xf32>) -> ()
  "janus.set_attr"(%self, %other) {name = "child"} : (!janus.obj, !janus.obj) -> ()
  return
}

// `nonlocal count; count += 1`: the cell's `cell_contents` attribute, read then written.
// CHECK-LABEL: func.func @nonlocal
// CHECK: %[[CELL:.*]] = "janus.object"() {name = "count", origin = "cell", slot = 0 : i64}
// CHECK-NEXT: %[[OLD:.*]] = "janus.get_attr"(%[[CELL]]) {name = "cell_contents"} : (!janus.obj) -> i64
// CHECK: %[[NEW:.*]] = arith.addi %[[OLD]]
// CHECK-NEXT: "janus.set_attr"(%[[CELL]], %[[NEW]]) {name = "cell_contents"} : (!janus.obj, i64) -> ()
func.func @nonlocal() {
  %cell = "janus.object"() {slot = 0, origin = "cell", name = "count"} : () -> !janus.obj
  %old = "janus.get_attr"(%cell) {name = "cell_contents"} : (!janus.obj) -> i64
  %one = arith.constant 1 : i64
  %new = arith.addi %old, %one : i64
  "janus.set_attr"(%cell, %new) {name = "cell_contents"} : (!janus.obj, i64) -> ()
  return
}
