// Every scalar kind the runtime converts, a dynamic dimension, a bool tensor, and
// functions with no and with several results.

// (a + b, c * d, not flag, 2 * i)
func.func @mix(%a: i64, %b: i32, %c: f32, %d: f64, %flag: i1, %i: index) -> (i64, f64, i1, index) {
  %b64 = arith.extsi %b : i32 to i64
  %sum = arith.addi %a, %b64 : i64
  %c64 = arith.extf %c : f32 to f64
  %product = arith.mulf %c64, %d : f64
  %true = arith.constant true
  %not = arith.xori %flag, %true : i1
  %two = arith.constant 2 : index
  %twice = arith.muli %i, %two : index
  return %sum, %product, %not, %twice : i64, f64, i1, index
}

// x + x for a vector of any length.
func.func @double(%x: tensor<?xf64>) -> tensor<?xf64> {
  %y = arith.addf %x, %x : tensor<?xf64>
  return %y : tensor<?xf64>
}

// Element-wise not.
func.func @invert(%m: tensor<3xi1>) -> tensor<3xi1> {
  %true = arith.constant dense<true> : tensor<3xi1>
  %r = arith.xori %m, %true : tensor<3xi1>
  return %r : tensor<3xi1>
}

func.func @nothing(%x: i32) {
  return
}
