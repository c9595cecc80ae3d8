// RUN: janus-opt %s | FileCheck %s
// RUN: janus-opt %s | janus-opt | FileCheck %s

// CHECK-LABEL: func.func @guard
// CHECK: "janus.guard"(%{{.*}}) {id = 7 : i64, kind = "branch", source = "model.py:12"} : (i1) -> ()
func.func @guard(%c: i1) {
  "janus.guard"(%c) {id = 7, kind = "branch", source = "model.py:12"} : (i1) -> ()
  return
}

// A guard on a comparison, inside a loop body, with another kind.
// CHECK-LABEL: func.func @guard_in_loop
// CHECK: scf.for
// CHECK: %[[C:.*]] = arith.cmpi slt
// CHECK-NEXT: "janus.guard"(%[[C]]) {id = 8 : i64, kind = "trip_count", source = "model.py:20"} : (i1) -> ()
func.func @guard_in_loop(%n: index, %limit: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %ok = arith.cmpi slt, %i, %limit : index
    "janus.guard"(%ok) {id = 8, kind = "trip_count", source = "model.py:20"} : (i1) -> ()
  }
  return
}

// Every kind is accepted (ids unique within the module).
// CHECK-LABEL: func.func @kinds
// CHECK: kind = "type"
// CHECK: kind = "dtype"
// CHECK: kind = "shape"
// CHECK: kind = "value"
// CHECK: kind = "callee"
// CHECK: kind = "raise"
// CHECK: kind = "python"
// CHECK: kind = "stack_depth"
func.func @kinds(%c: i1) {
  "janus.guard"(%c) {id = 10, kind = "type", source = "m.py:1"} : (i1) -> ()
  "janus.guard"(%c) {id = 11, kind = "dtype", source = "m.py:2"} : (i1) -> ()
  "janus.guard"(%c) {id = 12, kind = "shape", source = "m.py:3"} : (i1) -> ()
  "janus.guard"(%c) {id = 13, kind = "value", source = "m.py:4"} : (i1) -> ()
  "janus.guard"(%c) {id = 14, kind = "callee", source = "m.py:5"} : (i1) -> ()
  "janus.guard"(%c) {id = 15, kind = "raise", source = "m.py:6"} : (i1) -> ()
  "janus.guard"(%c) {id = 16, kind = "python", source = "m.py:7"} : (i1) -> ()
  "janus.guard"(%c) {id = 17, kind = "stack_depth", source = "m.py:8"} : (i1) -> ()
  return
}

// Copies of one guard (same id, kind and source) in two functions: one assumption.
// CHECK-LABEL: func.func @copy_a
// CHECK: "janus.guard"(%{{.*}}) {id = 20 : i64, kind = "type", source = "m.py:9"}
// CHECK-LABEL: func.func @copy_b
// CHECK: "janus.guard"(%{{.*}}) {id = 20 : i64, kind = "type", source = "m.py:9"}
func.func @copy_a(%c: i1) {
  "janus.guard"(%c) {id = 20, kind = "type", source = "m.py:9"} : (i1) -> ()
  return
}
func.func @copy_b(%c: i1) {
  "janus.guard"(%c) {id = 20, kind = "type", source = "m.py:9"} : (i1) -> ()
  return
}
