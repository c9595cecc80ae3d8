// RUN: janus-opt %s -p 'builtin.module(janus-scalar-operands-into-bodies)' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// `m / (1 - 0.9 ** t)`: the bias correction, a host scalar, is read by the body itself;
// its rank-0 tensor and that operand are gone.

// CHECK-LABEL: func.func @bias_correction
// CHECK-SAME: (%[[M:[^:]*]]: tensor<4x4xf32>, %[[C:[^:]*]]: f64)
// CHECK-NOT: tensor.from_elements
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[M]] : tensor<4x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:[^:]*]]: f32, %{{[^:]*}}: f32):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[C]] : f64 to f32
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[IN]], %[[T]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
func.func @bias_correction(%m: tensor<4x4xf32>, %c: f64) -> tensor<4x4xf32> {
  %s = tensor.from_elements %c : tensor<f64>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %s : tensor<4x4xf32>, tensor<f64>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f64, %o: f32):
    %t = arith.truncf %b : f64 to f32
    %d = arith.divf %a, %t : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// Two scalars and a tensor between them: both scalars fold, the tensor operand stays.

// CHECK-LABEL: func.func @two_scalars
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[V:[^:]*]]: tensor<4x4xf32>, %[[Y:[^:]*]]: f32)
// CHECK: linalg.generic {{.*}} ins(%[[V]] : tensor<4x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:[^:]*]]: f32, %{{[^:]*}}: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[IN]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.addf %[[P]], %[[Y]] : f32
func.func @two_scalars(%x: f32, %v: tensor<4x4xf32>, %y: f32) -> tensor<4x4xf32> {
  %sx = tensor.from_elements %x : tensor<f32>
  %sy = tensor.from_elements %y : tensor<f32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#scalar, #id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%sx, %v, %sy : tensor<f32>, tensor<4x4xf32>, tensor<f32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %p, %c : f32
    linalg.yield %q : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// Left alone: a rank-0 tensor that is an argument (a device buffer), and a from_elements
// of an element extracted from a device tensor.

// CHECK-LABEL: func.func @device_scalars
// CHECK: %[[S:.*]] = tensor.from_elements
// CHECK: linalg.generic {{.*}} ins(%{{[^,]*}}, %[[S]], %{{[^ ]*}} : tensor<4x4xf32>, tensor<f32>, tensor<f32>)
func.func @device_scalars(%v: tensor<4x4xf32>, %d: tensor<f32>, %w: tensor<2xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %w[%c0] : tensor<2xf32>
  %s = tensor.from_elements %x : tensor<f32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #scalar, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%v, %s, %d : tensor<4x4xf32>, tensor<f32>, tensor<f32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %p, %c : f32
    linalg.yield %q : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// One rank-0 tensor read twice by one op, and once more by a second op: folded in both.

// CHECK-LABEL: func.func @shared_scalar
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[V:[^:]*]]: tensor<4x4xf32>)
// CHECK-NOT: tensor.from_elements
// CHECK: linalg.generic {{.*}} ins(%[[V]] : tensor<4x4xf32>)
// CHECK: arith.mulf %[[X]], %[[X]] : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x4xf32>)
// CHECK: arith.subf %{{.*}}, %[[X]] : f32
func.func @shared_scalar(%x: f32, %v: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %s = tensor.from_elements %x : tensor<f32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#scalar, #id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %v, %s : tensor<f32>, tensor<4x4xf32>, tensor<f32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.addf %p, %b : f32
    linalg.yield %q : f32
  } -> tensor<4x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %s : tensor<4x4xf32>, tensor<f32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.subf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<4x4xf32>
  return %r2 : tensor<4x4xf32>
}
