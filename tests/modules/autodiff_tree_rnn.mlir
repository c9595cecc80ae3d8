// tests/modules/tree_rnn.mlir in float64 with hidden size 4, marked for janus-autodiff:
// gradients of the root state w.r.t. the embedding, W and b. The backward function is
// recursive at the same two call positions as the forward one.
func.func @tree_rnn(%idx: index, %children: tensor<?x2xi64>, %is_leaf: tensor<?xi64>, %word: tensor<?xi64>,
                    %emb: tensor<32x4xf64>, %w: tensor<8x4xf64>, %b: tensor<1x4xf64>) -> tensor<1x4xf64> attributes {janus.grad = {argnums = [4, 5, 6]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %leaf_flag = tensor.extract %is_leaf[%idx] : tensor<?xi64>
  %leaf = arith.cmpi ne, %leaf_flag, %zero : i64
  %h = scf.if %leaf -> (tensor<1x4xf64>) {
    %word_id = tensor.extract %word[%idx] : tensor<?xi64>
    %row = arith.index_cast %word_id : i64 to index
    %e = tensor.extract_slice %emb[%row, 0] [1, 4] [1, 1] : tensor<32x4xf64> to tensor<1x4xf64>
    %t = math.tanh %e : tensor<1x4xf64>
    scf.yield %t : tensor<1x4xf64>
  } else {
    %left_id = tensor.extract %children[%idx, %c0] : tensor<?x2xi64>
    %right_id = tensor.extract %children[%idx, %c1] : tensor<?x2xi64>
    %left = arith.index_cast %left_id : i64 to index
    %right = arith.index_cast %right_id : i64 to index
    %hl = "janus.invoke"(%left, %children, %is_leaf, %word, %emb, %w, %b) {callee = @tree_rnn}
        : (index, tensor<?x2xi64>, tensor<?xi64>, tensor<?xi64>, tensor<32x4xf64>, tensor<8x4xf64>, tensor<1x4xf64>) -> tensor<1x4xf64>
    %hr = "janus.invoke"(%right, %children, %is_leaf, %word, %emb, %w, %b) {callee = @tree_rnn}
        : (index, tensor<?x2xi64>, tensor<?xi64>, tensor<?xi64>, tensor<32x4xf64>, tensor<8x4xf64>, tensor<1x4xf64>) -> tensor<1x4xf64>
    %cat = tensor.concat dim(1) %hl, %hr : (tensor<1x4xf64>, tensor<1x4xf64>) -> tensor<1x8xf64>
    %fzero = arith.constant 0.0 : f64
    %init = tensor.empty() : tensor<1x4xf64>
    %acc = linalg.fill ins(%fzero : f64) outs(%init : tensor<1x4xf64>) -> tensor<1x4xf64>
    %mm = linalg.matmul ins(%cat, %w : tensor<1x8xf64>, tensor<8x4xf64>) outs(%acc : tensor<1x4xf64>) -> tensor<1x4xf64>
    %pre = arith.addf %mm, %b : tensor<1x4xf64>
    %t = math.tanh %pre : tensor<1x4xf64>
    scf.yield %t : tensor<1x4xf64>
  }
  return %h : tensor<1x4xf64>
}
