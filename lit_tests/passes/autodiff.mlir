// RUN: janus-opt %s -p 'builtin.module(janus-autodiff,canonicalize,cse)' | FileCheck %s

// The gradient of a function with an scf.if and an scf.for: the loop saves its carried
// value per iteration, runs backwards reloading it, and the backward scf.if takes the
// forward's branch on the same condition.

func.func @f(%x: f64, %n: index) -> f64 attributes {janus.grad} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %pos = arith.cmpf ogt, %x, %zero : f64
  %y = scf.if %pos -> (f64) {
    %s = math.sin %x : f64
    scf.yield %s : f64
  } else {
    %m = arith.mulf %x, %x : f64
    scf.yield %m : f64
  }
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %y) -> (f64) {
    %p = arith.mulf %a, %x : f64
    scf.yield %p : f64
  }
  return %r : f64
}

// CHECK-LABEL: func.func @f_grad(%{{.*}}: f64, %{{.*}}: index, %{{.*}}: f64) -> (f64, f64)
// CHECK: %[[P:.*]] = call @f(
// CHECK: %[[G:.*]] = call @f_vjp(
// CHECK: return %[[P]], %[[G]] : f64, f64
// CHECK-LABEL: func.func private @f_vjp
// CHECK-SAME: (%[[X:[^:]*]]: f64, %{{[^:]*}}: index, %[[SEED:[^:]*]]: f64) -> f64
// CHECK: %[[COND:.*]] = arith.cmpf ogt, %[[X]]
// CHECK: %[[Y:.*]] = scf.if %[[COND]] -> (f64)
// CHECK: %[[N:.*]] = arith.maxsi
// CHECK: %[[STACK:.*]] = tensor.empty(%[[N]]) : tensor<?xf64>
// CHECK: %[[SAVED:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[Y]], %{{.*}} = %[[STACK]])
// CHECK: tensor.insert_slice
// CHECK: %[[BACK:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[SEED]], %{{.*}} = %{{.*}}) -> (f64, f64)
// CHECK: tensor.extract %[[SAVED]]#1
// CHECK: %[[DY:.*]] = scf.if %[[COND]] -> (f64)
// CHECK: math.cos %[[X]]
// CHECK: arith.mulf %[[BACK]]#0
// CHECK: } else {
// CHECK: %[[DX:.*]] = arith.addf %[[BACK]]#1, %[[DY]] : f64
// CHECK: return %[[DX]] : f64

