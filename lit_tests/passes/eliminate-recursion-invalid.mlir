// RUN: janus-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(janus-eliminate-recursion)'

func.func @in_generate(%n: index) -> tensor<?xindex> {
  %t = tensor.generate %n {
  ^bb0(%i: index):
    // expected-error @+1 {{recursive call nested in 'tensor.generate' cannot be eliminated}}
    %r = "janus.invoke"(%i) {callee = @in_generate} : (index) -> tensor<?xindex>
    %c0 = arith.constant 0 : index
    %e = tensor.extract %r[%c0] : tensor<?xindex>
    tensor.yield %e : index
  } : tensor<?xindex>
  return %t : tensor<?xindex>
}

// -----

func.func @vector_saved(%v: vector<4xf32>, %n: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %n, %c0 : index
  %r = scf.if %done -> (vector<4xf32>) {
    scf.yield %v : vector<4xf32>
  } else {
    %w = arith.addf %v, %v : vector<4xf32>
    %m = arith.subi %n, %c1 : index
    // expected-error @+1 {{cannot save a value of type vector<4xf32> across a recursive call}}
    %s = "janus.invoke"(%v, %m) {callee = @vector_saved} : (vector<4xf32>, index) -> vector<4xf32>
    %a = arith.addf %s, %w : vector<4xf32>
    scf.yield %a : vector<4xf32>
  }
  return %r : vector<4xf32>
}
