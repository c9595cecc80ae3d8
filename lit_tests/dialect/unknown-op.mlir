// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @unknown(%o: !janus.obj) {
  // expected-error @+1 {{'janus.get_global' op is not a janus op (unknown to the registry)}}
  %0 = "janus.get_global"(%o) {name = "g"} : (!janus.obj) -> f32
  return
}

// -----

// Ops of other unregistered dialects are not the janus verifier's business.
func.func @other_dialect(%o: !janus.obj) {
  %0 = "januss.get_attr"(%o) : (!janus.obj) -> f32
  return
}
