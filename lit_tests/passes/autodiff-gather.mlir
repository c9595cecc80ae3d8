// RUN: janus-opt %s --split-input-file -p 'builtin.module(janus-autodiff,canonicalize,cse)' | FileCheck %s

// Gathers and sorts send the cotangent back where each value was read: one
// iree_linalg_ext.scatter with add into zeros, at coordinates computed by recomputing the
// gather's integer body (one i64 generic per coordinate).

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @take_along(%x: tensor<3x4xf32>, %ids: tensor<3x2xi64>) -> tensor<3x2xf32> attributes {janus.grad} {
  %e = tensor.empty() : tensor<3x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<3x2xi64>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %i : i64 to index
    %v = tensor.extract %x[%r, %c] : tensor<3x4xf32>
    linalg.yield %v : f32
  } -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// CHECK-LABEL: func.func private @take_along_vjp
// CHECK-SAME: (%{{[^:]*}}: tensor<3x4xf32>, %[[IDS:[^:]*]]: tensor<3x2xi64>, %[[G:[^:]*]]: tensor<3x2xf32>)
// CHECK: %[[ROW:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x2xi64>)
// CHECK: linalg.index 0 : index
// CHECK: tensor.collapse_shape %[[ROW]]
// The column coordinate is the ids themselves: canonicalize folds their i64 -> index -> i64 copy.
// CHECK: tensor.collapse_shape %[[IDS]]
// CHECK: %[[INDICES:.*]] = tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<6x1xi64>, tensor<6x1xi64>) -> tensor<6x2xi64>
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[UPDATES:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1]] : tensor<3x2xf32> into tensor<6xf32>
// CHECK: %[[DX:.*]] = iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(false) ins(%[[UPDATES]], %[[INDICES]] : tensor<6xf32>, tensor<6x2xi64>) outs(%[[ZEROS]] : tensor<3x4xf32>)
// CHECK: ^bb0(%[[U:.*]]: f32, %[[OLD:.*]]: f32):
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %[[U]] : f32
// CHECK: iree_linalg_ext.yield %[[SUM]] : f32
// CHECK: return %[[DX]] : tensor<3x4xf32>

// -----

// np.sort's form: values copied with their positions along the axis, sorted together; the
// sorted positions are the scatter's coordinate along the axis, loop indices the others.

func.func @sort(%x: tensor<2x3xf32>) -> tensor<2x3xf32> attributes {janus.grad} {
  %ev = tensor.empty() : tensor<2x3xf32>
  %ep = tensor.empty() : tensor<2x3xi64>
  %c:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%ev, %ep : tensor<2x3xf32>, tensor<2x3xi64>) {
  ^bb0(%in: f32, %o0: f32, %o1: i64):
    %k = linalg.index 1 : index
    %p = arith.index_cast %k : index to i64
    linalg.yield %in, %p : f32, i64
  } -> (tensor<2x3xf32>, tensor<2x3xi64>)
  %s:2 = iree_linalg_ext.sort dimension(1) outs(%c#0, %c#1 : tensor<2x3xf32>, tensor<2x3xi64>) {
  ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<2x3xf32>, tensor<2x3xi64>
  return %s#0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func private @sort_vjp
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>, %[[G:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[COPY:.*]]:2 = linalg.generic
// CHECK: %[[SORTED:.*]]:2 = iree_linalg_ext.sort dimension(1) outs(%[[COPY]]#0, %[[COPY]]#1
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xi64>)
// CHECK: linalg.index 0 : index
// CHECK: tensor.collapse_shape %[[ROWS]]
// CHECK: tensor.collapse_shape %[[SORTED]]#1
// CHECK: %[[UPDATES:.*]] = tensor.collapse_shape %[[G]]
// CHECK: %[[D:.*]] = iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(false) ins(%[[UPDATES]], %{{.*}} : tensor<6xf32>, tensor<6x2xi64>)
// The multi-result copy's rule passes the cotangent of its float result through (an
// identity generic that canonicalize folds).
// CHECK: return %[[D]] : tensor<2x3xf32>
