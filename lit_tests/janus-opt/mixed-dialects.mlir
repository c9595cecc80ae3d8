// RUN: janus-opt %s -p 'builtin.module(janus-verify,canonicalize,cse)' | FileCheck %s

// One RNN-like step mixing func, arith, scf, tensor and linalg with janus ops.
// canonicalize folds constants and cse merges the duplicated arith.mulf, while every
// janus op survives: even an unused read, and a read of `state` after the write to it
// (heap ops have unknown side effects, so they are neither erased nor merged).

// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[SELF:.*]] = "janus.object"() {name = "self", origin = "arg", slot = 0 : i64} : () -> !janus.obj
// CHECK: %[[H:.*]] = "janus.get_attr"(%[[SELF]]) {name = "state"} : (!janus.obj) -> tensor<4xf32>
// CHECK: %[[STEPS:.*]] = "janus.get_attr"(%[[SELF]]) {name = "steps"} : (!janus.obj) -> i64
// CHECK: %[[OK:.*]] = arith.cmpi slt, %[[STEPS]], %{{.*}} : i64
// CHECK: "janus.guard"(%[[OK]]) {id = 1 : i64, kind = "branch", source = "rnn.py:9"} : (i1) -> ()
// CHECK: %[[SUM:.*]] = linalg.map { arith.addf } ins(%arg0, %[[H]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: scf.for {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[SUM]])
// CHECK: %[[V:.*]] = tensor.extract %[[ACC]]
// CHECK: %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NOT: arith.mulf %[[V]], %[[V]]
// CHECK: %[[S:.*]] = arith.addf %[[SQ]], %[[SQ]] : f32
// CHECK: arith.mulf %[[S]], %[[TWO]] : f32
// CHECK: tensor.insert
// CHECK: scf.yield
// CHECK: "janus.set_attr"(%[[SELF]], %[[NEW:.*]]) {name = "state"} : (!janus.obj, tensor<4xf32>) -> ()
// CHECK-NEXT: "janus.get_attr"(%[[SELF]]) {name = "state"} : (!janus.obj) -> tensor<4xf32>
// CHECK-NEXT: %[[OUT:.*]] = "janus.invoke"(%[[NEW]]) {callee = @readout} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[OUT]] : tensor<4xf32>
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %limit = arith.constant 100 : i64
  %one = arith.constant 1.0 : f32
  %two = arith.addf %one, %one : f32
  %self = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> !janus.obj
  %h = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> tensor<4xf32>
  %steps = "janus.get_attr"(%self) {name = "steps"} : (!janus.obj) -> i64
  %ok = arith.cmpi slt, %steps, %limit : i64
  "janus.guard"(%ok) {id = 1, kind = "branch", source = "rnn.py:9"} : (i1) -> ()
  %init = tensor.empty() : tensor<4xf32>
  %sum = linalg.map { arith.addf } ins(%x, %h : tensor<4xf32>, tensor<4xf32>) outs(%init : tensor<4xf32>)
  %new = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %sum) -> (tensor<4xf32>) {
    %v = tensor.extract %acc[%i] : tensor<4xf32>
    %a = arith.mulf %v, %v : f32
    %b = arith.mulf %v, %v : f32
    %s = arith.addf %a, %b : f32
    %t = arith.mulf %s, %two : f32
    %u = tensor.insert %t into %acc[%i] : tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  }
  "janus.set_attr"(%self, %new) {name = "state"} : (!janus.obj, tensor<4xf32>) -> ()
  %unused = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> tensor<4xf32>
  %out = "janus.invoke"(%new) {callee = @readout} : (tensor<4xf32>) -> tensor<4xf32>
  return %out : tensor<4xf32>
}

// CHECK-LABEL: func.func @readout
func.func @readout(%h: tensor<4xf32>) -> tensor<4xf32> {
  return %h : tensor<4xf32>
}
