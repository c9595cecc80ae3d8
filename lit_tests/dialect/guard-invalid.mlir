// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @no_condition() {
  // expected-error @+1 {{'janus.guard' op expects 1 operand, got 0}}
  "janus.guard"() {id = 0, kind = "branch", source = "a.py:1"} : () -> ()
  return
}

// -----

func.func @two_conditions(%c: i1) {
  // expected-error @+1 {{'janus.guard' op expects 1 operand, got 2}}
  "janus.guard"(%c, %c) {id = 0, kind = "branch", source = "a.py:1"} : (i1, i1) -> ()
  return
}

// -----

func.func @not_i1(%c: i32) {
  // expected-error @+1 {{'janus.guard' op operand #0 ('condition') must be i1, got i32}}
  "janus.guard"(%c) {id = 0, kind = "branch", source = "a.py:1"} : (i32) -> ()
  return
}

// -----

func.func @has_result(%c: i1) {
  // expected-error @+1 {{'janus.guard' op expects 0 results, got 1}}
  %r = "janus.guard"(%c) {id = 0, kind = "branch", source = "a.py:1"} : (i1) -> i1
  return
}

// -----

func.func @no_id(%c: i1) {
  // expected-error @+1 {{'janus.guard' op requires attribute 'id'}}
  "janus.guard"(%c) {kind = "branch", source = "a.py:1"} : (i1) -> ()
  return
}

// -----

func.func @no_source(%c: i1) {
  // expected-error @+1 {{'janus.guard' op requires attribute 'source'}}
  "janus.guard"(%c) {id = 0, kind = "branch"} : (i1) -> ()
  return
}

// -----

func.func @id_not_i64(%c: i1) {
  // expected-error @+1 {{'janus.guard' op attribute 'id' must be a 64-bit signless integer attribute}}
  "janus.guard"(%c) {id = 0 : i32, kind = "branch", source = "a.py:1"} : (i1) -> ()
  return
}

// -----

func.func @kind_not_string(%c: i1) {
  // expected-error @+1 {{'janus.guard' op attribute 'kind' must be a string attribute}}
  "janus.guard"(%c) {id = 0, kind = 1, source = "a.py:1"} : (i1) -> ()
  return
}

// -----

func.func @unknown_kind(%c: i1) {
  // expected-error @+1 {{'janus.guard' op attribute 'kind' must be one of branch, trip_count, type, dtype, shape, value, callee, raise, python, stack_depth; got 'hunch'}}
  "janus.guard"(%c) {id = 0, kind = "hunch", source = "a.py:1"} : (i1) -> ()
  return
}

// -----

func.func @with_region(%c: i1) {
  // expected-error @+1 {{'janus.guard' op expects no regions}}
  "janus.guard"(%c) ({
    "test.op"() : () -> ()
  }) {id = 0, kind = "branch", source = "a.py:1"} : (i1) -> ()
  return
}

// -----

func.func @duplicate_id(%c: i1) {
  "janus.guard"(%c) {id = 5, kind = "branch", source = "a.py:1"} : (i1) -> ()
  // expected-error @+1 {{'janus.guard' op guard id 5 is already used at line 86, column 3}}
  "janus.guard"(%c) {id = 5, kind = "shape", source = "a.py:2"} : (i1) -> ()
  return
}

// -----

// Ids are unique across the whole module, not only within a function. (A copy of a
// guard, with the same kind and source, may share its id: see guard.mlir.)
func.func @first(%c: i1) {
  "janus.guard"(%c) {id = 9, kind = "branch", source = "a.py:1"} : (i1) -> ()
  return
}
func.func @second(%c: i1) {
  // expected-error @+1 {{'janus.guard' op guard id 9 is already used at line}}
  "janus.guard"(%c) {id = 9, kind = "branch", source = "a.py:2"} : (i1) -> ()
  return
}
