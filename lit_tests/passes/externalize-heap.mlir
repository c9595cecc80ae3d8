// RUN: janus-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(janus-externalize-heap)' | FileCheck %s

// Reads become appended arguments, writes appended results; a read after a write gets
// the written value, a second read reuses the first; the manifest names each location.

// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.*]]: f32, %[[STATE:.*]]: f32, %[[BIAS:.*]]: f32) -> (f32, f32, f32)
// CHECK-SAME: janus.heap_objects = [{name = "self", origin = "arg", slot = 0 : i64}]
// CHECK-SAME: janus.heap_reads = [{path = {{\[}}["attr", "state"]], slot = 0 : i64}, {path = {{\[}}["attr", "bias"]], slot = 0 : i64}]
// CHECK-SAME: janus.heap_writes = [{path = {{\[}}["attr", "state"]], slot = 0 : i64}, {path = {{\[}}["attr", "out"]], slot = 0 : i64}]
// CHECK-NOT: janus.
// CHECK: %[[NEW:.*]] = arith.addf %[[STATE]], %[[X]]
// CHECK: %[[B2:.*]] = arith.addf %[[BIAS]], %[[BIAS]]
// CHECK: %[[OUT:.*]] = arith.mulf %[[NEW]], %[[B2]]
// CHECK: return %[[OUT]], %[[NEW]], %[[OUT]] : f32, f32, f32
func.func @forward(%x: f32) -> f32 {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %s = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> f32
  %new = arith.addf %s, %x : f32
  "janus.set_attr"(%self, %new) {name = "state"} : (!janus.obj, f32) -> ()
  %s2 = "janus.get_attr"(%self) {name = "state"} : (!janus.obj) -> f32
  %b = "janus.get_attr"(%self) {name = "bias"} : (!janus.obj) -> f32
  %b1 = "janus.get_attr"(%self) {name = "bias"} : (!janus.obj) -> f32
  %b2 = arith.addf %b, %b1 : f32
  %out = arith.mulf %s2, %b2 : f32
  "janus.set_attr"(%self, %out) {name = "out"} : (!janus.obj, f32) -> ()
  return %out : f32
}

// -----

// Globals (module attributes), nonlocals (cell_contents), items with string and integer
// keys, and an object reached through a read: slot 0 . cache ['W'].

// CHECK-LABEL: func.func @paths
// CHECK-SAME: (%[[G:.*]]: i64, %[[N:.*]]: i64, %[[W:.*]]: tensor<2xf32>) -> (i64, tensor<2xf32>)
// CHECK-SAME: janus.heap_objects = [{name = "self", origin = "arg", slot = 0 : i64}, {name = "model", origin = "module", slot = 1 : i64}, {name = "count", origin = "cell", slot = 2 : i64}]
// CHECK-SAME: janus.heap_reads = [{path = {{\[}}["attr", "g"]], slot = 1 : i64}, {path = {{\[}}["attr", "cell_contents"]], slot = 2 : i64}, {path = {{\[}}["attr", "cache"], ["item", "W"]], slot = 0 : i64}]
// CHECK-SAME: janus.heap_writes = [{path = {{\[}}["attr", "cell_contents"]], slot = 2 : i64}, {path = {{\[}}["attr", "cache"], ["item", -1]], slot = 0 : i64}]
// CHECK: %[[SUM:.*]] = arith.addi %[[G]], %[[N]]
// CHECK: return %[[SUM]], %[[W]]
func.func @paths() {
  %mod = "janus.object"() {slot = 1 : i64, origin = "module", name = "model"} : () -> !janus.obj
  %cell = "janus.object"() {slot = 2 : i64, origin = "cell", name = "count"} : () -> !janus.obj
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %g = "janus.get_attr"(%mod) {name = "g"} : (!janus.obj) -> i64
  %n = "janus.get_attr"(%cell) {name = "cell_contents"} : (!janus.obj) -> i64
  %sum = arith.addi %g, %n : i64
  "janus.set_attr"(%cell, %sum) {name = "cell_contents"} : (!janus.obj, i64) -> ()
  %cache = "janus.get_attr"(%self) {name = "cache"} : (!janus.obj) -> !janus.obj
  %w = "janus.get_item"(%cache) {key = "W"} : (!janus.obj) -> tensor<2xf32>
  "janus.set_item"(%cache, %w) {key = -1 : i64} : (!janus.obj, tensor<2xf32>) -> ()
  return
}

