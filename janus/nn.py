"""``janus.nn``: deep-learning ops that run as NumPy and lower to MLIR when traced.

Called from plain Python each is its NumPy implementation (``janus.frontend.nn_numpy``),
so imperative code using them is ordinary NumPy; under ``janus.jit`` each is one op-table
entry (``janus.frontend.nn_ops``) lowered to linalg; under ``janus.grad`` each is one tape
node with its own VJP. Layouts: NCHW inputs, FCHW filters. ``cross_entropy(logits,
labels)`` takes (N, C) logits and (N,) int class indices and returns the mean over the
batch; ``embedding(table, ids)`` returns ``table[ids]``; out-of-range labels or ids raise
``IndexError`` (negative ones are not wrapped).
"""

from janus.frontend.nn_ops import FUNCTIONS

relu = FUNCTIONS["relu"]
sigmoid = FUNCTIONS["sigmoid"]
softmax = FUNCTIONS["softmax"]
log_softmax = FUNCTIONS["log_softmax"]
cross_entropy = FUNCTIONS["cross_entropy"]
embedding = FUNCTIONS["embedding"]
conv2d = FUNCTIONS["conv2d"]
max_pool2d = FUNCTIONS["max_pool2d"]

__all__ = ["relu", "sigmoid", "softmax", "log_softmax", "cross_entropy", "embedding", "conv2d", "max_pool2d"]
