"""Passes over janus heap ops: the heap model and its externalization."""

from janus.passes.heap import externalize_heap  # noqa: F401  (registers the pass)