// -----

// A location only written is not read. A write in one branch of scf.if is yielded by
// both (the else region is created and yields the value from before); a location written
// in both branches needs no entry value.

// CHECK-LABEL: func.func @branches
// CHECK-SAME: (%[[C:.*]]: i1, %[[X:.*]]: f32, %[[A:.*]]: f32) -> (f32, f32)
// CHECK-SAME: janus.heap_reads = [{path = {{\[}}["attr", "a"]], slot = 0 : i64}]
// CHECK-SAME: janus.heap_writes = [{path = {{\[}}["attr", "a"]], slot = 0 : i64}, {path = {{\[}}["attr", "b"]], slot = 0 : i64}]
// CHECK: %[[IF1:.*]] = scf.if %[[C]] -> (f32) {
// CHECK-NEXT:   scf.yield %[[X]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.yield %[[A]] : f32
// CHECK-NEXT: }
// CHECK: %[[IF2:.*]] = scf.if %[[C]] -> (f32) {
// CHECK-NEXT:   scf.yield %[[X]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[NEG:.*]] = arith.negf %[[IF1]]
// CHECK-NEXT:   scf.yield %[[NEG]] : f32
// CHECK-NEXT: }
// CHECK: return %[[IF1]], %[[IF2]] : f32, f32
func.func @branches(%c: i1, %x: f32) {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  scf.if %c {
    "janus.set_attr"(%self, %x) {name = "a"} : (!janus.obj, f32) -> ()
  }
  scf.if %c {
    "janus.set_attr"(%self, %x) {name = "b"} : (!janus.obj, f32) -> ()
  } else {
    %a = "janus.get_attr"(%self) {name = "a"} : (!janus.obj) -> f32
    %neg = arith.negf %a : f32
    "janus.set_attr"(%self, %neg) {name = "b"} : (!janus.obj, f32) -> ()
  }
  return
}

// -----

// scf.for carries a location written in its body as an extra iter_arg; a location only
// read in the body is read once, as a function argument.

// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%[[N:.*]]: index, %[[H:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>) -> (index, tensor<4xf32>)
// CHECK-SAME: janus.heap_reads = [{path = {{\[}}["attr", "h"]], slot = 0 : i64}, {path = {{\[}}["attr", "W"]], slot = 0 : i64}]
// CHECK-SAME: janus.heap_writes = [{path = {{\[}}["attr", "h"]], slot = 0 : i64}]
// CHECK: %[[FOR:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[K:.*]] = %{{.*}}, %[[HC:.*]] = %[[H]]) -> (index, tensor<4xf32>) {
// CHECK:   %[[NEXT:.*]] = arith.mulf %[[HC]], %[[W]]
// CHECK:   scf.yield %{{.*}}, %[[NEXT]] : index, tensor<4xf32>
// CHECK: return %[[FOR]]#0, %[[FOR]]#1 : index, tensor<4xf32>
func.func @loop(%n: index) -> index {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0) -> index {
    %h = "janus.get_attr"(%self) {name = "h"} : (!janus.obj) -> tensor<4xf32>
    %w = "janus.get_attr"(%self) {name = "W"} : (!janus.obj) -> tensor<4xf32>
    %next = arith.mulf %h, %w : tensor<4xf32>
    "janus.set_attr"(%self, %next) {name = "h"} : (!janus.obj, tensor<4xf32>) -> ()
    %k1 = arith.addi %k, %c1 : index
    scf.yield %k1 : index
  }
  return %r : index
}

// -----

// scf.while carries a written location through both regions and scf.condition.

