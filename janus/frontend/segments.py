"""Co-execution (Terra): a version that is compiled segment → Python operation → resume.

When the tracer stops at an operation it cannot convert (``trace.split.SegmentEnd``), the
trace so far is the version's compiled segment. ``plan_boundary`` turns the symbolic state
at the stop (the frame's locals, the stack under the call, the call itself) into ``Live``
recipes: each says how the real value is rebuilt after the segment ran (a result of the
segment, an argument array, an object or array on the heap, a constant, a list rebuilt
around those). A call of the version then runs the segment (its heap writes committed,
all or nothing), rebuilds that state, runs the operation in Python (its effects happen
once, in program order; what it raises propagates) and hands the state to the resume
function (``trace.resume``), itself a ``janus.jit`` function: it profiles, compiles its
own segments, and checks on entry (its entry guards) that the operation's result is what
its graph was made for (Terra's validation), else runs in Python from the boundary on.

Arrays the Python code could still reach by identity (the caller's arguments, arrays on
the heap) are passed as those very objects, not as copies, so an in-place change made by
the operation or by the rest of the call lands where Python would put it; a view (``x[0]``,
``x.T``: it shares its base's buffer in Python) is passed on as a copy only when its base
is the trace's own array and is not live (``Planner.check_views``), else no split there.

``Continuation`` is what a segment's call returns; ``drive`` runs the chain of
continuations in a loop, so a split inside a loop does not deepen the Python stack.
"""

from __future__ import annotations

import functools
import time
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from janus.frontend.heap import structures as heap_struct
from janus.frontend.heap.access import HeapCell, HeapRef, HeapTracker
from janus.frontend.heap.rules import DICTS
from janus.frontend.signature import is_namedtuple
from janus.frontend.trace.branches import SymFunction, SymIter
from janus.frontend.trace.exceptions import ErrorSettings
from janus.frontend.trace.frame import ArgumentList, BoundTensorMethod
from janus.frontend.trace.liveness import live_locals
from janus.frontend.trace.resume import (ATTRIBUTE, ITERATOR, VALUE, Box, ResumePoint, calling_function, cell_written,
                                        passed, resume_function, unwinding_function)
from janus.frontend.trace.split import (CYTHON_FUNCTION, Deferred, HostMethod, SegmentEnd, attribute_receiver, container_method,
                                       foreign_method, method_receiver)
from janus.frontend.values import NotConvertible, Tensor, Weak, contains_tensor, hashable
from janus.heap import AccessPath

#: Python operations that never write into their arguments: a copy of a view is as good
READ_ONLY = frozenset({float, int, bool, str, repr, format, print, len, abs, round, hash})
#: the methods of a NumPy RNG that write an array argument (the others only read theirs: ``p=`` of ``choice``)
RNG_WRITERS = frozenset({"shuffle", "permuted"})


def reads_only(fn: Any) -> bool:
    """Whether the operation ``fn`` never writes its array arguments (a view among them need
    not share its base's buffer): a ``READ_ONLY`` builtin or a sampling method of an RNG."""
    if hashable(fn) and fn in READ_ONLY:
        return True
    if isinstance(fn, HostMethod):
        receiver, name = getattr(fn.obj, "obj", None), fn.name
    else:
        receiver, name = getattr(fn, "__self__", None), getattr(fn, "__name__", "")
    return isinstance(receiver, (np.random.RandomState, np.random.Generator)) and name not in RNG_WRITERS
#: values a boundary passes on as they are: immutable, or code and namespaces baked into the trace
CONSTANT_TYPES = (bool, int, float, complex, str, bytes, type(None), slice, range, type(Ellipsis), np.generic, np.dtype,
                  types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, np.ufunc,
                  type(np.stack), CYTHON_FUNCTION)  # NumPy's array-function dispatchers, Cython functions


class Env:
    """What the recipes of one call read: the segment's results, the call's array leaves,
    and the heap objects the state refers to (read at entry); rebuilt containers are shared."""

    __slots__ = ("results", "leaves", "held", "positional", "built")

    def __init__(self, results: list, leaves: list, held: list, positional: tuple) -> None:
        self.results, self.leaves, self.held, self.positional = results, leaves, held, positional
        self.built: dict[int, Any] = {}


class Live:
    """How one value of the frame is rebuilt after the segment (one subclass per kind)."""

    def build(self, env: Env) -> Any:
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class Constant(Live):
    value: Any

    def build(self, env: Env) -> Any:
        return self.value


