// RUN: janus-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(janus-check-iree-ready)'

// expected-error @+1 {{call graph has a cycle (@fact); iree-compile would never return on it: run janus-eliminate-recursion first}}
func.func @fact(%n: i64) -> i64 {
  %r = func.call @fact(%n) : (i64) -> i64
  return %r : i64
}

// -----

// expected-error @+1 {{call graph has a cycle (@ping, @pong)}}
func.func @ping(%n: i64) -> i64 {
  %r = func.call @pong(%n) : (i64) -> i64
  return %r : i64
}
func.func @pong(%n: i64) -> i64 {
  %r = func.call @ping(%n) : (i64) -> i64
  return %r : i64
}

// -----

func.func @guarded(%c: i1) {
  // expected-error @+1 {{'janus.guard' must be lowered before IREE compilation}}
  "janus.guard"(%c) {id = 0, kind = "branch", source = "m.py:1"} : (i1) -> ()
  return
}

// -----

func.func @mystery(%x: f32) -> f32 {
  // expected-error @+1 {{'test.mystery' is not an op of any dialect IREE knows}}
  %y = "test.mystery"(%x) : (f32) -> f32
  return %y : f32
}

// -----

// A module IREE can take passes unchanged.
func.func @ready(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}