// CHECK-LABEL: func.func @count_up
// CHECK-SAME: (%[[LIMIT:.*]]: i64, %[[STEPS:.*]]: i64) -> i64
// CHECK: %[[W:.*]] = scf.while (%[[B:.*]] = %[[STEPS]]) : (i64) -> i64 {
// CHECK:   %[[LT:.*]] = arith.cmpi slt, %[[B]], %[[LIMIT]]
// CHECK:   scf.condition(%[[LT]]) %[[B]] : i64
// CHECK: } do {
// CHECK: ^bb0(%[[A:.*]]: i64):
// CHECK:   %[[INC:.*]] = arith.addi %[[A]], %{{.*}}
// CHECK:   scf.yield %[[INC]] : i64
// CHECK: return %[[W]] : i64
func.func @count_up(%limit: i64) {
  %m = "janus.object"() {slot = 0 : i64, origin = "module", name = "m"} : () -> !janus.obj
  scf.while : () -> () {
    %s = "janus.get_attr"(%m) {name = "steps"} : (!janus.obj) -> i64
    %lt = arith.cmpi slt, %s, %limit : i64
    scf.condition(%lt)
  } do {
    %one = arith.constant 1 : i64
    %s = "janus.get_attr"(%m) {name = "steps"} : (!janus.obj) -> i64
    %inc = arith.addi %s, %one : i64
    "janus.set_attr"(%m, %inc) {name = "steps"} : (!janus.obj, i64) -> ()
    scf.yield
  }
  return
}

// -----

// Calls: a public entry invokes a private helper that calls another; each callee gets
// arguments for what it reads and results for what it writes, and only public functions
// carry a manifest.

// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%[[X:.*]]: f32, %[[ACC:.*]]: f32, %[[SCALE:.*]]: f32) -> (f32, f32)
// CHECK-SAME: janus.heap_reads = [{path = {{\[}}["attr", "acc"]], slot = 0 : i64}, {path = {{\[}}["attr", "scale"]], slot = 0 : i64}]
// CHECK-SAME: janus.heap_writes = [{path = {{\[}}["attr", "acc"]], slot = 0 : i64}]
// CHECK: %[[R:.*]]:2 = "janus.invoke"(%[[X]], %[[ACC]], %[[SCALE]]) {callee = @middle} : (f32, f32, f32) -> (f32, f32)
// CHECK: %[[S:.*]]:2 = "janus.invoke"(%[[R]]#0, %[[R]]#1, %[[SCALE]]) {callee = @middle}
// CHECK: return %[[S]]#0, %[[S]]#1 : f32, f32
func.func @entry(%x: f32) -> f32 {
  %r = "janus.invoke"(%x) {callee = @middle} : (f32) -> f32
  %s = "janus.invoke"(%r) {callee = @middle} : (f32) -> f32
  return %s : f32
}

// CHECK-LABEL: func.func private @middle
// CHECK-SAME: (%[[X:.*]]: f32, %[[ACC:.*]]: f32, %[[SCALE:.*]]: f32) -> (f32, f32) {
// CHECK: %[[R:.*]]:2 = call @leaf(%[[X]], %[[ACC]], %[[SCALE]]) : (f32, f32, f32) -> (f32, f32)
// CHECK: return %[[R]]#0, %[[R]]#1 : f32, f32
func.func private @middle(%x: f32) -> f32 {
  %r = func.call @leaf(%x) : (f32) -> f32
  return %r : f32
}

// CHECK-LABEL: func.func private @leaf
// CHECK-SAME: (%[[X:.*]]: f32, %[[ACC:.*]]: f32, %[[SCALE:.*]]: f32) -> (f32, f32) {
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %[[SCALE]]
// CHECK: %[[NEW:.*]] = arith.addf %[[ACC]], %[[M]]
// CHECK: return %[[NEW]], %[[NEW]] : f32, f32
func.func private @leaf(%x: f32) -> f32 {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %acc = "janus.get_attr"(%self) {name = "acc"} : (!janus.obj) -> f32
  %scale = "janus.get_attr"(%self) {name = "scale"} : (!janus.obj) -> f32
  %m = arith.mulf %x, %scale : f32
  %new = arith.addf %acc, %m : f32
  "janus.set_attr"(%self, %new) {name = "acc"} : (!janus.obj, f32) -> ()
  return %new : f32
}

// -----

// A recursive pair: @odd writes "last" in its base case and reaches @even, which counts
// calls; both end up reading and writing both locations, threaded through each invoke.

