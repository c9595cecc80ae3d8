// A TreeRNN cell over a binary tree encoded as index arrays (node ids are row numbers):
//   h(i) = tanh(emb[word[i]])                                   when is_leaf[i] != 0
//   h(i) = tanh(concat(h(children[i, 0]), h(children[i, 1])) @ W + b)  otherwise
// The tree arrays and the weights are passed unchanged to every recursive call.
func.func @tree_rnn(%idx: index, %children: tensor<?x2xi64>, %is_leaf: tensor<?xi64>, %word: tensor<?xi64>,
                    %emb: tensor<32x16xf32>, %w: tensor<32x16xf32>, %b: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %leaf_flag = tensor.extract %is_leaf[%idx] : tensor<?xi64>
  %leaf = arith.cmpi ne, %leaf_flag, %zero : i64
  %h = scf.if %leaf -> (tensor<1x16xf32>) {
    %word_id = tensor.extract %word[%idx] : tensor<?xi64>
    %row = arith.index_cast %word_id : i64 to index
    %e = tensor.extract_slice %emb[%row, 0] [1, 16] [1, 1] : tensor<32x16xf32> to tensor<1x16xf32>
    %t = math.tanh %e : tensor<1x16xf32>
    scf.yield %t : tensor<1x16xf32>
  } else {
    %left_id = tensor.extract %children[%idx, %c0] : tensor<?x2xi64>
    %right_id = tensor.extract %children[%idx, %c1] : tensor<?x2xi64>
    %left = arith.index_cast %left_id : i64 to index
    %right = arith.index_cast %right_id : i64 to index
    %hl = "janus.invoke"(%left, %children, %is_leaf, %word, %emb, %w, %b) {callee = @tree_rnn}
        : (index, tensor<?x2xi64>, tensor<?xi64>, tensor<?xi64>, tensor<32x16xf32>, tensor<32x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
    %hr = "janus.invoke"(%right, %children, %is_leaf, %word, %emb, %w, %b) {callee = @tree_rnn}
        : (index, tensor<?x2xi64>, tensor<?xi64>, tensor<?xi64>, tensor<32x16xf32>, tensor<32x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
    %cat = tensor.concat dim(1) %hl, %hr : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x32xf32>
    %fzero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<1x16xf32>
    %acc = linalg.fill ins(%fzero : f32) outs(%init : tensor<1x16xf32>) -> tensor<1x16xf32>
    %mm = linalg.matmul ins(%cat, %w : tensor<1x32xf32>, tensor<32x16xf32>) outs(%acc : tensor<1x16xf32>) -> tensor<1x16xf32>
    %pre = arith.addf %mm, %b : tensor<1x16xf32>
    %t = math.tanh %pre : tensor<1x16xf32>
    scf.yield %t : tensor<1x16xf32>
  }
  return %h : tensor<1x16xf32>
}
