// RUN: janus-opt %s | FileCheck %s
// RUN: janus-opt %s | janus-opt | FileCheck %s

// CHECK-LABEL: func.func @guard
// CHECK: "janus.guard"(%{{.*}}) {id = 7 : i64, kind = "branch", source = "model.py:12"} : (i1) -> ()
func.func @guard(%c: i1) {
  "janus.guard"(%c) {id = 7, kind = "branch", source = "model.py:12"} : (i1) -> ()
  return
}
