// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @no_value(%o: !janus.obj) {
  // expected-error @+1 {{'janus.set_item' op expects 2 or 3 operands, got 1}}
  "janus.set_item"(%o) {key = "k"} : (!janus.obj) -> ()
  return
}

// -----

func.func @too_many_operands(%o: !janus.obj, %i: index, %v: f32) {
  // expected-error @+1 {{'janus.set_item' op expects 2 or 3 operands, got 4}}
  "janus.set_item"(%o, %i, %v, %v) : (!janus.obj, index, f32, f32) -> ()
  return
}

// -----

func.func @object_not_obj(%o: f32, %v: f32) {
  // expected-error @+1 {{'janus.set_item' op operand #0 ('object') must be !janus.obj, got f32}}
  "janus.set_item"(%o, %v) {key = 0} : (f32, f32) -> ()
  return
}

// -----

func.func @index_not_integer(%o: !janus.obj, %i: tensor<index>, %v: f32) {
  // expected-error @+1 {{'janus.set_item' op operand #1 ('index') must be index or signless integer, got tensor<index>}}
  "janus.set_item"(%o, %i, %v) : (!janus.obj, tensor<index>, f32) -> ()
  return
}

// -----

func.func @has_result(%o: !janus.obj, %v: f32) {
  // expected-error @+1 {{'janus.set_item' op expects 0 results, got 1}}
  %0 = "janus.set_item"(%o, %v) {key = 0} : (!janus.obj, f32) -> f32
  return
}

// -----

func.func @key_not_string_or_i64(%o: !janus.obj, %v: f32) {
  // expected-error @+1 {{'janus.set_item' op attribute 'key' must be a string or 64-bit integer attribute}}
  "janus.set_item"(%o, %v) {key = 0 : i8} : (!janus.obj, f32) -> ()
  return
}

// -----

func.func @both_keys(%o: !janus.obj, %i: index, %v: f32) {
  // expected-error @+1 {{'janus.set_item' op needs exactly one key: a 'key' attribute or an 'index' operand}}
  "janus.set_item"(%o, %i, %v) {key = 0} : (!janus.obj, index, f32) -> ()
  return
}

// -----

func.func @no_key(%o: !janus.obj, %v: f32) {
  // expected-error @+1 {{'janus.set_item' op needs exactly one key: a 'key' attribute or an 'index' operand}}
  "janus.set_item"(%o, %v) : (!janus.obj, f32) -> ()
  return
}

// -----

func.func @with_region(%o: !janus.obj, %v: f32) {
  // expected-error @+1 {{'janus.set_item' op expects no regions}}
  "janus.set_item"(%o, %v) ({
  }) {key = 0} : (!janus.obj, f32) -> ()
  return
}
