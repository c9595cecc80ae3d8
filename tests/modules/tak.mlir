// Takeuchi: tak(x, y, z) = z when y >= x, else
// tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y)).
func.func @tak(%x: i64, %y: i64, %z: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %recurse = arith.cmpi slt, %y, %x : i64
  %r = scf.if %recurse -> (i64) {
    %x1 = arith.subi %x, %c1 : i64
    %a = "janus.invoke"(%x1, %y, %z) {callee = @tak} : (i64, i64, i64) -> i64
    %y1 = arith.subi %y, %c1 : i64
    %b = "janus.invoke"(%y1, %z, %x) {callee = @tak} : (i64, i64, i64) -> i64
    %z1 = arith.subi %z, %c1 : i64
    %c = "janus.invoke"(%z1, %x, %y) {callee = @tak} : (i64, i64, i64) -> i64
    %t = "janus.invoke"(%a, %b, %c) {callee = @tak} : (i64, i64, i64) -> i64
    scf.yield %t : i64
  } else {
    scf.yield %z : i64
  }
  return %r : i64
}
