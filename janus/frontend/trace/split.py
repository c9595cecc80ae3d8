"""Segment boundaries (co-execution, Terra; TorchDynamo's graph breaks): where the tracer
stops instead of giving up.

A ``CALL`` the tracer cannot convert, met in the traced function itself (not in an inlined
callee's frame, not inside an ``scf`` region), ends the trace there: ``SegmentEnd`` carries
the frame as it is just before the call (its locals, the stack under the call) and the call
(callable, arguments), all still symbolic. ``generate`` makes the trace so far the first
compiled segment, whose outputs are the graph values the rest of the call needs; the call
runs in Python on real values; a resume function (``resume``) carries on after it.

A split is refused (the ``NotConvertible`` stands, the whole call runs in Python) when
Python could not resume there (``resume.why_not_resumable``), or when the failed attempt
left changes behind: shadow-heap writes, or a list, dict or iterator of the trace it was
handed that its partial trace changed (``Attempt``).
"""

from __future__ import annotations

import dis
import inspect
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from janus.frontend.heap.access import HeapRef
from janus.frontend.trace.branches import SymFunction, SymIter
from janus.frontend.trace.bytecode import Instr
from janus.frontend.trace.exceptions import ErrorSettings
from janus.frontend.trace.frame import MUTATORS, NULL, ArgumentList, BoundTensorMethod, Frame
from janus.frontend.trace import resume
from janus.frontend.trace.resume import ResumePoint, why_not_resumable
from janus.frontend.trace.versions import DIALECT
from janus.frontend.values import NotConvertible

if TYPE_CHECKING:
    from janus.frontend.trace.interpreter import Tracer


@dataclass(frozen=True)
class HostMethod:
    """``obj.name`` for a method of a host object (a ``Generator``, a list on the heap or passed
    in): called, it is a segment boundary; looked up when the call runs, on the real object."""

    obj: Any  # a HeapRef or an ArgumentList
    name: str

    def describe(self) -> str:
        target = getattr(self.obj, "obj", self.obj)
        return f"{'list' if isinstance(target, ArgumentList) else type(target).__name__}.{self.name}"


def host_method(obj: Any, name: str) -> HostMethod | None:
    """The ``HostMethod`` a method load of ``obj.name`` makes (None: traced as before): a
    method defined in C (or Cython) on the type of a heap object, any method of a heap object
    without a ``__dict__``, or a mutator of a list argument."""
    if isinstance(obj, ArgumentList):
        return HostMethod(obj, name) if name in MUTATORS else None
    target = obj.obj if isinstance(obj, HeapRef) else None
    if target is None or name in getattr(target, "__dict__", ()):
        return None
    try:
        found = inspect.getattr_static(type(target), name)
    except AttributeError:
        return None
    if isinstance(found, (types.FunctionType, property, staticmethod, classmethod)) and hasattr(target, "__dict__") \
            or hasattr(type(found), "__set__"):
        return None  # traced (an object without a ``__dict__``, ``np.errstate``, keeps state heap ops cannot see)
    return HostMethod(obj, name) if callable(found) else None


@dataclass(frozen=True, eq=False)
class ContextExit:
    """The ``__exit__`` ``BEFORE_WITH`` leaves on the stack of a context manager whose
    ``__enter__`` runs in Python (a segment boundary): bound to the real manager when the
    boundary runs, so Python's ``with`` machinery calls it, once, on every way out."""

    manager: Any


class Deferred:
    """Text of graph values (an f-string field ``f"{loss:.3f}"``, the string around it): made
    by ``fn(*args)`` on the real values when a segment boundary's Python operation takes it.
    Python protocols on it are refused, as on the graph value (its text belongs to the run)."""

    __slots__ = ("fn", "args")

    def __init__(self, fn: Any, args: tuple) -> None:
        self.fn, self.args = fn, args

    def _refuse(self, *args: Any) -> Any:
        raise NotConvertible("the text of an array value is used as a Python value (only a call taking it runs in Python)")

    __str__ = __format__ = __len__ = __bool__ = __iter__ = __contains__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __hash__ = object.__hash__


def f_string_field(value: Any, conversion: int, spec: str) -> str:
    """``FORMAT_VALUE``: the conversion (none, ``!s``, ``!r``, ``!a``), then ``format``."""
    convert = (None, str, repr, ascii)[conversion]
    return format(value if convert is None else convert(value), spec)


