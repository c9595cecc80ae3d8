// RUN: janus-opt %s | FileCheck %s
// RUN: janus-opt %s | janus-opt | FileCheck %s

// The result may have any type: tensors, scalars, other objects.
// CHECK-LABEL: func.func @get_attr
// CHECK: %[[O:.*]] = "janus.object"()
// CHECK-NEXT: %{{.*}} = "janus.get_attr"(%[[O]]) {name = "state"} : (!janus.obj) -> tensor<1x64xf32>
// CHECK-NEXT: %{{.*}} = "janus.get_attr"(%[[O]]) {name = "step"} : (!janus.obj) -> i64
// CHECK-NEXT: %[[CELL:.*]] = "janus.get_attr"(%[[O]]) {name = "cell"} : (!janus.obj) -> !janus.obj
// CHECK-NEXT: %{{.*}} = "janus.get_attr"(%[[CELL]]) {name = "w"} : (!janus.obj) -> tensor<?x64xf32>
func.func @get_attr() {
  %self = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> !janus.obj
  %state = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> tensor<1x64xf32>
  %step = "janus.get_attr"(%self) {name = "step"} : (!janus.obj) -> i64
  %cell = "janus.get_attr"(%self) {name = "cell"} : (!janus.obj) -> !janus.obj
  %w = "janus.get_attr"(%cell) {name = "w"} : (!janus.obj) -> tensor<?x64xf32>
  return
}

// A global is an attribute of its module object.
// CHECK-LABEL: func.func @global
// CHECK: "janus.get_attr"(%arg0) {name = "LEARNING_RATE"} : (!janus.obj) -> f32
func.func @global(%module: !janus.obj) -> f32 {
  %lr = "janus.get_attr"(%module) {name = "LEARNING_RATE"} : (!janus.obj) -> f32
  return %lr : f32
}
