// RUN: janus-opt %s | FileCheck %s
// RUN: janus-opt %s | janus-opt | FileCheck %s

// A self-recursive function: janus.invoke may name its own caller.
// CHECK-LABEL: func.func @fact(%arg0: i64) -> i64
// CHECK: %{{.*}} = "janus.invoke"(%{{.*}}) {callee = @fact} : (i64) -> i64
func.func @fact(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %base = arith.cmpi sle, %n, %one : i64
  %r = scf.if %base -> i64 {
    scf.yield %one : i64
  } else {
    %m = arith.subi %n, %one : i64
    %f = "janus.invoke"(%m) {callee = @fact} : (i64) -> i64
    %p = arith.muli %n, %f : i64
    scf.yield %p : i64
  }
  return %r : i64
}

// Mutual recursion, several results, and no arguments or results at all.
// CHECK-LABEL: func.func @even
// CHECK: %{{.*}}:2 = "janus.invoke"(%arg0, %arg1) {callee = @odd} : (tensor<?xf32>, !janus.obj) -> (tensor<?xf32>, i1)
// CHECK-LABEL: func.func @odd
// CHECK: %{{.*}}:2 = "janus.invoke"(%arg0, %arg1) {callee = @even} : (tensor<?xf32>, !janus.obj) -> (tensor<?xf32>, i1)
// CHECK-LABEL: func.func @nothing
// CHECK: "janus.invoke"() {callee = @nothing} : () -> ()
func.func @even(%x: tensor<?xf32>, %o: !janus.obj) -> (tensor<?xf32>, i1) {
  %r:2 = "janus.invoke"(%x, %o) {callee = @odd} : (tensor<?xf32>, !janus.obj) -> (tensor<?xf32>, i1)
  return %r#0, %r#1 : tensor<?xf32>, i1
}
func.func @odd(%x: tensor<?xf32>, %o: !janus.obj) -> (tensor<?xf32>, i1) {
  %r:2 = "janus.invoke"(%x, %o) {callee = @even} : (tensor<?xf32>, !janus.obj) -> (tensor<?xf32>, i1)
  return %r#0, %r#1 : tensor<?xf32>, i1
}
func.func @nothing() {
  "janus.invoke"() {callee = @nothing} : () -> ()
  return
}

// The callee may be a declaration (an external function).
// CHECK-LABEL: func.func private @extern(f32) -> f32
// CHECK-LABEL: func.func @calls_extern
// CHECK: "janus.invoke"(%arg0) {callee = @extern} : (f32) -> f32
func.func private @extern(f32) -> f32
func.func @calls_extern(%x: f32) -> f32 {
  %y = "janus.invoke"(%x) {callee = @extern} : (f32) -> f32
  return %y : f32
}
