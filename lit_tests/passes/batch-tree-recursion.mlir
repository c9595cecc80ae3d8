// RUN: janus-opt %s -p 'builtin.module(janus-batch-tree-recursion{min-node-weights=1 weight-rows-first=1})' --split-input-file | FileCheck %s
// RUN: janus-opt %s -p 'builtin.module(janus-batch-tree-recursion{min-node-weights=1})' --split-input-file | FileCheck %s --check-prefix=SMALLW
// RUN: janus-opt %s -p 'builtin.module(janus-batch-tree-recursion)' --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: janus-opt %s -p 'builtin.module(janus-batch-tree-recursion{min-node-weights=0})' --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: janus-opt %s -p 'builtin.module(janus-batch-tree-recursion{min-node-weights=129})' --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: janus-opt %s -p 'builtin.module(janus-batch-tree-recursion{min-calls=1 weight-rows-first=1})' --split-input-file | FileCheck %s
// RUN: janus-opt %s -p 'builtin.module(janus-batch-tree-recursion{min-calls=2})' --split-input-file | FileCheck %s --check-prefix=OFF

// OFF (min-node-weights=0: none; a weight of 16x8 below the default 65536 or below 129, and
// one call from outside, fewer than min-calls=2 or the default 16): the recursion stays as it
// is. With min-calls=1, one call from outside (one tree) is enough to batch it.
// OFF-LABEL: func.func @entry
// OFF: "janus.invoke"
// OFF-NOT: _table

// A TreeRNN-like recursion: a leaf reads its word's row of E, an inner node invokes itself
// on the ids in the left and right columns (its other arguments unchanged) and combines
// the children's vectors. It becomes a level function over a batch of rows (the word read
// a gather, the children's rows an iree_linalg_ext.gather of the table, the matvec a GEMM
// over the batch, the branch merged by a select) and a table function that runs it level by
// level in static chunks of 16 and then 4 rows, the table a mutable global updated in place;
// the entry reads the node's row of the table.

