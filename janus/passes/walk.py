"""Collecting the ops a pass rewrites before it changes any (rewriting while walking a block
would skip or revisit ops)."""

from __future__ import annotations

from typing import Callable

from janus.ir import ir


def collect(op: ir.Operation, wanted: Callable[[ir.Operation], bool]) -> list[ir.Operation]:
    """Every op nested in ``op`` for which ``wanted`` holds, in order (not looking inside those)."""
    found: list[ir.Operation] = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if wanted(inner):
                    found.append(inner)
                else:
                    found.extend(collect(inner, wanted))
    return found