def joined(*parts: str) -> str:
    """``BUILD_STRING``."""
    return "".join(parts)


class BranchToSplit(Exception):
    """A trace that may not split met a branch that should be a boundary (``split.end_branch``):
    the caller traces again with splits (not a ``NotConvertible``: nothing converts less)."""


class SegmentEnd(Exception):
    """The trace ends before ``fn(*args, **kwargs)``, which Python runs (see the module docstring)."""

    #: where the call goes on when ``fn`` (``next`` at a ``FOR_ITER``) raises ``StopIteration``:
    #: the loop's exit, the iterator popped (``end_for``)
    exhausted: ResumePoint | None = None

    def __init__(self, frame: Frame, ins: Instr, fn: Any, args: list, kwargs: dict, reason: NotConvertible,
                 consumed_by_ins: bool = False) -> None:
        """``consumed_by_ins``: the operation's result goes to ``ins`` itself (a conditional
        jump takes the truth Python computed), so Python resumes at ``ins``, not after it."""
        super().__init__(str(reason))
        self.at_branch = consumed_by_ins
        self.fn, self.args, self.kwargs, self.reason = fn, args, kwargs, reason
        code, offset = resume.origin(frame.bc.code, ins.offset)
        # an argument's cell is passed as the argument (the resume function wraps it again)
        self.locals = {**frame.locals, **{n: frame.cells[n].contents for n in code.co_cellvars if n in code.co_varnames}}
        self.stack = list(frame.stack)
        self.source = frame.bc.source(ins.offset)
        self.line = frame.bc.at(ins.offset).line
        after = offset if consumed_by_ins else real_next(code, offset)
        self.point = ResumePoint(code, after,
                                 tuple(n for n in code.co_varnames if n not in self.locals),
                                 (*_slots(self.stack), _result_slot(code, after)),
                                 tuple((n, self.locals[n]) for n in code.co_varnames if _baked(self.locals.get(n))))
        #: the contents of the function's other cells, passed after the locals (``ResumePoint.passed_cells``)
        self.cells = [frame.cells[n].contents for n in self.point.passed_cells]
        #: id of a cell of the function's own -> its name (a function made in the trace may hold it)
        self.cell_names = {id(cell): name for name, cell in frame.cells.items() if name in code.co_cellvars}

    def describe(self) -> str:
        fn = self.fn
        if isinstance(fn, HostMethod):
            return fn.describe()
        if isinstance(fn, BoundTensorMethod):
            return f"ndarray.{fn.name}"
        if isinstance(fn, types.MethodType):
            fn = fn.__func__
        if isinstance(fn, HeapRef):  # an object called: its class's ``__call__``
            return f"{type(fn.obj).__qualname__}.__call__"
        return getattr(fn, "__qualname__", type(fn).__name__)


#: values of the trace that are code or namespaces: a resume function has them as constants
#: Cython module functions (``np.random.default_rng``): code, like a module's Python functions
CYTHON_FUNCTION = type(np.random.default_rng)
BAKED = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type, np.ufunc, type(np.stack), CYTHON_FUNCTION)


def foreign_method(value: Any) -> bool:
    """A C or Cython method bound to an object the trace reached through a module
    (``np.random.choice``: the legacy global ``RandomState``'s): the real bound method, a
    constant of the trace like the module it came from; its call runs in Python."""
    return isinstance(value, types.MethodType) and not isinstance(value.__func__, types.FunctionType)


def _baked(value: Any) -> bool:
    """Put back as a constant (jit and grad functions too); hashable, as the resume point that holds it."""
    if not (isinstance(value, BAKED) and not container_method(value) or hasattr(value, "janus_trace")
            or foreign_method(value)):
        return False
    try:
        hash(value)
    except TypeError:
        return False
    return True


def container_method(value: Any) -> bool:
    """A method of a list, dict or set of the trace (``log.append``): bound to the list the
    trace holds, so it is remade on the list the call rebuilds, never passed on."""
    return isinstance(value, types.BuiltinMethodType) and type(value.__self__) in (list, dict, set)


def method_receiver(value: Any) -> Any:
    """The receiver of a method the resume function loads again (see ``_slots``), or None."""
    if isinstance(value, HostMethod):
        return value.obj
    return value.__self__ if container_method(value) else None


