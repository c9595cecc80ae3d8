"""Module assembly: the graph of one call (``generate``) and what the runtime needs to call it."""

from __future__ import annotations

import inspect
import re
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from janus.frontend import relax, scalar_abi, segments, speculation
from janus.frontend.signature import by_reference
from janus.frontend.profiler import Profile
from janus.frontend.recursion import node_writes, trees
from janus.frontend.heap import structures as heap_struct
from janus.frontend.heap.access import HeapRef
from janus.frontend.heap.rules import DICTS
from janus.frontend.recursion.invoke import SIMPLIFY
from janus.frontend.trace import builtin_calls, generators
from janus.frontend.trace.frame import ArgumentList
from janus.frontend.trace.interpreter import Tracer
from janus.frontend.trace.split import Deferred, SegmentEnd
from janus.frontend.values import NotConvertible, Tensor, Weak

@dataclass(frozen=True)
class Graph:
    """A generated function: the module text and how to call it from Python."""

    text: str
    func_name: str
    output: Any  # the returned value with each Tensor replaced by its result index
    guards: tuple[tuple[int, str, str], ...]  # (id, kind, source)
    globals_read: tuple[tuple[dict, str, Any], ...]  # (function globals, name, value seen)
    guard_sites: dict = field(default_factory=dict)  # guard id -> (code, offset) it speculates on
    heap: Any = None  # a heap_plan.HeapPlan when the graph reads or writes the Python heap
    #: passes the module needs before a target's lowering (``SIMPLIFY``, ``janus-autodiff``)
    pre_passes: tuple[str, ...] = ()
    #: node attributes the graph writes, stored on the nodes after a successful call
    tree_writes: tuple[node_writes.TreeWrite, ...] = ()
    #: the trace stopped at an operation Python runs: the graph is the call's first segment
    boundary: segments.Boundary | None = None
    #: it computes arrays (``array_work``): a launch may beat Python; without, a few scalar ops
    array_work: bool = True
    #: nothing the call would do is observable (no results, guards, heap or node writes): no launch
    idle: bool = False

    def pipeline(self, lowering: str) -> str:
        """The pass pipeline compiling this graph: ``pre_passes``, then ``lowering``."""
        return f"builtin.module({','.join((*self.pre_passes, lowering))})"



def generate(fn: Callable, args: tuple, profile: Profile, shapes: list[tuple] | None = None,
             unspeculated: frozenset = frozenset(), relaxed: frozenset = frozenset(),
             switches: speculation.Speculation = speculation.FULL, split: bool = False,
             splits_later: bool = False) -> Graph:
    """The graph of ``fn`` called with ``args`` (positional, defaults applied).

    ``shapes`` gives each array argument's shape with symbols for ``?`` dims (default:
    the exact shapes); branches at ``unspeculated`` sites become ``scf.if`` even if fixed;
    ``relaxed`` holds the list and int positions relaxed by value (see ``relax``);
    ``switches`` turns speculative optimizations off (see ``speculation``); with ``split``
    an operation the tracer cannot convert ends the graph there (``segments``); with
    ``splits_later`` (and not ``split``) the caller traces again with ``split`` where this
    trace raises ``BranchToSplit``.
    """
    columns: dict[trees.TreeKind, dict[node_writes.Key, tuple[np.dtype, tuple[int, ...]]]] = {}
    lazy: set[types.CodeType] = set()
    while True:  # again with a column for each node attribute found written (``node_writes``),
        try:     # or with a generator taken item by item made by Python (``generators.RunLazily``)
            return _generate(fn, args, profile, shapes, unspeculated, relaxed, switches, split, splits_later, columns,
                             frozenset(lazy))
        except node_writes.Widen as widen:
            if widen.key in columns.get(widen.kind, {}):
                raise NotConvertible(f"a write to {widen}, which has a column already") from None
            columns.setdefault(widen.kind, {})[widen.key] = (widen.dtype, widen.shape)
        except generators.RunLazily as lazily:
            if not split or lazily.code in lazy:
                raise lazily.reason from None
            lazy.add(lazily.code)


