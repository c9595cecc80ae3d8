// ackermann(m, n): n + 1 when m = 0; ackermann(m - 1, 1) when n = 0;
// else ackermann(m - 1, ackermann(m, n - 1)) -- a recursive call nested in another's arguments.
func.func @ackermann(%m: i64, %n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %m_zero = arith.cmpi eq, %m, %c0 : i64
  %r = scf.if %m_zero -> (i64) {
    %n1 = arith.addi %n, %c1 : i64
    scf.yield %n1 : i64
  } else {
    %m1 = arith.subi %m, %c1 : i64
    %n_zero = arith.cmpi eq, %n, %c0 : i64
    %s = scf.if %n_zero -> (i64) {
      %a = "janus.invoke"(%m1, %c1) {callee = @ackermann} : (i64, i64) -> i64
      scf.yield %a : i64
    } else {
      %n1 = arith.subi %n, %c1 : i64
      %inner = "janus.invoke"(%m, %n1) {callee = @ackermann} : (i64, i64) -> i64
      %outer = "janus.invoke"(%m1, %inner) {callee = @ackermann} : (i64, i64) -> i64
      scf.yield %outer : i64
    }
    scf.yield %s : i64
  }
  return %r : i64
}
