"""Recursive functions: ``janus.invoke``, trees as index arrays, structured results."""
