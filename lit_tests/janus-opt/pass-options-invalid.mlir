// RUN: not janus-opt %s -p 'builtin.module(janus-eliminate-recursion{stack=64})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not janus-opt %s -p 'janus-to-iree{dispatch-stack-entries=8}' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not janus-opt %s -p 'builtin.module(janus-eliminate-recursion{max-stack-entries=x})' 2>&1 | FileCheck %s --check-prefix=NOT-INT
// RUN: not janus-opt %s -p 'builtin.module(janus-eliminate-recursion{max-stack-entries=0})' 2>&1 | FileCheck %s --check-prefix=TOO-SMALL
// RUN: not janus-opt %s -p 'builtin.module(janus-recursion-to-dispatch{dispatch-stack-entries=4097})' 2>&1 | FileCheck %s --check-prefix=TOO-LARGE
// RUN: not janus-opt %s -p 'builtin.module(janus-eliminate-recursion{max-stack-entries})' 2>&1 | FileCheck %s --check-prefix=NO-VALUE
// RUN: not janus-opt %s -p 'builtin.module(janus-eliminate-recursion{max-stack-entries=64)' 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// RUN: not janus-opt %s -p 'builtin.module(janus-eliminate-recursion{max-stack-entries=64}cse)' 2>&1 | FileCheck %s --check-prefix=TRAILING
// RUN: not janus-opt %s -p 'builtin.module(janus-eliminate-recursion{max-stack-entries=1 max-stack-entries=2})' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not janus-opt %s -p 'builtin.module(janus-eliminate-recursion{max-stack-entries=x})' | FileCheck %s --check-prefix=OUT --allow-empty

// A bad option or option list is an error at its column in the pipeline text (the
// line and a caret follow), never a traceback; nothing is printed on stdout.

// UNKNOWN-NOT: Traceback
// UNKNOWN: pass-options-invalid.mlir: error: invalid pass pipeline: <pass-pipeline>:1:42: error: pass 'janus-eliminate-recursion' has no option 'stack' (options: max-stack-entries)
// UNKNOWN-NEXT: builtin.module(janus-eliminate-recursion{stack=64})
// UNKNOWN-NEXT: {{^ {41}\^$}}

// PIPELINE: <pass-pipeline>:1:15: error: pipeline 'janus-to-iree' has no option 'dispatch-stack-entries' (options: max-stack-entries, min-calls, min-node-weights, table-rows, weight-rows-first)

// NOT-INT: <pass-pipeline>:1:60: error: pass 'janus-eliminate-recursion': option 'max-stack-entries' expects an integer, got 'x'
// NOT-INT-NEXT: builtin.module(janus-eliminate-recursion{max-stack-entries=x})
// NOT-INT-NEXT: {{^ {59}\^$}}
// NOT-INT-NOT: Traceback

// TOO-SMALL: <pass-pipeline>:1:60: error: pass 'janus-eliminate-recursion': option 'max-stack-entries' must be at least 1, got 0

// TOO-LARGE: <pass-pipeline>:1:67: error: pass 'janus-recursion-to-dispatch': option 'dispatch-stack-entries' must be at most 4096, got 4097

// NO-VALUE: <pass-pipeline>:1:42: error: expected 'key=value', got 'max-stack-entries'

// UNCLOSED: <pass-pipeline>:1:41: error: '{' is never closed

// TRAILING: <pass-pipeline>:1:63: error: unexpected text after the options

// TWICE: <pass-pipeline>:1:62: error: option 'max-stack-entries' given twice

// OUT-NOT: module
func.func @f() {
  return
}
