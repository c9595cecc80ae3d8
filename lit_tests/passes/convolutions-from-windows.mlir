// RUN: janus-opt %s -p 'builtin.module(janus-convolutions-from-windows)' | FileCheck %s

// CHECK-DAG: #[[GATHER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3, d2 + d4, d5)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// A 2x2 convolution's taps over a (2, 4, 4, 3) input, concatenated along columns in
// row-major tap order (read by no matmul): one gather col[b, h, w, i, j, c] = x[b, h + i, w + j, c].

// CHECK-LABEL: func.func @taps
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x4x3xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3x3x2x2x3xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[GATHER]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x4x4x3xf32>) outs(%[[E]] : tensor<2x3x3x2x2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x3x3x2x2x3xf32> into tensor<18x12xf32>
// CHECK-NOT: tensor.concat
// CHECK-NOT: tensor.extract_slice
// CHECK: return %[[C]]
func.func @taps(%x: tensor<2x4x4x3xf32>) -> tensor<18x12xf32> {
  %s00 = tensor.extract_slice %x[0, 0, 0, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x3xf32>
  %c00 = tensor.collapse_shape %s00 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %s01 = tensor.extract_slice %x[0, 0, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x3xf32>
  %c01 = tensor.collapse_shape %s01 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %s10 = tensor.extract_slice %x[0, 1, 0, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x3xf32>
  %c10 = tensor.collapse_shape %s10 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %s11 = tensor.extract_slice %x[0, 1, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x3xf32>
  %c11 = tensor.collapse_shape %s11 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %col = tensor.concat dim(1) %c00, %c01, %c10, %c11 : (tensor<18x3xf32>, tensor<18x3xf32>, tensor<18x3xf32>, tensor<18x3xf32>) -> tensor<18x12xf32>
  return %col : tensor<18x12xf32>
}

// A padded image: the centre window is the unpadded input itself (canonicalization folds
// extract_slice(insert_slice(x)) at the same place to x).

// CHECK-LABEL: func.func @padded_centre
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x2x1xf32>, %[[PAD:.*]]: tensor<1x4x4x1xf32>)
// CHECK: %[[I:.*]] = tensor.insert_slice %[[X]] into %[[PAD]][0, 1, 1, 0]
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<1x4x4x1xf32>) outs(%{{.*}} : tensor<1x2x2x3x1xf32>)
// CHECK-NOT: tensor.concat
func.func @padded_centre(%x: tensor<1x2x2x1xf32>, %pad: tensor<1x4x4x1xf32>) -> tensor<4x3xf32> {
  %p = tensor.insert_slice %x into %pad[0, 1, 1, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xf32> into tensor<1x4x4x1xf32>
  %s0 = tensor.extract_slice %p[0, 1, 0, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x4x4x1xf32> to tensor<1x2x2x1xf32>
  %c0 = tensor.collapse_shape %s0 [[0, 1, 2], [3]] : tensor<1x2x2x1xf32> into tensor<4x1xf32>
  %c1 = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<1x2x2x1xf32> into tensor<4x1xf32>
  %s2 = tensor.extract_slice %p[0, 1, 2, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x4x4x1xf32> to tensor<1x2x2x1xf32>
  %c2 = tensor.collapse_shape %s2 [[0, 1, 2], [3]] : tensor<1x2x2x1xf32> into tensor<4x1xf32>
  %col = tensor.concat dim(1) %c0, %c1, %c2 : (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %col : tensor<4x3xf32>
}

// Left as they are: taps out of row-major order, windows of two tensors, offsets that
// vary along the last (column) dimension, and windows that do not fill a box.

// CHECK-LABEL: func.func @not_im2col
// CHECK-NOT: linalg.generic
// CHECK-COUNT-4: tensor.concat
func.func @not_im2col(%x: tensor<2x4x4x3xf32>, %y: tensor<2x4x4x3xf32>) -> (tensor<18x6xf32>, tensor<18x6xf32>, tensor<18x4xf32>, tensor<18x9xf32>) {
  %s00 = tensor.extract_slice %x[0, 0, 0, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x3xf32>
  %c00 = tensor.collapse_shape %s00 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %s01 = tensor.extract_slice %x[0, 0, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x3xf32>
  %c01 = tensor.collapse_shape %s01 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %s11 = tensor.extract_slice %x[0, 1, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x3xf32>
  %c11 = tensor.collapse_shape %s11 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %reversed = tensor.concat dim(1) %c01, %c00 : (tensor<18x3xf32>, tensor<18x3xf32>) -> tensor<18x6xf32>
  %y01 = tensor.extract_slice %y[0, 0, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x3xf32>
  %d01 = tensor.collapse_shape %y01 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %two = tensor.concat dim(1) %c00, %d01 : (tensor<18x3xf32>, tensor<18x3xf32>) -> tensor<18x6xf32>
  %n0 = tensor.extract_slice %x[0, 0, 0, 0] [2, 3, 3, 2] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x2xf32>
  %m0 = tensor.collapse_shape %n0 [[0, 1, 2], [3]] : tensor<2x3x3x2xf32> into tensor<18x2xf32>
  %n1 = tensor.extract_slice %x[0, 0, 0, 1] [2, 3, 3, 2] [1, 1, 1, 1] : tensor<2x4x4x3xf32> to tensor<2x3x3x2xf32>
  %m1 = tensor.collapse_shape %n1 [[0, 1, 2], [3]] : tensor<2x3x3x2xf32> into tensor<18x2xf32>
  %columns = tensor.concat dim(1) %m0, %m1 : (tensor<18x2xf32>, tensor<18x2xf32>) -> tensor<18x4xf32>
  %holes = tensor.concat dim(1) %c00, %c01, %c11 : (tensor<18x3xf32>, tensor<18x3xf32>, tensor<18x3xf32>) -> tensor<18x9xf32>
  return %reversed, %two, %columns, %holes : tensor<18x6xf32>, tensor<18x6xf32>, tensor<18x4xf32>, tensor<18x9xf32>
}

// The filter gradient's form, transposed windows stacked along rows, is left alone (as a
// gather it measured slower than the concatenation).

// CHECK-LABEL: func.func @transposed_taps
// CHECK-NOT: linalg.generic
// CHECK: tensor.concat dim(0)
func.func @transposed_taps(%x: tensor<2x5x4x3xf32>) -> tensor<6x18xf32> {
  %s0 = tensor.extract_slice %x[0, 1, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x5x4x3xf32> to tensor<2x3x3x3xf32>
  %c0 = tensor.collapse_shape %s0 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %e0 = tensor.empty() : tensor<3x18xf32>
  %t0 = linalg.transpose ins(%c0 : tensor<18x3xf32>) outs(%e0 : tensor<3x18xf32>) permutation = [1, 0]
  %s1 = tensor.extract_slice %x[0, 2, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x5x4x3xf32> to tensor<2x3x3x3xf32>
  %c1 = tensor.collapse_shape %s1 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %t1 = linalg.transpose ins(%c1 : tensor<18x3xf32>) outs(%e0 : tensor<3x18xf32>) permutation = [1, 0]
  %col = tensor.concat dim(0) %t0, %t1 : (tensor<3x18xf32>, tensor<3x18xf32>) -> tensor<6x18xf32>
  return %col : tensor<6x18xf32>
}

// Three input channels, the taps read by a plain matmul with the filter's taps stacked
// in row-major order: the NHWC convolution of the filter itself, over the part of the
// input the windows cover (they start at row 1, column 1).

// CHECK-LABEL: func.func @convolution
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x5x3xf32>, %[[W:.*]]: tensor<2x2x3x4xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1, 2], [3]] : tensor<2x2x3x4xf32> into tensor<12x4xf32>
// CHECK: %[[IMAGE:.*]] = tensor.extract_slice %[[X]][0, 1, 1, 0] [2, 4, 4, 3] [1, 1, 1, 1]
// CHECK: %[[F:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 2, 3, 4]
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x3x3x4xf32>
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[IMAGE]], %[[F]] : tensor<2x4x4x3xf32>, tensor<2x2x3x4xf32>) outs(%[[Z]] : tensor<2x3x3x4xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1, 2], [3]] : tensor<2x3x3x4xf32> into tensor<18x4xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: tensor.concat
// CHECK: return %[[R]]
func.func @convolution(%x: tensor<2x5x5x3xf32>, %w: tensor<2x2x3x4xf32>) -> tensor<18x4xf32> {
  %s00 = tensor.extract_slice %x[0, 1, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x5x5x3xf32> to tensor<2x3x3x3xf32>
  %c00 = tensor.collapse_shape %s00 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %w00 = tensor.extract_slice %w[0, 0, 0, 0] [1, 1, 3, 4] [1, 1, 1, 1] : tensor<2x2x3x4xf32> to tensor<3x4xf32>
  %s01 = tensor.extract_slice %x[0, 1, 2, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x5x5x3xf32> to tensor<2x3x3x3xf32>
  %c01 = tensor.collapse_shape %s01 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %w01 = tensor.extract_slice %w[0, 1, 0, 0] [1, 1, 3, 4] [1, 1, 1, 1] : tensor<2x2x3x4xf32> to tensor<3x4xf32>
  %s10 = tensor.extract_slice %x[0, 2, 1, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x5x5x3xf32> to tensor<2x3x3x3xf32>
  %c10 = tensor.collapse_shape %s10 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %w10 = tensor.extract_slice %w[1, 0, 0, 0] [1, 1, 3, 4] [1, 1, 1, 1] : tensor<2x2x3x4xf32> to tensor<3x4xf32>
  %s11 = tensor.extract_slice %x[0, 2, 2, 0] [2, 3, 3, 3] [1, 1, 1, 1] : tensor<2x5x5x3xf32> to tensor<2x3x3x3xf32>
  %c11 = tensor.collapse_shape %s11 [[0, 1, 2], [3]] : tensor<2x3x3x3xf32> into tensor<18x3xf32>
  %w11 = tensor.extract_slice %w[1, 1, 0, 0] [1, 1, 3, 4] [1, 1, 1, 1] : tensor<2x2x3x4xf32> to tensor<3x4xf32>
  %col = tensor.concat dim(1) %c00, %c01, %c10, %c11 : (tensor<18x3xf32>, tensor<18x3xf32>, tensor<18x3xf32>, tensor<18x3xf32>) -> tensor<18x12xf32>
  %taps = tensor.concat dim(0) %w00, %w01, %w10, %w11 : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<12x4xf32>
  %zero = arith.constant dense<0.0> : tensor<18x4xf32>
  %out = linalg.matmul ins(%col, %taps : tensor<18x12xf32>, tensor<12x4xf32>) outs(%zero : tensor<18x4xf32>) -> tensor<18x4xf32>
  return %out : tensor<18x4xf32>
}

// One input channel: the gather and the matmul stay apart (IREE's convolution kernel is
// slow on one channel); the stacked taps are the filter collapsed, nothing copied.

// CHECK-LABEL: func.func @one_channel
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x3x1xf32>, %[[W:.*]]: tensor<1x2x1x5xf32>)
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x3x3x1xf32>) outs(%{{.*}} : tensor<1x3x2x2x1xf32>)
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1, 2], [3, 4]] : tensor<1x3x2x2x1xf32> into tensor<6x2xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1, 2], [3]] : tensor<1x2x1x5xf32> into tensor<2x5xf32>
// CHECK: linalg.matmul ins(%[[COL]], %[[FLAT]] : tensor<6x2xf32>, tensor<2x5xf32>)
// CHECK-NOT: tensor.concat
func.func @one_channel(%x: tensor<1x3x3x1xf32>, %w: tensor<1x2x1x5xf32>) -> tensor<6x5xf32> {
  %s0 = tensor.extract_slice %x[0, 0, 0, 0] [1, 3, 2, 1] [1, 1, 1, 1] : tensor<1x3x3x1xf32> to tensor<1x3x2x1xf32>
  %c0 = tensor.collapse_shape %s0 [[0, 1, 2], [3]] : tensor<1x3x2x1xf32> into tensor<6x1xf32>
  %w0 = tensor.extract_slice %w[0, 0, 0, 0] [1, 1, 1, 5] [1, 1, 1, 1] : tensor<1x2x1x5xf32> to tensor<1x5xf32>
  %s1 = tensor.extract_slice %x[0, 0, 1, 0] [1, 3, 2, 1] [1, 1, 1, 1] : tensor<1x3x3x1xf32> to tensor<1x3x2x1xf32>
  %c1 = tensor.collapse_shape %s1 [[0, 1, 2], [3]] : tensor<1x3x2x1xf32> into tensor<6x1xf32>
  %w1 = tensor.extract_slice %w[0, 1, 0, 0] [1, 1, 1, 5] [1, 1, 1, 1] : tensor<1x2x1x5xf32> to tensor<1x5xf32>
  %col = tensor.concat dim(1) %c0, %c1 : (tensor<6x1xf32>, tensor<6x1xf32>) -> tensor<6x2xf32>
  %taps = tensor.concat dim(0) %w0, %w1 : (tensor<1x5xf32>, tensor<1x5xf32>) -> tensor<2x5xf32>
  %zero = arith.constant dense<0.0> : tensor<6x5xf32>
  %out = linalg.matmul ins(%col, %taps : tensor<6x2xf32>, tensor<2x5xf32>) outs(%zero : tensor<6x5xf32>) -> tensor<6x5xf32>
  return %out : tensor<6x5xf32>
}

// Rank-reducing slices are not windows of their source: the one-channel dimension they drop
// would make the pieces' columns the image's width. Left as they are.

// CHECK-LABEL: func.func @rank_reducing
// CHECK-NOT: linalg.generic
// CHECK: tensor.concat dim(1)
func.func @rank_reducing(%x: tensor<1x3x3x1xf32>) -> tensor<3x4xf32> {
  %s0 = tensor.extract_slice %x[0, 0, 0, 0] [1, 3, 2, 1] [1, 1, 1, 1] : tensor<1x3x3x1xf32> to tensor<1x3x2xf32>
  %c0 = tensor.collapse_shape %s0 [[0, 1], [2]] : tensor<1x3x2xf32> into tensor<3x2xf32>
  %s1 = tensor.extract_slice %x[0, 0, 1, 0] [1, 3, 2, 1] [1, 1, 1, 1] : tensor<1x3x3x1xf32> to tensor<1x3x2xf32>
  %c1 = tensor.collapse_shape %s1 [[0, 1], [2]] : tensor<1x3x2xf32> into tensor<3x2xf32>
  %col = tensor.concat dim(1) %c0, %c1 : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %col : tensor<3x4xf32>
}