def _generate(fn: Callable, args: tuple, profile: Profile, shapes: list[tuple] | None, unspeculated: frozenset,
              relaxed: frozenset, switches: speculation.Speculation, split: bool, splits_later: bool,
              columns: dict[trees.TreeKind, dict[node_writes.Key, tuple[np.dtype, tuple[int, ...]]]],
              lazy: frozenset[types.CodeType]) -> Graph:
    tracer = Tracer(profile)
    tracer.lazy_generators = lazy
    tracer.unspeculated = unspeculated
    tracer.speculation = switches
    inputs: list[Tensor] = []
    scalar_inputs: set[int] = set()
    scalar_leaves: set[int] = set()  # NumPy scalar arguments (their leaves are 0-d arrays)
    given = _given_arrays(args)
    #: inputs that are the caller's own arrays (id of the Tensor -> leaf index): returned as is
    passthrough: dict[int, int] = {}

    def argument(a: Any) -> Tensor:
        if isinstance(a, np.generic):
            scalar_leaves.add(len(inputs))
        if type(a) in (int, float):  # a relaxed int or float leaf: an i64/f64 parameter (see ``scalar_abi``)
            scalar_inputs.add(len(inputs))
            a = np.asarray(a, np.int64 if type(a) is int else np.float64)
        shape = shapes[len(inputs)] if shapes is not None else np.shape(a)
        t = Tensor(f"%arg{len(inputs)}", shape, a.dtype)
        if id(a) in given:
            passthrough[id(t)] = len(inputs)
        inputs.append(t)
        tracer.em.define(t)
        if isinstance(a, np.generic):  # immutable: ``total += loss`` rebinds the name, as a local value's update
            tracer.em.provenance[t] = None
        for d, size in enumerate(shape):
            if isinstance(size, str):
                tracer.em.bind_dim(size, t, d)
        return t

    written: list[tuple[Any, trees.SymTree]] = []  # tree arguments with columns, and their roots

    def sequence(typ: type, items: list) -> Any:
        return (ArgumentList if typ is list else typ)(items)

    def tree(root: Any) -> Any:
        """A tree's root ``SymNode``, or a forest's (``trees.is_forest``) list of them."""
        forest = trees.is_forest(root)
        kind, arrays = trees.linearize(root)
        nodes = trees.tree_argument(tracer.em, kind, [argument(a) for a in arrays],
                                    trees.forest_rows(root) if forest else (0,))
        if kind in columns:
            node_writes.make(tracer.em, nodes[0].tree, columns[kind])
            written.append((root, nodes[0].tree))
        return sequence(type(root), nodes) if forest else nodes[0]

    tracer.heap.argument_leaves = passthrough  # in-place updates of the caller's arrays (``heap.access``)
    code = fn.__code__
    variadic = bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount + variadic]  # ``JitFunction._bind``'s order

    symbolic = [
        tracer.heap.argument(i, names[i], a) if by_reference(a) and i < len(names)
        else relax.symbolic_argument(a, (i,), relaxed, argument, sequence, tree)
        for i, a in enumerate(args)
    ]
    if len(names) != len(symbolic):
        raise NotConvertible(f"{len(symbolic)} arguments for {len(names)} parameters")
    closure = tracer.heap.closure(fn) if fn.__closure__ else ()
    tracer.tree_state.regions.append(id(tracer.em.lines))
    tracer.splitting, tracer.splits_later = split, splits_later and not split
    outputs: list[Tensor] = []

    def output(t: Tensor) -> int:
        outputs.append(t)
        return len(outputs) - 1

    def returned(t: Tensor) -> Result | Argument:
        # Python returns the caller's very array; a graph result would be a copy (and IREE may
        # alias it with a buffer an in-place op of the graph wrote)
        base, made = t, ()
        while id(base) not in passthrough and base in tracer.em.replays:  # a view: NumPy makes it of the caller's array
            base, replay = tracer.em.replays[base]
            made = (replay, *made)
        leaf = passthrough.get(id(base))
        if leaf is not None:
            return Argument(leaf, made)
        return Result(output(t), t.python_type if isinstance(t, Weak) else None)

    boundary = None
    frame_result = None
    try:
        frame_result = tracer.run(code, fn.__globals__, dict(zip(names, symbolic)), closure)
        tracer.refuse_doomed_guards()
        shape = _outputs(frame_result, returned, lambda ref: _passed(ref, tracer.heap.sources))
    except SegmentEnd as end:
        shape = None
        boundary = segments.plan_boundary(end, fn.__globals__, fn.__closure__, output, {t.name: i for i, t in enumerate(inputs)},
                                          scalar_leaves, tracer.heap, _argument_lists(symbolic), tracer.em.provenance,
                                          tracer.local_arrays)
    stored = tracer.tree_state.stored
    if any(t is s or tracer.em.provenance.get(t) is s for t in outputs for s in stored):
        raise NotConvertible("returns an array that is a tree node's attribute (Python returns the node's very object)")
    given_inputs = {id(t) for t in inputs}
    if any(id(tracer.em.provenance.get(t)) in given_inputs for t in outputs) and "iree_linalg_ext.scatter" in "".join(tracer.em.lines):
        # IREE 3.13 writes such a scatter in place into the argument's buffer and returns that
        # buffer for the view (``tests/frontend/ops/test_advanced_indexing.py``)
        raise NotConvertible("returns a view of an argument from a graph with an item assignment (IREE aliases the two)")
    if tracer.heap.argument_updates and boundary is not None:
        raise NotConvertible("an argument array updated in place before a segment boundary (Python after it needs that very array)")
    for updated in tracer.heap.argument_updates.values():
        output(updated)
    scalar_outputs = scalar_abi.scalar_results(outputs, range(len(outputs)))
    stored = {id(c): type(c).__name__ for v in tracer.heap.structures.values() for c in heap_struct.containers(v)}
    if _returns_any(frame_result, set(stored)):
        kinds = " or ".join(sorted(set(stored.values())))
        raise NotConvertible(f"returns a {kinds} it also stores on the heap (Python returns that very object; the graph would build another)")
    tracer.heap.structure_outputs(output)
    tree_writes = tuple(node_writes.TreeWrite(_path_of(root, args), key, output(w.column), output(w.mask))
                        for root, sym in written for key, w in sorted(sym.written.items()))
    func_name = re.sub(r"\W", "_", fn.__name__)
    functions = [scalar_abi.entry_function(func_name, tracer.em, inputs, outputs, tracer.heap.prologue,
                                           scalar_inputs, scalar_outputs), *tracer.functions]
    text = "module {\n" + "\n".join(functions) + "\n}\n"
    pre_passes = (*(SIMPLIFY if tracer.functions else ()), *(("janus-autodiff",) if tracer.needs_autodiff else ()))
    heap = tracer.heap.plan(inputs, outputs)
    work = bool(tracer.functions) or array_work(text)
    idle = not (outputs or tracer.guards or tree_writes or work
                or heap is not None and (heap.writes or heap.mutated or heap.structures or heap.appends or heap.argument_writes))
    return Graph(text, func_name, shape, tuple(tracer.guards), tuple(tracer.globals_read.values()), tracer.guard_sites,
                 heap, pre_passes, tree_writes, boundary, work, idle)


