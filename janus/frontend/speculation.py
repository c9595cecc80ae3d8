"""Speculation switches of ``janus.jit``: which speculative optimizations a graph may use.

JANUS's ablation (its Figure 7) adds them one at a time on top of a graph that makes no
assumption beyond the entry types: control-flow speculation (branches pruned to the
profiled direction behind a guard; loops unrolled: fixed-count loops up to
``loops.UNROLL_LIMIT`` items, ``while`` loops to their profiled trip count behind guards),
then specialization (exact shapes and Python int values in the entry signature). Off:

- ``speculate=False``: a branch on a graph value is never pruned; it becomes ``scf.if``
  (or the function stays imperative when that is not possible);
- ``unroll=False``: loops become ``scf.for``/``scf.while`` whenever possible (an unroll
  limit of 0, no trip-count speculation);
- ``specialize=False``: from the first compile every array dim is ``?`` and every Python
  int argument a graph input (the relaxation ``JitFunction._relax`` otherwise applies only
  after a size or value changed); dims or ints a graph cannot take relaxed stay exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from janus.frontend.signature import key_and_leaves, relaxed_int

UNROLL_OFF = 0


@dataclass(frozen=True)
class Speculation:
    """The switches (all on by default: today's behaviour)."""

    speculate: bool = True
    unroll: bool = True
    specialize: bool = True

    def describe(self) -> str:
        off = [name for name in ("speculate", "unroll", "specialize") if not getattr(self, name)]
        return "full speculation" if not off else "off: " + ", ".join(off)


FULL = Speculation()


def _int_positions(value: Any, path: tuple[int, ...]) -> set[tuple[str, tuple[int, ...]]]:
    """``("int", path)`` of every relaxable Python int at or under ``path`` (lists and tuples)."""
    if type(value) is int and relaxed_int(value):
        return {("int", path)}
    if type(value) in (list, tuple):
        return set().union(*(_int_positions(v, path + (i,)) for i, v in enumerate(value)))
    return set()


def loop_counter_positions(args: tuple) -> frozenset:
    """The positions a resume function continuing inside a ``for`` loop (an iterator among
    its arguments) relaxes from its first compile: its int arguments, the loop counter
    among them, which takes a new value each iteration (a version per value otherwise)."""
    if not any(hasattr(type(a), "__next__") for a in args):
        return frozenset()
    return frozenset(("int", (i,)) for i, a in enumerate(args) if type(a) is int and relaxed_int(a))


def general_positions(args: tuple) -> frozenset:
    """All positions ``specialize=False`` relaxes for a call with ``args``: its ints, then
    every dim of every array leaf (leaf indices count the int leaves, as the key does)."""
    ints = frozenset().union(*(_int_positions(a, (i,)) for i, a in enumerate(args)))
    _, leaves = key_and_leaves(args, ints)
    return ints | {(i, d) for i, leaf in enumerate(leaves) for d in range(np.ndim(leaf))}
