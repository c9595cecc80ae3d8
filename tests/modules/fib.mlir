// fib(n) = 1 for n < 2, else fib(n - 1) + fib(n - 2): self recursion, two call sites.
func.func @fib(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %base = arith.cmpi slt, %n, %c2 : i64
  %r = scf.if %base -> (i64) {
    scf.yield %c1 : i64
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %a = "janus.invoke"(%n1) {callee = @fib} : (i64) -> i64
    %n2 = arith.subi %n, %c2 : i64
    %b = "janus.invoke"(%n2) {callee = @fib} : (i64) -> i64
    %s = arith.addi %a, %b : i64
    scf.yield %s : i64
  }
  return %r : i64
}
