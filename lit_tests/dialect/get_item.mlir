// RUN: janus-opt %s | FileCheck %s
// RUN: janus-opt %s | janus-opt | FileCheck %s

// A constant key (string or i64 attribute) or a dynamic key (index or signless integer operand).
// CHECK-LABEL: func.func @get_item
// CHECK: "janus.get_item"(%arg0) {key = "weights"} : (!janus.obj) -> tensor<4x4xf32>
// CHECK-NEXT: "janus.get_item"(%arg0) {key = 2 : i64} : (!janus.obj) -> f32
// CHECK-NEXT: "janus.get_item"(%arg0, %arg1) : (!janus.obj, index) -> tensor<4xf32>
// CHECK-NEXT: "janus.get_item"(%arg0, %arg2) : (!janus.obj, i32) -> !janus.obj
func.func @get_item(%d: !janus.obj, %i: index, %j: i32) {
  %w = "janus.get_item"(%d) {key = "weights"} : (!janus.obj) -> tensor<4x4xf32>
  %x = "janus.get_item"(%d) {key = 2} : (!janus.obj) -> f32
  %y = "janus.get_item"(%d, %i) : (!janus.obj, index) -> tensor<4xf32>
  %z = "janus.get_item"(%d, %j) : (!janus.obj, i32) -> !janus.obj
  return
}