@dataclass(frozen=True, eq=False)
class Output(Live):
    """Result ``index`` of the segment (a Python scalar for a ``Weak``, a NumPy scalar for 0-d)."""

    index: int
    python: type | None

    def build(self, env: Env) -> Any:
        value = env.results[self.index]
        if self.python is not None:
            return self.python(value)
        return value[()] if value.ndim == 0 else value


@dataclass(frozen=True, eq=False)
class Leaf(Live):
    """Array leaf ``index`` of the call: the caller's own object (a NumPy scalar as one)."""

    index: int
    scalar: bool

    def build(self, env: Env) -> Any:
        value = env.leaves[self.index]
        return value[()] if self.scalar else value


@dataclass(frozen=True, eq=False)
class Argument(Live):
    """A list the caller passed (at ``path``: argument index, then item indices): that very list."""

    path: tuple[int, ...]

    def build(self, env: Env) -> Any:
        value = env.positional[self.path[0]]
        for i in self.path[1:]:
            value = value[i]
        return value


@dataclass(frozen=True, eq=False)
class Held(Live):
    """The object (or array) at heap location ``index`` of the boundary's ``held`` paths, read at entry."""

    index: int

    def build(self, env: Env) -> Any:
        return env.held[self.index]


@dataclass(frozen=True, eq=False)
class Fresh(Live):
    """An array the trace computed from constants (``np.eye(2)``, a NumPy result on static
    values): Python makes a new one on every call, so each call gets its own copy."""

    value: np.ndarray

    def build(self, env: Env) -> Any:
        made = env.built.get(id(self))
        if made is None:
            made = env.built[id(self)] = self.value.copy()
        return made


@dataclass(frozen=True, eq=False)
class NewObject(Live):
    """A stateless object the trace made (a context manager: ``exceptions.is_made_manager``):
    Python makes a new one on every call."""

    cls: type

    def build(self, env: Env) -> Any:
        made = env.built.get(id(self))
        if made is None:
            made = env.built[id(self)] = object.__new__(self.cls)
        return made


@dataclass(frozen=True, eq=False)
class EnteredErrstate(Live):
    """The ``np.errstate`` of a block the boundary is in (``exceptions.ErrorSettings``),
    entered when the call's state is rebuilt, before the Python operation runs under it; the
    resume function's ``with`` calls its real ``__exit__`` (or the unwinding function's, on
    an exception), which restores the settings."""

    settings: tuple[tuple[str, str], ...]

    def build(self, env: Env) -> Any:
        made = env.built.get(id(self))
        if made is None:
            made = env.built[id(self)] = np.errstate(**dict(self.settings))
            made.__enter__()
        return made


@dataclass(frozen=True, eq=False)
class NewCell(Live):
    """A closure cell of the trace (``branches.Cell``), made once per call with its contents
    (the resume function remakes the function's own cells the same way: nothing writes
    either after the boundary, ``Planner.closure_cell``, so no one can tell them apart)."""

    contents: Live

    def build(self, env: Env) -> Any:
        made = env.built.get(id(self))
        if made is None:
            made = env.built[id(self)] = types.CellType(self.contents.build(env))
        return made


@dataclass(frozen=True, eq=False)
class MadeFunction(Live):
    """A function the trace made (``MAKE_FUNCTION``: a lambda, an inner function), made again
    from its code object with its rebuilt defaults and cells."""

    code: types.CodeType
    globals: dict
    defaults: Live
    kwdefaults: Live
    cells: tuple[Live, ...]

    def build(self, env: Env) -> Any:
        made = env.built.get(id(self))
        if made is None:
            made = types.FunctionType(self.code, self.globals, self.code.co_name, self.defaults.build(env) or None,
                                      tuple(c.build(env) for c in self.cells))
            made.__kwdefaults__ = self.kwdefaults.build(env) or None
            made.__qualname__ = self.code.co_qualname
            env.built[id(self)] = made
        return made


@dataclass(frozen=True, eq=False)
class Container(Live):
    """A list, tuple, NamedTuple or dict of the trace, rebuilt once per call (aliases stay aliases)."""

    kind: type
    items: tuple[tuple[Any, Live], ...]  # (key or index, item)

    def build(self, env: Env) -> Any:
        made = env.built.get(id(self))
        if made is None:
            items = [(k, v.build(env)) for k, v in self.items]
            if self.kind in DICTS:
                made = self.kind(items)
            elif self.kind in (list, tuple):
                made = self.kind(v for _, v in items)
            else:  # a NamedTuple: its fields
                made = self.kind(*(v for _, v in items))
            env.built[id(self)] = made
        return made


