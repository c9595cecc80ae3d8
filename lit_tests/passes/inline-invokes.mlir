// RUN: janus-opt %s -p 'builtin.module(janus-inline-invokes)' | FileCheck %s
// RUN: janus-opt %s -p 'builtin.module(janus-inline-invokes,inline,symbol-dce)' | FileCheck %s --check-prefix=INLINED

// An invoke that is not a recursive edge becomes func.call (same operands, results and
// callee), calls from @entry into the recursive @fact and @ping included; the invokes
// inside the cycles (@fact on itself, @ping <-> @pong) stay.

// CHECK-LABEL: func.func @entry
// CHECK: %[[D:.*]]:2 = call @double(%{{.*}}, %{{.*}}) : (f32, i64) -> (f32, i64)
// CHECK: %[[F:.*]] = call @fact(%[[D]]#1) : (i64) -> i64
// CHECK: %[[P:.*]] = call @ping(%[[F]]) : (i64) -> i64
// CHECK: return %[[D]]#0, %[[P]]
// INLINED-LABEL: func.func @entry
// INLINED-NEXT: arith.addf
// INLINED-NEXT: arith.addi
// INLINED-NEXT: call @fact(%{{.*}})
// INLINED-NOT: @double
// INLINED-NOT: @twice
func.func @entry(%x: f32, %n: i64) -> (f32, i64) {
  %d:2 = "janus.invoke"(%x, %n) {callee = @double} : (f32, i64) -> (f32, i64)
  %f = "janus.invoke"(%d#1) {callee = @fact} : (i64) -> i64
  %p = "janus.invoke"(%f) {callee = @ping} : (i64) -> i64
  return %d#0, %p : f32, i64
}

// CHECK-LABEL: func.func private @double
// CHECK: call @twice(%{{.*}}) : (i64) -> i64
func.func private @double(%x: f32, %n: i64) -> (f32, i64) {
  %y = arith.addf %x, %x : f32
  %m = "janus.invoke"(%n) {callee = @twice} : (i64) -> i64
  return %y, %m : f32, i64
}

func.func private @twice(%n: i64) -> i64 {
  %m = arith.addi %n, %n : i64
  return %m : i64
}

// CHECK-LABEL: func.func private @fact
// CHECK: "janus.invoke"(%{{.*}}) {callee = @fact} : (i64) -> i64
// CHECK: call @twice
func.func private @fact(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %le = arith.cmpi sle, %n, %one : i64
  %r = scf.if %le -> i64 {
    scf.yield %one : i64
  } else {
    %m = arith.subi %n, %one : i64
    %f = "janus.invoke"(%m) {callee = @fact} : (i64) -> i64
    %p = arith.muli %n, %f : i64
    %q = "janus.invoke"(%p) {callee = @twice} : (i64) -> i64
    scf.yield %q : i64
  }
  return %r : i64
}

// CHECK-LABEL: func.func private @ping
// CHECK: "janus.invoke"(%{{.*}}) {callee = @pong}
// CHECK-LABEL: func.func private @pong
// CHECK: "janus.invoke"(%{{.*}}) {callee = @ping}
func.func private @ping(%n: i64) -> i64 {
  %r = "janus.invoke"(%n) {callee = @pong} : (i64) -> i64
  return %r : i64
}

func.func private @pong(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %is0 = arith.cmpi eq, %n, %zero : i64
  %r = scf.if %is0 -> i64 {
    scf.yield %n : i64
  } else {
    %one = arith.constant 1 : i64
    %m = arith.subi %n, %one : i64
    %p = "janus.invoke"(%m) {callee = @ping} : (i64) -> i64
    scf.yield %p : i64
  }
  return %r : i64
}
