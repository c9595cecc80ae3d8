// RUN: janus-opt %s -p 'builtin.module(janus-autodiff)' | FileCheck %s

// The conv rule: dW is one linalg.generic over the 7 loops; dx spreads the cotangent to
// the stride positions of a padded zero tensor and convolves it with the filter flipped
// (slices and a concat per spatial dim) and its channels swapped.

func.func @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> attributes {janus.grad} {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%b : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// CHECK-LABEL: func.func private @conv_vjp
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x5x5xf32>, %[[W:[^:]*]]: tensor<3x2x3x3xf32>, %{{[^:]*}}: tensor<1x3x2x2xf32>, %[[G:[^:]*]]: tensor<1x3x2x2xf32>)
// CHECK: %[[DW:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "reduction", "parallel", "parallel", "parallel"]{{.*}} ins(%[[X]], %[[G]] :
// CHECK: %[[SPREAD:.*]] = tensor.insert_slice %[[G]] into %{{.*}}[0, 0, 2, 2] [1, 3, 2, 2] [1, 1, 2, 2] : tensor<1x3x2x2xf32> into tensor<1x3x7x7xf32>
// CHECK: tensor.extract_slice %[[W]][0, 0, 2, 0] [3, 2, 1, 3]
// CHECK: %[[ROWS:.*]] = tensor.concat dim(2)
// CHECK: %[[COLS:.*]] = tensor.concat dim(3)
// CHECK: %[[FLIPPED:.*]] = linalg.transpose ins(%[[COLS]] : tensor<3x2x3x3xf32>) outs(%{{.*}} : tensor<2x3x3x3xf32>) permutation = [1, 0, 2, 3]
// CHECK: %[[DX:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[SPREAD]], %[[FLIPPED]] : tensor<1x3x7x7xf32>, tensor<2x3x3x3xf32>)
// CHECK: return %[[DX]], %[[DW]], %[[G]]