@dataclass(frozen=True, eq=False)
class Iterator(Live):
    """An iterator of the trace at its position: one over the items it has left."""

    rest: Container

    def build(self, env: Env) -> Any:
        made = env.built.get(id(self))
        if made is None:
            made = env.built[id(self)] = iter(self.rest.build(env))
        return made


@dataclass(frozen=True, eq=False)
class Steps(Live):
    """The ints a ``for`` loop has left, as a fresh range iterator (a host object)."""

    steps: range

    def build(self, env: Env) -> Any:
        return iter(self.steps)


@dataclass(frozen=True, eq=False)
class Method(Live):
    """A bound method: its function with the rebuilt ``self``."""

    function: Live
    receiver: Live

    def build(self, env: Env) -> Any:
        return types.MethodType(self.function.build(env), self.receiver.build(env))


@dataclass(frozen=True, eq=False)
class Attribute(Live):
    """``obj.name`` looked up on the real object when the operation runs (``HostMethod``)."""

    obj: Live
    name: str

    def build(self, env: Env) -> Any:
        return getattr(self.obj.build(env), self.name)


@dataclass(frozen=True, eq=False)
class Computed(Live):
    """``fn(*args)`` on the rebuilt values (``split.Deferred``: the text of an f-string)."""

    fn: Callable
    args: tuple[Live, ...]

    def build(self, env: Env) -> Any:
        return self.fn(*(a.build(env) for a in self.args))


@dataclass(frozen=True, eq=False)
class Boxed(Live):
    """The receiver of a method the resume function loads again, in a ``resume.Box``."""

    value: Live

    def build(self, env: Env) -> Any:
        return Box(self.value.build(env))


