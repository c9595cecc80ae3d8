// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @not_i1(%c: i32) {
  // expected-error @+1 {{'janus.guard' op operand #0 ('condition') must be i1, got i32}}
  "janus.guard"(%c) {id = 0, kind = "branch", source = "a.py:1"} : (i32) -> ()
  return
}

// -----

func.func @no_id(%c: i1) {
  // expected-error @+1 {{'janus.guard' op requires attribute 'id'}}
  "janus.guard"(%c) {kind = "branch", source = "a.py:1"} : (i1) -> ()
  return
}
