"""Exceptions and ``with`` in graphs: no exception is ever caught inside a graph.

Rules (JANUS: ``raise`` becomes a guard):

- A branch one side of which leads to a ``raise`` (or a failing ``assert``) is not forked:
  the graph guards the other direction with a ``janus.guard`` of kind ``raise``. When the
  guard fails the call re-runs in Python, which raises the real exception (same type,
  same message) with no heap write done. The side is known to raise statically (every
  path from it ends in a raise that leaves the frame) or by tracing it.
- A ``raise`` reached on the traced path itself (the call would always raise, as far as
  the graph can tell) is ``NotConvertible``; such a function runs imperatively.
- ``try``/``finally`` converts: CPython (3.11 to 3.13) copies the ``finally`` body onto the normal
  path, and the exceptional copy is only reached by an exception. ``try``/``except``:
  the try body is traced, except blocks never are; a ``raise`` reached inside a region
  whose handler may catch it (``except``, or ``with``, whose ``__exit__`` may swallow it)
  is ``NotConvertible``, since a graph cannot catch.
- ``with`` calls ``__enter__`` at ``BEFORE_WITH`` and ``__exit__(None, None, None)`` on
  the normal way out, both traced: a context manager class whose ``__enter__`` and
  ``__exit__`` are plain Python functions (and which has no ``__init__`` or ``__new__`` of
  its own: object state needs heap ops) is inlined; ``nullcontext`` and ``np.errstate``
  with only ``"ignore"``/``"warn"`` settings (a graph reports no floating-point errors) are
  known to do nothing. Anything else is ``NotConvertible``.

The exception table (``co_exceptiontable``) says which handler covers each instruction;
its format is documented in CPython's ``Objects/exception_handling_notes.txt``.
"""

from __future__ import annotations

import contextlib
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterator

import numpy as np

from janus.frontend.heap.access import HeapRef
from janus.frontend.trace.bytecode import EXIT, Bytecode, decode
from janus.frontend.values import NotConvertible

#: instructions that raise the exception they are given (or the one being handled)
RAISING = frozenset({"RAISE_VARARGS", "RERAISE"})


@dataclass(frozen=True)
class Handler:
    """An exception-table entry: instructions in [start, end) jump to ``target`` on an exception."""

    start: int
    end: int
    target: int
    depth: int
    lasti: bool


def _varints(data: bytes) -> Iterator[int]:
    """The table's numbers: 6-bit big-endian chunks, bit 6 set while more chunks follow
    (bit 7 marks an entry's first number; entries are always four numbers)."""
    value = 0
    for byte in data:
        value = (value << 6) | (byte & 0x3F)
        if not byte & 0x40:
            yield value
            value = 0


@lru_cache(maxsize=None)
def handlers(code: types.CodeType) -> tuple[Handler, ...]:
    """The exception table of ``code`` (offsets in bytes, ``end`` exclusive)."""
    numbers = list(_varints(code.co_exceptiontable))
    entries = []
    for start, length, target, depth_lasti in zip(*[iter(numbers)] * 4):
        entries.append(Handler(start * 2, (start + length) * 2, target * 2, depth_lasti >> 1, bool(depth_lasti & 1)))
    return tuple(entries)


def handler_at(code: types.CodeType, offset: int) -> Handler | None:
    """The handler an exception raised at ``offset`` goes to (entries do not overlap, 3.11 to 3.13;
    3.12's inlined comprehensions add one that restores their variable and re-raises)."""
    return next((h for h in handlers(code) if h.start <= offset < h.end), None)


@lru_cache(maxsize=None)
def _escaping(code: types.CodeType) -> frozenset[int]:
    """Offsets from which every way on ends with an exception leaving the frame (least
    fixpoint: a loop that never exits does not count)."""
    bc = decode(code)
    escaping: set[int] = set()
    changed = True
    while changed:
        changed = False
        for ins in reversed(bc.instrs):
            if ins.offset in escaping or ins.opname == "RETURN_VALUE":
                continue
            if ins.opname in RAISING:
                handler = handler_at(code, ins.offset)
                escapes = handler is None or handler.target in escaping
            else:
                escapes = all(s != EXIT and s in escaping for s in bc.successors(ins.offset))
            if escapes:
                escaping.add(ins.offset)
                changed = True
    return frozenset(escaping)


def raises(code: types.CodeType, offset: int) -> bool:
    """Whether execution from ``offset`` always ends in an exception leaving the frame."""
    return offset in _escaping(code)


def may_catch(code: types.CodeType, offset: int) -> bool:
    """Whether a handler of this frame may stop an exception raised at ``offset``
    (``except``, ``with``); a ``finally`` that always re-raises does not."""
    handler = handler_at(code, offset)
    return handler is not None and handler.target not in _escaping(code)


class TracedRaise(NotConvertible):
    """Tracing reached a ``raise``: a fork turns this into a guard; anywhere else the call
    always raises (as far as the graph can tell) and runs imperatively."""

    located = True


