"""Lists a loop in the graph appends to: one array per iteration, stacked.

``outputs = []`` then ``outputs.append(h)`` in every iteration of a ``for`` whose trip
count is a graph value (``range(T)`` with ``T`` a ``?`` dim) is a list whose length the
graph cannot know. Unrolling it needs one version per length; instead the body inserts
its item into a buffer the ``scf.for`` carries (``tensor<?x...>``, one row per
iteration), and after the loop the list is that buffer as a ``relax.SymList`` (``for``
over it, ``len()``, ``np.stack``). Taken only where nothing else can tell: the list is
empty before the loop, held by one local of the loop's frame and by nothing else, each
iteration appends exactly one array of one type, and the body updates no array in place
(an item could be the array it updates: Python's list would hold it many times, changed).
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

from janus.frontend.relax import SymList
from janus.frontend.trace.carry import Marker, Path, assign, at, describe, flatten, renamed
from janus.frontend.values import NotConvertible, Tensor, Weak

if TYPE_CHECKING:
    from janus.frontend.trace.frame import Frame
    from janus.frontend.trace.interpreter import Tracer

_LIST = "list"


class Stacking:
    """The appended lists of one ``scf.for`` (``lower``, ``upper``, ``step``: its ``index``
    bounds; ``iv`` its induction variable; ``symbol`` the ``?`` dim its trip count equals, when known)."""

    def __init__(self, tracer: "Tracer", frame: "Frame", bounds: tuple[str, str, str], iv: str,
                 symbol: str | None, runs_once: Any) -> None:
        self.tracer, self.frame, self.bounds, self.iv = tracer, frame, bounds, iv
        self.symbol, self.runs_once = symbol, runs_once
        self.found: dict[Path, Tensor] = {}  # path -> an item of the first trace (its type)
        self.buffers: list[tuple[Path, Tensor, Tensor]] = []  # path, placeholder, initial value

    @staticmethod
    def take(body_root: dict, before: dict[Path, Any]) -> dict[Path, Any]:
        """Pop the item each list the body grew by one got: path -> item."""
        after = flatten(body_root)
        grown: dict[Path, Any] = {}
        for path, marker in before.items():
            if isinstance(marker, Marker) and marker.kind == _LIST and after.get(path) == Marker(_LIST, marker.size + 1):
                grown[path] = at(body_root, path).pop()
        return grown

    def discover(self, grown: dict[Path, Any], outer_root: dict, before: dict[Path, Any]) -> None:
        """Check the first trace's appended lists (NotConvertible when one cannot be stacked)."""
        for path, item in grown.items():
            where = describe(path)
            if not isinstance(item, Tensor) or isinstance(item, Weak):
                raise NotConvertible(f"the loop body appends a {type(item).__name__} to {where}, not an array")
            if before[path].size:
                raise NotConvertible(f"the loop body appends to {where}, which holds items from before the loop")
            if len(path) != 2 or path[0] != "locals" or not self._held_once(at(outer_root, path)):
                raise NotConvertible(f"the loop body appends to {where}, which something else holds too")
        self.found = grown

    def _held_once(self, items: list) -> bool:
        """Whether the loop frame's locals hold ``items`` under one name, and nothing else does."""
        local, key = self.frame.locals, id(items)  # (no comprehension over ``items``: its cell would hold it)
        return gc.get_referrers(items) == [local] and [id(v) for v in local.values()].count(key) == 1

    def open(self) -> None:
        """Before the second trace, in the loop's enclosing lines: a buffer per list, its
        rows the loop's trip count (guarded to be at least 1: ``np.stack`` of an empty
        list raises in Python)."""
        if not self.found:
            return
        em = self.tracer.em
        self.runs_once()
        for path, item in self.found.items():
            if any(isinstance(d, str) and d not in em.dims for d in item.shape):
                raise NotConvertible(f"the items appended to {describe(path)} have a ? dim the loop makes")
        rows = self._rows()
        for path, item in self.found.items():
            initial = em.empty((rows, *item.shape), item.dtype)
            self.buffers.append((path, renamed(initial, em.argument(initial.type)), initial))

    def _rows(self) -> str:
        """The ``?`` dim of the trip count: the loop's own symbol, or a new one bound to
        ``ceil((upper - lower) / step)``."""
        em = self.tracer.em
        if self.symbol is not None and self.symbol in em.dims:
            return self.symbol
        lower, upper, step = self.bounds
        b = em.scalars()
        span = b.op("arith.subi", [b.op("arith.addi", [upper, step], "index"), lower], "index")
        trips = b.op("arith.divui", [b.op("arith.subi", [span, em.index_constant(1)], "index"), step], "index")
        symbol = "trips" + em.fresh().lstrip("%")
        em.dims[symbol] = trips
        return symbol

    def insert(self, grown: dict[Path, Any]) -> list[Tensor]:
        """In the body: each item written at the iteration's row; the buffers to yield."""
        if grown.keys() != self.found.keys() or any(
                not isinstance(grown[p], Tensor) or grown[p].type != self.found[p].type for p in grown):
            raise NotConvertible("the lists a loop body appends to differ between its two traces")
        em = self.tracer.em
        lower, _, step = self.bounds
        b = em.scalars()
        row = b.op("arith.divui", [b.op("arith.subi", [self.iv, lower], "index"), step], "index")
        yields = []
        for path, placeholder, _ in self.buffers:
            item = grown[path]
            yields.append(em.insert_slice(item, placeholder, [row, *[0] * item.ndim],
                                          [1, *(em.size(d) for d in item.shape)], [1] * (item.ndim + 1)))
        return yields

    @property
    def carried(self) -> list[tuple[Tensor, Tensor]]:
        return [(placeholder, initial) for _, placeholder, initial in self.buffers]

    def commit(self, root: dict, results: str, first: int) -> None:
        """Each list's local bound to its buffer (result ``first`` on) as a ``SymList``."""
        for k, (path, _, initial) in enumerate(self.buffers, first):
            assign(root, path, SymList(renamed(initial, f"{results}#{k}")))
