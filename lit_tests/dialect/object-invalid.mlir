// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @with_operand(%o: !janus.obj) {
  // expected-error @+1 {{'janus.object' op expects 0 operands, got 1}}
  %0 = "janus.object"(%o) {slot = 0, origin = "arg", name = "self"} : (!janus.obj) -> !janus.obj
  return
}

// -----

func.func @no_result() {
  // expected-error @+1 {{'janus.object' op expects 1 result, got 0}}
  "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> ()
  return
}

// -----

func.func @two_results() {
  // expected-error @+1 {{'janus.object' op expects 1 result, got 2}}
  %0:2 = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> (!janus.obj, !janus.obj)
  return
}

// -----

func.func @result_not_obj() {
  // expected-error @+1 {{'janus.object' op result #0 ('result') must be !janus.obj, got tensor<f32>}}
  %0 = "janus.object"() {slot = 0, origin = "arg", name = "self"} : () -> tensor<f32>
  return
}

// -----

func.func @no_slot() {
  // expected-error @+1 {{'janus.object' op requires attribute 'slot'}}
  %0 = "janus.object"() {origin = "arg", name = "self"} : () -> !janus.obj
  return
}

// -----

func.func @no_origin() {
  // expected-error @+1 {{'janus.object' op requires attribute 'origin'}}
  %0 = "janus.object"() {slot = 0, name = "self"} : () -> !janus.obj
  return
}

// -----

func.func @no_name() {
  // expected-error @+1 {{'janus.object' op requires attribute 'name'}}
  %0 = "janus.object"() {slot = 0, origin = "arg"} : () -> !janus.obj
  return
}

// -----

func.func @slot_not_integer() {
  // expected-error @+1 {{'janus.object' op attribute 'slot' must be a 64-bit signless integer attribute}}
  %0 = "janus.object"() {slot = "0", origin = "arg", name = "self"} : () -> !janus.obj
  return
}

// -----

func.func @name_not_string() {
  // expected-error @+1 {{'janus.object' op attribute 'name' must be a string attribute}}
  %0 = "janus.object"() {slot = 0, origin = "arg", name = @self} : () -> !janus.obj
  return
}

// -----

func.func @unknown_origin() {
  // expected-error @+1 {{'janus.object' op attribute 'origin' must be one of arg, module, cell, constant; got 'heap'}}
  %0 = "janus.object"() {slot = 0, origin = "heap", name = "self"} : () -> !janus.obj
  return
}

// -----

func.func @negative_slot() {
  // expected-error @+1 {{'janus.object' op attribute 'slot' must be non-negative}}
  %0 = "janus.object"() {slot = -1, origin = "arg", name = "self"} : () -> !janus.obj
  return
}

// -----

func.func @with_region() {
  // expected-error @+1 {{'janus.object' op expects no regions}}
  %0 = "janus.object"() ({
  }) {slot = 0, origin = "arg", name = "self"} : () -> !janus.obj
  return
}
