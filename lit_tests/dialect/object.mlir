// RUN: janus-opt %s | FileCheck %s
// RUN: janus-opt %s | janus-opt | FileCheck %s

// Attributes print sorted by name; the slot is an i64.
// CHECK-LABEL: func.func @origins
// CHECK: %{{.*}} = "janus.object"() {name = "self", origin = "arg", slot = 0 : i64} : () -> !janus.obj
// CHECK: %{{.*}} = "janus.object"() {name = "model", origin = "module", slot = 1 : i64} : () -> !janus.obj
// CHECK: %{{.*}} = "janus.object"() {name = "count", origin = "cell", slot = 2 : i64} : () -> !janus.obj
// CHECK: %{{.*}} = "janus.object"() {name = "CONFIG", origin = "constant", slot = 3 : i64} : () -> !janus.obj
func.func @origins() {
  %self = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> !janus.obj
  %mod = "janus.object"() {slot = 1, origin = "module", name = "model"} : () -> !janus.obj
  %cell = "janus.object"() {slot = 2, origin = "cell", name = "count"} : () -> !janus.obj
  %const = "janus.object"() {slot = 3, origin = "constant", name = "CONFIG"} : () -> !janus.obj
  return
}

// An object reference can be passed to and returned from functions.
// CHECK-LABEL: func.func @returned() -> !janus.obj
// CHECK: %[[O:.*]] = "janus.object"() {name = "self", origin = "arg", slot = 0 : i64} : () -> !janus.obj
// CHECK-NEXT: return %[[O]] : !janus.obj
func.func @returned() -> !janus.obj {
  %self = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> !janus.obj
  return %self : !janus.obj
}
