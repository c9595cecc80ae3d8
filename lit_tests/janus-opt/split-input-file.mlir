// RUN: not janus-opt %s --split-input-file 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err

// Each chunk is processed on its own: good chunks are printed (separated by
// `// -----`), a bad chunk reports errors at its line in the whole file.

// CHECK: func.func @first
// CHECK: // -----
// CHECK: func.func @third
// CHECK-NOT: @second
func.func @first() {
  return
}

// -----

func.func @second(%o: !janus.obj) {
  // ERR: split-input-file.mlir:[[# @LINE + 1]]:3: error: 'janus.set_attr' op expects 2 operands, got 1
  "janus.set_attr"(%o) {name = "x"} : (!janus.obj) -> ()
  return
}

// -----

func.func @third() {
  return
}
