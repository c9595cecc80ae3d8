// RUN: janus-opt %s -p 'builtin.module(janus-verify,canonicalize,cse)' --mlir-print-ir-after-all 2>&1 | FileCheck %s

// The dump after each pass goes to stderr (janus and upstream passes alike); the result
// to stdout, last.

// CHECK: IR Dump After JanusVerify: janus-verify //
// CHECK: arith.addi
// CHECK: IR Dump After CanonicalizerPass
// CHECK-NOT: arith.addi
// CHECK: IR Dump After CSEPass
// CHECK-NOT: IR Dump
// CHECK: module {
// CHECK: %[[C:.*]] = arith.constant 3 : i64
// CHECK: "janus.set_attr"(%arg0, %[[C]]) {name = "count"} : (!janus.obj, i64) -> ()
func.func @count(%o: !janus.obj) {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.addi %one, %two : i64
  "janus.set_attr"(%o, %three) {name = "count"} : (!janus.obj, i64) -> ()
  return
}
