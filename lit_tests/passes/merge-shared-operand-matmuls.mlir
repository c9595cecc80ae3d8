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

// An RNN's output layer: y_t = h_t @ V for states made by the recurrence (no member can
// move up to the first), each y_t read only by pure ops until the last member. The group
// meets at the last member; the ops using y_1 move down after the merged matmul, in order.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @output_layer
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>, %[[V:[^:]*]]: tensor<3x4xf32>)
// CHECK: %[[H1:.*]] = linalg.generic {{.*}} ins(%[[X]] :
// CHECK: math.tanh
// CHECK: %[[H2:.*]] = linalg.generic {{.*}} ins(%[[H1]] :
// CHECK: math.tanh
// CHECK: %[[A:.*]] = tensor.concat dim(0) %[[H1]], %[[H2]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[V]] : tensor<4x3xf32>, tensor<3x4xf32>)
// CHECK: %[[Y1:.*]] = tensor.extract_slice %[[M]][0, 0] [2, 4] [1, 1]
// CHECK: %[[Y2:.*]] = tensor.extract_slice %[[M]][2, 0] [2, 4] [1, 1]
// CHECK: %[[P1:.*]] = linalg.generic {{.*}} ins(%[[Y1]] :
// CHECK: math.exp
// CHECK: %[[P2:.*]] = linalg.generic {{.*}} ins(%[[Y2]] :
// CHECK: math.exp
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[P1]], %[[P2]] :
// CHECK-NOT: linalg.matmul
// CHECK: return %[[S]], %[[H2]]
func.func @output_layer(%x: tensor<2x3xf32>, %v: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>) {
  %z = arith.constant dense<0.0> : tensor<2x4xf32>
  %e3 = tensor.empty() : tensor<2x3xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%e3 : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %y1 = linalg.matmul ins(%h1, %v : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  %p1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y1 : tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h1 : tensor<2x3xf32>) outs(%e3 : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %y2 = linalg.matmul ins(%h2, %v : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  %p2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y2 : tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p1, %p2 : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  return %s, %h2 : tensor<2x4xf32>, tensor<2x3xf32>
}

// A guard on y_1 before the last member is not moved past it: no merge.

// CHECK-LABEL: func.func @guarded_output
// CHECK-COUNT-2: linalg.matmul ins(%{{.*}}, %arg1 : tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK-NOT: tensor.concat
func.func @guarded_output(%x: tensor<2x3xf32>, %v: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %z = arith.constant dense<0.0> : tensor<2x4xf32>
  %e3 = tensor.empty() : tensor<2x3xf32>
  %c0 = arith.constant 0 : index
  %limit = arith.constant 1.0e6 : f32
  %y1 = linalg.matmul ins(%x, %v : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  %first = tensor.extract %y1[%c0, %c0] : tensor<2x4xf32>
  %ok = arith.cmpf olt, %first, %limit : f32
  cf.assert %ok, "janus.guard id=1 kind=value source=test"
  %h2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%e3 : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %y2 = linalg.matmul ins(%h2, %v : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y1, %y2 : tensor<2x4xf32>, tensor<2x4xf32>
}
