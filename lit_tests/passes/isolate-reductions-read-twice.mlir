// RUN: janus-opt %s -p 'builtin.module(janus-isolate-reductions-read-twice)' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// `s[i] + s[j]` of row sums (pairwise squared distances): the reduction gets a barrier, and
// the consumer reads the barrier's result through both maps.

// CHECK-LABEL: func.func @pairwise
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: %[[B:.*]] = util.optimization_barrier %[[S]] : tensor<3xf64>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B]], %[[B]] : tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>)
func.func @pairwise(%x: tensor<3x2xf64>, %a: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %c = arith.constant 0.0 : f64
  %0 = tensor.empty() : tensor<3xf64>
  %1 = linalg.fill ins(%c : f64) outs(%0 : tensor<3xf64>) -> tensor<3xf64>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x2xf64>) outs(%1 : tensor<3xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = arith.addf %in, %out : f64
    linalg.yield %t : f64
  } -> tensor<3xf64>
  %e = tensor.empty() : tensor<3x3xf64>
  %r = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %s, %s : tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>) outs(%e : tensor<3x3xf64>) {
  ^bb0(%in: f64, %i: f64, %j: f64, %out: f64):
    %t = arith.addf %in, %i : f64
    %u = arith.addf %t, %j : f64
    linalg.yield %u : f64
  } -> tensor<3x3xf64>
  return %r : tensor<3x3xf64>
}

// Two consumers, one through a reshape: IREE may fuse them into one, so the barrier goes in.

// CHECK-LABEL: func.func @through_a_view
// CHECK: util.optimization_barrier
func.func @through_a_view(%x: tensor<3x2xf64>, %a: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %c = arith.constant 0.0 : f64
  %0 = tensor.empty() : tensor<3xf64>
  %1 = linalg.fill ins(%c : f64) outs(%0 : tensor<3xf64>) -> tensor<3xf64>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x2xf64>) outs(%1 : tensor<3xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = arith.addf %in, %out : f64
    linalg.yield %t : f64
  } -> tensor<3xf64>
  %col = tensor.expand_shape %s [[0, 1]] output_shape [1, 3] : tensor<3xf64> into tensor<1x3xf64>
  %e = tensor.empty() : tensor<3x3xf64>
  %t1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %s : tensor<3x3xf64>, tensor<3xf64>) outs(%e : tensor<3x3xf64>) {
  ^bb0(%in: f64, %i: f64, %out: f64):
    %t = arith.addf %in, %i : f64
    linalg.yield %t : f64
  } -> tensor<3x3xf64>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]} ins(%t1, %col : tensor<3x3xf64>, tensor<1x3xf64>) outs(%e : tensor<3x3xf64>) {
  ^bb0(%in: f64, %j: f64, %out: f64):
    %t = arith.addf %in, %j : f64
    linalg.yield %t : f64
  } -> tensor<3x3xf64>
  return %r : tensor<3x3xf64>
}

// A reduction read once (softmax's row sums), or twice through one map of one op: no barrier.

// CHECK-LABEL: func.func @read_once
// CHECK-NOT: util.optimization_barrier
// CHECK: return
func.func @read_once(%x: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %c = arith.constant 0.0 : f64
  %0 = tensor.empty() : tensor<3xf64>
  %1 = linalg.fill ins(%c : f64) outs(%0 : tensor<3xf64>) -> tensor<3xf64>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x2xf64>) outs(%1 : tensor<3xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = arith.addf %in, %out : f64
    linalg.yield %t : f64
  } -> tensor<3xf64>
  %e = tensor.empty() : tensor<3x2xf64>
  %r = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s, %s : tensor<3x2xf64>, tensor<3xf64>, tensor<3xf64>) outs(%e : tensor<3x2xf64>) {
  ^bb0(%in: f64, %i: f64, %j: f64, %out: f64):
    %t = arith.divf %in, %i : f64
    %u = arith.mulf %t, %j : f64
    linalg.yield %u : f64
  } -> tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}

// Two ops read it through the same map, one after a transpose of the other's result (t-SNE's
// `((num + s).T + s)`): fused, they read s at two indices, so the barrier goes in.

