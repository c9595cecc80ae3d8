"""Passes that turn recursion into what IREE accepts: inlining, explicit stacks, dispatches."""

from janus.passes.recursion import (  # noqa: F401  (registers the passes)
    batch_tree_recursion,
    eliminate_recursion,
    host_index_arrays,
    inline_invokes,
    recursion_to_dispatch,
)
