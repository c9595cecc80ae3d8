// Control flow and calls under janus-autodiff; gradients checked in tests/test_autodiff.py.

// Branch on data: the backward scf.if takes the branch the forward took.
func.func @branch(%x: f64, %y: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> attributes {janus.grad} {
  %zero = arith.constant 0.0 : f64
  %pos = arith.cmpf ogt, %x, %zero : f64
  %r = scf.if %pos -> (tensor<3xf64>) {
    %m = arith.mulf %y, %w : tensor<3xf64>
    %t = math.tanh %m : tensor<3xf64>
    scf.yield %t : tensor<3xf64>
  } else {
    %e = tensor.empty() : tensor<3xf64>
    %xs = linalg.fill ins(%x : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
    %m = arith.mulf %y, %xs : tensor<3xf64>
    scf.yield %m : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}

// h <- tanh(h * w + x), n times, with a scalar running sum of h[0].
func.func @for_loop(%x: tensor<3xf64>, %w: tensor<3xf64>, %n: index) -> (tensor<3xf64>, f64) attributes {janus.grad} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %h, %s = scf.for %i = %c0 to %n step %c1 iter_args(%h0 = %x, %s0 = %zero) -> (tensor<3xf64>, f64) {
    %m = arith.mulf %h0, %w : tensor<3xf64>
    %a = arith.addf %m, %x : tensor<3xf64>
    %t = math.tanh %a : tensor<3xf64>
    %v = tensor.extract %t[%c0] : tensor<3xf64>
    %s1 = arith.addf %s0, %v : f64
    scf.yield %t, %s1 : tensor<3xf64>, f64
  }
  return %h, %s : tensor<3xf64>, f64
}

// v <- v * w + x while v < limit: the trip count depends on the data.
func.func @while_loop(%x: f64, %w: f64, %h: tensor<2xf64>, %limit: f64) -> (f64, tensor<2xf64>) attributes {janus.grad} {
  %r:2 = scf.while (%v = %x, %g = %h) : (f64, tensor<2xf64>) -> (f64, tensor<2xf64>) {
    %go = arith.cmpf olt, %v, %limit : f64
    scf.condition(%go) %v, %g : f64, tensor<2xf64>
  } do {
  ^bb0(%v1: f64, %g1: tensor<2xf64>):
    %m = arith.mulf %v1, %w : f64
    %v2 = arith.addf %m, %x : f64
    %e = tensor.empty() : tensor<2xf64>
    %vs = linalg.fill ins(%v2 : f64) outs(%e : tensor<2xf64>) -> tensor<2xf64>
    %p = arith.mulf %g1, %vs : tensor<2xf64>
    %g2 = math.sin %p : tensor<2xf64>
    scf.yield %v2, %g2 : f64, tensor<2xf64>
  }
  return %r#0, %r#1 : f64, tensor<2xf64>
}

func.func private @cell(%h: tensor<2x3xf64>, %w: tensor<3x3xf64>) -> tensor<2x3xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x3xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<2x3xf64>) -> tensor<2x3xf64>
  %m = linalg.matmul ins(%h, %w : tensor<2x3xf64>, tensor<3x3xf64>) outs(%z : tensor<2x3xf64>) -> tensor<2x3xf64>
  %t = math.tanh %m : tensor<2x3xf64>
  return %t : tensor<2x3xf64>
}

// Two calls of one callee: the backward calls @cell_vjp in reverse order.
func.func @calls(%h: tensor<2x3xf64>, %w: tensor<3x3xf64>) -> tensor<2x3xf64> attributes {janus.grad = {argnums = [0, 1]}} {
  %a = func.call @cell(%h, %w) : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
  %b = func.call @cell(%a, %w) : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
  return %b : tensor<2x3xf64>
}

// janus.invoke of a non-recursive callee: the backward invokes @cell_vjp.
func.func @invokes(%h: tensor<2x3xf64>, %w: tensor<3x3xf64>) -> tensor<2x3xf64> attributes {janus.grad} {
  %a = "janus.invoke"(%h, %w) {callee = @cell} : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
  %b = arith.mulf %a, %h : tensor<2x3xf64>
  return %b : tensor<2x3xf64>
}