// CHECK-LABEL: func.func @same_map_two_ops
// CHECK: util.optimization_barrier
func.func @same_map_two_ops(%x: tensor<3x2xf64>, %a: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %c = arith.constant 0.0 : f64
  %0 = tensor.empty() : tensor<3xf64>
  %1 = linalg.fill ins(%c : f64) outs(%0 : tensor<3xf64>) -> tensor<3xf64>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x2xf64>) outs(%1 : tensor<3xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = arith.addf %in, %out : f64
    linalg.yield %t : f64
  } -> tensor<3xf64>
  %e = tensor.empty() : tensor<3x3xf64>
  %t1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %s : tensor<3x3xf64>, tensor<3xf64>) outs(%e : tensor<3x3xf64>) {
  ^bb0(%in: f64, %j: f64, %out: f64):
    %t = arith.addf %in, %j : f64
    linalg.yield %t : f64
  } -> tensor<3x3xf64>
  %tt = linalg.transpose ins(%t1 : tensor<3x3xf64>) outs(%e : tensor<3x3xf64>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%tt, %s : tensor<3x3xf64>, tensor<3xf64>) outs(%e : tensor<3x3xf64>) {
  ^bb0(%in: f64, %j: f64, %out: f64):
    %t = arith.addf %in, %j : f64
    linalg.yield %t : f64
  } -> tensor<3x3xf64>
  return %r : tensor<3x3xf64>
}

// logsumexp's max, read by a 2-d op (x - m) and a 1-d op (m + log s): ops over different
// numbers of loops never fuse into one, so no barrier.

// CHECK-LABEL: func.func @logsumexp_max
// CHECK-NOT: util.optimization_barrier
// CHECK: return
func.func @logsumexp_max(%x: tensor<3x2xf64>, %l: tensor<3xf64>) -> (tensor<3x2xf64>, tensor<3xf64>) {
  %c = arith.constant 0.0 : f64
  %0 = tensor.empty() : tensor<3xf64>
  %1 = linalg.fill ins(%c : f64) outs(%0 : tensor<3xf64>) -> tensor<3xf64>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x2xf64>) outs(%1 : tensor<3xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = arith.maximumf %in, %out : f64
    linalg.yield %t : f64
  } -> tensor<3xf64>
  %e = tensor.empty() : tensor<3x2xf64>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<3x2xf64>, tensor<3xf64>) outs(%e : tensor<3x2xf64>) {
  ^bb0(%in: f64, %i: f64, %out: f64):
    %t = arith.subf %in, %i : f64
    linalg.yield %t : f64
  } -> tensor<3x2xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m, %l : tensor<3xf64>, tensor<3xf64>) outs(%0 : tensor<3xf64>) {
  ^bb0(%i: f64, %j: f64, %out: f64):
    %t = arith.addf %i, %j : f64
    linalg.yield %t : f64
  } -> tensor<3xf64>
  return %d, %r : tensor<3x2xf64>, tensor<3xf64>
}

// With ? dims a barrier would stop IREE resolving them (and that dispatch computed right): none.

// CHECK-LABEL: func.func @dynamic_rows
// CHECK-NOT: util.optimization_barrier
// CHECK: return
func.func @dynamic_rows(%x: tensor<?x2xf64>, %a: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x2xf64>
  %0 = tensor.empty(%n) : tensor<?xf64>
  %1 = linalg.fill ins(%c : f64) outs(%0 : tensor<?xf64>) -> tensor<?xf64>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x2xf64>) outs(%1 : tensor<?xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = arith.addf %in, %out : f64
    linalg.yield %t : f64
  } -> tensor<?xf64>
  %e = tensor.empty(%n, %n) : tensor<?x?xf64>
  %r = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %s, %s : tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>) outs(%e : tensor<?x?xf64>) {
  ^bb0(%in: f64, %i: f64, %j: f64, %out: f64):
    %t = arith.addf %in, %i : f64
    %u = arith.addf %t, %j : f64
    linalg.yield %u : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
