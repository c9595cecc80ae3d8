// RUN: janus-opt %s --split-input-file -p 'builtin.module(janus-host-index-arrays)' | FileCheck %s

// An int64 array the host only indexes, passed on to a parameter that is only indexed:
// both become VM buffers; an extract is a load at 8 bytes per element, a dim the size / 8.
// CHECK-LABEL: func.func @walk(%arg0: !util.buffer, %arg1: index) -> i64
// CHECK: %[[SIZE:.+]] = util.buffer.size %arg0 : !util.buffer
// CHECK: %[[OFFSET:.+]] = arith.muli %arg1, %c8 : index
// CHECK: %[[V:.+]] = util.buffer.load %arg0[%[[OFFSET]] for %c8] : !util.buffer{%[[SIZE]]} -> i64
// CHECK: "janus.invoke"(%arg0, %{{.+}}) {callee = @step} : (!util.buffer, index) -> i64
// CHECK-LABEL: func.func private @step(%arg0: !util.buffer, %arg1: index) -> i64
// CHECK: arith.divui %{{.+}}, %c8 : index
// CHECK-NOT: tensor.extract
// CHECK-NOT: tensor.dim
func.func @walk(%t: tensor<?xi64>, %i: index) -> i64 {
  %v = tensor.extract %t[%i] : tensor<?xi64>
  %j = arith.index_cast %v : i64 to index
  %r = "janus.invoke"(%t, %j) {callee = @step} : (tensor<?xi64>, index) -> i64
  return %r : i64
}
func.func private @step(%t: tensor<?xi64>, %i: index) -> i64 {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?xi64>
  %last = arith.subi %n, %i : index
  %v = tensor.extract %t[%last] : tensor<?xi64>
  return %v : i64
}

// -----

// An array also used as a tensor stays a tensor, and so does the parameter it is passed
// to (every call site must pass a buffer).
// CHECK-LABEL: func.func @mixed(%arg0: tensor<?xi64>, %arg1: tensor<?xi64>
// CHECK: tensor.extract %arg0
// CHECK-LABEL: func.func private @reader(%arg0: tensor<?xi64>
// CHECK: tensor.extract %arg0
func.func @mixed(%t: tensor<?xi64>, %u: tensor<?xi64>, %i: index) -> (i64, tensor<?xi64>) {
  %v = tensor.extract %t[%i] : tensor<?xi64>
  %d = arith.addi %t, %t : tensor<?xi64>
  %r = "janus.invoke"(%t, %i) {callee = @reader} : (tensor<?xi64>, index) -> i64
  %s = "janus.invoke"(%u, %i) {callee = @reader} : (tensor<?xi64>, index) -> i64
  return %r, %d : i64, tensor<?xi64>
}
func.func private @reader(%t: tensor<?xi64>, %i: index) -> i64 {
  %v = tensor.extract %t[%i] : tensor<?xi64>
  return %v : i64
}
