// RUN: janus-opt --list-passes | FileCheck %s

// CHECK: Janus passes:
// CHECK-DAG: janus-check-iree-ready
// CHECK-DAG: janus-lower-guards
// CHECK-DAG: janus-verify
// CHECK: Janus pipelines:
// CHECK: janus-to-iree
// CHECK-NEXT: = janus-verify,{{.*}},janus-check-iree-ready