def attribute_receiver(value: Any) -> Any:
    """The receiver of a bound method the resume function looks up again on it (a ``with``
    block's ``__exit__``: ``ContextExit``, ``np.errstate``'s, or a method of a heap object's
    class), or None."""
    if isinstance(value, ContextExit):
        return value.manager
    if isinstance(value, types.MethodType) and isinstance(value.__self__, ErrorSettings):
        return value.__self__  # entered for real at the boundary (``segments.EnteredErrstate``)
    if isinstance(value, HostMethod):
        return value.obj
    if isinstance(value, types.MethodType) and isinstance(value.__self__, HeapRef):
        found = getattr(type(value.__self__.obj), value.__func__.__name__, None)
        return value.__self__ if found is value.__func__ else None
    return None


def _slot(value: Any) -> Any:
    """How the resume function gets a stack value back (see ``resume.ResumePoint``)."""
    if value is NULL:
        return resume.NULL
    if isinstance(value, ContextExit):
        return (resume.ATTRIBUTE, "__exit__")
    if isinstance(value, types.MethodType) and attribute_receiver(value) is not None:
        return (resume.ATTRIBUTE, value.__func__.__name__)
    if _baked(value):
        return (resume.CONSTANT, value)
    return resume.ITERATOR if type(value) is SymIter else resume.VALUE


def _slots(stack: list) -> list:
    """``_slot`` of each stack value; a method of a host object or of a container of the
    trace is loaded again from its receiver, in the place of the NULL pushed beside it."""
    slots = [_slot(v) for v in stack]
    for i, value in enumerate(stack):
        if method_receiver(value) is not None:
            beside = i + 1 if DIALECT.null_after_callable else i - 1
            if not 0 <= beside < len(stack) or stack[beside] is not NULL:  # not a method load's pair
                if isinstance(value, HostMethod):  # a file's ``__exit__`` under a ``with`` block
                    slots[i] = (resume.ATTRIBUTE, value.name)
                    continue
                raise NotConvertible("a method is live at the boundary outside a call")
            name = value.name if isinstance(value, HostMethod) else value.__name__
            slots[beside], slots[i] = resume.ABSORBED, (resume.METHOD, name)
    return slots


def _result_slot(code: types.CodeType, after: int) -> Any:
    """The operation's result: passed (``VALUE``), or, when the next instruction discards it
    (``POP_TOP``: a logger's returned line), a None put back for it, so that a value nobody
    reads never enters the resume function's entry key."""
    return (resume.CONSTANT, None) if _opnames(code)[after] == "POP_TOP" else resume.VALUE


@lru_cache(maxsize=None)
def _opnames(code: types.CodeType) -> dict[int, str]:
    return {i.offset: i.opname for i in dis.get_instructions(code)}


@lru_cache(maxsize=None)
def real_next(code: types.CodeType, offset: int) -> int:
    """The offset of the instruction CPython runs after the one at ``offset`` (inline caches skipped)."""
    return next(i.offset for i in dis.get_instructions(code) if i.offset > offset and i.opname != "CACHE")


class Attempt:
    """What a ``CALL`` may leave behind in the trace when it fails: heap writes, and changes
    to the lists, dicts and iterators of the trace it was handed (a callee partly traced)."""

    def __init__(self, tracer: "Tracer", fn: Any, args: list, kwargs: dict) -> None:
        heap = tracer.heap
        self.writes = _write_counts(heap)
        self.appended = heap.append_marks()
        self.handed: list[tuple[Any, Any]] = []
        if _traced(fn):
            for value in (*args, *kwargs.values()):
                self._remember(value)

    def _remember(self, value: Any) -> None:
        if isinstance(value, (list, tuple)):
            if type(value) is list:
                self.handed.append((value, _snapshot(value)))
            for item in value:
                self._remember(item)
        elif type(value) is dict:
            self.handed.append((value, _snapshot(value)))
            for item in value.values():
                self._remember(item)
        elif isinstance(value, SymIter):
            self.handed.append((value, _snapshot(value)))

    def left_changes(self, tracer: "Tracer") -> str | None:
        """Why the failed call cannot simply run in Python now (None: nothing was changed).
        Its appends onto heap lists are taken back (they emitted nothing): Python makes them."""
        heap = tracer.heap
        heap.take_back_appends(self.appended)
        if _write_counts(heap) != self.writes:
            return "the callee's trace wrote the heap before it failed"
        if not all(_same(_snapshot(value), before) for value, before in self.handed):
            return "the callee's trace changed a list, dict or iterator it was handed"
        return None


