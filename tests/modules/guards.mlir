// Two speculative functions. Each holds for the inputs seen while profiling and
// fails (falls back to Python) for others.

// y = x * s, compiled under the assumption s > 0 (guard 1).
func.func @scale(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %positive = arith.cmpf ogt, %s, %zero : f32
  "janus.guard"(%positive) {id = 1 : i64, kind = "value", source = "model.py:10"} : (i1) -> ()
  %empty = tensor.empty() : tensor<4xf32>
  %splat = linalg.fill ins(%s : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %y = arith.mulf %x, %splat : tensor<4xf32>
  return %y : tensor<4xf32>
}

// n + 1, compiled for the branch `n < limit` taken while profiling (guard 2).
func.func @next_below(%n: i64, %limit: i64) -> i64 {
  %below = arith.cmpi slt, %n, %limit : i64
  "janus.guard"(%below) {id = 2 : i64, kind = "branch", source = "model.py:14"} : (i1) -> ()
  %one = arith.constant 1 : i64
  %next = arith.addi %n, %one : i64
  return %next : i64
}
