// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @too_many_operands(%o: !janus.obj, %i: index) {
  // expected-error @+1 {{'janus.get_item' op expects 1 or 2 operands, got 3}}
  %0 = "janus.get_item"(%o, %i, %i) : (!janus.obj, index, index) -> f32
  return
}

// -----

func.func @object_not_obj(%o: f32) {
  // expected-error @+1 {{'janus.get_item' op operand #0 ('object') must be !janus.obj, got f32}}
  %0 = "janus.get_item"(%o) {key = "k"} : (f32) -> f32
  return
}

// -----

func.func @index_not_integer(%o: !janus.obj, %i: f32) {
  // expected-error @+1 {{'janus.get_item' op operand #1 ('index') must be index or signless integer, got f32}}
  %0 = "janus.get_item"(%o, %i) : (!janus.obj, f32) -> f32
  return
}

// -----

func.func @index_signed(%o: !janus.obj, %i: si64) {
  // expected-error @+1 {{'janus.get_item' op operand #1 ('index') must be index or signless integer, got si64}}
  %0 = "janus.get_item"(%o, %i) : (!janus.obj, si64) -> f32
  return
}

// -----

func.func @no_result(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_item' op expects 1 result, got 0}}
  "janus.get_item"(%o) {key = "k"} : (!janus.obj) -> ()
  return
}

// -----

func.func @key_not_string_or_i64(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_item' op attribute 'key' must be a string or 64-bit integer attribute}}
  %0 = "janus.get_item"(%o) {key = 1.5 : f32} : (!janus.obj) -> f32
  return
}

// -----

func.func @both_keys(%o: !janus.obj, %i: index) {
  // expected-error @+1 {{'janus.get_item' op needs exactly one key: a 'key' attribute or an 'index' operand}}
  %0 = "janus.get_item"(%o, %i) {key = "k"} : (!janus.obj, index) -> f32
  return
}

// -----

func.func @no_key(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_item' op needs exactly one key: a 'key' attribute or an 'index' operand}}
  %0 = "janus.get_item"(%o) : (!janus.obj) -> f32
  return
}

// -----

func.func @with_region(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_item' op expects no regions}}
  %0 = "janus.get_item"(%o) ({
  }) {key = "k"} : (!janus.obj) -> f32
  return
}