class Planner:
    """Symbolic values at a boundary -> ``Live`` recipes; graph values become segment outputs."""

    def __init__(self, output: Callable[[Tensor], int], inputs: dict[str, int], scalar_inputs: set[int],
                 heap: HeapTracker, arguments: dict[int, Argument], provenance: dict,
                 local_arrays: dict[int, Any]) -> None:
        self.output, self.inputs, self.scalar_inputs, self.heap = output, inputs, scalar_inputs, heap
        self.local_arrays = local_arrays  # ``Tracer.local_arrays``: NumPy arrays (and context managers) the trace made
        self.provenance = provenance  # ``Emitter.provenance``: which graph values may be views
        self.views: list[tuple[Tensor, Tensor]] = []  # (live view, its base)
        self.passive = False  # planning the arguments of an operation that never writes them
        self.arguments = arguments  # id of an ArgumentList -> where the caller's list is
        self.held: list[AccessPath] = []
        self.seen: dict[int, Live] = {}
        #: per result tensor, its Outputs by Python type (``float(loss)`` and ``loss`` may be one tensor)
        self.outputs: dict[str, dict[type | None, Output]] = {}
        self.point: ResumePoint | None = None  # where the traced function resumes (``closure_cell``)
        self.cell_names: dict[int, str] = {}  # id of a cell of the traced function -> its name

    def plan(self, value: Any) -> Live:
        known = self.seen.get(id(value))
        if known is not None:
            return known
        live = self._plan(value)
        if isinstance(value, (list, dict, SymIter, HeapRef, Tensor, tuple, np.ndarray, SymFunction)) or self._made(value):
            self.seen[id(value)] = live
        return live

    def _made(self, value: Any) -> bool:
        """Whether the trace made ``value`` (an array from static values, a context manager)."""
        return self.local_arrays.get(id(value), self) is value

    def _plan(self, value: Any) -> Live:
        if isinstance(value, Tensor):
            return self._tensor(value)
        if self._made(value):
            return Fresh(value) if type(value) is np.ndarray else NewObject(type(value))
        if isinstance(value, HeapRef):  # handed to Python as it is: a list of any length will do
            self.heap.any_length(value)
            return self._held(value.path)
        if isinstance(value, ArgumentList):
            return self.arguments[id(value)]
        if any(value is held for written in self.heap.structures.values() for held in heap_struct.containers(written)):
            raise NotConvertible(f"a {type(value).__name__} stored on the heap is live at the boundary (Python keeps "
                                 "that very object; the commit builds another)")
        if type(value) in (list, tuple) or is_namedtuple(value):
            return Container(type(value), tuple((i, self.plan(v)) for i, v in enumerate(value)))
        if type(value) in DICTS:
            return Container(type(value), tuple((k, self.plan(v)) for k, v in value.items()))
        if type(value) is SymIter:
            return Iterator(self.remaining(value))
        if isinstance(value, BoundTensorMethod):  # ``y.tobytes``: looked up on the real array
            return Attribute(self.plan(value.receiver), value.name)
        if isinstance(value, HostMethod):
            return Attribute(self.plan(value.obj), value.name)
        if isinstance(value, Deferred):  # text of graph values: formatting only reads them
            outer, self.passive = self.passive, True
            try:
                return Computed(value.fn, tuple(map(self.plan, value.args)))
            finally:
                self.passive = outer
        if isinstance(value, types.MethodType) and not foreign_method(value):
            return Method(self.plan(value.__func__), self.plan(value.__self__))
        if container_method(value):  # ``log.append`` of a list of the trace: on the rebuilt list
            return Attribute(self.plan(value.__self__), value.__name__)
        if isinstance(value, ErrorSettings):
            return EnteredErrstate(value.settings)
        if isinstance(value, SymFunction):
            return MadeFunction(value.code, value.globals, self.plan(value.defaults), self.plan(value.kwdefaults),
                                tuple(self.closure_cell(value.code, name, cell)
                                      for name, cell in zip(value.code.co_freevars, value.closure)))
        if type(value) is slice and contains_tensor([value.start, value.stop, value.step]):
            raise NotConvertible("a slice with graph values is live at the boundary")
        if isinstance(value, CONSTANT_TYPES) and not isinstance(value, np.ndarray) or hasattr(value, "janus_trace") \
                or foreign_method(value):
            return Constant(value)  # jit and grad functions are baked into traces too
        raise NotConvertible(f"a {type(value).__name__} is live at the boundary")

    def passed(self, value: Any, slot: Any) -> Live:
        """A stack value the resume function takes (see ``resume.ResumePoint.slots``)."""
        if slot == ITERATOR:
            return self.remaining(value)
        if slot == VALUE:
            return self.plan(value)
        if slot[0] == ATTRIBUTE:  # a ``with`` block's ``__exit__``, looked up on the real manager
            return Boxed(self.plan(attribute_receiver(value)))
        return Boxed(self.plan(method_receiver(value)))

    def closure_cell(self, code: types.CodeType, name: str, cell: Any) -> Live:
        """Cell ``name`` of a function the trace made: the real cell of a free variable of the
        traced function (``HeapCell``, shared as Python shares it), else a new one (``NewCell``),
        which only holds when nothing rebinds the cell after the boundary: not the function,
        not code defined in it, not the traced function from the boundary on."""
        if isinstance(cell, HeapCell):
            return Constant(cell.ref.obj)
        owner = self.cell_names.get(id(cell))
        if cell_written(code, name) or owner is not None and cell_written(self.point.code, owner, self.point.offset):
            raise NotConvertible(f"a function the traced code made is live at the boundary, and its cell {name!r} "
                                 "may be rebound after it (Python's function would see that, a copy would not)")
        known = self.seen.get(id(cell))
        if known is None:
            known = self.seen[id(cell)] = NewCell(self.plan(cell.contents))
        return known

    def remaining(self, iterator: SymIter) -> Live:
        """A ``for`` loop's iterator on the stack: the list of the items it has left (``resume``),
        or for a run of ints (``range(epochs)``) a range iterator over them, an object the resume
        function takes by reference, each step a boundary: its versions do not count the steps left."""
        items = iterator.items[iterator.pos:]
        steps = range(items[0], items[-1] + 1, items[1] - items[0] or 1) if len(items) > 1 and all(type(v) is int for v in items) else None
        if steps is not None and list(steps) == items:
            return Steps(steps)
        return Container(list, tuple((i, self.plan(v)) for i, v in enumerate(items)))

    def _tensor(self, t: Tensor) -> Live:
        if t.name in self.inputs:
            index = self.inputs[t.name]
            return Leaf(index, index in self.scalar_inputs)
        path = self.heap.owners.get(t.name)
        if path is not None:
            return self._held(path)
        python = t.python_type if isinstance(t, Weak) else None
        known = self.outputs.get(t.name, {}).get(python)
        if known is None:
            if self.provenance.get(t) is not None and not self.passive:
                self.views.append((t, self.provenance[t]))
            known = self.outputs.setdefault(t.name, {})[python] = Output(self.output(t), python)
        return known

    def check_views(self) -> None:
        """A view (``x[0]``, ``x.T``) shares its base's buffer in Python, a copy does not: one
        is passed on only when its base is an array of the trace's own that nothing else holds."""
        for view, base in self.views:
            if self.provenance.get(base, view) is not None or base.name in self.outputs or base.name in self.inputs \
                    or base.name in self.heap.owners:
                raise NotConvertible("a view of an array that is live at the boundary too (slice, reshape, transpose): "
                                     "a write through one shows through the other in Python, the resume "
                                     "function's graph would take them as two inputs")

    def _held(self, path: AccessPath) -> Live:
        rebound = [p for p in self.heap.structures if p.slot == path.slot and path.steps[: len(p.steps)] == p.steps]
        if rebound:
            raise NotConvertible(f"{self.heap.labels.get(path, path.describe())} is replaced in the segment")
        if path not in self.held:
            self.held.append(path)
        return Held(self.held.index(path))


