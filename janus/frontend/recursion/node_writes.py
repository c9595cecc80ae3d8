"""Node attributes the program writes (``node.h = h``): per-node arrays, committed after the call.

A write to an attribute of a tree node becomes an update of a *column*: an array over the
rows of the node's class (``(rows, *shape)``, the written array's dtype and static shape)
and a mask of the rows written in this call. Reads of that attribute see the column (``trees``; a
read of a row not written, where the attribute did not exist before the call, is guarded:
Python raises ``AttributeError``). The columns are state of the ``SymTree`` and the entry
function returns them; after a successful call ``commit`` stores each written row on its
node object. A guard failure commits nothing (all-or-nothing, as heap writes).

Writes stand in the entry function's own body only (speculated branches included). Two
ways further were built and measured wrong on IREE 3.13, so both are refused: columns
joined by an ``scf.if`` (each of the two ``?``-row results read the other's buffer), and
columns threaded through a recursive function as extra parameters and results (the
explicit-stack machine restored wrong values after a nested call when the frame saved
only scalars). A recursive call on a tree with columns is refused (``Recursion.invoke``).

A column exists from the start of the trace: a write to an attribute without one raises
``Widen``, and ``generate`` traces again with that column made at entry for every tree
argument of that kind (from the attribute's stacked arrays when every node already holds
one of that dtype and shape, else zeros).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from janus.frontend.recursion.trees import I64, SymNode, SymTree, TreeKind, node_row, objects
from janus.frontend.values import NotConvertible, Tensor, Weak

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer

#: (class index, attribute name)
Key = tuple[int, str]


@dataclass(frozen=True)
class ColumnSpec:
    """A written attribute's column: its key, element dtype and per-node shape; ``guarded``
    when the attribute did not exist on the nodes before the call."""

    key: Key
    dtype: str
    shape: tuple[int, ...]
    guarded: bool


@dataclass
class Written:
    spec: ColumnSpec
    column: Tensor  # (rows, *shape)
    mask: Tensor  # (rows,) int64: 1 where written in this call, 2 where set before it, else 0


class Widen(Exception):
    """A write to an attribute that has no column yet: trace again with one."""

    def __init__(self, kind: TreeKind, key: Key, dtype: np.dtype, shape: tuple[int, ...]) -> None:
        super().__init__(f"column {key} of {kind.describe()}")
        self.kind, self.key, self.dtype, self.shape = kind, key, dtype, shape


@dataclass
class TreeState:
    """The tracer's trees with columns, where writes may stand, and what was stored."""

    #: ids of the emitter line lists a write may go to: the entry function's body, not a
    #: branch side or loop body (an ``scf.if`` yielding two ``?``-row columns miscompiled:
    #: each result read the other's buffer)
    regions: list[int] = field(default_factory=list)
    #: arrays that are node attributes, written or read (in Python the node's very object:
    #: updating one in place, storing it twice or returning it is refused)
    stored: list[Tensor] = field(default_factory=list)

    def writable(self, tracer: "Tracer") -> bool:
        return bool(self.regions) and self.regions[-1] == id(tracer.em.lines)


def write(tracer: "Tracer", node: SymNode, name: str, value: Any) -> None:
    """``node.name = value``."""
    tree, cls = node.tree, node.fields.cls.__qualname__
    if not isinstance(value, Tensor) or isinstance(value, Weak) or not value.shape \
            or any(isinstance(d, str) for d in value.shape):
        raise NotConvertible(f"{cls}.{name} = a {type(value).__name__}: only arrays of a static shape are written to tree nodes")
    state: TreeState = tracer.tree_state
    if tracer.em.provenance.get(value, value) is not None or any(value is s for s in state.stored):
        raise NotConvertible(f"{cls}.{name} = an array not made fresh by this call (an argument, a view, "
                             "or one stored already): Python would store that very object")
    written = tree.written.get((node.layout, name))
    if written is None:  # first: in a recursive function, the call on a tree with columns says why not
        raise Widen(tree.kind, (node.layout, name), value.dtype, value.shape)
    if not state.writable(tracer):
        raise NotConvertible(f"write to {cls}.{name} inside a data-dependent branch or a loop in the graph")
    if written.spec.dtype != value.dtype.name or written.spec.shape != value.shape:
        raise NotConvertible(f"{cls}.{name} written with arrays of different dtypes or shapes")
    em = tracer.em
    row = node_row(tracer, node, name)
    zeros = [em.index_constant(0) for _ in value.shape]
    column = em.insert_slice(value, written.column, [row, *zeros], [1, *value.shape], [1] * (1 + value.ndim))
    mask = em.insert_slice(em.literal(np.asarray(1, np.int64)), written.mask, [row], [1], [1])
    tree.written[written.spec.key] = Written(written.spec, column, mask)
    state.stored.append(value)


def rows_of(tree: SymTree, layout: int) -> int | str:
    """The row count of class ``layout`` of ``tree`` (a ``?`` symbol)."""
    rows = next((t.shape[0] for key, t in tree.arrays.items() if key[0] == layout), None)
    if rows is None:
        raise NotConvertible(f"{tree.kind.layouts[layout].cls.__qualname__} has no attributes to size a column by")
    return rows


def make(em: Any, tree: SymTree, wanted: dict[Key, tuple[np.dtype, tuple[int, ...]]]) -> None:
    """Columns for the attributes ``wanted`` of an entry tree: the attribute's stacked arrays
    when every node holds one of that dtype and shape, else zeros (reads guarded)."""
    for key, (dtype, shape) in sorted(wanted.items()):
        layout, name = key
        existing = tree.kind.layouts[layout].field(name)
        rows = rows_of(tree, layout)
        if existing is not None and not (existing.kind == "array" and existing.dtype == dtype.name and existing.shape == shape):
            raise NotConvertible(f"{tree.kind.layouts[layout].cls.__qualname__}.{name} is written with "
                                 f"{dtype}{list(shape)} arrays but holds other values")
        spec = ColumnSpec(key, dtype.name, shape, existing is None or existing.partial)
        column = tree.arrays[(layout, name, "value")] if existing is not None else em.filled((rows, *shape), dtype, 0)
        mask = em.filled((rows,), I64, 0)
        if existing is not None and existing.partial:  # 2 where the attribute was set by an earlier call
            mask = em.elementwise([tree.arrays[(layout, name, "exists")]], (rows,), I64,
                                  lambda body, x: body.op("arith.muli", [x[0], body.constant(2, "i64")], "i64"))
        tree.written[key] = Written(spec, column, mask)


@dataclass(frozen=True)
class TreeWrite:
    """A column an entry function returns: the tree argument at ``path`` (argument index,
    then list/tuple indices), the attribute, and the results holding column and mask."""

    path: tuple[int, ...]
    key: Key
    column: int
    mask: int


def commit(writes: tuple[TreeWrite, ...], positional: tuple, results: list[np.ndarray]) -> None:
    """Store each written row on its node (after the call succeeded)."""
    tables: dict[tuple[int, ...], list[list[Any]]] = {}
    for w in writes:
        if w.path not in tables:
            root: Any = positional
            for i in w.path:
                root = root[i]
            tables[w.path] = objects(root)
        nodes, column = tables[w.path][w.key[0]], results[w.column]
        for row in np.flatnonzero(results[w.mask] == 1):
            setattr(nodes[row], w.key[1], column[row])
