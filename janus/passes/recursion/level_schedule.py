"""The level schedule of a wavefront run over trees: which table row each node fills, and when.

Wavefront execution (issue #15; the module form is in docs/lowering.md, "Wavefront
execution") keeps one row per node in a table and fills it level by level: the leaves
first, then the inner nodes by depth, deepest first, each level one batch of independent
rows. This module computes that schedule on the host from the arrays janus's linearizer
gives a list of trees: child ids numbered breadth-first from all roots at once (the roots
are rows ``0 .. roots-1``, -1 where a child is missing), so rows are sorted by depth and the
children of one depth are exactly the next depth. Python loops once per depth, NumPy does
every per-node step: for one tree of 16-48 leaves about 20 µs, for 25 such trees about 3 µs
per tree (walking the tree objects and sorting by height in Python took 31-38 µs per tree).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LevelSchedule:
    """Table rows: ``len(leaves)`` leaf rows, then the levels, level ``i`` being rows
    ``starts[i] .. starts[i+1]`` (padded to a multiple of ``pad``; a padding row's children
    are row 0, and nothing reads it)."""

    #: breadth-first ids of the leaves, in table-row order (rows 0, 1, ...)
    leaves: np.ndarray
    #: the two children's table rows of table row ``len(leaves) + i``; one spare row at the
    #: end, so a static chunk never reads past it and the array is never empty
    kids: np.ndarray
    #: first table row of each level, then the end of the table
    starts: np.ndarray
    #: the table row of every node (breadth-first id -> row); the roots' rows are ``rows[:roots]``
    rows: np.ndarray

    @property
    def levels(self) -> int:
        return len(self.starts) - 1


def level_schedule(left: np.ndarray, right: np.ndarray, roots: int, pad: int = 1) -> LevelSchedule:
    """The schedule of the binary trees ``left``/``right`` (breadth-first child ids, -1 on
    leaves; a node has both children or neither), each level padded to a multiple of ``pad``."""
    inner = left >= 0
    upto = np.cumsum(inner)  # inner rows up to and including each row
    before = [0, *upto.tolist()]  # inner rows before each row
    bounds = [0, roots]  # depth d is rows bounds[d] .. bounds[d + 1]
    while bounds[-1] < len(left):
        bounds.append(roots + 2 * before[bounds[-1]])
    leaf_count = len(left) - before[-1]
    starts, offsets = [leaf_count], []  # offsets: a depth's table row minus inner rank
    for d in range(len(bounds) - 2, -1, -1):
        count = before[bounds[d + 1]] - before[bounds[d]]
        offsets.append(starts[-1] - before[bounds[d]])
        if count:
            starts.append(starts[-1] + -(-count // pad) * pad)
    rank = upto - inner  # inner rows before each row; for a leaf, i - rank is its leaf rank
    ids = np.arange(len(left))
    rows = np.where(inner, np.repeat(offsets[::-1], np.diff(bounds)) + rank, ids - rank)
    kids = np.zeros((starts[-1] - leaf_count + 1, 2), np.int64)
    at = rows[inner] - leaf_count
    kids[at, 0] = rows[left[inner]]
    kids[at, 1] = rows[right[inner]]
    return LevelSchedule(ids[~inner], kids, np.array(starts, np.int64), rows)
