// RUN: not janus-opt %s 2>&1 | FileCheck %s

// A set_attr without its name: a located diagnostic (file:line:col), exit code 1, and
// no Python traceback.

// CHECK-NOT: Traceback
// CHECK: malformed-op.mlir:[[# @LINE + 3]]:3: error: 'janus.set_attr' op requires attribute 'name'
// CHECK-NOT: Traceback
func.func @f(%o: !janus.obj, %v: f32) {
  "janus.set_attr"(%o, %v) : (!janus.obj, f32) -> ()
  return
}