// CHECK-LABEL: func.func @even
// CHECK-SAME: (%[[N:.*]]: i64, %[[CALLS:.*]]: i64, %[[LAST:.*]]: i64) -> (i1, i64, i64)
// CHECK-SAME: janus.heap_reads = [{path = {{\[}}["attr", "calls"]], slot = 0 : i64}, {path = {{\[}}["attr", "last"]], slot = 0 : i64}]
// CHECK-SAME: janus.heap_writes = [{path = {{\[}}["attr", "calls"]], slot = 0 : i64}, {path = {{\[}}["attr", "last"]], slot = 0 : i64}]
// CHECK: %[[INC:.*]] = arith.addi %[[CALLS]]
// CHECK: %[[IF:.*]]:3 = scf.if %{{.*}} -> (i1, i64, i64) {
// CHECK:   scf.yield %{{.*}}, %[[LAST]], %[[INC]] : i1, i64, i64
// CHECK: } else {
// CHECK:   %[[O:.*]]:3 = "janus.invoke"(%{{.*}}, %[[INC]], %[[LAST]]) {callee = @odd} : (i64, i64, i64) -> (i1, i64, i64)
// CHECK:   scf.yield %[[O]]#0, %[[O]]#1, %[[O]]#2 : i1, i64, i64
// CHECK: return %[[IF]]#0, %[[IF]]#2, %[[IF]]#1 : i1, i64, i64
func.func @even(%n: i64) -> i1 {
  %g = "janus.object"() {slot = 0 : i64, origin = "module", name = "mod"} : () -> !janus.obj
  %calls = "janus.get_attr"(%g) {name = "calls"} : (!janus.obj) -> i64
  %one = arith.constant 1 : i64
  %inc = arith.addi %calls, %one : i64
  "janus.set_attr"(%g, %inc) {name = "calls"} : (!janus.obj, i64) -> ()
  %zero = arith.constant 0 : i64
  %is0 = arith.cmpi eq, %n, %zero : i64
  %r = scf.if %is0 -> i1 {
    %t = arith.constant true
    scf.yield %t : i1
  } else {
    %m = arith.subi %n, %one : i64
    %o = "janus.invoke"(%m) {callee = @odd} : (i64) -> i1
    scf.yield %o : i1
  }
  return %r : i1
}

// CHECK-LABEL: func.func private @odd
// CHECK-SAME: (%[[N:.*]]: i64, %[[CALLS:.*]]: i64, %[[LAST:.*]]: i64) -> (i1, i64, i64) {
// CHECK: %[[IF:.*]]:3 = scf.if %{{.*}} -> (i1, i64, i64) {
// CHECK:   scf.yield %{{.*}}, %[[N]], %[[CALLS]] : i1, i64, i64
// CHECK: } else {
// CHECK:   %[[E:.*]]:3 = "janus.invoke"(%{{.*}}, %[[CALLS]], %[[LAST]]) {callee = @even} : (i64, i64, i64) -> (i1, i64, i64)
// CHECK:   scf.yield %[[E]]#0, %[[E]]#2, %[[E]]#1 : i1, i64, i64
// CHECK: return %[[IF]]#0, %[[IF]]#1, %[[IF]]#2 : i1, i64, i64
func.func private @odd(%n: i64) -> i1 {
  %g = "janus.object"() {slot = 0 : i64, origin = "module", name = "mod"} : () -> !janus.obj
  %one = arith.constant 1 : i64
  %zero = arith.constant 0 : i64
  %is0 = arith.cmpi eq, %n, %zero : i64
  %r = scf.if %is0 -> i1 {
    %f = arith.constant false
    "janus.set_attr"(%g, %n) {name = "last"} : (!janus.obj, i64) -> ()
    scf.yield %f : i1
  } else {
    %m = arith.subi %n, %one : i64
    %o = "janus.invoke"(%m) {callee = @even} : (i64) -> i1
    scf.yield %o : i1
  }
  return %r : i1
}

// -----

// A recursive function that writes a location on every path needs no entry value of it.

// CHECK-LABEL: func.func @descend
// CHECK-SAME: (%{{.*}}: i64) -> (i64, i64)
// CHECK-SAME: janus.heap_reads = []
// CHECK-SAME: janus.heap_writes = [{path = {{\[}}["attr", "depth"]], slot = 0 : i64}]
// CHECK: %[[R:.*]]:2 = "janus.invoke"(%{{.*}}) {callee = @descend} : (i64) -> (i64, i64)
func.func @descend(%n: i64) -> i64 {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %zero = arith.constant 0 : i64
  %is0 = arith.cmpi eq, %n, %zero : i64
  %r = scf.if %is0 -> i64 {
    "janus.set_attr"(%self, %n) {name = "depth"} : (!janus.obj, i64) -> ()
    scf.yield %n : i64
  } else {
    %one = arith.constant 1 : i64
    %m = arith.subi %n, %one : i64
    %o = "janus.invoke"(%m) {callee = @descend} : (i64) -> i64
    scf.yield %o : i64
  }
  %d = "janus.get_attr"(%self) {name = "depth"} : (!janus.obj) -> i64
  %s = arith.addi %r, %d : i64
  return %s : i64
}

