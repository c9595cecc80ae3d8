// RUN: janus-opt %s --split-input-file -p 'builtin.module(janus-eliminate-recursion,canonicalize,janus-recursion-to-dispatch)' | FileCheck %s
// RUN: janus-opt %s --split-input-file -p 'janus-to-iree-cpu' | FileCheck %s --check-prefix=READY
// RUN: janus-opt %s --split-input-file -p 'janus-to-iree-cpu{max-stack-entries=100}' | FileCheck %s --check-prefix=SMALL
// RUN: janus-opt %s --split-input-file -p 'builtin.module(janus-eliminate-recursion,canonicalize,janus-recursion-to-dispatch{inline-depth=0})' | FileCheck %s --check-prefix=NOINLINE

// A state machine of scalars becomes one linalg.generic over a single element: a loop
// on a program counter, a switch over the machine's blocks, the stack in a tensor.
// Guards inside record their id (+1) in the last result; one janus.guard per guard
// after the dispatch re-raises it. A full stack (-1) redoes the call on the host
// machine, kept under a new name. The public function gets a twin calling the host
// machine (the runtime times both: shallow recursions are cheaper on the host).
// CHECK-LABEL: func.func @fact(%arg0: i64) -> i64
// CHECK-NEXT: call @fact.state_machine(%arg0) <no_inline>
// CHECK-LABEL: func.func @fact.host(%arg0: i64) -> i64
// CHECK-NEXT: call @fact.state_machine.host(%arg0) <no_inline>
// CHECK-LABEL: func.func private @fact.state_machine(%arg0: i64) -> i64
// CHECK: %[[IN:.+]] = tensor.from_elements %arg0 : tensor<1xi64>
// CHECK: %[[R:.+]]:2 = linalg.generic {{.+}} ins(%[[IN]] : tensor<1xi64>) outs(%{{.+}}, %{{.+}} : tensor<1xi64>, tensor<1xi32>)
// CHECK: tensor.empty() : tensor<3072xi64>
// CHECK: scf.while
// CHECK: scf.index_switch
// CHECK: case 1 {
// CHECK: tensor.insert
// CHECK: arith.cmpi slt, %{{.+}}, %c1_i64 : i64
// CHECK: case 2 {
// CHECK: tensor.extract
// CHECK: linalg.yield
// CHECK: %[[FAILED:.+]] = tensor.extract %[[R]]#1
// CHECK: %[[FULL:.+]] = arith.cmpi eq, %[[FAILED]], %c-1_i32 : i32
// CHECK: %[[RESULT:.+]] = scf.if %[[FULL]] -> (i64) {
// CHECK-NEXT: func.call @fact.state_machine.host(%arg0) : (i64) -> i64
// CHECK: %[[OK:.+]] = arith.cmpi ne, %[[FAILED]], %c8_i32 : i32
// CHECK-NEXT: "janus.guard"(%[[OK]]) {id = 7 : i64, kind = "type", source = "m.py:4"}
// CHECK: return %[[RESULT]] : i64
// CHECK-LABEL: func.func private @fact.state_machine.host(%arg0: i64) -> i64
// CHECK-NOT: janus.state_machine
// CHECK: util.list.create
// CHECK: "janus.guard"(%{{.+}}) {id = 7 : i64, kind = "type", source = "m.py:4"}

// A block runs its small successors in the same trip around the loop (inline-depth 2 by
// default): the push of case 1 is followed by the entry block's test (n < 1) in the
// same case; with inline-depth=0 case 1 ends by setting the program counter.
// NOINLINE: scf.index_switch
// NOINLINE: case 1 {
// NOINLINE: tensor.insert
// NOINLINE-NOT: arith.cmpi slt
// NOINLINE: case 2 {

// What iree-compile gets: the guards are asserts, the wrapper is inlined. Inside the
// dispatch, the stack-depth guard (limit 1048576 entries) is implied by the overflow
// check of the 3072-entry stack and left out; a smaller limit is checked.
// READY-LABEL: func.func @fact(%arg0: i64) -> i64
// READY: func.func @fact.host(%arg0: i64) -> i64
// READY-NEXT: call @fact.state_machine.host(%arg0)
// READY: linalg.generic
// READY-NOT: 1048576
// READY: linalg.yield
// READY: cf.assert %{{.+}}, "janus.guard id=7 kind=type source=m.py:4"
// SMALL-LABEL: func.func @fact(%arg0: i64) -> i64
// SMALL: linalg.generic
// SMALL: arith.cmpi ule, %{{.+}}, %c100 : index
// SMALL: linalg.yield
func.func @fact(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %base = arith.cmpi slt, %n, %c1 : i64
  %r = scf.if %base -> (i64) {
    scf.yield %c1 : i64
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %f = "janus.invoke"(%n1) {callee = @fact} : (i64) -> i64
    %p = arith.muli %n, %f : i64
    %ok = arith.cmpi sge, %p, %c0 : i64
    "janus.guard"(%ok) {id = 7, kind = "type", source = "m.py:4"} : (i1) -> ()
    scf.yield %p : i64
  }
  return %r : i64
}

// -----

// A machine that saves a tensor stays on the host.
// CHECK-LABEL: func.func private @sum_rows.state_machine
// CHECK-NOT: linalg.generic
// CHECK: util.list.create
// CHECK-NOT: scf.index_switch
func.func @sum_rows(%t: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %n, %c0 : index
  %r = scf.if %done -> (tensor<?x4xf32>) {
    scf.yield %t : tensor<?x4xf32>
  } else {
    %d = arith.mulf %t, %t : tensor<?x4xf32>
    %m = arith.subi %n, %c1 : index
    %s = "janus.invoke"(%t, %m) {callee = @sum_rows} : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
    %a = arith.addf %s, %d : tensor<?x4xf32>
    scf.yield %a : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// Only a public function with scalar arguments and results gets a twin: the runtime
// times the twin against the dispatch on calls of scalars only.
// CHECK-LABEL: func.func @scale(
// CHECK: call @down(
// CHECK-NOT: func.func @scale.host
// CHECK-LABEL: func.func private @down(
func.func @scale(%t: tensor<4xi64>, %n: i64) -> tensor<4xi64> {
  %f = "janus.invoke"(%n) {callee = @down} : (i64) -> i64
  %s = tensor.splat %f : tensor<4xi64>
  %r = arith.muli %t, %s : tensor<4xi64>
  return %r : tensor<4xi64>
}
func.func private @down(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %base = arith.cmpi sle, %n, %c0 : i64
  %r = scf.if %base -> (i64) {
    scf.yield %c0 : i64
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %d = "janus.invoke"(%n1) {callee = @down} : (i64) -> i64
    scf.yield %d : i64
  }
  return %r : i64
}
