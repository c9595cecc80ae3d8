// Recursion that no pass has eliminated: iree-compile 3.13 would never return on it.

func.func @factorial(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %done = arith.cmpi sle, %n, %one : i64
  %r = scf.if %done -> (i64) {
    scf.yield %one : i64
  } else {
    %m = arith.subi %n, %one : i64
    %f = func.call @factorial(%m) : (i64) -> i64
    %p = arith.muli %n, %f : i64
    scf.yield %p : i64
  }
  return %r : i64
}
