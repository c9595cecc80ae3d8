// Mutual recursion: is_even(0) = true, is_even(n) = is_odd(n - 1);
// is_odd(0) = false, is_odd(n) = is_even(n - 1). Both are public entries.
func.func @is_even(%n: i64) -> i1 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %zero = arith.cmpi eq, %n, %c0 : i64
  %r = scf.if %zero -> (i1) {
    %true = arith.constant true
    scf.yield %true : i1
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %o = "janus.invoke"(%n1) {callee = @is_odd} : (i64) -> i1
    scf.yield %o : i1
  }
  return %r : i1
}

func.func @is_odd(%n: i64) -> i1 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %zero = arith.cmpi eq, %n, %c0 : i64
  %r = scf.if %zero -> (i1) {
    %false = arith.constant false
    scf.yield %false : i1
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %e = "janus.invoke"(%n1) {callee = @is_even} : (i64) -> i1
    scf.yield %e : i1
  }
  return %r : i1
}
