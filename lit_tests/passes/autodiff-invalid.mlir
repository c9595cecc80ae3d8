// RUN: janus-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(janus-autodiff)'

// A float adjoint reaching an op without a VJP rule is a located error naming the op.

func.func @no_rule(%x: f64) -> f64 attributes {janus.grad} {
  // expected-error @+1 {{janus-autodiff: no gradient rule for 'math.erf'}}
  %y = math.erf %x : f64
  return %y : f64
}

// -----

// A product reduction whose init carries a gradient is refused (the frontend's init is a
// constant fill of 1).

#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @product_of_a_variable_init(%x: tensor<3xf32>, %init: tensor<f32>) -> tensor<f32> attributes {janus.grad} {
  // expected-error @+1 {{janus-autodiff: product reduction gradients need a constant init}}
  %p = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]} ins(%x : tensor<3xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.mulf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %p : tensor<f32>
}

// -----

// A sort whose second operand is not the positions along the axis has no known
// permutation to send the cotangent back by.

func.func @sort_without_positions(%x: tensor<4xf32>, %k: tensor<4xi64>) -> tensor<4xf32> attributes {janus.grad} {
  // expected-error @+1 {{janus-autodiff: sort gradients need the values sorted with their positions along the axis}}
  %s:2 = iree_linalg_ext.sort dimension(0) outs(%x, %k : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<4xf32>, tensor<4xi64>
  return %s#0 : tensor<4xf32>
}

// -----

// A product whose factor reads a float captured from outside the generic would give that
// float no adjoint: refused before the product rule is tried.

#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @product_of_a_captured_float(%x: tensor<3xf32>, %s: f32) -> tensor<f32> attributes {janus.grad} {
  %one = arith.constant dense<1.0> : tensor<f32>
  // expected-error @+1 {{janus-autodiff: no gradient rule for a linalg.generic whose body reads a float defined outside it}}
  %p = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]} ins(%x : tensor<3xf32>) outs(%one : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %f = arith.mulf %in, %s : f32
    %m = arith.mulf %acc, %f : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %p : tensor<f32>
}
