// RUN: janus-opt %s -p 'builtin.module(janus-merge-shared-operand-matmuls)' | FileCheck %s

// A filter gradient of a convolution written as shifted matmuls: dW[i] = x_i.T @ d for
// each shift, the transposes made next to each matmul. The transposes move up, one
// matmul reads d once, and each result is a row block of it.

// CHECK-LABEL: func.func @filter_gradient
// CHECK-SAME: (%[[X1:[^:]*]]: tensor<8x2xf32>, %[[X2:[^:]*]]: tensor<8x2xf32>, %[[X3:[^:]*]]: tensor<8x2xf32>, %[[D:[^:]*]]: tensor<8x3xf32>)
// CHECK: %[[T1:.*]] = linalg.transpose ins(%[[X1]]
// CHECK: %[[T2:.*]] = linalg.transpose ins(%[[X2]]
// CHECK: %[[T3:.*]] = linalg.transpose ins(%[[X3]]
// CHECK: %[[A:.*]] = tensor.concat dim(0) %[[T1]], %[[T2]], %[[T3]] : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<6x8xf32>
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<6x3xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[D]] : tensor<6x8xf32>, tensor<8x3xf32>) outs(%[[Z]] : tensor<6x3xf32>)
// CHECK: %[[R1:.*]] = tensor.extract_slice %[[M]][0, 0] [2, 3] [1, 1]
// CHECK: %[[R2:.*]] = tensor.extract_slice %[[M]][2, 0] [2, 3] [1, 1]
// CHECK: %[[R3:.*]] = tensor.extract_slice %[[M]][4, 0] [2, 3] [1, 1]
// CHECK-NOT: linalg.matmul
// CHECK: return %[[R1]], %[[R2]], %[[R3]]
func.func @filter_gradient(%x1: tensor<8x2xf32>, %x2: tensor<8x2xf32>, %x3: tensor<8x2xf32>, %d: tensor<8x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %o = tensor.empty() : tensor<2x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %t1 = linalg.transpose ins(%x1 : tensor<8x2xf32>) outs(%e : tensor<2x8xf32>) permutation = [1, 0]
  %m1 = linalg.matmul ins(%t1, %d : tensor<2x8xf32>, tensor<8x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %t2 = linalg.transpose ins(%x2 : tensor<8x2xf32>) outs(%e : tensor<2x8xf32>) permutation = [1, 0]
  %m2 = linalg.matmul ins(%t2, %d : tensor<2x8xf32>, tensor<8x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %t3 = linalg.transpose ins(%x3 : tensor<8x2xf32>) outs(%e : tensor<2x8xf32>) permutation = [1, 0]
  %m3 = linalg.matmul ins(%t3, %d : tensor<2x8xf32>, tensor<8x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %m1, %m2, %m3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// A shared left operand: the right ones are stacked as columns. A matmul whose operand
// comes from the first one's result (a recurrence) cannot join: it stays as it is.

// CHECK-LABEL: func.func @shared_left_and_a_recurrence
// CHECK: %[[B:.*]] = tensor.concat dim(1) %arg1, %arg2 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%arg0, %[[B]] : tensor<3x3xf32>, tensor<3x8xf32>)
// CHECK: %[[R1:.*]] = tensor.extract_slice %[[M]][0, 0] [3, 4] [1, 1]
// CHECK: %[[R2:.*]] = tensor.extract_slice %[[M]][0, 4] [3, 4] [1, 1]
// CHECK: %[[H1:.*]] = linalg.matmul ins(%arg0, %arg3 : tensor<3x3xf32>, tensor<3x3xf32>)
// CHECK: %[[H2:.*]] = linalg.matmul ins(%arg0, %[[H1]] : tensor<3x3xf32>, tensor<3x3xf32>)
// CHECK: return %[[R1]], %[[R2]], %[[H2]]
func.func @shared_left_and_a_recurrence(%a: tensor<3x3xf32>, %b1: tensor<3x4xf32>, %b2: tensor<3x4xf32>, %h: tensor<3x3xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x3xf32>) {
  %z4 = arith.constant dense<0.0> : tensor<3x4xf32>
  %z3 = arith.constant dense<0.0> : tensor<3x3xf32>
  %m1 = linalg.matmul ins(%a, %b1 : tensor<3x3xf32>, tensor<3x4xf32>) outs(%z4 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %m2 = linalg.matmul ins(%a, %b2 : tensor<3x3xf32>, tensor<3x4xf32>) outs(%z4 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %h1 = linalg.matmul ins(%a, %h : tensor<3x3xf32>, tensor<3x3xf32>) outs(%z3 : tensor<3x3xf32>) -> tensor<3x3xf32>
  %h2 = linalg.matmul ins(%a, %h1 : tensor<3x3xf32>, tensor<3x3xf32>) outs(%z3 : tensor<3x3xf32>) -> tensor<3x3xf32>
  return %m1, %m2, %h2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x3xf32>
}