// -----

func.func @dynamic_read(%i: i64) -> f32 {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  // expected-error @+1 {{dynamic subscript keys are not supported by janus-externalize-heap; a heap location needs a constant 'key' attribute}}
  %v = "janus.get_item"(%self, %i) : (!janus.obj, i64) -> f32
  return %v : f32
}

// -----

func.func @dynamic_write(%i: index, %v: f32) {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  // expected-error @+1 {{dynamic subscript keys are not supported by janus-externalize-heap}}
  "janus.set_item"(%self, %i, %v) : (!janus.obj, index, f32) -> ()
  return
}

// -----

func.func @store_object() {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  %child = "janus.get_attr"(%self) {name = "child"} : (!janus.obj) -> !janus.obj
  // expected-error @+1 {{storing an object (!janus.obj) in slot0.parent is not supported by janus-externalize-heap; only values can be written}}
  "janus.set_attr"(%self, %child) {name = "parent"} : (!janus.obj, !janus.obj) -> ()
  return
}

// -----

// expected-error @+1 {{argument #1 of @object_argument is a !janus.obj; objects must come from janus.object}}
func.func @object_argument(%x: f32, %o: !janus.obj) -> f32 {
  %v = "janus.get_attr"(%o) {name = "v"} : (!janus.obj) -> f32
  return %v : f32
}

// -----

func.func @object_through_if(%c: i1) -> f32 {
  %a = "janus.object"() {slot = 0 : i64, origin = "arg", name = "a"} : () -> !janus.obj
  %b = "janus.object"() {slot = 1 : i64, origin = "arg", name = "b"} : () -> !janus.obj
  // expected-error @+1 {{'scf.if' produces a !janus.obj; objects must come from janus.object or an attribute/item read}}
  %o = scf.if %c -> !janus.obj {
    // expected-error @+1 {{'scf.yield' takes a !janus.obj operand; janus-externalize-heap allows objects only as the object operand of janus heap ops}}
    scf.yield %a : !janus.obj
  } else {
    // expected-error @+1 {{'scf.yield' takes a !janus.obj operand}}
    scf.yield %b : !janus.obj
  }
  %v = "janus.get_attr"(%o) {name = "v"} : (!janus.obj) -> f32
  return %v : f32
}

// -----

func.func @two_types(%x: f32) -> i64 {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  "janus.set_attr"(%self, %x) {name = "n"} : (!janus.obj, f32) -> ()
  // expected-error @+1 {{heap location slot0.n is used as i64 here and as f32 before; janus-externalize-heap needs one type per location}}
  %n = "janus.get_attr"(%self) {name = "n"} : (!janus.obj) -> i64
  return %n : i64
}

// -----

func.func @slot_rebound() -> f32 {
  %a = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  // expected-error @+1 {{object slot 0 is bound to arg 'self' and to module 'm'}}
  %m = "janus.object"() {slot = 0 : i64, origin = "module", name = "m"} : () -> !janus.obj
  %v = "janus.get_attr"(%m) {name = "v"} : (!janus.obj) -> f32
  return %v : f32
}

// -----

func.func @write_in_execute_region(%x: f32) {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  // expected-error @+1 {{heap writes inside 'scf.execute_region' are not supported by janus-externalize-heap; only scf.if, scf.for and scf.while regions are threaded}}
  scf.execute_region {
    "janus.set_attr"(%self, %x) {name = "v"} : (!janus.obj, f32) -> ()
    scf.yield
  }
  return
}

// -----

// expected-error @+1 {{@multi_block has several blocks; janus-externalize-heap needs structured control flow}}
func.func @multi_block(%c: i1, %x: f32) {
  %self = "janus.object"() {slot = 0 : i64, origin = "arg", name = "self"} : () -> !janus.obj
  cf.cond_br %c, ^write, ^done
^write:
  "janus.set_attr"(%self, %x) {name = "v"} : (!janus.obj, f32) -> ()
  cf.br ^done
^done:
  return
}
