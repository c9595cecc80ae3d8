// RUN: janus-opt %s --verify-diagnostics -p 'builtin.module(janus-autodiff)'

// A float adjoint reaching an op without a VJP rule is a located error naming the op.

func.func @no_rule(%x: f64) -> f64 attributes {janus.grad} {
  // expected-error @+1 {{janus-autodiff: no gradient rule for 'math.erf'}}
  %y = math.erf %x : f64
  return %y : f64
}
