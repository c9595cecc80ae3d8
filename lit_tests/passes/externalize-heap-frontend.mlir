// RUN: janus-opt %s -p 'builtin.module(janus-externalize-heap)' | FileCheck %s

// The shape janus.jit emits for `params["W"] -= lr * g; self.state = h; guard`: object
// references first (a prologue that dominates every use), then reads, an in-place update
// written back to its own location, a write followed by a guard. The write leaves as a
// result; the guard stays where it was, after the (now pure) computation.

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[G:.*]]: tensor<2xf32>, %[[W:.*]]: tensor<2xf32>, %[[S:.*]]: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-SAME: janus.heap_objects = [{name = "params", origin = "arg", slot = 0 : i64}, {name = "self", origin = "arg", slot = 1 : i64}]
// CHECK-SAME: janus.heap_reads = [{path = {{\[}}["item", "W"]], slot = 0 : i64}, {path = {{\[}}["attr", "state"]], slot = 1 : i64}]
// CHECK-SAME: janus.heap_writes = [{path = {{\[}}["item", "W"]], slot = 0 : i64}, {path = {{\[}}["attr", "state"]], slot = 1 : i64}]
// CHECK-NOT: "janus.get
// CHECK-NOT: "janus.set
// CHECK: %[[NEWW:.*]] = arith.subf %[[W]], %[[G]]
// CHECK: %[[H:.*]] = arith.addf %[[S]], %[[NEWW]]
// CHECK: "janus.guard"
// CHECK: return %[[H]], %[[NEWW]], %[[H]]
func.func @step(%g: tensor<2xf32>) -> tensor<2xf32> {
  %params = "janus.object"() {slot = 0 : i64, origin = "arg", name = "params"} : () -> !janus.obj
  %self = "janus.object"() {slot = 1 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %w = "janus.get_item"(%params) {key = "W"} : (!janus.obj) -> tensor<2xf32>
  %neww = arith.subf %w, %g : tensor<2xf32>
  "janus.set_item"(%params, %neww) {key = "W"} : (!janus.obj, tensor<2xf32>) -> ()
  "janus.set_item"(%params, %neww) {key = "W"} : (!janus.obj, tensor<2xf32>) -> ()
  %s = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> tensor<2xf32>
  %w2 = "janus.get_item"(%params) {key = "W"} : (!janus.obj) -> tensor<2xf32>
  %h = arith.addf %s, %w2 : tensor<2xf32>
  "janus.set_attr"(%self, %h) {name = "state"} : (!janus.obj, tensor<2xf32>) -> ()
  %c = arith.constant true
  "janus.guard"(%c) {id = 0 : i64, kind = "branch", source = "model.py:3"} : (i1) -> ()
  return %h : tensor<2xf32>
}
