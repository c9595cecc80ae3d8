// RUN: janus-opt %s -p 'builtin.module(janus-autodiff,canonicalize,cse)' | FileCheck %s

// A product reduction (body `acc * e`): d e[k, r] = g[k] * init[k] * the product of e over
// the other points of the reduced loops, taken directly (no division), so zeros are exact.
// The factors e are materialized over the loop space, the product of the others is a
// generic with one extra reduction loop per reduced loop that skips the point itself.

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

// CHECK-DAG: #[[MOVED:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[POINT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func private @prod_vjp
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>, %[[G:[^:]*]]: tensor<2xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill
// The factors are x itself here: canonicalize folds their copy.
// CHECK: %[[OTHERS:.*]] = linalg.generic {indexing_maps = [#[[MOVED]], #[[POINT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>)
// CHECK: %[[R:.*]] = linalg.index 1 : index
// CHECK: %[[R2:.*]] = linalg.index 2 : index
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[R]], %[[R2]] : index
// CHECK: %[[F:.*]] = arith.select %[[SAME]], %{{.*}}, %{{.*}} : f32
// CHECK: arith.mulf %{{.*}}, %[[F]] : f32
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} ins(%[[G]], %[[INIT]], %[[OTHERS]] : tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>)
// CHECK: return %[[DX]] : tensor<2x3xf32>
