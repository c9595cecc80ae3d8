// RUN: janus-opt %s --split-input-file -p 'builtin.module(janus-autodiff,canonicalize,cse)' | FileCheck %s

// A product reduction (body `acc * e`): d e[k, r] = g[k] * init[k] * the product of e over
// the other points of the reduced loops, taken directly (no division), so zeros are exact.
// One reduced loop: an exclusive prefix product (iree_linalg_ext.scan) times an exclusive
// suffix product (the scan of e read backwards, read backwards again).

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @prod(%x: tensor<2x3xf32>) -> tensor<2xf32> attributes {janus.grad} {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %p = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.mulf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  return %p : tensor<2xf32>
}

// CHECK-LABEL: func.func private @prod_vjp
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>, %[[G:[^:]*]]: tensor<2xf32>)
// CHECK: %[[LAST:.*]] = arith.constant 2 : index
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[BACK:.*]] = linalg.generic
// CHECK: %[[R:.*]] = linalg.index 1 : index
// CHECK: %[[RR:.*]] = arith.subi %[[LAST]], %[[R]] : index
// CHECK: tensor.extract %[[X]][%{{.*}}, %[[RR]]]
// CHECK: %[[SUFFIX:.*]]:2 = iree_linalg_ext.scan dimension(1) inclusive(false) ins(%[[BACK]] : tensor<2x3xf32>)
// CHECK: arith.mulf
// CHECK: %[[FORTH:.*]] = linalg.generic
// CHECK: tensor.extract %[[SUFFIX]]#0
// CHECK: %[[PREFIX:.*]]:2 = iree_linalg_ext.scan dimension(1) inclusive(false) ins(%[[X]] : tensor<2x3xf32>)
// CHECK: %[[OTHERS:.*]] = linalg.generic {{.*}} ins(%[[PREFIX]]#0, %[[FORTH]] : tensor<2x3xf32>, tensor<2x3xf32>)
// The factors are x itself here: canonicalize folds their copy.
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} ins(%[[G]], %[[INIT]], %[[OTHERS]] : tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>)
// CHECK: return %[[DX]] : tensor<2x3xf32>

// -----

// Several reduced loops (np.prod of a whole matrix): one generic with an extra reduction
// loop per reduced loop, skipping the point itself.

func.func @prod_all(%x: tensor<2x3xf32>) -> tensor<f32> attributes {janus.grad} {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<2x3xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.mulf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %p : tensor<f32>
}

// CHECK-DAG: #[[MOVED:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[POINT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func private @prod_all_vjp
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>, %[[G:[^:]*]]: tensor<f32>)
// CHECK: %[[OTHERS:.*]] = linalg.generic {indexing_maps = [#[[MOVED]], #[[POINT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[J0:.*]] = linalg.index 2 : index
// CHECK: %[[SAME0:.*]] = arith.cmpi eq, %[[I0]], %[[J0]] : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[J1:.*]] = linalg.index 3 : index
// CHECK: %[[SAME1:.*]] = arith.cmpi eq, %[[I1]], %[[J1]] : index
// CHECK: %[[SAME:.*]] = arith.andi %[[SAME0]], %[[SAME1]] : i1
// CHECK: %[[F:.*]] = arith.select %[[SAME]], %{{.*}}, %{{.*}} : f32
// CHECK: arith.mulf %{{.*}}, %[[F]] : f32
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} ins(%[[G]], %{{.*}}, %[[OTHERS]] : tensor<f32>, tensor<f32>, tensor<2x3xf32>)
// CHECK: return %[[DX]] : tensor<2x3xf32>

// -----

// An integer made a float (a count in a mean, a bool times x) is a constant for the
// gradient: the adjoint reaches x through the product only.

func.func @count(%x: f64, %n: i64, %b: i1) -> f64 attributes {janus.grad} {
  %nf = arith.sitofp %n : i64 to f64
  %bf = arith.uitofp %b : i1 to f64
  %m = arith.mulf %x, %nf : f64
  %r = arith.mulf %m, %bf : f64
  return %r : f64
}

// CHECK-LABEL: func.func private @count_vjp
// CHECK-DAG: %[[NF:.*]] = arith.sitofp
// CHECK-DAG: %[[BF:.*]] = arith.uitofp
// CHECK: %[[T:.*]] = arith.mulf %{{.*}}, %[[BF]] : f64
// CHECK: %[[G:.*]] = arith.mulf %[[T]], %[[NF]] : f64
// CHECK: return %[[G]] : f64
