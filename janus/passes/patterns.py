"""Helpers for passes written as rewrite patterns (``iree.compiler.rewrite``).

A pattern is ``fn(op, rewriter) -> bool``: it returns True when it rewrote ``op`` and
False when ``op`` did not match. (The bindings want the opposite convention: a falsy
return means success. The adapter hides that.)
"""

from __future__ import annotations

from typing import Callable, Mapping

from iree.compiler import rewrite

from janus.ir import ir

Pattern = Callable[[ir.Operation, rewrite.PatternRewriter], bool]


def apply_patterns(op: ir.Operation, patterns: Mapping[str, Pattern]) -> None:
    """Apply ``patterns`` (keyed by root op name) greedily to ``op`` and fold."""
    patterns_set = rewrite.RewritePatternSet(op.context)
    for root, fn in patterns.items():
        patterns_set.add(root, lambda o, rw, fn=fn: not fn(o.operation, rw))
    rewrite.apply_patterns_and_fold_greedily(op, patterns_set.freeze())