#: an op computing a tensor of one or more dims (a linalg op; a region's closing line), a loop, a call
_ARRAY_WORK = re.compile(r"(?:(?:linalg|iree_linalg_ext)\.\w+|^\s*\}).* -> tensor<[\d?]|scf\.(?:for|while)|func\.call|janus\.invoke",
                         re.M)


def array_work(text: str) -> bool:
    """Whether a module does array work; without, it is a few scalar ops and heap reads,
    which Python runs faster than a launch (``segments``: a split's cost rule)."""
    return _ARRAY_WORK.search(text) is not None


def _argument_lists(symbolic: list[Any]) -> dict[int, segments.Argument]:
    """Where each list argument of the trace (``ArgumentList``) is among the call's arguments."""
    found: dict[int, segments.Argument] = {}

    def visit(value: Any, path: tuple[int, ...]) -> None:
        if isinstance(value, (list, tuple)):
            if type(value) is ArgumentList:
                found[id(value)] = segments.Argument(path)
            for i, item in enumerate(value):
                visit(item, path + (i,))

    for i, value in enumerate(symbolic):
        visit(value, (i,))
    return found


@dataclass(frozen=True)
class Result:
    """Where a returned graph value comes from: result ``index`` of the compiled call,
    converted to ``python`` when it stands for a Python scalar."""

    index: int
    #: the Python scalar type of a ``Weak`` result (a Python int stays an int)
    python: type | None = None


