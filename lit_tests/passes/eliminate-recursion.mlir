// RUN: janus-opt %s --split-input-file -p 'builtin.module(janus-eliminate-recursion)' | FileCheck %s
// RUN: janus-opt %s --split-input-file -p 'builtin.module(janus-eliminate-recursion,janus-lower-guards,canonicalize,janus-check-iree-ready)' | FileCheck %s --check-prefix=READY

// After guard lowering and canonicalization no cycle and no janus op is left (the
// janus-check-iree-ready pass would fail), and each push keeps its depth check.
// READY-LABEL: func.func @fib
// READY-COUNT-2: cf.assert %{{.+}}, "janus.guard id={{[12]}} kind=stack_depth source=@fib"
// READY-NOT: "janus.{{[a-z_]+}}"(

// Self recursion, two call sites: one state machine over one explicit stack, private,
// called by the entry under its own name.
// CHECK-LABEL: func.func @fib(%arg0: i64) -> i64
// CHECK-NEXT: %[[R:.+]] = call @fib.state_machine(%arg0) <no_inline> : (i64) -> i64
// CHECK-NEXT: return %[[R]] : i64
// CHECK-LABEL: func.func private @fib.state_machine(%arg0: i64) -> i64
// CHECK-NOT: janus.invoke
// CHECK: %[[STACK:.+]] = util.list.create %{{.+}} : !util.list<?>
// CHECK: cf.br ^[[ENTRY:.+]](%arg0 : i64)
// CHECK: "janus.guard"(%{{.+}}) {id = 1 : i64, kind = "stack_depth", source = "@fib"}
// CHECK-NEXT: util.list.resize %[[STACK]]
// CHECK: util.list.set %[[STACK]][%{{.+}}], %{{.+}} : i64 -> !util.list<?>
// CHECK: util.list.set %[[STACK]][%{{.+}}], %c1_i32 : i32 -> !util.list<?>
// CHECK-NEXT: cf.br ^[[ENTRY]](
// CHECK: "janus.guard"(%{{.+}}) {id = 2 : i64, kind = "stack_depth", source = "@fib"}
// CHECK: util.list.set %[[STACK]][%{{.+}}], %c2_i32 : i32 -> !util.list<?>
// CHECK-NEXT: cf.br ^[[ENTRY]](
// CHECK: util.list.get %[[STACK]][%{{.+}}] : !util.list<?> -> i32
// CHECK-NEXT: cf.switch %{{.+}} : i32, [
// CHECK-NEXT: default: ^[[EXIT:[a-z0-9]+]](
// CHECK-NEXT: 1: ^
// CHECK-NEXT: 2: ^
// CHECK: ^[[EXIT]](%[[R:.+]]: i64):
// CHECK-NEXT: return %[[R]] : i64
// CHECK-NOT: func.func
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

// -----

// Mutual recursion (janus.invoke and func.call) entered from @main only: one state
// machine for @is_even, whose invoke becomes a func.call; @is_odd is folded into it.
// Fresh guard ids follow the module's existing ones.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: call @is_even(%arg0) : (i64) -> i1
// CHECK-LABEL: func.func private @is_even(
// CHECK-NEXT: call @is_even.state_machine
// CHECK-LABEL: func.func private @is_even.state_machine
// CHECK-NOT: janus.invoke
// CHECK-NOT: call
// CHECK: "janus.guard"(%{{.+}}) {id = 7 : i64, kind = "value", source = "m.py:3"}
// CHECK: "janus.guard"(%{{.+}}) {id = 8 : i64, kind = "stack_depth", source = "@is_odd"}
// CHECK: "janus.guard"(%{{.+}}) {id = 9 : i64, kind = "stack_depth", source = "@is_even"}
// CHECK: cf.switch
// CHECK-NOT: func.func
func.func @main(%n: i64) -> i1 {
  %r = "janus.invoke"(%n) {callee = @is_even} : (i64) -> i1
  return %r : i1
}

func.func private @is_even(%n: i64) -> i1 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %zero = arith.cmpi eq, %n, %c0 : i64
  "janus.guard"(%zero) {id = 7, kind = "value", source = "m.py:3"} : (i1) -> ()
  %r = scf.if %zero -> (i1) {
    %true = arith.constant true
    scf.yield %true : i1
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %o = func.call @is_odd(%n1) : (i64) -> i1
    scf.yield %o : i1
  }
  return %r : i1
}

func.func private @is_odd(%n: i64) -> i1 {
  %c1 = arith.constant 1 : i64
  %n1 = arith.subi %n, %c1 : i64
  %e = "janus.invoke"(%n1) {callee = @is_even} : (i64) -> i1
  return %e : i1
}

// -----

