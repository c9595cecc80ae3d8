"""Named pipelines (usable from ``janus-opt`` like any pass)."""

from janus.passes.registry import register_pipeline

_FRONT = [
    "janus-verify",
    "janus-externalize-heap",
    "janus-batch-tree-recursion",
    "janus-inline-invokes",
    "janus-host-index-arrays",
    "janus-eliminate-recursion",
]
_BACK = ["janus-lower-guards", "inline", "canonicalize", "cse", "janus-scalar-operands-into-bodies", "janus-merge-matmul-sums", "janus-merge-shared-operand-matmuls", "janus-convolutions-from-windows", "janus-isolate-reductions-read-twice", "symbol-dce", "janus-check-iree-ready"]

JANUS_TO_IREE = register_pipeline(
    "janus-to-iree",
    "Lower a janus module to upstream-only MLIR that iree-compile accepts (any target).",
    _FRONT + _BACK,
)

JANUS_TO_IREE_CPU = register_pipeline(
    "janus-to-iree-cpu",
    "janus-to-iree for llvm-cpu: scalar recursion runs as native code in one dispatch.",
    # canonicalize merges the state machines' forwarding blocks first: each block left
    # is one trip around the dispatch's loop (fib(25): 2.7 ms before, 0.35 ms after)
    _FRONT + ["canonicalize", "janus-recursion-to-dispatch"] + _BACK,
)
