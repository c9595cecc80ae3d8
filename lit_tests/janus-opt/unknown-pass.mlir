// RUN: not janus-opt %s -p 'builtin.module(janus-verify,no-such-pass)' 2>&1 | FileCheck %s
// RUN: not janus-opt %s -p 'builtin.module(janus-verify,no-such-pass)' | FileCheck %s --check-prefix=OUT --allow-empty

// CHECK-NOT: Traceback
// CHECK: unknown-pass.mlir: error: invalid pass pipeline: {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
// CHECK-NOT: Traceback

// Nothing is printed on stdout when the pipeline cannot be built.
// OUT-NOT: module
func.func @f() {
  return
}
