// RUN: janus-opt %s -p 'builtin.module(janus-eliminate-recursion)' | FileCheck %s --check-prefix=DEFAULT
// RUN: janus-opt %s -p 'builtin.module(janus-eliminate-recursion{max-stack-entries=5})' | FileCheck %s --check-prefix=SMALL
// RUN: janus-opt %s -p 'builtin.module(janus-eliminate-recursion,canonicalize,janus-recursion-to-dispatch{dispatch-stack-entries=8})' | FileCheck %s --check-prefix=DISPATCH
// RUN: janus-opt %s -p 'janus-to-iree-cpu{max-stack-entries=5 dispatch-stack-entries=8}' | FileCheck %s --check-prefix=FORWARD

// Pass options in the pipeline text, as mlir-opt spells them: `pass{key=value ...}`.

// By default every push of the explicit stack is checked against 2^20 entries.
// DEFAULT-LABEL: func.func private @fib.state_machine
// DEFAULT: %[[LIMIT:.+]] = arith.constant 1048576 : index
// DEFAULT-NEXT: arith.cmpi ule, %{{.+}}, %[[LIMIT]] : index

// max-stack-entries bounds the stack: its first allocation and every push's guard.
// SMALL-LABEL: func.func private @fib.state_machine
// SMALL: %[[CAPACITY:.+]] = arith.constant 5 : index
// SMALL-NEXT: util.list.create %[[CAPACITY]] : !util.list<?>
// SMALL: %[[LIMIT:.+]] = arith.constant 5 : index
// SMALL-NEXT: %[[FITS:.+]] = arith.cmpi ule, %{{.+}}, %[[LIMIT]] : index
// SMALL-NEXT: "janus.guard"(%[[FITS]]) {id = 1 : i64, kind = "stack_depth", source = "@fib"}
// SMALL-NOT: 1048576

// dispatch-stack-entries sizes the stack tensor of the dispatch (default 3072).
// DISPATCH-LABEL: func.func private @fib.state_machine
// DISPATCH: tensor.empty() : tensor<8xi64>
// DISPATCH-NOT: tensor<3072xi64>
// DISPATCH-LABEL: func.func private @fib.state_machine.host

// A named pipeline forwards each option to the janus passes that declare it.
// FORWARD-LABEL: func.func private @fib.state_machine
// FORWARD: tensor.empty() : tensor<8xi64>
// FORWARD-LABEL: func.func private @fib.state_machine.host
// FORWARD: %[[LIMIT:.+]] = arith.constant 5 : index
// FORWARD-NEXT: util.list.create %[[LIMIT]] : !util.list<?>
// FORWARD: arith.cmpi ule, %{{.+}}, %[[LIMIT]] : index
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
