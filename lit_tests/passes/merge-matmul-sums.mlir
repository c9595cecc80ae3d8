// RUN: janus-opt %s -p 'builtin.module(janus-merge-matmul-sums)' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// Three steps of `dW += x_t.T @ dz_t` (zero-filled inits, the sum read once): one matmul
// over K = 3 * 2 into the last add, whose other operand becomes the chain's base.

// CHECK-LABEL: func.func @bptt_weight_gradient
// CHECK-SAME: (%[[X1:[^:]*]]: tensor<4x2xf32>, %[[X2:[^:]*]]: tensor<4x2xf32>, %[[X3:[^:]*]]: tensor<4x2xf32>, %[[D1:[^:]*]]: tensor<2x5xf32>, %[[D2:[^:]*]]: tensor<2x5xf32>, %[[D3:[^:]*]]: tensor<2x5xf32>, %[[W:[^:]*]]: tensor<4x5xf32>)
// CHECK: %[[A:.*]] = tensor.concat dim(1) %[[X1]], %[[X2]], %[[X3]] : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
// CHECK: %[[B:.*]] = tensor.concat dim(0) %[[D1]], %[[D2]], %[[D3]] : (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<6x5xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x6xf32>, tensor<6x5xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[W]] : tensor<4x5xf32>, tensor<4x5xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: return %[[S]]
func.func @bptt_weight_gradient(%x1: tensor<4x2xf32>, %x2: tensor<4x2xf32>, %x3: tensor<4x2xf32>, %d1: tensor<2x5xf32>, %d2: tensor<2x5xf32>, %d3: tensor<2x5xf32>, %w: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m1 = linalg.matmul ins(%x1, %d1 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %m1 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %m2 = linalg.matmul ins(%x2, %d2 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s1, %m2 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %m3 = linalg.matmul ins(%x3, %d3 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m3, %s2 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  return %s3 : tensor<4x5xf32>
}

// A partial sum read elsewhere ends the chain: only the links after it merge, and a
// lone link stays as it is.

// CHECK-LABEL: func.func @partial_sum_read
// CHECK: %[[M1:.*]] = linalg.matmul ins(%arg0, %arg2 : tensor<4x2xf32>, tensor<2x5xf32>)
// CHECK: %[[S1:.*]] = linalg.generic {{.*}} ins(%arg4, %[[M1]] :
// CHECK: tensor.concat dim(1) %arg1, %arg1
// CHECK: tensor.concat dim(0) %arg3, %arg2
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x5xf32>)
// CHECK: %[[S3:.*]] = linalg.generic {{.*}} ins(%[[S1]], %[[M]] :
// CHECK: return %[[S1]], %[[S3]]
func.func @partial_sum_read(%x1: tensor<4x2xf32>, %x2: tensor<4x2xf32>, %d1: tensor<2x5xf32>, %d2: tensor<2x5xf32>, %w: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4x5xf32>
  %e = tensor.empty() : tensor<4x5xf32>
  %m1 = linalg.matmul ins(%x1, %d1 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %m1 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %m2 = linalg.matmul ins(%x2, %d2 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s1, %m2 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %m3 = linalg.matmul ins(%x2, %d1 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s2, %m3 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  return %s1, %s3 : tensor<4x5xf32>, tensor<4x5xf32>
}

// A sum of two products with no base (a weight used twice forward: its gradient's two
// terms): one matmul over both K replaces the products and the add.

// CHECK-LABEL: func.func @sum_of_two_products
// CHECK-SAME: (%[[X1:[^:]*]]: tensor<4x2xf32>, %[[X2:[^:]*]]: tensor<4x3xf32>, %[[D1:[^:]*]]: tensor<2x5xf32>, %[[D2:[^:]*]]: tensor<3x5xf32>)
// CHECK: %[[A:.*]] = tensor.concat dim(1) %[[X1]], %[[X2]] : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<4x5xf32>
// CHECK: %[[B:.*]] = tensor.concat dim(0) %[[D1]], %[[D2]] : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<5x5xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x5xf32>, tensor<5x5xf32>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.matmul
// CHECK: return %[[M]]
func.func @sum_of_two_products(%x1: tensor<4x2xf32>, %x2: tensor<4x3xf32>, %d1: tensor<2x5xf32>, %d2: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m1 = linalg.matmul ins(%x1, %d1 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m2 = linalg.matmul ins(%x2, %d2 : tensor<4x3xf32>, tensor<3x5xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %m2 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  return %s : tensor<4x5xf32>
}

// A product read elsewhere is not absorbed: its sum with another product stays.

// CHECK-LABEL: func.func @product_read_elsewhere
// CHECK-NOT: tensor.concat
// CHECK: return
func.func @product_read_elsewhere(%x1: tensor<4x2xf32>, %x2: tensor<4x2xf32>, %d1: tensor<2x5xf32>, %d2: tensor<2x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4x5xf32>
  %e = tensor.empty() : tensor<4x5xf32>
  %m1 = linalg.matmul ins(%x1, %d1 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m2 = linalg.matmul ins(%x2, %d2 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %m2 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  return %s, %m1 : tensor<4x5xf32>, tensor<4x5xf32>
}

// Transposed left operands (`x_t.T @ dz_t`): one transpose of the inputs stacked along
// dim 0 replaces a transpose per term and their concatenation.

// CHECK-LABEL: func.func @transposed_left_operands
// CHECK-SAME: (%[[X1:[^:]*]]: tensor<2x4xf32>, %[[X2:[^:]*]]: tensor<2x4xf32>, %[[D1:[^:]*]]: tensor<2x5xf32>, %[[D2:[^:]*]]: tensor<2x5xf32>, %[[W:[^:]*]]: tensor<4x5xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[S:.*]] = tensor.concat dim(0) %[[X1]], %[[X2]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[S]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>) permutation = [1, 0]
// CHECK: %[[B:.*]] = tensor.concat dim(0) %[[D1]], %[[D2]]
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[T]], %[[B]] : tensor<4x4xf32>, tensor<4x5xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @transposed_left_operands(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>, %d1: tensor<2x5xf32>, %d2: tensor<2x5xf32>, %w: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x5xf32>
  %e = tensor.empty() : tensor<4x5xf32>
  %et = tensor.empty() : tensor<4x2xf32>
  %t1 = linalg.transpose ins(%x1 : tensor<2x4xf32>) outs(%et : tensor<4x2xf32>) permutation = [1, 0]
  %m1 = linalg.matmul ins(%t1, %d1 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %m1 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  %t2 = linalg.transpose ins(%x2 : tensor<2x4xf32>) outs(%et : tensor<4x2xf32>) permutation = [1, 0]
  %m2 = linalg.matmul ins(%t2, %d2 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s1, %m2 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  return %s2 : tensor<4x5xf32>
}

// A transpose read elsewhere stays, and a left operand that is not a transpose keeps the
// plain concatenation along dim 1.

// CHECK-LABEL: func.func @mixed_left_operands
// CHECK: %[[T1:.*]] = linalg.transpose ins(%arg0
// CHECK: tensor.concat dim(1) %[[T1]], %arg1
// CHECK: return %{{.*}}, %[[T1]]
func.func @mixed_left_operands(%x1: tensor<2x4xf32>, %x2: tensor<4x2xf32>, %d1: tensor<2x5xf32>, %d2: tensor<2x5xf32>) -> (tensor<4x5xf32>, tensor<4x2xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4x5xf32>
  %e = tensor.empty() : tensor<4x5xf32>
  %et = tensor.empty() : tensor<4x2xf32>
  %t1 = linalg.transpose ins(%x1 : tensor<2x4xf32>) outs(%et : tensor<4x2xf32>) permutation = [1, 0]
  %m1 = linalg.matmul ins(%t1, %d1 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m2 = linalg.matmul ins(%x2, %d2 : tensor<4x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<4x5xf32>) -> tensor<4x5xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %m2 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x5xf32>
  return %s, %t1 : tensor<4x5xf32>, tensor<4x2xf32>
}

// Three steps of `db += dz_t.sum(axis=0)` (zero-filled inits): one sum over the rows of
// the three stacked, the same body into the same init, added to the base once.

#rows = affine_map<(d0, d1) -> (d1)>
#cols = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @bptt_bias_gradient
// CHECK-SAME: (%[[D1:[^:]*]]: tensor<2x5xf32>, %[[D2:[^:]*]]: tensor<2x5xf32>, %[[D3:[^:]*]]: tensor<2x5xf32>, %[[B:[^:]*]]: tensor<5xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[C:.*]] = tensor.concat dim(0) %[[D1]], %[[D2]], %[[D3]] : (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<6x5xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[C]] : tensor<6x5xf32>) outs(%[[INIT]] : tensor<5xf32>)
// CHECK: arith.addf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[R]] : tensor<5xf32>, tensor<5xf32>)
// CHECK-NOT: iterator_types = ["reduction", "parallel"]
// CHECK: return %[[S]]
func.func @bptt_bias_gradient(%d1: tensor<2x5xf32>, %d2: tensor<2x5xf32>, %d3: tensor<2x5xf32>, %b: tensor<5xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["reduction", "parallel"]} ins(%d1 : tensor<2x5xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %s1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%r1, %b : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["reduction", "parallel"]} ins(%d2 : tensor<2x5xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %s2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%s1, %r2 : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["reduction", "parallel"]} ins(%d3 : tensor<2x5xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %s3 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%s2, %r3 : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  return %s3 : tensor<5xf32>
}

// Two sums along dimension 1 with no base (`x.sum(axis=1) + y.sum(axis=1)`): one sum over
// the columns of both side by side, replacing the add.

// CHECK-LABEL: func.func @two_row_sums
// CHECK: %[[C:.*]] = tensor.concat dim(1) %arg0, %arg1 : (tensor<3x4xi32>, tensor<3x2xi32>) -> tensor<3x6xi32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[C]] : tensor<3x6xi32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @two_row_sums(%x: tensor<3x4xi32>, %y: tensor<3x2xi32>) -> tensor<3xi32> {
  %zero = arith.constant dense<0> : tensor<3xi32>
  %e = tensor.empty() : tensor<3xi32>
  %rx = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x4xi32>) outs(%zero : tensor<3xi32>) {
  ^bb0(%a: i32, %o: i32):
    %r = arith.addi %o, %a : i32
    linalg.yield %r : i32
  } -> tensor<3xi32>
  %ry = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<3x2xi32>) outs(%zero : tensor<3xi32>) {
  ^bb0(%a: i32, %o: i32):
    %r = arith.addi %o, %a : i32
    linalg.yield %r : i32
  } -> tensor<3xi32>
  %s = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%rx, %ry : tensor<3xi32>, tensor<3xi32>) outs(%e : tensor<3xi32>) {
  ^bb0(%a: i32, %c: i32, %o: i32):
    %r = arith.addi %a, %c : i32
    linalg.yield %r : i32
  } -> tensor<3xi32>
  return %s : tensor<3xi32>
}

// Not merged: a max along dimension 0 is no sum, and a sum whose init is not zero adds
// its init; a sum along dimension 1 and one along dimension 0 (both 5-vectors) are terms
// of two kinds, which never share a chain.

// CHECK-LABEL: func.func @not_sums
// CHECK-NOT: tensor.concat
// CHECK: return
func.func @not_sums(%x: tensor<2x5xf32>, %y: tensor<2x5xf32>, %b: tensor<5xf32>, %z: tensor<5x5xf32>, %w: tensor<5x5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<2x5xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %sy = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["reduction", "parallel"]} ins(%y : tensor<2x5xf32>) outs(%b : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %s = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%mx, %sy : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %sz = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["parallel", "reduction"]} ins(%z : tensor<5x5xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %sw = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["reduction", "parallel"]} ins(%w : tensor<5x5xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %t = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%sz, %sw : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  return %s, %t : tensor<5xf32>, tensor<5xf32>
}
