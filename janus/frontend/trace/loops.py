"""Loops in the graph: ``scf.for`` and ``scf.while`` with loop-carried graph values.

Symbolic execution unrolls a Python loop by itself when its iterations are known while
tracing. A loop becomes an ``scf`` op instead when they are not, or when there are many:

- ``for`` over a list relaxed to a stacked array (``relax.SymList``), over ``range()`` of a
  graph int (a relaxed int argument), over the rows of an array whose first dim is ``?``:
  ``scf.for`` (row ``i`` by ``tensor.extract_slice``);
- ``for`` over more than ``UNROLL_LIMIT`` known items (a range, an array's rows, a list of
  arrays of one type, stacked in the graph): ``scf.for`` when its body allows, else
  unrolled as before;
- ``while`` on a graph value (its bottom test is a backward conditional jump): when the
  profile saw one trip count k <= ``UNROLL_LIMIT``, k unrolled iterations, each decision
  under a ``trip_count`` guard; otherwise ``scf.while``. CPython 3.11 tests a ``while``
  at the top (an ordinary branch) and at the bottom, so the body has run once when the
  bottom test is reached: the remaining iterations are an ``scf.if`` on that test around
  a do-while (``scf.while`` with the body in its before-region).

The body is traced once with the graph values it changes as region block arguments
(``carry``; a list it appends one array to per iteration of a ``for`` over a ``?`` dim, a
stacked buffer: ``stacking``); the locals it binds first are unbound after the loop (Python keeps the last
value: a later read is NotConvertible, never a wrong value); other Python state it changes,
``break`` and ``return`` are NotConvertible.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from janus.frontend.ops import mutation, op_table
from janus.frontend.ops import registry
from janus.frontend.recursion import trees
from janus.frontend.trace.branches import SymIter
from janus.frontend.trace.bytecode import CONDITIONAL_JUMPS, EXITS, JUMPS, Instr
from janus.frontend.trace.carry import Path, Walker, assign, changes, flatten, promotable, renamed
from janus.frontend.relax import SymList
from janus.frontend.trace.stacking import Stacking
from janus.frontend.trace.scalars import absolute, from_index, to_index, to_python, weak_literal
from janus.frontend.values import Length, NotConvertible, Tensor, Weak

if TYPE_CHECKING:
    from janus.frontend.trace.frame import Frame
    from janus.frontend.trace.interpreter import Tracer

#: loops over more known items than this become scf.for, trip counts above it scf.while
UNROLL_LIMIT = 64
#: element types a Python scalar (weakly typed) and a 64-bit NumPy scalar meet with different
#: results (``float32 + 0.0`` is float32, ``float32 + float64(0)`` float64)
NARROW_TYPES = re.compile(r"\b(bf16|f16|f32|u?i8|u?i16|u?i32|ui64)\b")


def unroll_limit(tracer: "Tracer") -> int:
    """``UNROLL_LIMIT``, or 0 when the ``unroll`` switch is off (see ``speculation``)."""
    return UNROLL_LIMIT if tracer.speculation.unroll else 0


NOT_HANDLED = object()


@dataclass
class LoopState:
    """Per-tracer loop bookkeeping."""

    #: back edges (code, offset) whose body is being traced: reaching one again is a break
    active: set = field(default_factory=set)
    #: speculated while loops being unrolled: (id(frame), offset) -> (frame, iterations so far)
    iterations: dict = field(default_factory=dict)
    #: loop bodies being traced (``for`` and ``while``): a static array written there is
    #: written once per iteration at run time, never once at trace time
    bodies: int = 0
    #: loop-carried placeholders of fresh arrays the body may update in place (``out[t] = v``):
    #: id(placeholder) -> the body being traced
    fresh: dict = field(default_factory=dict)


@dataclass(frozen=True)
class LoopBody:
    """Where a body's in-place update of a carried fresh array is substituted: the body's copy
    of the frame, the frames it calls (``tracer.frames`` from ``depth``), and its own lines
    (an update in a nested region or branch side is refused)."""

    frame: "Frame"
    depth: int
    lines: list


@dataclass(frozen=True)
class SymRange:
    """``range()`` with a graph int among its arguments (a step must be a static int > 0);
    ``backwards``: ``reversed()`` of it (step 1), the same ``scf.for`` with mirrored items."""

    start: Any
    stop: Any
    step: int
    backwards: bool = False

    def __reversed__(self) -> "SymRange":
        if self.step != 1:
            raise NotConvertible("reversed() of a range over a graph int with a step other than 1")
        return dataclasses.replace(self, backwards=not self.backwards)

    def bounds(self, em: Any) -> tuple[str, str, str, Callable[[str], Any]]:
        """(lower, upper, step) ``index`` values and the item of iteration ``%iv``."""
        start, stop = to_index(em, self.start), to_index(em, self.stop)
        if not self.backwards:
            return start, stop, em.index_constant(self.step), lambda iv: from_index(em, iv)

        def mirrored(iv: str) -> Weak:  # start + stop - 1 - iv
            b = em.scalars()
            last = b.op("arith.subi", [b.op("arith.addi", [start, stop], "index"), em.index_constant(1)], "index")
            return from_index(em, em.scalars().op("arith.subi", [last, iv], "index"))

        return start, stop, em.index_constant(1), mirrored


class GraphIter:
    """What ``GET_ITER`` leaves for a loop that may become ``scf.for``.

    ``bounds`` emits (lower, upper, step) as ``index`` values and a function giving the
    item of iteration ``%iv``; ``fallback`` gives the items to unroll over when the body
    cannot be a region (None: no other way)."""

    def __init__(self, bounds: Callable[[], tuple[str, str, str, Callable[[str], Any]]],
                 fallback: Callable[[], list] | None = None, symbol: str | None = None) -> None:
        self.bounds, self.fallback = bounds, fallback
        self.symbol = symbol  # the ``?`` dim the trip count equals, when known (``stacking``)


class BodyMarker:
    """Stands for the loop's iterator inside its traced body: a ``FOR_ITER`` on it is a
    jump out of the body from a data-dependent branch."""

    def __next__(self) -> Any:
        raise NotConvertible("break or continue under a data-dependent branch in a loop in the graph")


# ---- hooks called by the graph generator ----------------------------------------------------
def iterator(tracer: "Tracer", value: Any) -> GraphIter | None:
    """A ``GraphIter`` when a ``for`` over ``value`` becomes ``scf.for`` (or may), else None."""
    em = tracer.em
    if isinstance(value, SymList):
        return GraphIter(lambda: _rows(em, value.stacked), symbol=_symbol(value.stacked.shape[0]))
    if isinstance(value, trees.SymChildren):  # leaves' empty lists included; unrolled when all have one length
        return GraphIter(lambda: trees.children_loop(tracer, value),
                         (lambda: trees.children_items(tracer, value)) if value.field.arity else None)
    if isinstance(value, SymRange):
        counts = value.start == 0 and value.step == 1 and isinstance(value.stop, Length)
        return GraphIter(lambda: value.bounds(em), symbol=value.stop.symbol if counts else None)
    if isinstance(value, Tensor) and value.ndim and isinstance(value.shape[0], str):
        return GraphIter(lambda: _rows(em, value), symbol=value.shape[0])
    if isinstance(value, range) and len(value) > unroll_limit(tracer) and value.step > 0:
        return GraphIter(lambda: (em.index_constant(value.start), em.index_constant(value.stop),
                                  em.index_constant(value.step), lambda iv: from_index(em, iv)), lambda: list(value))
    if isinstance(value, Tensor) and value.ndim and value.static and value.shape[0] > unroll_limit(tracer):
        return GraphIter(lambda: _rows(em, value), lambda: tracer.iterate(value))
    if isinstance(value, (list, tuple)) and len(value) > unroll_limit(tracer) and _one_type(value):
        return GraphIter(lambda: _rows(em, registry.apply(em, registry.OPS["stack"], [list(value)], {})),
                         lambda: list(value))
    return None


def call(tracer: "Tracer", fn: Any, args: list, kwargs: dict) -> Any:
    """Calls on loop objects and Python scalars in the graph; ``NOT_HANDLED`` for the rest."""
    if fn is range and any(isinstance(a, Tensor) for a in args):
        return _sym_range(*args, **kwargs)
    if fn is len and args and isinstance(args[0], SymList):
        return _length(tracer, args[0].stacked)
    if fn is abs and len(args) == 1 and isinstance(args[0], Weak):
        return absolute(tracer.em, args[0])
    receiver = getattr(fn, "receiver", None)  # a bound array method
    if (fn is int or fn is float) and len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
        return to_python(tracer, *tracer.call_site, fn, args[0])
    if isinstance(receiver, Tensor) and fn.name == "item" and not args and not kwargs:
        return to_python(tracer, *tracer.call_site, "item", receiver)
    if fn is np.stack and args and isinstance(args[0], SymList) and len(args) <= 2 and set(kwargs) <= {"axis"}:
        return _stack(tracer.em, args[0].stacked, args[1] if len(args) == 2 else kwargs.get("axis", 0))
    return NOT_HANDLED


def run_for(tracer: "Tracer", frame: "Frame", ins: Instr) -> int | None:
    """``FOR_ITER`` on a ``GraphIter``: the whole loop as ``scf.for``; the exit offset."""
    it = frame.stack[-1]
    saved = _snapshot(tracer)
    constants = tracer.graph_constants
    try:
        lower, upper, step, item = it.bounds()
        iv = tracer.em.argument("index")

        def enter(body: "Frame") -> None:
            body.stack.append(marker)
            body.stack.append(item(iv))

        def leave(body: "Frame") -> None:
            if not body.stack or body.stack[-1] is not marker:
                raise NotConvertible("break or return inside a loop in the graph")
            body.stack.pop()

        def runs_once() -> None:
            b = tracer.em.scalars()
            tracer.guard(b.cmp("index", "slt", lower, upper), "trip_count", "the loop runs at least once")

        marker = BodyMarker()
        # a list appended to per iteration is stacked only where unrolling is no option
        stacking = Stacking(tracer, frame, (lower, upper, step), iv, it.symbol, runs_once) if it.fallback is None else None
        loop = _Loop(tracer, frame, frame.bc.next_offset(ins.offset), ins.offset, len(frame.stack) - 1, enter, leave,
                     runs_once, stacking)
        carried, lines, yields = loop.trace()
        loop.commit(tracer.em.scf_for(iv, (lower, upper, step), carried, lines, yields))
    except NotConvertible:
        if tracer.graph_constants != constants:  # the body turned a local array into a graph value
            _restore(tracer, saved)
            return tracer.FOR_ITER(frame, ins)  # traced again, that array now carried by the loop
        if it.fallback is None:
            raise
        _restore(tracer, saved)
        frame.stack[-1] = SymIter(it.fallback())  # unrolled, as without a limit
        return tracer.FOR_ITER(frame, ins)
    frame.stack.pop()
    return ins.target


def back_edge(tracer: "Tracer", frame: "Frame", ins: Instr, value: Tensor) -> int | None:
    """The bottom test of a ``while`` loop on a graph value: speculated trip count or
    ``scf.while``; the next offset."""
    site = (frame.bc.code, ins.offset)
    state: LoopState = tracer.loops
    if site in state.active:
        raise NotConvertible("a second way out of a loop in the graph (break, or `and`/`or` in its condition)")
    if value.size != 1:
        raise NotConvertible(f"truth value of an array of shape {value.shape}")
    goes_on = "TRUE" in ins.opname  # the jump back is taken when the condition is true
    key = (id(frame), ins.offset)
    k = None if site in tracer.unspeculated or not tracer.speculation.unroll else tracer.profile.trip_count(site)
    if k is not None and k <= UNROLL_LIMIT:
        done = state.iterations.pop(key, (frame, 0))[1] + 1
        again = done < k
        condition = _goes_on(tracer, value, goes_on)
        source = frame.bc.source(ins.offset)
        gid = tracer.em.guard(condition if again else tracer.em.negate(condition), "trip_count", source)
        tracer.guards.append((gid, "trip_count", source))
        tracer.guard_sites[gid] = site
        if again:
            state.iterations[key] = (frame, done)
            return ins.target
        return None
    state.iterations.pop(key, None)
    first = _goes_on(tracer, value, goes_on)

    def leave(body: "Frame") -> str:
        condition = body.stack.pop() if body.stack else None
        if not isinstance(condition, Tensor) or condition.size != 1:
            raise NotConvertible("the condition of a loop in the graph is not a one-element array value")
        return _goes_on(tracer, condition, goes_on)

    state.active.add(site)
    try:
        loop = _Loop(tracer, frame, ins.target, ins.offset, len(frame.stack), lambda body: None, leave)
        carried, lines, yields = loop.trace()
    finally:
        state.active.discard(site)
    loop.commit(tracer.em.do_while(first, carried, lines, loop.condition, yields))
    return None


# ---- the body of one loop --------------------------------------------------------------------
class _Promote(NotConvertible):
    """The body changed NumPy arrays or Python scalars the trace made (``values``: path ->
    (value, whether the body made it a ``Weak``)) into graph values: traced again with them
    as graph constants."""

    def __init__(self, values: dict[Path, tuple[Any, bool]]) -> None:
        super().__init__("a loop body changes arrays made before it")
        self.values = values


class _Loop:
    """Traces a loop body from ``start`` to ``stop`` on a copy of ``frame``'s state."""

    def __init__(self, tracer: "Tracer", frame: "Frame", start: int, stop: int, depth: int,
                 enter: Callable[["Frame"], None], leave: Callable[["Frame"], Any],
                 runs_once: Callable[[], None] | None = None, stacking: Stacking | None = None) -> None:
        self.tracer, self.frame, self.start, self.stop = tracer, frame, start, stop
        self.stacking = stacking  # lists the body appends to, stacked (None: a change of a list is NotConvertible)
        self.in_place = True  # whether the body may update fresh arrays in place (not beside a stacked list)
        #: guards that the body runs at least once (None: the loop cannot say)
        self.runs_once = runs_once
        self.depth = depth  # stack entries below the loop's own (its iterator)
        self.enter, self.leave = enter, leave
        self.store_first = _stored_before_read(frame, start)
        self.body_locals: set[str] = set()
        self.condition: Any = None  # what ``leave`` returned (the while condition)
        self.paths: list[Path] = []  # where the carried values are
        self.carried: list[tuple[Tensor, Tensor]] = []

    def root(self, frame: "Frame") -> dict:
        return {"locals": frame.locals, "cells": frame.cells, "stack": frame.stack[: self.depth]}

    def trace(self) -> tuple[list[tuple[Tensor, Tensor]], list[str], list[Tensor]]:
        """(placeholder, initial value) per carried graph value, the body's lines, the
        values it yields. Traced twice: once to find what changes, once carrying only that."""
        saved = _snapshot(self.tracer)
        try:
            changed, *_ = self.attempt(lambda path: True, first=True)
            if self.stacking is not None and self.stacking.found and self.in_place:
                _restore(self.tracer, saved)
                self.in_place = False
                changed, *_ = self.attempt(lambda path: True, first=True)
        except _Promote as promote:  # arrays the trace made, changed by the body: graph constants
            _restore(self.tracer, saved)
            root = self.root(self.frame)
            for path, (value, weak) in promote.values.items():
                assign(root, path, self.constant(value, weak))
            try:
                traced = self.trace()
                strong = [value for value, weak in promote.values.values() if type(value) is not np.ndarray and not weak]
                if strong and NARROW_TYPES.search("\n".join(traced[1])):
                    raise NotConvertible("a loop body turns a Python scalar into a NumPy scalar and also computes "
                                         "in a narrower type (the first iteration would promote differently)")
                return traced
            except NotConvertible:
                for path, (value, _) in promote.values.items():  # as before for the caller's fallback
                    assign(root, path, value)
                raise
        _restore(self.tracer, saved)
        if self.stacking is not None:
            self.stacking.open()
        wanted = set(changed)
        again, carried, lines, yields = self.attempt(lambda path: path in wanted)
        stacked = len(self.stacking.buffers) if self.stacking is not None else 0
        if set(again) != wanted or len(carried) != len(again) + stacked:
            raise NotConvertible("the values a loop body changes depend on what it carries")
        self.paths, self.carried = again, carried
        return carried, lines, yields

    def constant(self, value: Any, weak: bool) -> Tensor:
        """``value`` (an array, or a Python scalar the body made a graph value) as a graph
        constant. A Python scalar the body makes a NumPy scalar (``total = 0.0`` then
        ``total += x[t]``) is one after the loop only if the body ran: guarded so."""
        em = self.tracer.em
        if type(value) is np.ndarray:
            return em.literal(value)
        if weak:
            return weak_literal(em, value)
        if self.runs_once is None:
            raise NotConvertible(f"a loop body turns a Python {type(value).__name__} into a NumPy scalar "
                                 "in a loop that may run no iteration")
        self.runs_once()
        return em.literal(np.asarray(value))

    def attempt(self, select: Callable[[Path], bool], first: bool = False
                ) -> tuple[list[Path], list, list[str], list[Tensor]]:
        tracer, frame = self.tracer, self.frame
        placeholders: dict[Path, Tensor] = {}

        def replace(path: Path, t: Tensor) -> Tensor | None:
            if path[:2] in (("locals", n) for n in self.store_first) or not select(path):
                return None
            placeholders[path] = renamed(t, tracer.em.argument(t.type))
            return placeholders[path]

        walker = Walker(replace)
        state = walker(self.root(frame), ())
        before = walker.leaves
        body = dataclasses.replace(frame, locals=state["locals"], cells=state["cells"], stack=state["stack"], kw_names=())
        outer, tracer.em.lines = tracer.em.lines, []
        fresh = mutation.loop_fresh(tracer, frame, walker.originals, placeholders) if self.in_place else []
        where = LoopBody(body, len(tracer.frames), tracer.em.lines)
        try:
            tracer.loops.fresh.update((id(p), where) for p in fresh)
            tracer.loops.bodies += 1
            self.enter(body)
            tracer.execute(body, self.start, self.stop)
            if body.result is not frame.result:
                raise NotConvertible("break or return inside a loop in the graph")
            self.condition = self.leave(body)
            stacked = self._stacked(body, before, first)
            lines = tracer.em.lines
        finally:
            tracer.loops.bodies -= 1
            tracer.em.lines = outer
            for key in [k for k, v in tracer.loops.fresh.items() if v is where]:
                del tracer.loops.fresh[key]
        after = flatten(self.root(body))
        self.body_locals = set(self.store_first) | (body.locals.keys() - frame.locals.keys())
        ignored = {(), ("locals",)} | {("locals", n) for n in self.body_locals}
        ignore = lambda p: p[:2] in ignored or p in ignored  # noqa: E731
        constants = promotable(before, after, ignore)
        if constants:
            raise _Promote({path: (before[path], isinstance(after[path], Weak)) for path in constants})
        changed = changes(before, after, ignore)
        carried = [(placeholders[p], walker.originals[p]) for p in changed if p in placeholders]
        if self.stacking is not None:
            carried += self.stacking.carried
        return changed, carried, lines, [after[p] for p in changed] + stacked

    def _stacked(self, body: "Frame", before: dict[Path, Any], first: bool) -> list[Tensor]:
        """The lists the body appended one item to: checked (first trace), or written into
        their buffers (second); the buffers to yield."""
        if self.stacking is None:
            return []
        grown = self.stacking.take(self.root(body), before)
        if first:
            self.stacking.discover(grown, self.root(self.frame), before)
            return []
        return self.stacking.insert(grown)

    def commit(self, results: str) -> None:
        """Bind the loop's results where the carried values were; unbind body locals."""
        root = self.root(self.frame)
        root["stack"] = self.frame.stack  # in place: the entries above depth are untouched
        for k, (path, (_, initial)) in enumerate(zip(self.paths, self.carried)):
            assign(root, path, renamed(initial, f"{results}#{k}"))
        if self.stacking is not None:
            self.stacking.commit(root, results, len(self.paths))
        for name in self.body_locals:
            self.frame.locals.pop(name, None)