@dataclass
class Boundary:
    """The Python operation after a version's segment, and how the call goes on (see the module docstring)."""

    point: ResumePoint
    globals: dict
    closure: tuple | None  # the traced function's cells (its free variables), which the resume function shares
    call: tuple[Live, tuple[Live, ...], tuple[tuple[str, Live], ...]]  # callable, arguments, keywords
    state: tuple[Live, ...]  # the resume function's arguments, the operation's result left out
    held: tuple[AccessPath, ...]
    description: str  # the operation, as ``janus.explain`` names it
    source: str  # file:line
    reason: str  # why the tracer could not convert it
    line: int | None  # the operation's line
    #: a ``for`` loop's step over a lazy iterator (``split.end_for``): where the call goes on
    #: when there is no next item, and the jit function continuing there (``JitFunction._resume``)
    exhausted: ResumePoint | None = None
    after_loop: Any = None
    #: a conditional jump whose truth Python takes (``split.end_branch``): each side goes on as its own continuation
    at_branch: bool = False
    python_seconds: float = 0.0  # in the operation
    then_seconds: float = 0.0  # in the resume function up to its own boundary, if any
    runs: int = 0

    @property
    def takes_result(self) -> bool:
        """Whether the resume function takes the operation's result (not when it discards it)."""
        return passed(self.point.slots[-1])

    def resume_function(self, point: ResumePoint | None = None) -> types.FunctionType:
        """The function continuing at ``point`` (by default the boundary's)."""
        return resume_function(point or self.point, self.globals, self.closure)

    @functools.cached_property
    def calling(self) -> Callable[..., Any]:
        """Calls the operation from the function's own file, name and line (``resume.calling_function``)."""
        return _direct if self.line is None else calling_function(self.point.code, self.line, self.globals)

    @functools.cached_property
    def unwinding(self) -> types.FunctionType:
        """Raises what the operation raised where Python would have (``resume.unwinding_function``)."""
        return unwinding_function(self.point, self.globals, self.closure, self.line)

    def hold(self, objects: list) -> list:
        """The heap objects the state refers to, read before the segment runs."""
        return [path.read(objects) for path in self.held]


class Continuation:
    """A segment ran: the Python operation and the resume function are next (``step``)."""

    __slots__ = ("boundary", "resume", "env")

    def __init__(self, boundary: Boundary, resume: Any, env: Env) -> None:
        self.boundary, self.resume, self.env = boundary, resume, env

    def step(self) -> Any:
        """Run the operation and call the resume function; its result may be a ``Continuation``."""
        b, env = self.boundary, self.env
        fn, args, kwargs = b.call
        state = [live.build(env) for live in b.state]  # before the operation: it may change them
        function = fn.build(env)
        positional = [a.build(env) for a in args]
        keywords = {k: v.build(env) for k, v in kwargs}
        started = time.perf_counter()
        raised = None
        try:
            value = b.calling(function, *positional, **keywords)
        except BaseException as e:  # raised again in the function's frame (the traceback from the operation on)
            raised = e.with_traceback(_after_calling(e.__traceback__))
        finally:
            ran = time.perf_counter()
            b.python_seconds += ran - started
            b.runs += 1
        try:
            if raised is not None:
                if b.after_loop is not None and isinstance(raised, StopIteration):  # the loop is over
                    return b.after_loop.call_chained(*state[:-1])  # its iterator popped
                return b.unwinding(*state, raised)  # into the handler around the operation, if any, in Python
            resume = self.resume
            # a resume function that runs in Python for any arguments: straight to its code
            go_on = resume.fn if resume.imperative else resume.call_chained
            return go_on(*state, value) if b.takes_result else go_on(*state)
        finally:
            b.then_seconds += time.perf_counter() - ran


