// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @no_object() {
  // expected-error @+1 {{'janus.get_attr' op expects 1 operand, got 0}}
  %0 = "janus.get_attr"() {name = "state"} : () -> f32
  return
}

// -----

func.func @object_not_obj(%o: tensor<f32>) {
  // expected-error @+1 {{'janus.get_attr' op operand #0 ('object') must be !janus.obj, got tensor<f32>}}
  %0 = "janus.get_attr"(%o) {name = "state"} : (tensor<f32>) -> f32
  return
}

// -----

func.func @no_result(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_attr' op expects 1 result, got 0}}
  "janus.get_attr"(%o) {name = "state"} : (!janus.obj) -> ()
  return
}

// -----

func.func @no_name(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_attr' op requires attribute 'name'}}
  %0 = "janus.get_attr"(%o) : (!janus.obj) -> f32
  return
}

// -----

func.func @name_not_string(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_attr' op attribute 'name' must be a string attribute}}
  %0 = "janus.get_attr"(%o) {name = 3} : (!janus.obj) -> f32
  return
}

// -----

func.func @with_region(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_attr' op expects no regions}}
  %0 = "janus.get_attr"(%o) ({
  }) {name = "state"} : (!janus.obj) -> f32
  return
}