@dataclass(frozen=True)
class PendingException:
    """An exception instance built during tracing: kept as its type and arguments only
    (the graph never holds it; the imperative re-run builds the real one)."""

    type: type
    args: tuple


def raised(bc: Bytecode, offset: int, operands: list[Any]) -> TracedRaise:
    """The ``TracedRaise`` for ``RAISE_VARARGS`` at ``offset`` with its popped operands."""
    if not operands:
        return TracedRaise(f"bare `raise` at {bc.source(offset)} (re-raises the exception being handled)")
    exc = operands[0]
    what = exc.type.__name__ if isinstance(exc, PendingException) else getattr(exc, "__name__", type(exc).__name__)
    return TracedRaise(f"raise {what} at {bc.source(offset)} is reached on the traced path (the call always raises)")


def uncaught(error: TracedRaise, bc: Bytecode, offset: int) -> NotConvertible:
    """``error`` as it leaves the instruction at ``offset``: unchanged, unless a handler of
    this frame may catch it (a graph cannot)."""
    if not may_catch(bc.code, offset):
        return error
    caught = NotConvertible(f"{error} inside try/except or with at {bc.source(offset)}: a graph cannot catch exceptions")
    caught.located = True  # type: ignore[attr-defined]
    return caught


# ---- constructing exceptions and context managers ---------------------------------------------
def _no_exit(exc_type: Any, exc: Any, tb: Any) -> None:
    """``__exit__`` of a ``StaticContext``: nothing to undo."""


@dataclass(frozen=True)
class ErrorSettings:
    """The settings of an ``np.errstate`` block a graph runs (only ``"ignore"``/``"warn"``: a
    graph reports no floating-point errors, so they change nothing in it). Its ``__exit__``
    is what ``with`` leaves on the stack; a segment boundary inside the block enters the
    real ``np.errstate`` in Python (``segments.EnteredErrstate``), so the Python part runs
    under the settings and the real ``__exit__`` restores them where the block ends."""

    settings: tuple[tuple[str, str], ...]

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        """Nothing to undo in a graph."""


@dataclass(frozen=True)
class StaticContext:
    """A context manager known to do nothing a graph can observe; ``with`` gives ``entered``."""

    entered: Any = None
    exit: Callable[[Any, Any, Any], None] = _no_exit  # the ``__exit__`` left on the stack


def _errstate(**settings: str) -> StaticContext:
    unsupported = {k: v for k, v in settings.items() if v not in ("ignore", "warn")}
    if unsupported:
        raise NotConvertible(f"np.errstate({unsupported}): a graph does not raise or report floating-point errors")
    return StaticContext(exit=ErrorSettings(tuple(settings.items())).__exit__)


#: constructors of context managers that do nothing in a graph -> their ``StaticContext``
STATIC_CONTEXTS: dict[Any, Callable[..., StaticContext]] = {
    contextlib.nullcontext: lambda enter_result=None: StaticContext(enter_result),
    np.errstate: _errstate,
}


def construct(cls: type, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """What calling class ``cls`` makes during tracing, for exceptions and context
    managers; None for other classes."""
    if issubclass(cls, BaseException):
        return PendingException(cls, tuple(args))
    if cls in STATIC_CONTEXTS:
        return STATIC_CONTEXTS[cls](*args, **kwargs)
    if _python_method(cls, "__enter__") is None:
        return None
    if cls.__init__ is not object.__init__ or cls.__new__ is not object.__new__ or type(cls) is not type:
        raise NotConvertible(f"constructing {cls.__qualname__} runs its own __init__/__new__ (object state needs heap ops)")
    if args or kwargs:
        raise NotConvertible(f"{cls.__qualname__}() takes no arguments")
    return object.__new__(cls)


def is_made_manager(made: Any) -> bool:
    """Whether ``construct`` made a context manager object of a Python class (no state of
    its own: another one made with ``object.__new__`` behaves the same)."""
    return not isinstance(made, (StaticContext, PendingException)) and not vars(made)


def _python_method(cls: type, name: str) -> types.FunctionType | None:
    method = getattr(cls, name, None)
    return method if isinstance(method, types.FunctionType) else None


def enter(call: Callable[[Any, list, dict], Any], manager: Any) -> tuple[Any, Any]:
    """``BEFORE_WITH``: the bound ``__exit__`` to leave on the stack and what ``__enter__``
    returned (traced through ``call``)."""
    if isinstance(manager, StaticContext):
        return manager.exit, manager.entered
    enter_fn, exit_fn = _python_method(type(manager), "__enter__"), _python_method(type(manager), "__exit__")
    if enter_fn is None or exit_fn is None:
        kind = type(manager.obj if isinstance(manager, HeapRef) else manager).__name__
        raise NotConvertible(f"`with` over a {kind}: its __enter__/__exit__ are not plain Python functions")
    return types.MethodType(exit_fn, manager), call(enter_fn, [manager], {})