# ---- helpers ---------------------------------------------------------------------------------
def _rows(em: Any, x: Tensor) -> tuple[str, str, str, Callable[[str], Any]]:
    """Bounds of a loop over the rows of ``x``, and row ``%iv`` by ``tensor.extract_slice``."""
    if x.ndim == 0:
        raise NotConvertible("iteration over a 0-d array")
    upper = _dim(em, x)
    row_shape = x.shape[1:]

    def item(iv: str) -> Tensor:
        sizes = [1, *(em.size(d) for d in row_shape)]
        return em.extract_slice(x, [iv, *[0] * len(row_shape)], sizes, [1] * x.ndim, row_shape)

    return em.index_constant(0), upper, em.index_constant(1), item


def _dim(em: Any, x: Tensor) -> str:
    if isinstance(x.shape[0], str):
        return em.dims.get(x.shape[0]) or em.dim(x, 0)
    return em.index_constant(x.shape[0])


def _symbol(dim: Any) -> str | None:
    return dim if isinstance(dim, str) else None


def _stack(em: Any, stacked: Tensor, axis: Any) -> Tensor:
    """``np.stack`` of a stacked list along ``axis``: its rows' axis moved there."""
    if not isinstance(axis, int) or isinstance(axis, bool) or not -stacked.ndim <= axis < stacked.ndim:
        raise NotConvertible(f"np.stack of a stacked list along axis {axis!r}")
    axis %= stacked.ndim
    if axis == 0:
        return stacked
    perm = list(range(1, stacked.ndim))
    perm.insert(axis, 0)
    return em.transpose(stacked, perm)