// CHECK-DAG: #[[ROWS:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[WKN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[OUT:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK: util.global private mutable @rec_table_rows = dense<0.000000e+00> : tensor<1x16384x8xf32>
// CHECK-NOT: util.global
// CHECK-LABEL: func.func @entry
// CHECK: %[[T:.+]] = call @rec_table(%{{.+}}) : (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
// CHECK: "janus.guard"(%{{.+}}) {id = 3 : i64, kind = "value"
// CHECK: tensor.extract_slice %[[T]][%{{.+}}, 0] [1, 8] [1, 1] : tensor<?x8xf32> to tensor<8xf32>
// CHECK-NOT: janus.invoke
// CHECK-LABEL: func.func private @rec_level
// CHECK-SAME: (%{{.+}}: tensor<?xi64>, %{{.+}}: tensor<?xi64>, %{{.+}}: tensor<?xi64>, %{{.+}}: tensor<?xi64>, %{{.+}}: tensor<50x8xf32>, %{{.+}}: tensor<16x8xf32>, %{{.+}}: index, %{{.+}}: index, %[[TABLE:.+]]: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<i1>)
// CHECK-NOT: scf.if
// CHECK-NOT: janus.invoke
// CHECK-NOT: janus.guard
// The concatenation of the two children's rows is one gather of both rows' ids side by side
// (the two gathers left behind are unused: canonicalize drops them).
// CHECK: %[[IDS:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: linalg.index 1
// CHECK: arith.select
// CHECK: -> tensor<?x2x1xi64>
// CHECK: %[[BOTH:.+]] = iree_linalg_ext.gather dimension_map = [0] ins(%[[TABLE]], %[[IDS]] : tensor<?x8xf32>, tensor<?x2x1xi64>) outs(%{{.+}} : tensor<?x2x8xf32>)
// CHECK: tensor.collapse_shape %[[BOTH]] {{\[\[}}0], [1, 2]] : tensor<?x2x8xf32> into tensor<?x16xf32>
// CHECK-NOT: tensor.concat
// The vecmat x @ W over the batch is one GEMM of the rows (?x16) and W: no unit dim, no batch loop.
// CHECK: %[[GEMM:.+]] = linalg.generic {indexing_maps = [#[[ROWS]], #[[WKN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<?x16xf32>, tensor<16x8xf32>) outs(%{{.+}} : tensor<?x8xf32>)
// CHECK: tensor.expand_shape %[[GEMM]] {{\[\[}}0, 1], [2]] output_shape [%{{.+}}, 1, 8] : tensor<?x8xf32> into tensor<?x1x8xf32>
// CHECK: arith.select
// CHECK: %[[HELD:.+]] = linalg.generic {{.+}} iterator_types = ["reduction"]
// CHECK: return %{{.+}}, %[[HELD]] : tensor<?x8xf32>, tensor<i1>
// CHECK-LABEL: func.func private @rec_table
// CHECK: %[[N:.+]] = tensor.dim %arg2, %c0
// CHECK: util.list.create
// CHECK: scf.while
// CHECK: "janus.guard"(%{{.+}}) {id = 1 : i64, kind = "value"
// CHECK: "janus.guard"(%{{.+}}) {id = 2 : i64, kind = "value", source = "@rec_table: at most 16384 nodes
// The level function's guard, checked once on every node (rows 0 .. n) before the levels run.
// CHECK: %[[ALL:.+]]:2 = call @rec_level({{.+}}, %c0, %[[N]], %{{.+}})
// CHECK: %[[HELD:.+]] = tensor.extract %[[ALL]]#1[] : tensor<i1>
// CHECK: "janus.guard"(%[[HELD]]) {id = 0 : i64, kind = "raise", source = "word in range"}
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: scf.for
// CHECK: %[[T16:.+]] = util.global.load @rec_table_rows : tensor<1x16384x8xf32>
// CHECK: func.call @rec_level({{.+}}, %c16, %{{.+}})
// CHECK: %[[B16:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0] [1, 16, 8] [1, 1, 1] : tensor<16x8xf32> into tensor<1x16x8xf32>
// CHECK: %[[U16:.+]] = tensor.insert_slice %[[B16]] into %[[T16]][0, %{{.+}}, 0] [1, 16, 8] [1, 1, 1] : tensor<1x16x8xf32> into tensor<1x16384x8xf32>
// CHECK-NEXT: util.global.store %[[U16]], @rec_table_rows
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK: func.call @rec_level({{.+}}, %c4, %{{.+}})
// CHECK: tensor.insert_slice %{{.+}} [1, 4, 8] [1, 1, 1] : tensor<1x4x8xf32> into tensor<1x16384x8xf32>
// CHECK: scf.if
// CHECK: util.global.load @rec_table_rows
// CHECK: linalg.copy
// CHECK-NOT: janus.guard
// CHECK: return
// CHECK-NOT: func.func private @rec(
func.func @entry(%words: tensor<?xi64>, %leaf: tensor<?xi64>, %left: tensor<?xi64>, %right: tensor<?xi64>,
                 %E: tensor<50x8xf32>, %W: tensor<16x8xf32>) -> tensor<8xf32> {
  %root = arith.constant 0 : i64
  %h = "janus.invoke"(%root, %words, %leaf, %left, %right, %E, %W) {callee = @rec} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>, tensor<16x8xf32>) -> tensor<8xf32>
  return %h : tensor<8xf32>
}
func.func private @rec(%node: i64, %words: tensor<?xi64>, %leaf: tensor<?xi64>, %left: tensor<?xi64>, %right: tensor<?xi64>,
                       %E: tensor<50x8xf32>, %W: tensor<16x8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0 : i64
  %fzero = arith.constant 0.0 : f32
  %i = arith.index_cast %node : i64 to index
  %flag = tensor.extract %leaf[%i] : tensor<?xi64>
  %is_leaf = arith.cmpi ne, %flag, %zero : i64
  %r = scf.if %is_leaf -> (tensor<8xf32>) {
    %w = tensor.extract %words[%i] : tensor<?xi64>
    %ok = arith.cmpi sge, %w, %zero : i64
    "janus.guard"(%ok) {id = 0 : i64, kind = "raise", source = "word in range"} : (i1) -> ()
    %wi = arith.index_cast %w : i64 to index
    %row = tensor.extract_slice %E[%wi, 0] [1, 8] [1, 1] : tensor<50x8xf32> to tensor<8xf32>
    scf.yield %row : tensor<8xf32>
  } else {
    %l = tensor.extract %left[%i] : tensor<?xi64>
    %hl = "janus.invoke"(%l, %words, %leaf, %left, %right, %E, %W) {callee = @rec} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>, tensor<16x8xf32>) -> tensor<8xf32>
    %rr = tensor.extract %right[%i] : tensor<?xi64>
    %hr = "janus.invoke"(%rr, %words, %leaf, %left, %right, %E, %W) {callee = @rec} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>, tensor<16x8xf32>) -> tensor<8xf32>
    %x = tensor.concat dim(0) %hl, %hr : (tensor<8xf32>, tensor<8xf32>) -> tensor<16xf32>
    %x2 = tensor.expand_shape %x [[0, 1]] output_shape [1, 16] : tensor<16xf32> into tensor<1x16xf32>
    %e = tensor.empty() : tensor<1x8xf32>
    %z = linalg.fill ins(%fzero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
    %y = linalg.matmul ins(%x2, %W : tensor<1x16xf32>, tensor<16x8xf32>) outs(%z : tensor<1x8xf32>) -> tensor<1x8xf32>
    %y1 = tensor.collapse_shape %y [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
    scf.yield %y1 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// A recursion whose next node is computed from a recursive call's result (value-dependent)
// is left unchanged.

// CHECK-LABEL: func.func @entry
// CHECK: "janus.invoke"
// CHECK-LABEL: func.func private @walk
// CHECK: %[[A:.+]] = "janus.invoke"
// CHECK: %[[AN:.+]] = tensor.extract %[[A]]
// CHECK: "janus.invoke"(%[[AN]]
// CHECK-NOT: func.func private @walk_table
func.func @entry(%next: tensor<?xi64>) -> tensor<1xi64> {
  %root = arith.constant 0 : i64
  %r = "janus.invoke"(%root, %next) {callee = @walk} : (i64, tensor<?xi64>) -> tensor<1xi64>
  return %r : tensor<1xi64>
}
func.func private @walk(%node: i64, %next: tensor<?xi64>) -> tensor<1xi64> {
  %zero = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %stop = arith.cmpi slt, %node, %zero : i64
  %r = scf.if %stop -> (tensor<1xi64>) {
    %t = tensor.from_elements %node : tensor<1xi64>
    scf.yield %t : tensor<1xi64>
  } else {
    %i = arith.index_cast %node : i64 to index
    %n = tensor.extract %next[%i] : tensor<?xi64>
    %a = "janus.invoke"(%n, %next) {callee = @walk} : (i64, tensor<?xi64>) -> tensor<1xi64>
    %an = tensor.extract %a[%c0] : tensor<1xi64>
    %b = "janus.invoke"(%an, %next) {callee = @walk} : (i64, tensor<?xi64>) -> tensor<1xi64>
    scf.yield %b : tensor<1xi64>
  }
  return %r : tensor<1xi64>
}

// -----

// A gather inside a structured op (indices computed per node, clamped nowhere) is not
// batched: a masked-off row could read out of bounds. The recursion is left unchanged.

// CHECK-LABEL: func.func private @gather
// CHECK: "janus.invoke"
// CHECK-NOT: func.func private @gather_table
func.func @entry(%words: tensor<?xi64>, %left: tensor<?xi64>, %E: tensor<50x8xf32>) -> tensor<8xf32> {
  %root = arith.constant 0 : i64
  %r = "janus.invoke"(%root, %words, %left, %E) {callee = @gather} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func private @gather(%node: i64, %words: tensor<?xi64>, %left: tensor<?xi64>, %E: tensor<50x8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0 : i64
  %i = arith.index_cast %node : i64 to index
  %l = tensor.extract %left[%i] : tensor<?xi64>
  %leaf = arith.cmpi slt, %l, %zero : i64
  %r = scf.if %leaf -> (tensor<8xf32>) {
    %wt = tensor.extract_slice %words[%i] [1] [1] : tensor<?xi64> to tensor<1xi64>
    %e = tensor.empty() : tensor<1x8xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%wt : tensor<1xi64>) outs(%e : tensor<1x8xf32>) {
    ^bb0(%x: i64, %o: f32):
      %xi = arith.index_cast %x : i64 to index
      %j = linalg.index 1 : index
      %v = tensor.extract %E[%xi, %j] : tensor<50x8xf32>
      linalg.yield %v : f32
    } -> tensor<1x8xf32>
    %row = tensor.collapse_shape %g [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
    scf.yield %row : tensor<8xf32>
  } else {
    %h = "janus.invoke"(%l, %words, %left, %E) {callee = @gather} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>) -> tensor<8xf32>
    scf.yield %h : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// Two results (TreeLSTM's h and c): both tables stacked in one global, a chunk's rows of both
// stored by one update (two updates of the global made iree-compile copy it whole).

// CHECK: util.global private mutable @pair_table_rows = dense<0.000000e+00> : tensor<2x16384x8xf32>
// CHECK-LABEL: func.func private @pair_level
// CHECK-SAME: tensor<?x8xf32>, %{{.+}}: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>)
// CHECK-LABEL: func.func private @pair_table
// CHECK: %[[T:.+]] = util.global.load @pair_table_rows : tensor<2x16384x8xf32>
// CHECK: tensor.extract_slice %[[T]][0, 0, 0] [1, %{{.+}}, 8] [1, 1, 1] : tensor<2x16384x8xf32> to tensor<?x8xf32>
// CHECK: tensor.extract_slice %[[T]][1, 0, 0] [1, %{{.+}}, 8] [1, 1, 1] : tensor<2x16384x8xf32> to tensor<?x8xf32>
// CHECK: func.call @pair_level
// CHECK: tensor.insert_slice %{{.+}}[0, 0, 0] [1, 16, 8] [1, 1, 1] : tensor<16x8xf32> into tensor<2x16x8xf32>
// CHECK: tensor.insert_slice %{{.+}}[1, 0, 0] [1, 16, 8] [1, 1, 1] : tensor<16x8xf32> into tensor<2x16x8xf32>
// CHECK: %[[U:.+]] = tensor.insert_slice %{{.+}} into %[[T]][0, %{{.+}}, 0] [2, 16, 8] [1, 1, 1] : tensor<2x16x8xf32> into tensor<2x16384x8xf32>
// CHECK-NEXT: util.global.store %[[U]], @pair_table_rows
func.func @entry(%words: tensor<?xi64>, %left: tensor<?xi64>, %right: tensor<?xi64>, %E: tensor<50x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %root = arith.constant 0 : i64
  %h:2 = "janus.invoke"(%root, %words, %left, %right, %E, %b) {callee = @pair} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %h#1 : tensor<8xf32>
}
func.func private @pair(%node: i64, %words: tensor<?xi64>, %left: tensor<?xi64>, %right: tensor<?xi64>, %E: tensor<50x8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0 : i64
  %i = arith.index_cast %node : i64 to index
  %l = tensor.extract %left[%i] : tensor<?xi64>
  %is_leaf = arith.cmpi slt, %l, %zero : i64
  %r:2 = scf.if %is_leaf -> (tensor<8xf32>, tensor<8xf32>) {
    %w = tensor.extract %words[%i] : tensor<?xi64>
    %wi = arith.index_cast %w : i64 to index
    %row = tensor.extract_slice %E[%wi, 0] [1, 8] [1, 1] : tensor<50x8xf32> to tensor<8xf32>
    scf.yield %row, %row : tensor<8xf32>, tensor<8xf32>
  } else {
    %hl:2 = "janus.invoke"(%l, %words, %left, %right, %E, %b) {callee = @pair} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
    %rr = tensor.extract %right[%i] : tensor<?xi64>
    %hr:2 = "janus.invoke"(%rr, %words, %left, %right, %E, %b) {callee = @pair} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
    %e = tensor.empty() : tensor<8xf32>
    %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%hl#0, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %z = arith.addf %x, %y : f32
      linalg.yield %z : f32
    } -> tensor<8xf32>
    scf.yield %s, %hr#1 : tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// An RNTN-like node: V (2x4x8) collapsed to 8x8 times the node's vector x (8x1), i.e. V @ x.
// Over a batch of rows it is one GEMM: V keeps its (m, k) map, no per-row loop around a
// matvec. With V of at least weight-rows-first elements (1 here) the GEMM is V X^T with V's
// rows leading (V 8x8, rows ?x8, result 8x?): IREE's CPU backend tiles a GEMM whose leading
// dim is the chunk's few rows 3x slower. Its (m, rows) result is transposed back only after a
// util.optimization_barrier (without it IREE folds the transpose into the GEMM's output map:
// the slow form again).

// CHECK-DAG: #[[VMK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[XBK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[YMB:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func private @tensor_node_level
// CHECK: %[[INIT:.+]] = linalg.transpose ins(%{{.+}} : tensor<?x8xf32>) outs(%{{.+}} : tensor<8x?xf32>) permutation = [1, 0]
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[VMK]], #[[XBK]], #[[YMB]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<8x8xf32>, tensor<?x8xf32>) outs(%[[INIT]] : tensor<8x?xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[KEPT:.+]] = util.optimization_barrier %[[Y]] : tensor<8x?xf32>
// CHECK: %[[YT:.+]] = linalg.transpose ins(%[[KEPT]] : tensor<8x?xf32>) outs(%{{.+}} : tensor<?x8xf32>) permutation = [1, 0]
// CHECK: tensor.expand_shape %[[YT]] {{\[\[}}0], [1, 2]] output_shape [%{{.+}}, 8, 1] : tensor<?x8xf32> into tensor<?x8x1xf32>
// The guards are checked on every node by a copy of the level function without the barrier,
// so that iree-compile drops the GEMM whose rows that call does not use.
// CHECK-LABEL: func.func private @tensor_node_checks
// CHECK-NOT: util.optimization_barrier
// CHECK: linalg.generic {indexing_maps = [#[[VMK]], #[[XBK]], #[[YMB]]]
// CHECK-NOT: util.optimization_barrier
// CHECK-LABEL: func.func private @tensor_node_table
// CHECK: call @tensor_node_checks(
// CHECK: "janus.guard"(%{{.+}}) {id = 0 : i64, kind = "raise", source = "word in range"}
// CHECK: func.call @tensor_node_level({{.+}}, %c16, %{{.+}})
// CHECK: func.call @tensor_node_level({{.+}}, %c4, %{{.+}})

// Below weight-rows-first (default 1048576 elements) the GEMM is X V^T, the rows leading, with
// no barrier, and the guards are checked by the level function itself.
// SMALLW: func.func private @pair_table
// SMALLW-DAG: #[[VMK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// SMALLW-DAG: #[[XBK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// SMALLW-DAG: #[[YBM:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// SMALLW-LABEL: func.func private @tensor_node_level
// SMALLW: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[VMK]], #[[XBK]], #[[YBM]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<8x8xf32>, tensor<?x8xf32>) outs(%{{.+}} : tensor<?x8xf32>)
// SMALLW: tensor.expand_shape %[[Y]] {{\[\[}}0], [1, 2]] output_shape [%{{.+}}, 8, 1] : tensor<?x8xf32> into tensor<?x8x1xf32>
// SMALLW-NOT: util.optimization_barrier
// SMALLW-NOT: @tensor_node_checks
// SMALLW-LABEL: func.func private @tensor_node_table
// SMALLW: call @tensor_node_level({{.+}}, %c0,
func.func @entry(%words: tensor<?xi64>, %left: tensor<?xi64>, %right: tensor<?xi64>, %E: tensor<50x4xf32>, %V: tensor<2x4x8xf32>) -> tensor<4xf32> {
  %root = arith.constant 0 : i64
  %h = "janus.invoke"(%root, %words, %left, %right, %E, %V) {callee = @tensor_node} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x4xf32>, tensor<2x4x8xf32>) -> tensor<4xf32>
  return %h : tensor<4xf32>
}
func.func private @tensor_node(%node: i64, %words: tensor<?xi64>, %left: tensor<?xi64>, %right: tensor<?xi64>, %E: tensor<50x4xf32>, %V: tensor<2x4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0 : i64
  %fzero = arith.constant 0.0 : f32
  %i = arith.index_cast %node : i64 to index
  %l = tensor.extract %left[%i] : tensor<?xi64>
  %is_leaf = arith.cmpi slt, %l, %zero : i64
  %r = scf.if %is_leaf -> (tensor<4xf32>) {
    %w = tensor.extract %words[%i] : tensor<?xi64>
    %ok = arith.cmpi sge, %w, %zero : i64
    "janus.guard"(%ok) {id = 0 : i64, kind = "raise", source = "word in range"} : (i1) -> ()
    %wi = arith.index_cast %w : i64 to index
    %row = tensor.extract_slice %E[%wi, 0] [1, 4] [1, 1] : tensor<50x4xf32> to tensor<4xf32>
    scf.yield %row : tensor<4xf32>
  } else {
    %hl = "janus.invoke"(%l, %words, %left, %right, %E, %V) {callee = @tensor_node} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x4xf32>, tensor<2x4x8xf32>) -> tensor<4xf32>
    %rr = tensor.extract %right[%i] : tensor<?xi64>
    %hr = "janus.invoke"(%rr, %words, %left, %right, %E, %V) {callee = @tensor_node} : (i64, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<50x4xf32>, tensor<2x4x8xf32>) -> tensor<4xf32>
    %x = tensor.concat dim(0) %hl, %hr : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    %x2 = tensor.expand_shape %x [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %Vc = tensor.collapse_shape %V [[0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
    %e = tensor.empty() : tensor<8x1xf32>
    %z = linalg.fill ins(%fzero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
    %y = linalg.matmul ins(%Vc, %x2 : tensor<8x8xf32>, tensor<8x1xf32>) outs(%z : tensor<8x1xf32>) -> tensor<8x1xf32>
    %y1 = tensor.collapse_shape %y [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %y2 = tensor.extract_slice %y1[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    scf.yield %y2 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
