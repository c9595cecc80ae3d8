// RUN: janus-opt %s -p 'builtin.module(janus-lower-guards)' | FileCheck %s

// CHECK-LABEL: func.func @one_guard
// CHECK-NOT: "janus.guard"(
// CHECK: cf.assert %{{.*}}, "janus.guard id=3 kind=branch source=model.py:7"
// CHECK-NEXT: return
func.func @one_guard(%c: i1) {
  "janus.guard"(%c) {id = 3, kind = "branch", source = "model.py:7"} : (i1) -> ()
  return
}

// CHECK-LABEL: func.func @nested
// CHECK: scf.if
// CHECK: cf.assert %{{.*}}, "janus.guard id=4 kind=trip_count source=m.py:9"
func.func @nested(%c: i1, %d: i1) {
  scf.if %c {
    "janus.guard"(%d) {id = 4, kind = "trip_count", source = "m.py:9"} : (i1) -> ()
  }
  return
}
