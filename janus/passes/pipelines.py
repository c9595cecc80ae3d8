"""Named pipelines (usable from ``janus-opt`` like any pass)."""

from janus.passes.registry import register_pipeline

JANUS_TO_IREE = register_pipeline(
    "janus-to-iree",
    "Lower a janus module to upstream-only MLIR that iree-compile accepts.",
    [
        "janus-verify",
        "janus-externalize-heap",
        "janus-inline-invokes",
        "janus-eliminate-recursion",
        "janus-lower-guards",
        "inline",
        "canonicalize",
        "cse",
        "symbol-dce",
        "janus-check-iree-ready",
    ],
)