def _direct(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


def _after_calling(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback from the operation on: ``Continuation.step``'s frame and the calling
    function's left out (the unwinding function stands for them)."""
    for _ in range(2):
        tb = tb.tb_next if tb is not None else None
    return tb


@dataclass
class CallCost:
    """A split version's cost rule: its calls against the plain function's, each timed
    ``calls`` times (the best counts: the machine is shared). A split version pays a
    launch per segment and the boundaries; when the array work it compiles is smaller
    than that, plain Python is faster and the calls run there."""

    calls: int
    compiled: list[float] = field(default_factory=list)  # calls in which no resume function warmed up
    warming: list[float] = field(default_factory=list)  # the others: counted when those never stop
    plain: list[float] = field(default_factory=list)

    def record(self, seconds: float, steady: bool) -> None:
        (self.compiled if steady else self.warming).append(seconds)

    def wants_plain(self) -> bool:
        """The next call runs plain, timed (after the compiled calls were timed: ``calls``
        steady ones, or twice as many of any kind, as when a resume function keeps meeting
        new values)."""
        timed = len(self.compiled) >= self.calls or len(self.compiled) + len(self.warming) >= 2 * self.calls
        return timed and len(self.plain) < self.calls

    def settled(self) -> bool:
        return len(self.plain) >= self.calls

    def best_compiled(self) -> float:
        return min(self.compiled or self.warming)

    def python_wins(self) -> bool:
        return min(self.plain) < self.best_compiled()

    def describe(self) -> str:
        return (f"plain Python takes {min(self.plain) * 1e6:.1f} µs per call, the compiled segments with the Python "
                f"between them {self.best_compiled() * 1e6:.1f} µs (best of {self.calls} or more)")


def drive(result: Any) -> Any:
    """Run continuations until the call's value comes back."""
    while type(result) is Continuation:
        result = result.step()
    return result


def plan_boundary(end: SegmentEnd, globals_: dict, closure: tuple | None, output: Callable[[Tensor], int], inputs: dict[str, int],
                  scalar_inputs: set[int], heap: HeapTracker, arguments: dict[int, Argument], provenance: dict,
                  local_arrays: dict[int, Any]) -> Boundary:
    """The ``Boundary`` of a trace that ended at ``end``; ``NotConvertible`` (the reason the
    tracer stopped, and why no split) when some live value cannot be rebuilt."""
    planner = Planner(output, inputs, scalar_inputs, heap, arguments, provenance, local_arrays)
    planner.point, planner.cell_names = end.point, end.cell_names
    try:
        names = end.point.code.co_varnames
        baked = dict(end.point.constants)
        live = live_locals(end.point.code, end.point.offset)  # a dead local is not rebuilt: None in its place
        if end.exhausted is not None:  # the same locals continue past the loop when there is no next item
            live |= live_locals(end.exhausted.code, end.exhausted.offset)
        local_values = [planner.plan(end.locals[n]) if n in end.locals and n not in baked and n in live
                        else Constant(None) for n in names]
        cells = [planner.plan(v) for v in end.cells]
        stack = [planner.passed(v, slot) for v, slot in zip(end.stack, end.point.slots) if passed(slot)]
        planner.passive = reads_only(end.fn)  # last: views seen only here are not checked
        call = (planner.plan(end.fn), tuple(map(planner.plan, end.args)),
                tuple((k, planner.plan(v)) for k, v in end.kwargs.items()))
        planner.check_views()
    except NotConvertible as why:
        raise NotConvertible(f"{end.reason} (no split there: {why})") from None
    return Boundary(end.point, globals_, closure, call, (*local_values, *cells, *stack), tuple(planner.held),
                    end.describe(), end.source, str(end.reason), end.line, end.exhausted, at_branch=end.at_branch)
