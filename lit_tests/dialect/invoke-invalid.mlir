// RUN: janus-opt %s --split-input-file --verify-diagnostics

func.func @no_callee(%x: f32) {
  // expected-error @+1 {{'janus.invoke' op requires attribute 'callee'}}
  "janus.invoke"(%x) : (f32) -> ()
  return
}

// -----

func.func @callee_is_string(%x: f32) {
  // expected-error @+1 {{'janus.invoke' op attribute 'callee' must be a flat symbol reference attribute}}
  "janus.invoke"(%x) {callee = "callee_is_string"} : (f32) -> ()
  return
}

// -----

func.func @callee_is_nested(%x: f32) {
  // expected-error @+1 {{'janus.invoke' op attribute 'callee' must be a flat symbol reference attribute}}
  "janus.invoke"(%x) {callee = @outer::@inner} : (f32) -> ()
  return
}

// -----

func.func @with_region(%x: f32) {
  // expected-error @+1 {{'janus.invoke' op expects no regions}}
  "janus.invoke"(%x) ({
  }) {callee = @with_region} : (f32) -> ()
  return
}

// -----

func.func @undefined_callee(%x: f32) {
  // expected-error @+1 {{'janus.invoke' op callee @missing is not defined in the module}}
  "janus.invoke"(%x) {callee = @missing} : (f32) -> ()
  return
}

// -----

memref.global "private" @table : memref<4xf32>
func.func @callee_not_func(%x: f32) {
  // expected-error @+1 {{'janus.invoke' op callee @table is a memref.global, not a func.func}}
  "janus.invoke"(%x) {callee = @table} : (f32) -> ()
  return
}

// -----

func.func @step(%x: tensor<4xf32>, %n: i64) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @wrong_arguments(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'janus.invoke' op argument types (tensor<4xf32>) do not match callee @step inputs (tensor<4xf32>, i64)}}
  %r = "janus.invoke"(%x) {callee = @step} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @wrong_results(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'janus.invoke' op result types (tensor<?xf32>) do not match callee @step results (tensor<4xf32>)}}
  %r = "janus.invoke"(%x) {callee = @step} : (tensor<4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