def _length(tracer: "Tracer", x: Tensor) -> Weak:
    return from_index(tracer.em, _dim(tracer.em, x))


def _one_type(items: Any) -> bool:
    return all(isinstance(v, Tensor) and not isinstance(v, Weak) for v in items) and len(
        {(v.type) for v in items}) == 1 and items[0].static


def _sym_range(*args: Any) -> SymRange:
    if not 1 <= len(args) <= 3:
        raise NotConvertible(f"range() takes 1 to 3 arguments, got {len(args)}")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    if not isinstance(step, int) or isinstance(step, bool) or step <= 0:
        raise NotConvertible("range() over a graph int needs a static positive step")
    for bound in (start, stop):
        if isinstance(bound, Tensor) and (bound.ndim or bound.dtype != np.int64):
            raise NotConvertible(f"range() bound {bound.type} is not an int64 scalar")
    return SymRange(start, stop, step)


def _goes_on(tracer: "Tracer", value: Tensor, goes_on: bool) -> str:
    """The ``i1`` that says the loop runs another iteration."""
    condition = tracer.em.scalar_condition(op_table.cast(tracer.em, value, np.dtype(bool)))
    return condition if goes_on else tracer.em.negate(condition)


def _stored_before_read(frame: "Frame", start: int) -> set[str]:
    """Locals the body's straight-line prefix stores before reading: their value from
    before the loop (or the previous iteration) is never seen by the body."""
    stored: set[str] = set()
    read: set[str] = set()
    bc = frame.bc
    for ins in bc.instrs[bc.index[start]:]:
        if ins.opname in CONDITIONAL_JUMPS or ins.opname in JUMPS or ins.opname in EXITS or ins.opname == "FOR_ITER":
            break
        if ins.opname == "LOAD_FAST" or ins.opname == "DELETE_FAST":
            read.add(ins.argval)  # type: ignore[arg-type]
        elif ins.opname == "STORE_FAST" and ins.argval not in read:
            stored.add(ins.argval)  # type: ignore[arg-type]
    return stored


def _snapshot(tracer: "Tracer") -> tuple:
    """What tracing a loop body adds (rolled back between its two traces): lines, guards,
    generated recursive functions (a ``janus.invoke`` in the body) and bound dims."""
    return (len(tracer.em.lines), len(tracer.guards), dict(tracer.guard_sites), len(tracer.functions),
            dict(tracer.em.dims), dict(tracer.recursion.generated))


def _restore(tracer: "Tracer", saved: tuple) -> None:
    lines, guards, sites, functions, dims, generated = saved
    del tracer.em.lines[lines:], tracer.guards[guards:], tracer.functions[functions:]
    tracer.recursion.generated.clear()
    tracer.recursion.generated.update(generated)
    tracer.guard_sites.clear()
    tracer.guard_sites.update(sites)
    tracer.em.dims.clear()
    tracer.em.dims.update(dims)