def _write_counts(heap: Any) -> tuple[int, ...]:
    """How many writes of each kind the trace made on the shadow heap so far."""
    return len(heap.written), len(heap.structures), len(heap.mutated)


def _snapshot(value: Any) -> list:
    """The items (by identity) a list, dict or iterator of the trace holds now."""
    if isinstance(value, SymIter):
        return [value.pos, *value.items]
    return [x for item in value.items() for x in item] if type(value) is dict else list(value)


def _same(now: list, before: list) -> bool:
    """Equal by identity (graph values refuse ``==``)."""
    return len(now) == len(before) and all(a is b for a, b in zip(now, before))


def end_segment(tracer: "Tracer", frame: Frame, ins: Instr, fn: Any, args: list, kwargs: dict,
                reason: NotConvertible, attempt: Attempt, consumed_by_ins: bool = False) -> None:
    """Raise ``SegmentEnd`` when the failed call can be a boundary; otherwise re-raise ``reason``."""
    if not tracer.splitting or tracer.depth != 1 or not tracer.heap.at_root() or tracer.heap.scope is not None:
        raise reason
    why = why_not_resumable(frame.bc.code, ins.offset) or attempt.left_changes(tracer)
    try:
        end = SegmentEnd(frame, ins, fn, args, kwargs, reason, consumed_by_ins) if why is None else None
    except NotConvertible as e:
        why = str(e)
    if why is not None and str(reason).startswith(why):  # the same reason (with its location) keeps
        raise reason  # the call from being a boundary: said once
    if why is not None:
        raise NotConvertible(f"{reason} (no split there: {why})", any_signature=reason.any_signature) from None
    raise end


def end_branch(tracer: "Tracer", frame: Frame, ins: Instr, value: Any, reason: NotConvertible, attempt: Attempt) -> None:
    """A conditional jump on a graph value, one side of which does not convert: a boundary
    where Python takes the value's truth (``bool``) and runs the jump on it. Each side goes
    on as its own continuation (the one that does not convert splits where it stops), so a
    call taking either side keeps its array work compiled (``if step % k == 0: print(...)``);
    ``NotConvertible`` when the jump cannot be a boundary."""
    end_segment(tracer, frame, ins, bool, [value], {}, reason, attempt, consumed_by_ins=True)


def end_with(tracer: "Tracer", frame: Frame, ins: Instr, manager: Any, reason: NotConvertible, attempt: Attempt) -> None:
    """``BEFORE_WITH`` over a manager whose ``__enter__`` cannot be traced: a boundary where
    Python enters it, the stack left as ``BEFORE_WITH`` leaves it before pushing the result."""
    if not isinstance(manager, HeapRef) and tracer.local_arrays.get(id(manager), tracer) is not manager:
        raise reason
    frame.stack.append(ContextExit(manager))
    try:
        end_segment(tracer, frame, ins, HostMethod(manager, "__enter__"), [], {}, reason, attempt)
    finally:
        frame.stack.pop()


def end_for(tracer: "Tracer", frame: Frame, ins: Instr) -> None:
    """``FOR_ITER`` over a lazy iterator (a generator): a boundary where Python takes the
    next item; the body resumes with it, or the loop's exit when there is none."""
    reason = NotConvertible(f"the next item of a {type(frame.stack[-1].obj).__name__} (Python code runs for it)")
    try:
        end_segment(tracer, frame, ins, next, [frame.stack[-1]], {}, reason, Attempt(tracer, next, [], {}))
    except SegmentEnd as end:
        code, offset = resume.origin(frame.bc.code, ins.target)
        end.exhausted = ResumePoint(code, offset, end.point.unbound, end.point.slots[:-2], end.point.constants)
        raise


def _traced(fn: Any) -> bool:
    """Whether the tracer steps into ``fn`` (a partial trace of it may have run)."""
    return isinstance(fn, (types.FunctionType, types.MethodType, SymFunction)) or hasattr(fn, "janus_trace")


