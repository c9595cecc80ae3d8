// One function per VJP rule (and a few combinations), all marked janus.grad: the
// janus-autodiff gradient of each is checked against central finite differences in
// tests/test_autodiff.py. float64 throughout except where casts are the subject.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col1 = affine_map<(d0, d1) -> (d0, 0)>
#rows = affine_map<(d0, d1) -> (d0)>

func.func @arith_basic(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<2x3xf64> attributes {janus.grad} {
  %a = arith.mulf %x, %y : tensor<2x3xf64>
  %b = arith.addf %a, %x : tensor<2x3xf64>
  %c = arith.subf %b, %y : tensor<2x3xf64>
  %d = arith.negf %c : tensor<2x3xf64>
  %e = arith.divf %d, %x : tensor<2x3xf64>
  %k = arith.constant dense<2.5> : tensor<2x3xf64>
  %f = arith.mulf %e, %k : tensor<2x3xf64>
  return %f : tensor<2x3xf64>
}

func.func @arith_extrema(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<2x3xf64> attributes {janus.grad} {
  %m = arith.maximumf %x, %y : tensor<2x3xf64>
  %n = arith.minimumf %x, %y : tensor<2x3xf64>
  %p = arith.mulf %m, %n : tensor<2x3xf64>
  %c = arith.cmpf olt, %m, %n : tensor<2x3xf64>
  %q = arith.mulf %m, %m : tensor<2x3xf64>
  %s = arith.select %c, %p, %q : tensor<2x3xi1>, tensor<2x3xf64>
  %r = arith.addf %s, %n : tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

func.func @arith_scalar_select(%x: f64, %y: f64) -> f64 attributes {janus.grad} {
  %c = arith.cmpf ogt, %x, %y : f64
  %p = arith.mulf %x, %y : f64
  %s = arith.select %c, %p, %y : f64
  %d = arith.divf %s, %x : f64
  return %d : f64
}

func.func @arith_casts(%x: tensor<3xf32>, %y: tensor<3xf64>) -> tensor<3xf32> attributes {janus.grad} {
  %e = arith.extf %x : tensor<3xf32> to tensor<3xf64>
  %p = arith.mulf %e, %y : tensor<3xf64>
  %t = arith.truncf %p : tensor<3xf64> to tensor<3xf32>
  %r = arith.mulf %t, %x : tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @arith_int_to_float(%x: tensor<3xf64>) -> tensor<3xf64> attributes {janus.grad} {
  %c = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
  %f = arith.sitofp %c : tensor<3xi64> to tensor<3xf64>
  %u = arith.uitofp %c : tensor<3xi64> to tensor<3xf64>
  %s = arith.addf %f, %u : tensor<3xf64>
  %r = arith.mulf %s, %x : tensor<3xf64>
  return %r : tensor<3xf64>
}

func.func @math_unary(%x: tensor<2x3xf64>) -> tensor<2x3xf64> attributes {janus.grad} {
  %one = arith.constant dense<1.0> : tensor<2x3xf64>
  %a = math.tanh %x : tensor<2x3xf64>
  %b = math.exp %a : tensor<2x3xf64>
  %c = math.log %x : tensor<2x3xf64>
  %d = math.sqrt %x : tensor<2x3xf64>
  %e = math.rsqrt %x : tensor<2x3xf64>
  %xm = arith.subf %x, %one : tensor<2x3xf64>
  %f = math.absf %xm : tensor<2x3xf64>
  %g = math.sin %x : tensor<2x3xf64>
  %h = math.cos %b : tensor<2x3xf64>
  %s1 = arith.addf %b, %c : tensor<2x3xf64>
  %s2 = arith.addf %d, %e : tensor<2x3xf64>
  %s3 = arith.addf %f, %g : tensor<2x3xf64>
  %s4 = arith.addf %s1, %s2 : tensor<2x3xf64>
  %s5 = arith.addf %s3, %h : tensor<2x3xf64>
  %s = arith.mulf %s4, %s5 : tensor<2x3xf64>
  return %s : tensor<2x3xf64>
}

func.func @math_powf(%x: tensor<3xf64>, %p: tensor<3xf64>) -> tensor<3xf64> attributes {janus.grad} {
  %r = math.powf %x, %p : tensor<3xf64>
  return %r : tensor<3xf64>
}

// One result per op: no arithmetic between them whose fusion could differ by an ulp.
func.func @math_unary_more(%x: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) attributes {janus.grad} {
  %one = arith.constant dense<1.0> : tensor<2x3xf64>
  %half = arith.constant dense<0.5> : tensor<2x3xf64>
  %h = arith.mulf %x, %half : tensor<2x3xf64>
  %x1 = arith.addf %x, %one : tensor<2x3xf64>
  %u0 = math.exp2 %x : tensor<2x3xf64>
  %u1 = math.expm1 %x : tensor<2x3xf64>
  %u2 = math.log1p %x : tensor<2x3xf64>
  %u3 = math.log2 %x : tensor<2x3xf64>
  %u5 = math.tan %h : tensor<2x3xf64>
  %u6 = math.asin %h : tensor<2x3xf64>
  %u7 = math.acos %h : tensor<2x3xf64>
  %u8 = math.atan %x : tensor<2x3xf64>
  %u9 = math.sinh %x : tensor<2x3xf64>
  %u10 = math.cosh %x : tensor<2x3xf64>
  %u11 = math.asinh %x : tensor<2x3xf64>
  %u12 = math.acosh %x1 : tensor<2x3xf64>
  %u13 = math.atanh %h : tensor<2x3xf64>
  return %u0, %u1, %u2, %u3, %u5, %u6, %u7, %u8, %u9, %u10, %u11, %u12, %u13 : tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>
}

// IREE 3.13 lowers math.cbrt for f32 only.
func.func @math_cbrt_f32(%x: tensor<3xf32>) -> tensor<3xf32> attributes {janus.grad} {
  %c = math.cbrt %x : tensor<3xf32>
  %r = arith.mulf %c, %x : tensor<3xf32>
  return %r : tensor<3xf32>
}

// Rounding has a zero derivative: floor(3x) x and friends have d/dx = floor(3x).
func.func @math_rounding(%x: tensor<2x3xf64>) -> tensor<2x3xf64> attributes {janus.grad} {
  %three = arith.constant dense<3.0> : tensor<2x3xf64>
  %t = arith.mulf %x, %three : tensor<2x3xf64>
  %a = math.floor %t : tensor<2x3xf64>
  %b = math.ceil %t : tensor<2x3xf64>
  %c = math.roundeven %t : tensor<2x3xf64>
  %d = math.trunc %t : tensor<2x3xf64>
  %ab = arith.addf %a, %b : tensor<2x3xf64>
  %cd = arith.addf %c, %d : tensor<2x3xf64>
  %s = arith.addf %ab, %cd : tensor<2x3xf64>
  %r = arith.mulf %s, %x : tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

func.func @math_binary(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) attributes {janus.grad} {
  %one = arith.constant dense<1.0> : tensor<2x3xf64>
  %three = arith.constant dense<3.0> : tensor<2x3xf64>
  %xm = arith.subf %x, %one : tensor<2x3xf64>
  %ym = arith.subf %y, %one : tensor<2x3xf64>
  %a = math.atan2 %y, %xm : tensor<2x3xf64>
  %b = math.copysign %xm, %ym : tensor<2x3xf64>
  %x3 = arith.mulf %xm, %three : tensor<2x3xf64>
  %c = arith.remf %x3, %y : tensor<2x3xf64>
  %d = arith.maxnumf %x, %y : tensor<2x3xf64>
  %e = arith.minnumf %x, %y : tensor<2x3xf64>
  return %a, %b, %c, %d, %e : tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>
}
// What the frontend emits for `tanh(x * b + c)` with NumPy broadcasting.
func.func @generic_broadcasting(%x: tensor<2x3xf64>, %b: tensor<3xf64>, %c: tensor<2x1xf64>) -> tensor<2x3xf64> attributes {janus.grad} {
  %init = tensor.empty() : tensor<2x3xf64>
  %r = linalg.generic {indexing_maps = [#id, #row, #col1, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %c : tensor<2x3xf64>, tensor<3xf64>, tensor<2x1xf64>) outs(%init : tensor<2x3xf64>) {
  ^bb0(%xs: f64, %bs: f64, %cs: f64, %out: f64):
    %m = arith.mulf %xs, %bs : f64
    %a = arith.addf %m, %cs : f64
    %t = math.tanh %a : f64
    linalg.yield %t : f64
  } -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

// What the frontend emits for `np.sum(x * y, axis=1)`: a sum into a zero-filled init.
func.func @generic_sum(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<2xf64> attributes {janus.grad} {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<2xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<2xf64>) -> tensor<2xf64>
  %r = linalg.generic {indexing_maps = [#id, #id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<2x3xf64>, tensor<2x3xf64>) outs(%init : tensor<2xf64>) {
  ^bb0(%xs: f64, %ys: f64, %acc: f64):
    %m = arith.mulf %xs, %ys : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  return %r : tensor<2xf64>
}

func.func @linalg_fill(%s: f64, %x: tensor<2x3xf64>) -> tensor<2x3xf64> attributes {janus.grad} {
  %empty = tensor.empty() : tensor<2x3xf64>
  %f = linalg.fill ins(%s : f64) outs(%empty : tensor<2x3xf64>) -> tensor<2x3xf64>
  %r = arith.mulf %f, %x : tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

func.func @linalg_matmul(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %c: tensor<2x4xf64>) -> tensor<2x4xf64> attributes {janus.grad} {
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf64>, tensor<3x4xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %r : tensor<2x4xf64>
}

func.func @linalg_batch_matmul(%a: tensor<2x2x3xf64>, %b: tensor<2x3x2xf64>, %c: tensor<2x2x2xf64>) -> tensor<2x2x2xf64> attributes {janus.grad} {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x2x3xf64>, tensor<2x3x2xf64>) outs(%c : tensor<2x2x2xf64>) -> tensor<2x2x2xf64>
  return %r : tensor<2x2x2xf64>
}

func.func @linalg_transpose(%x: tensor<2x3x4xf64>, %y: tensor<4x2x3xf64>) -> tensor<4x2x3xf64> attributes {janus.grad} {
  %init = tensor.empty() : tensor<4x2x3xf64>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf64>) outs(%init : tensor<4x2x3xf64>) permutation = [2, 0, 1]
  %r = arith.mulf %t, %y : tensor<4x2x3xf64>
  return %r : tensor<4x2x3xf64>
}

func.func @linalg_broadcast(%x: tensor<3xf64>, %y: tensor<2x3xf64>) -> tensor<2x3xf64> attributes {janus.grad} {
  %init = tensor.empty() : tensor<2x3xf64>
  %b = linalg.broadcast ins(%x : tensor<3xf64>) outs(%init : tensor<2x3xf64>) dimensions = [0]
  %r = arith.mulf %b, %y : tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

func.func @linalg_reduce(%x: tensor<2x3xf64>, %init: tensor<2xf64>) -> tensor<2xf64> attributes {janus.grad} {
  %sq = arith.mulf %x, %x : tensor<2x3xf64>
  %r = linalg.reduce ins(%sq : tensor<2x3xf64>) outs(%init : tensor<2xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %r : tensor<2xf64>
}

func.func @tensor_extract(%t: tensor<2x3xf64>, %s: f64) -> f64 attributes {janus.grad} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = tensor.extract %t[%c1, %c2] : tensor<2x3xf64>
  %w = arith.mulf %v, %s : f64
  return %w : f64
}

func.func @tensor_from_elements(%a: f64, %b: f64) -> tensor<2xf64> attributes {janus.grad} {
  %ab = arith.mulf %a, %b : f64
  %r = tensor.from_elements %ab, %a : tensor<2xf64>
  return %r : tensor<2xf64>
}

// IREE 3.13 miscompiles this scalar tensor.insert of an f64 (it overwrites neighbours too),
// so the test's finite differences use a NumPy reference (see docs/autodiff.md).
func.func @tensor_insert(%t: tensor<2x3xf64>, %s: f64) -> tensor<2x3xf64> attributes {janus.grad} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = tensor.extract %t[%c1, %c0] : tensor<2x3xf64>
  %w = arith.mulf %v, %s : f64
  %r = tensor.insert %w into %t[%c0, %c1] : tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

func.func @tensor_slices(%x: tensor<4x3xf64>, %y: tensor<2x3xf64>, %i: index) -> tensor<4x3xf64> attributes {janus.grad} {
  %e = tensor.extract_slice %x[%i, 0] [2, 3] [1, 1] : tensor<4x3xf64> to tensor<2x3xf64>
  %m = arith.mulf %e, %y : tensor<2x3xf64>
  %row = tensor.extract_slice %m[1, 0] [1, 3] [1, 1] : tensor<2x3xf64> to tensor<3xf64>
  %sq = arith.mulf %row, %row : tensor<3xf64>
  %r0 = tensor.insert_slice %m into %x[2, 0] [2, 3] [1, 1] : tensor<2x3xf64> into tensor<4x3xf64>
  %r = tensor.insert_slice %sq into %r0[0, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}

func.func @tensor_reshapes(%x: tensor<2x3xf64>, %y: tensor<3x2xf64>) -> tensor<3x2xf64> attributes {janus.grad} {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [3, 2] : tensor<6xf64> into tensor<3x2xf64>
  %t = math.tanh %e : tensor<3x2xf64>
  %r = arith.mulf %t, %y : tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}

func.func @tensor_concat(%x: tensor<2x3xf64>, %y: tensor<2x2xf64>) -> tensor<2x5xf64> attributes {janus.grad} {
  %c = tensor.concat dim(1) %x, %y : (tensor<2x3xf64>, tensor<2x2xf64>) -> tensor<2x5xf64>
  %r = arith.mulf %c, %c : tensor<2x5xf64>
  return %r : tensor<2x5xf64>
}

// conv: stride 2 (the cotangent spreads to every other position), then dilation 2.
func.func @linalg_conv_strided(%x: tensor<2x3x7x6xf64>, %w: tensor<4x3x3x2xf64>, %b: tensor<2x4x3x3xf64>) -> tensor<2x4x3x3xf64> attributes {janus.grad} {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x3x7x6xf64>, tensor<4x3x3x2xf64>) outs(%b : tensor<2x4x3x3xf64>) -> tensor<2x4x3x3xf64>
  return %y : tensor<2x4x3x3xf64>
}

func.func @linalg_conv_dilated(%x: tensor<1x2x6x5xf64>, %w: tensor<3x2x2x2xf64>) -> tensor<1x3x4x3xf64> attributes {janus.grad} {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<1x3x4x3xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<1x3x4x3xf64>) -> tensor<1x3x4x3xf64>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x6x5xf64>, tensor<3x2x2x2xf64>) outs(%init : tensor<1x3x4x3xf64>) -> tensor<1x3x4x3xf64>
  %t = math.tanh %y : tensor<1x3x4x3xf64>
  return %t : tensor<1x3x4x3xf64>
}

// max/min reductions (np.max, the shift in softmax): the cotangent goes to the maxima.
func.func @linalg_max_reduction(%x: tensor<3x4xf64>) -> (tensor<3xf64>, tensor<4xf64>) attributes {janus.grad} {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %inf = arith.constant 0x7FF0000000000000 : f64
  %e = tensor.empty() : tensor<3xf64>
  %init = linalg.fill ins(%ninf : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %m = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x4xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.maximumf %a, %acc : f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  %e2 = tensor.empty() : tensor<4xf64>
  %init2 = linalg.fill ins(%inf : f64) outs(%e2 : tensor<4xf64>) -> tensor<4xf64>
  %n = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<3x4xf64>) outs(%init2 : tensor<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.minimumf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  return %m, %n : tensor<3xf64>, tensor<4xf64>
}

// max pooling, windows tiling the input (2x2, stride 2); the last row is not covered.
func.func @linalg_pool_max(%x: tensor<1x2x5x4xf64>) -> tensor<1x2x2x2xf64> attributes {janus.grad} {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %e = tensor.empty() : tensor<1x2x2x2xf64>
  %init = linalg.fill ins(%ninf : f64) outs(%e : tensor<1x2x2x2xf64>) -> tensor<1x2x2x2xf64>
  %w = tensor.empty() : tensor<2x2xf64>
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x2x5x4xf64>, tensor<2x2xf64>) outs(%init : tensor<1x2x2x2xf64>) -> tensor<1x2x2x2xf64>
  %t = math.tanh %y : tensor<1x2x2x2xf64>
  return %t : tensor<1x2x2x2xf64>
}

// A gather (np.take_along_axis's form: a tensor.extract of a captured tensor, coordinates
// from integers): the cotangent is scatter-added back, the repeated column twice.
func.func @linalg_gather(%x: tensor<3x4xf64>) -> tensor<3x3xf64> attributes {janus.grad} {
  %ids = arith.constant dense<[[0, 3, 3], [1, 1, 0], [2, 0, 1]]> : tensor<3x3xi64>
  %e = tensor.empty() : tensor<3x3xf64>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<3x3xi64>) outs(%e : tensor<3x3xf64>) {
  ^bb0(%i: i64, %o: f64):
    %r = linalg.index 0 : index
    %c = arith.index_cast %i : i64 to index
    %v = tensor.extract %x[%r, %c] : tensor<3x4xf64>
    linalg.yield %v : f64
  } -> tensor<3x3xf64>
  %t = math.tanh %y : tensor<3x3xf64>
  return %t : tensor<3x3xf64>
}

// Product reductions: np.prod over rows, and np.cumprod's form (the operand inside the
// prefix, 1 outside), whose body computes its factor from the loop indices.
func.func @linalg_product(%x: tensor<3x4xf64>) -> (tensor<3xf64>, tensor<3x4xf64>) attributes {janus.grad} {
  %one = arith.constant 1.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %init = linalg.fill ins(%one : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %p = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x4xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %m = arith.mulf %a, %acc : f64
    linalg.yield %m : f64
  } -> tensor<3xf64>
  %e2 = tensor.empty() : tensor<3x4xf64>
  %init2 = linalg.fill ins(%one : f64) outs(%e2 : tensor<3x4xf64>) -> tensor<3x4xf64>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<3x4xf64>) outs(%init2 : tensor<3x4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %j = linalg.index 2 : index
    %i = linalg.index 1 : index
    %inside = arith.cmpi ule, %j, %i : index
    %f = arith.select %inside, %a, %one : f64
    %m = arith.mulf %acc, %f : f64
    linalg.yield %m : f64
  } -> tensor<3x4xf64>
  return %p, %c : tensor<3xf64>, tensor<3x4xf64>
}

// np.sort's form: the values copied with their positions (a two-result generic), sorted
// together along the axis; the cotangent goes back by the sorted positions.
func.func @linalg_ext_sort(%x: tensor<3x4xf64>) -> tensor<3x4xf64> attributes {janus.grad} {
  %ev = tensor.empty() : tensor<3x4xf64>
  %ep = tensor.empty() : tensor<3x4xi64>
  %c:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<3x4xf64>) outs(%ev, %ep : tensor<3x4xf64>, tensor<3x4xi64>) {
  ^bb0(%in: f64, %o0: f64, %o1: i64):
    %k = linalg.index 1 : index
    %p = arith.index_cast %k : index to i64
    linalg.yield %in, %p : f64, i64
  } -> (tensor<3x4xf64>, tensor<3x4xi64>)
  %s:2 = iree_linalg_ext.sort dimension(1) outs(%c#0, %c#1 : tensor<3x4xf64>, tensor<3x4xi64>) {
  ^bb0(%a: f64, %b: f64, %ia: i64, %ib: i64):
    %lt = arith.cmpf olt, %a, %b : f64
    iree_linalg_ext.yield %lt : i1
  } -> tensor<3x4xf64>, tensor<3x4xi64>
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 1.5], [3.0, 0.0, -2.0, 1.0]]> : tensor<3x4xf64>
  %y = arith.mulf %s#0, %w : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
