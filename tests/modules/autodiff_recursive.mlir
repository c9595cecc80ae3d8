// A scalar-recursive function differentiated by janus-autodiff: the backward function
// is recursive at the same call position, then janus-eliminate-recursion removes the
// cycles of both.
//
//   def power(x, n):            # x ** n, by recursion
//       return 1.0 if n == 0 else x * power(x, n - 1)
func.func @power(%x: f64, %n: i64) -> f64 attributes {janus.grad = {argnums = [0]}} {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1.0 : f64
  %base = arith.cmpi eq, %n, %c0 : i64
  %r = scf.if %base -> (f64) {
    scf.yield %one : f64
  } else {
    %m = arith.subi %n, %c1 : i64
    %p = "janus.invoke"(%x, %m) {callee = @power} : (f64, i64) -> f64
    %y = arith.mulf %x, %p : f64
    scf.yield %y : f64
  }
  return %r : f64
}
