// RUN: not janus-opt %s 2>&1 | FileCheck %s

// Input MLIR cannot parse: MLIR's own located diagnostic, exit code 1, no traceback.

// CHECK-NOT: Traceback
// CHECK: parse-error.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: use of undeclared SSA value name
// CHECK-NOT: Traceback
func.func @f() {
  "janus.set_attr"(%o, %v) {name = "x"} : (!janus.obj, f32) -> ()
  return
}
