// RUN: janus-opt --list-passes | FileCheck %s

// Each pass with its options (default, range, help), each pipeline with the options it
// forwards.
// CHECK: Janus passes:
// CHECK: janus-check-iree-ready
// CHECK: janus-eliminate-recursion {{.+}}
// CHECK-NEXT: max-stack-entries=<int> (default 1048576, >= 1): {{.+}}
// CHECK: janus-lower-guards
// CHECK: janus-recursion-to-dispatch {{.+}}
// CHECK-NEXT: dispatch-stack-entries=<int> (default 3072, >= 1, <= 4096): {{.+}}
// CHECK-NEXT: inline-depth=<int> (default 2, >= 0, <= 4): {{.+}}
// CHECK-NEXT: janus-scalar-operands-into-bodies {{.+}}
// CHECK-NEXT: janus-verify
// CHECK: Janus pipelines:
// CHECK: janus-to-iree {{.+}}
// CHECK-NEXT: = janus-verify,{{.*}},janus-check-iree-ready
// CHECK-NEXT: min-node-weights=<int>: forwarded to janus-batch-tree-recursion
// CHECK-NEXT: min-calls=<int>: forwarded to janus-batch-tree-recursion
// CHECK-NEXT: table-rows=<int>: forwarded to janus-batch-tree-recursion
// CHECK-NEXT: weight-rows-first=<int>: forwarded to janus-batch-tree-recursion
// CHECK-NEXT: max-stack-entries=<int>: forwarded to janus-eliminate-recursion
// CHECK-NEXT: janus-to-iree-cpu {{.+}}
// CHECK-NEXT: = janus-verify,{{.*}},janus-check-iree-ready
// CHECK-NEXT: min-node-weights=<int>: forwarded to janus-batch-tree-recursion
// CHECK-NEXT: min-calls=<int>: forwarded to janus-batch-tree-recursion
// CHECK-NEXT: table-rows=<int>: forwarded to janus-batch-tree-recursion
// CHECK-NEXT: weight-rows-first=<int>: forwarded to janus-batch-tree-recursion
// CHECK-NEXT: max-stack-entries=<int>: forwarded to janus-eliminate-recursion
// CHECK-NEXT: dispatch-stack-entries=<int>: forwarded to janus-recursion-to-dispatch
// CHECK-NEXT: inline-depth=<int>: forwarded to janus-recursion-to-dispatch
