// RUN: not janus-opt %s --no-verify -p 'builtin.module(canonicalize,janus-verify)' 2>&1 | FileCheck %s
// RUN: janus-opt %s --no-verify -p 'builtin.module(janus-verify)' --verify-diagnostics

// A janus pass that fails inside a pipeline reports located errors, like an upstream
// pass; --no-verify leaves the checking to the janus-verify pass itself.

// CHECK-NOT: Traceback
// CHECK: pass-failure.mlir:[[# @LINE + 4]]:3: error: 'janus.guard' op attribute 'kind' must be one of
// CHECK-NOT: Traceback
func.func @f(%c: i1) {
  // expected-error @+1 {{'janus.guard' op attribute 'kind' must be one of}}
  "janus.guard"(%c) {id = 0, kind = "maybe", source = "a.py:1"} : (i1) -> ()
  return
}
