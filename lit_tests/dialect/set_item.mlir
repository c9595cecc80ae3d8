// RUN: janus-opt %s | FileCheck %s
// RUN: janus-opt %s | janus-opt | FileCheck %s

// Operands are (object, value) with a constant key, or (object, index, value).
// CHECK-LABEL: func.func @set_item
// CHECK: "janus.set_item"(%arg0, %arg3) {key = "h"} : (!janus.obj, tensor<4xf32>) -> ()
// CHECK-NEXT: "janus.set_item"(%arg0, %arg3) {key = -1 : i64} : (!janus.obj, tensor<4xf32>) -> ()
// CHECK-NEXT: "janus.set_item"(%arg0, %arg1, %arg3) : (!janus.obj, index, tensor<4xf32>) -> ()
// CHECK-NEXT: "janus.set_item"(%arg0, %arg2, %arg0) : (!janus.obj, i64, !janus.obj) -> ()
func.func @set_item(%d: !janus.obj, %i: index, %j: i64, %v: tensor<4xf32>) {
  "janus.set_item"(%d, %v) {key = "h"} : (!janus.obj, tensor<4xf32>) -> ()
  "janus.set_item"(%d, %v) {key = -1} : (!janus.obj, tensor<4xf32>) -> ()
  "janus.set_item"(%d, %i, %v) : (!janus.obj, index, tensor<4xf32>) -> ()
  "janus.set_item"(%d, %j, %d) : (!janus.obj, i64, !janus.obj) -> ()
  return
}
