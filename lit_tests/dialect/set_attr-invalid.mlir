// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @no_value(%o: !janus.obj) {
  // expected-error @+1 {{'janus.set_attr' op expects 2 operands, got 1}}
  "janus.set_attr"(%o) {name = "state"} : (!janus.obj) -> ()
  return
}

// -----

func.func @object_not_obj(%o: i64, %v: f32) {
  // expected-error @+1 {{'janus.set_attr' op operand #0 ('object') must be !janus.obj, got i64}}
  "janus.set_attr"(%o, %v) {name = "state"} : (i64, f32) -> ()
  return
}

// -----

func.func @has_result(%o: !janus.obj, %v: f32) {
  // expected-error @+1 {{'janus.set_attr' op expects 0 results, got 1}}
  %0 = "janus.set_attr"(%o, %v) {name = "state"} : (!janus.obj, f32) -> f32
  return
}

// -----

func.func @no_name(%o: !janus.obj, %v: f32) {
  // expected-error @+1 {{'janus.set_attr' op requires attribute 'name'}}
  "janus.set_attr"(%o, %v) : (!janus.obj, f32) -> ()
  return
}

// -----

func.func @name_not_string(%o: !janus.obj, %v: f32) {
  // expected-error @+1 {{'janus.set_attr' op attribute 'name' must be a string attribute}}
  "janus.set_attr"(%o, %v) {name = ["state"]} : (!janus.obj, f32) -> ()
  return
}

// -----

func.func @with_region(%o: !janus.obj, %v: f32) {
  // expected-error @+1 {{'janus.set_attr' op expects no regions}}
  "janus.set_attr"(%o, %v) ({
  }) {name = "state"} : (!janus.obj, f32) -> ()
  return
}
