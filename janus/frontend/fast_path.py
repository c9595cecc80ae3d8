"""The steady-state entry check of ``janus.jit``: flat per-argument checks for one version.

``signature.key_and_leaves`` walks the arguments, builds the whole cache key (nested
tuples) and hashes it for the version lookup: a few microseconds per call. Most calls hit
the version the previous call ran, and most keys are flat (top-level arrays, static
scalars, relaxed ints, heap objects), so ``JitFunction`` keeps a ``FastEntry`` for the last version hit
and tries it first. A ``FastEntry`` accepts a call exactly when ``key_and_leaves`` (under
the same relaxed dims) would give that version's key, and returns the same leaves; it is
no cache of results and skips no guard: heap checks and globals still run per call.
Other keys (lists, trees, stacked lists) have no fast entry and take the full walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

import numpy as np

from janus.frontend.heap.rules import is_heap_object
from janus.frontend.signature import relaxed_int
from janus.frontend.recursion.trees import is_tree

#: per-argument check kinds
ARRAY, STATIC, SCALAR, OBJECT = range(4)


@dataclass(frozen=True, slots=True)
class FastEntry:
    """Flat entry checks equivalent to one version's key under ``dynamic``."""

    version: Any = field(repr=False)  # jit.Version (not imported: jit imports this module)
    dynamic: frozenset
    #: per argument: (kind, exact type, dtype and shape (array) | value (static) | None)
    #: (a relaxed int is a SCALAR: a Python int leaf, any value in ``relaxed_int`` range)
    checks: tuple[tuple[int, type, Any], ...]
    #: whether any array dim is relaxed (a symbol): sizes must then be checked jointly
    symbolic: bool

    def match(self, args: Sequence[Any]) -> list[np.ndarray] | None:
        """The graph leaves of ``args`` when they have this entry's key, else None."""
        if len(args) != len(self.checks):
            return None
        leaves: list[np.ndarray] = []
        sizes: dict[str, int] | None = {} if self.symbolic else None
        for value, (kind, typ, expected) in zip(args, self.checks):
            if type(value) is not typ:
                return None
            if kind == ARRAY:
                dtype, shape = expected
                if value.dtype != dtype or not _shape_matches(value.shape, shape, sizes):
                    return None
                leaves.append(value if typ is np.ndarray else np.asarray(value))
            elif kind == STATIC:
                if value is not expected and value != expected:  # tuple equality, as the key compares
                    return None
            elif kind == SCALAR:
                if not relaxed_int(value):
                    return None
                leaves.append(value)
            elif not is_heap_object(value) or is_tree(value):
                return None
        if sizes is not None and len(set(sizes.values())) != len(sizes):
            return None  # relaxed dims of equal size share a symbol: a different key
        return leaves


def _shape_matches(shape: tuple[int, ...], expected: tuple, sizes: dict[str, int] | None) -> bool:
    if sizes is None:
        return shape == expected
    if len(shape) != len(expected):
        return False
    for n, e in zip(shape, expected):
        if type(e) is str:
            if sizes.setdefault(e, n) != n:
                return False
        elif n != e:
            return False
    return True


def fast_entry(version: Any, key: Hashable, dynamic: frozenset) -> FastEntry | None:
    """The flat checks for ``version`` (whose key is ``key``) under ``dynamic``; None when
    the key is not flat. A top-level ``("scalar", "int")`` node means its position is a
    relaxed int in ``dynamic``: the same walk gives a static node only for ints out of
    range, which a static check (equal value) keeps apart."""
    checks: list[tuple[int, type, Any]] = []
    symbolic = False
    for node in key:  # type: ignore[attr-defined]
        if node[0] == "array":
            typ = np.ndarray if node[1] == "ndarray" else getattr(np, node[1], None)
            if getattr(typ, "__name__", None) != node[1]:  # an alias names another type
                return None
            checks.append((ARRAY, typ, (np.dtype(node[2]), node[3])))
            symbolic = symbolic or any(type(d) is str for d in node[3])
        elif node[0] == "static":
            checks.append((STATIC, _STATIC_TYPES[node[1]], node[2]))
        elif node == ("scalar", "int"):
            checks.append((SCALAR, int, None))
        elif node[0] == "object":
            checks.append((OBJECT, node[1], None))
        else:
            return None
    return FastEntry(version, dynamic, tuple(checks), symbolic)


_STATIC_TYPES = {t.__name__: t for t in (bool, int, float, str, type(None))}