// Tensor parameters enter the state machine as buffer views (iree-compile copies
// tensors passed to a private multi-block function before each dispatch reading them).
// A tensor live across the call is saved as its dynamic size and a buffer view; the
// argument passed unchanged to every call (%t) is read from the entry, never saved.
// CHECK-LABEL: func.func @sum_rows(%arg0: tensor<?x4xf32>, %arg1: index)
// CHECK: %[[ARG:.+]] = hal.tensor.export %arg0 : tensor<?x4xf32>{%{{.+}}} -> !hal.buffer_view
// CHECK-NEXT: call @sum_rows.state_machine(%[[ARG]], %arg1) <no_inline> : (!hal.buffer_view, index) -> tensor<?x4xf32>
// CHECK-LABEL: func.func private @sum_rows.state_machine(%arg0: !hal.buffer_view, %arg1: index)
// CHECK-NEXT: %[[D0:.+]] = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
// CHECK-NEXT: hal.tensor.import %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%[[D0]]}
// CHECK: %[[D:.+]] = tensor.dim %[[SAVED:.+]], %{{.+}} : tensor<?x4xf32>
// CHECK-NEXT: %[[VIEW:.+]] = hal.tensor.export %[[SAVED]] : tensor<?x4xf32>{%[[D]]} -> !hal.buffer_view
// CHECK: util.list.set %{{.+}}[%{{.+}}], %[[D]] : index -> !util.list<?>
// CHECK: util.list.set %{{.+}}[%{{.+}}], %[[VIEW]] : !hal.buffer_view -> !util.list<?>
// CHECK-NOT: hal.tensor.export
// CHECK: %[[D2:.+]] = util.list.get %{{.+}} : !util.list<?> -> index
// CHECK: %[[VIEW2:.+]] = util.list.get %{{.+}} : !util.list<?> -> !hal.buffer_view
// CHECK-NEXT: hal.tensor.import %[[VIEW2]] : !hal.buffer_view -> tensor<?x4xf32>{%[[D2]]}
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

// A value used inside a nested region (linalg.generic) and live across the call is saved too.
// CHECK-LABEL: func.func private @scale.state_machine
// CHECK: util.list.set %{{.+}}[%{{.+}}], %{{.+}} : f32 -> !util.list<?>
// CHECK: ^[[CONTINUATION:bb[0-9]+]](%{{.+}}: tensor<4xf32>, %[[F:.+]]: f32):
// CHECK-NEXT: linalg.generic
// CHECK: arith.mulf %{{.+}}, %[[F]] : f32
// CHECK: %[[SAVED:.+]] = util.list.get %{{.+}} : !util.list<?> -> f32
// CHECK: cf.br ^[[CONTINUATION]](%{{.+}}, %[[SAVED]] : tensor<4xf32>, f32)
func.func @scale(%t: tensor<4xf32>, %x: f32, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %n, %c0 : index
  %r = scf.if %done -> (tensor<4xf32>) {
    scf.yield %t : tensor<4xf32>
  } else {
    %f = arith.addf %x, %x : f32
    %m = arith.subi %n, %c1 : index
    %s = "janus.invoke"(%t, %x, %m) {callee = @scale} : (tensor<4xf32>, f32, index) -> tensor<4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} outs(%s : tensor<4xf32>) {
    ^bb0(%o: f32):
      %p = arith.mulf %o, %f : f32
      linalg.yield %p : f32
    } -> tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Without recursion the module is left as it is.
// CHECK-LABEL: func.func @caller(%arg0: i64) -> i64 {
// CHECK-NEXT: %0 = call @leaf(%arg0) : (i64) -> i64
// CHECK-NEXT: %1 = call @leaf(%0) : (i64) -> i64
// CHECK-NEXT: return %1 : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.func @leaf(%arg0: i64) -> i64 {
// CHECK-NEXT: return %arg0 : i64
// CHECK-NEXT: }
// CHECK-NOT: util.list
func.func @caller(%n: i64) -> i64 {
  %a = func.call @leaf(%n) : (i64) -> i64
  %b = func.call @leaf(%a) : (i64) -> i64
  return %b : i64
}

func.func @leaf(%n: i64) -> i64 {
  return %n : i64
}

// -----

// A self-call whose result is returned unchanged (tail position, reached through the
// blocks scf.if leaves) saves nothing: no push, no return point, a branch back to the
// entry. Only the three inner calls of tak push a frame and get a return point.
// CHECK-LABEL: func.func private @tak.state_machine
// CHECK: cf.br ^[[ENTRY:bb[0-9]+]](%arg0, %arg1, %arg2 : i64, i64, i64)
// CHECK-COUNT-3: kind = "stack_depth"
// CHECK-NOT: kind = "stack_depth"
// CHECK: util.list.set %{{.+}}, %c3_i32 : i32 -> !util.list<?>
// CHECK-NEXT: cf.br ^[[ENTRY]](
// CHECK-NEXT: ^{{bb[0-9]+}}(
// CHECK-NEXT: cf.br ^[[ENTRY]](
// CHECK: cf.switch %{{.+}} : i32, [
// CHECK-NEXT: default: ^
// CHECK-NEXT: 1: ^
// CHECK-NEXT: 2: ^
// CHECK-NEXT: 3: ^
// CHECK-NEXT: ]
func.func @tak(%x: i64, %y: i64, %z: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %lt = arith.cmpi slt, %y, %x : i64
  %r = scf.if %lt -> (i64) {
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

// -----

// A self-call whose result is used after it (here negated) is no tail call: it pushes.
// CHECK-LABEL: func.func private @neg_chain.state_machine
// CHECK: kind = "stack_depth"
// CHECK: util.list.set %{{.+}}[%{{.+}}], %c1_i32 : i32 -> !util.list<?>
// CHECK: cf.switch
func.func @neg_chain(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %base = arith.cmpi sle, %n, %c0 : i64
  %r = scf.if %base -> (i64) {
    scf.yield %c0 : i64
  } else {
    %n1 = arith.subi %n, %c1 : i64
    %a = "janus.invoke"(%n1) {callee = @neg_chain} : (i64) -> i64
    %m = arith.subi %c0, %a : i64
    scf.yield %m : i64
  }
  return %r : i64
}