@dataclass(frozen=True)
class Argument:
    """A returned graph value that is one of the caller's arrays, unchanged (leaf ``leaf``),
    or a view NumPy makes of it (``made``, applied in order: ``x.T[0]``)."""

    leaf: int
    made: tuple[Callable[[np.ndarray], Any], ...] = ()

    def value(self, leaves: list[np.ndarray]) -> Any:
        value: Any = leaves[self.leaf]
        for make in self.made:
            value = make(value)
        return value


def _given_arrays(args: tuple) -> set[int]:
    """The ids of the arrays the caller passed, in (nested) lists and tuples."""
    found: set[int] = set()

    def visit(value: Any) -> None:
        if type(value) is np.ndarray:
            found.add(id(value))
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    for value in args:
        visit(value)
    return found


@dataclass(frozen=True)
class Passed:
    """A returned heap object that is one of the caller's arguments (``return self`` of a
    scikit-learn style ``fit``): argument ``index`` itself, after the commit."""

    index: int


def _passed(ref: HeapRef, sources: list[tuple[str, Any]]) -> Passed:
    """Where the returned heap object ``ref`` comes from: only an argument itself."""
    kind, source = sources[ref.path.slot]
    if ref.path.steps or kind != "arg":
        raise NotConvertible(f"returning {ref.label}, a heap object that is not an argument itself "
                             "(Python returns that very object)")
    return Passed(source)


@dataclass(frozen=True)
class Record:
    """A returned NamedTuple or dataclass: rebuilt with its type from its fields' shapes."""

    cls: type
    fields: tuple[tuple[str, Any], ...]

    def rebuild(self, build: Callable[[Any], Any]) -> Any:
        return self.cls(**{name: build(shape) for name, shape in self.fields})


def _path_of(root: Any, args: tuple) -> tuple[int, ...]:
    """Where the tree argument ``root`` stands in ``args``: an index, then list/tuple indices."""
    stack: list[tuple[Any, tuple[int, ...]]] = [(args, ())]
    while stack:
        value, path = stack.pop()
        if value is root:
            return path
        if type(value) in (list, tuple, ArgumentList) or path == ():
            stack.extend((v, (*path, i)) for i, v in enumerate(value))
    raise NotConvertible("a tree argument written to is not found among the arguments")


def _returns_any(value: Any, ids: set[int]) -> bool:
    """Whether ``value`` is, or holds in its lists, tuples and dicts, an object whose id is in ``ids``."""
    if id(value) in ids:
        return True
    if type(value) in DICTS:
        return any(_returns_any(v, ids) for v in value.values())
    return type(value) in (list, tuple, ArgumentList) and any(_returns_any(v, ids) for v in value)


def _outputs(value: Any, output: Callable[[Tensor], Any], passed: Callable[[HeapRef], Passed]) -> Any:
    if isinstance(value, Tensor):
        return output(value)
    if isinstance(value, HeapRef):
        return passed(value)
    if type(value) in (list, tuple, ArgumentList):
        return (tuple if type(value) is tuple else list)(_outputs(v, output, passed) for v in value)
    if type(value) in DICTS and all(type(k) in (str, int) for k in value):  # a gradient tree, a record of results
        return type(value)((k, _outputs(v, output, passed)) for k, v in value.items())
    if builtin_calls.is_record(value):
        return Record(type(value), tuple((name, _outputs(v, output, passed)) for name, v in builtin_calls.record_fields(value)))
    if type(value) in (bool, int, float, str, type(None)) or isinstance(value, (np.generic, np.ndarray)):
        return value
    if isinstance(value, Deferred):
        raise NotConvertible("returning text made from an array value (an f-string field, % formatting) (its text is made only for a call that runs in Python)")
    raise NotConvertible(f"returning a {type(value).__name__} is not supported")
