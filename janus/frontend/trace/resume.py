"""Resume functions: a copy of a function's code that starts in the middle (TorchDynamo's
``resume_execution`` idea), so that Python can carry on from a segment boundary.

A resume function takes every local of the original code (a placeholder for those unbound
at the boundary) and then the values on the stack there, bottom first (the NULL markers of
pending calls are pushed again, not passed). Its code is the original's with a prologue in
front: ``RESUME``, ``DELETE_FAST`` of the unbound locals, the stack pushed back
(``LOAD_FAST``/``PUSH_NULL``/``LOAD_CONST`` for code and namespaces; a ``for`` loop's iterator is passed as the list of its
remaining items and remade by ``GET_ITER``, so the resume function's entry key sees plain
values) and a ``JUMP_FORWARD`` to the boundary. Jumps in CPython
3.11-3.13 are relative, so the original instructions keep working where they moved to; the
exception table is shifted by the prologue's length and the line table gets "no location"
entries in front. A closure (free variables) resumes with the function's own cells: its
prologue starts with ``COPY_FREE_VARS``, as the original's does, so reads and writes of
them go where Python's would. Cells of its own (locals an inner function captures) are
made again by the prologue's ``MAKE_CELL``, holding what they held at the boundary (an
argument's cell wraps the argument; another cell's contents come as a parameter): no
closure made before the boundary outlives it (the segment planner refuses a live one), so
nothing could tell the new cells from the old. Parameters added after the original locals
move the indices of the cells and free variables behind them (``_localsplus_moved``).
Generators are not resumable (``why_not_resumable``).

What the Python operation raises is raised again by an *unwinding* function
(``unwinding_function``): the same prologue, the stack under the call pushed back, then
``RAISE_VARARGS`` on the exception, at an instruction that has the call's line and is
covered by the call's exception-table entry (handler, stack depth, ``lasti``). A boundary
inside a ``try`` or ``with`` block thus raises into its ``except``/``finally``/``__exit__``
as Python would, and an uncaught exception's traceback shows the function's name and the
operation's line. The unwinding function runs in Python (an exception is off the
compiled path).

This module uses only the standard library (it is tested against bare interpreters).
"""

from __future__ import annotations

import dataclasses
import dis
import inspect
import sys
import types
from dataclasses import dataclass
from typing import Any

_OP = dis.opmap
#: code flags that make a frame more than locals and a stack
_UNRESUMABLE_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE
#: a line-table entry of one to eight code units without a source location (3.11+ format)
_NO_LOCATION = 0x80 | (15 << 3)
STACK_PREFIX = "__janus_stack"
CELL_PREFIX = "__janus_cell_"
#: resume code -> (the code it continues, its prologue's length): a boundary met while tracing
#: a resume function is a point of the original code (a loop's boundary resumes at one point)
ORIGINS: dict[types.CodeType, tuple[types.CodeType, int]] = {}
VALUE, NULL, ITERATOR, CONSTANT, METHOD, ABSORBED, ATTRIBUTE = (
    "value", "null", "iterator", "constant", "method", "absorbed", "attribute")
#: instructions whose argument indexes the frame's ``localsplus`` (locals, then cells, then free
#: variables; 3.13 loads a cell for a closure with ``LOAD_FAST``): an index past the original
#: locals moves when a resume function adds its parameters after them
_LOCALSPLUS = frozenset(_OP[name] for name in (
    "LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF", "MAKE_CELL",
    "LOAD_CLOSURE", "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "STORE_FAST", "DELETE_FAST") if name in _OP)
#: 3.13's instructions on two locals, one index per half byte
_PAIRED = frozenset(_OP[name] for name in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST")
                    if name in _OP)
#: the method load that pushes what ``CALL`` takes (3.12 folded ``LOAD_METHOD`` into ``LOAD_ATTR``'s low bit)
_LOAD_METHOD = ("LOAD_ATTR", 1) if sys.version_info >= (3, 12) else ("LOAD_METHOD", 0)


@dataclass(frozen=True)
class ResumePoint:
    """Where and with what a resume function continues ``code``."""

    code: types.CodeType
    offset: int  # the instruction to continue at (an offset of ``code``)
    unbound: tuple[str, ...]  # locals unbound there
    #: per stack slot, bottom first: ``VALUE`` (passed), ``NULL`` (a call's marker, pushed
    #: again), ``ITERATOR`` (a loop's iterator, passed as the list of the items it has left),
    #: ``(CONSTANT, value)``: code or a namespace, put back by ``LOAD_CONST``; ``(METHOD, name)``:
    #: a method of a receiver passed in a ``Box``, loaded again with the slot beside it (``ABSORBED``);
    #: ``(ATTRIBUTE, name)``: an attribute of a receiver passed in a ``Box`` (a ``with`` block's ``__exit__``)
    slots: tuple[Any, ...]
    #: locals holding code or namespaces (no entry key takes them): set by ``LOAD_CONST``
    constants: tuple[tuple[str, Any], ...] = ()

    @property
    def passed_stack(self) -> int:
        """How many stack values the resume function takes after the locals (and cells)."""
        return sum(passed(slot) for slot in self.slots)

    @property
    def passed_cells(self) -> tuple[str, ...]:
        """The cells whose contents the resume function takes after the locals, before the
        stack: its own cells that are not arguments (an argument's cell wraps the argument)."""
        return tuple(name for name in self.code.co_cellvars if name not in self.code.co_varnames)


def passed(slot: Any) -> bool:
    """Whether the resume function takes a parameter for this stack slot."""
    return slot in (VALUE, ITERATOR) or slot[0] in (METHOD, ATTRIBUTE)


class Box:
    """The receiver of a method a resume function loads again (a log's ``append``): passed
    in a box, the receiver is an object reference to the resume function's entry key, not
    a list keyed by its contents."""

    ATTRIBUTE = "value"

    def __init__(self, value: Any) -> None:
        self.value = value


def why_not_resumable(code: types.CodeType, offset: int) -> str | None:
    """Why Python cannot resume ``code`` at ``offset`` (None: it can)."""
    if code.co_flags & _UNRESUMABLE_FLAGS:
        return f"{code.co_name} is a generator or coroutine"
    cells = len(code.co_cellvars) + len(code.co_freevars)
    if cells and len(code.co_varnames) + code.co_stacksize + 2 * cells > 255:
        return f"{code.co_name} has too many locals for its cells and free variables to move"
    if cells and any(op in _PAIRED and (arg >> 4 >= len(code.co_varnames) or arg & 15 >= len(code.co_varnames))
                     for op, arg in zip(code.co_code[::2], code.co_code[1::2])):
        return f"{code.co_name} reads a cell with a paired local instruction"
    return None


#: instructions that rebind or unbind a cell
_CELL_WRITES = frozenset({"STORE_DEREF", "DELETE_DEREF"})


def cell_written(code: types.CodeType, name: str, after: int | None = None) -> bool:
    """Whether ``code`` (or a function or comprehension defined in it, through its free
    variable) may rebind cell ``name``; with ``after`` (an offset), only at or after it:
    a write before it counts when a jump from ``after`` on goes back to it (a loop)."""
    instructions = list(dis.get_instructions(code))
    writes = [i.offset for i in instructions if i.opname in _CELL_WRITES and i.argval == name]
    if after is not None and writes:
        back = min((i.argval for i in instructions if i.offset >= after and i.opcode in dis.hasjrel
                    and isinstance(i.argval, int) and i.argval < i.offset), default=None)
        writes = [w for w in writes if w >= after or back is not None and back <= w]
    return bool(writes) or any(isinstance(c, types.CodeType) and name in c.co_freevars and cell_written(c, name)
                               for c in code.co_consts)


def resume_function(point: ResumePoint, globals_: dict, closure: tuple | None = None) -> types.FunctionType:
    """The function continuing ``point.code`` at ``point.offset`` (see the module docstring),
    with ``closure``: the cells of the function it continues, for its free variables."""
    fn = types.FunctionType(resume_code(point), globals_, f"{point.code.co_name}__resume_at_{point.offset}", None, closure)
    fn.__qualname__ = f"{point.code.co_qualname}__resume_at_{point.offset}"  # (its code keeps the original's names)
    return fn


def calling_function(code: types.CodeType, line: int, globals_: dict) -> types.FunctionType:
    """``(fn, *args, **kwargs) -> fn(*args, **kwargs)`` in a frame with ``code``'s file and
    names at ``line`` and the function's ``globals_``: what a boundary's Python operation looks
    for in the stack (a log record's ``pathname``, ``lineno`` and ``funcName``, ``warnings.warn``'s
    location, module and registry, a ``sys._getframe(1)`` of the callee, the builtins C code looks
    up in the caller's globals) is the function's own call site, as in plain Python."""
    source = "\n" * (line - 1) + "def _(__janus_fn, /, *args, **kwargs): return __janus_fn(*args, **kwargs)\n"
    made = next(c for c in compile(source, code.co_filename, "exec").co_consts if isinstance(c, types.CodeType))
    return types.FunctionType(made.replace(co_name=code.co_name, co_qualname=code.co_qualname), globals_)


def unwinding_function(point: ResumePoint, globals_: dict, closure: tuple | None = None,
                       line: int | None = None) -> types.FunctionType:
    """The function raising its last argument (instead of taking it as the operation's
    result) where the operation at ``line`` was called (see the module docstring)."""
    thrown = dataclasses.replace(point, slots=(*point.slots[:-1], VALUE))  # the exception in the result's place
    return types.FunctionType(resume_code(thrown, raising=line or point.code.co_firstlineno), globals_,
                              point.code.co_name, None, closure)


def origin(code: types.CodeType, offset: int) -> tuple[types.CodeType, int]:
    """(code, offset) in the function the user wrote for an offset of ``code`` (a resume function's, or its own)."""
    original, shift = ORIGINS.get(code, (code, 0))
    return original, offset - shift


def resume_code(point: ResumePoint, raising: int | None = None) -> types.CodeType:
    """The resume function's code; with ``raising`` (a line), the unwinding function's."""
    code = point.code
    names = code.co_varnames
    cell_names = tuple(f"{CELL_PREFIX}{name}" for name in point.passed_cells)
    added = cell_names + tuple(f"{STACK_PREFIX}{i}" for i in range(point.passed_stack))
    consts, co_names = list(code.co_consts), list(code.co_names)

    def constant(value: Any) -> tuple[int, int]:
        consts.append(value)
        return _OP["LOAD_CONST"], len(consts) - 1

    def slot(name: str) -> int:
        """A cell's index in the resume function's ``localsplus``."""
        return names.index(name) if name in names else len(names) + len(added) + point.passed_cells.index(name)

    body = [(_OP["COPY_FREE_VARS"], len(code.co_freevars))] if code.co_freevars else []
    body += [(_OP["MAKE_CELL"], slot(name)) for name in code.co_cellvars]
    body.append((_OP["RESUME"], 0))
    body += [(_OP["DELETE_FAST"], names.index(name)) for name in point.unbound]
    for i, name in enumerate(point.passed_cells):
        body += [(_OP["LOAD_FAST"], len(names) + i), (_OP["STORE_DEREF"], slot(name))]
    for name, value in point.constants:
        body += [constant(value), (_OP["STORE_FAST"], names.index(name))]
    parameters = iter(range(len(names) + len(cell_names), len(names) + len(added)))
    for slot in point.slots:
        if slot == NULL:
            body.append((_OP["PUSH_NULL"], 0))
        elif slot == ABSORBED:
            continue
        elif slot[0] == CONSTANT:
            body.append(constant(slot[1]))
        elif slot[0] == METHOD:
            co_names.extend((Box.ATTRIBUTE, slot[1]))
            body += [(_OP["LOAD_FAST"], next(parameters)), (_OP["LOAD_ATTR"], (len(co_names) - 2) << _LOAD_METHOD[1]),
                     (_OP[_LOAD_METHOD[0]], (len(co_names) - 1) << _LOAD_METHOD[1] | _LOAD_METHOD[1])]
        elif slot[0] == ATTRIBUTE:
            co_names.extend((Box.ATTRIBUTE, slot[1]))
            body += [(_OP["LOAD_FAST"], next(parameters)), (_OP["LOAD_ATTR"], (len(co_names) - 2) << _LOAD_METHOD[1]),
                     (_OP["LOAD_ATTR"], (len(co_names) - 1) << _LOAD_METHOD[1])]
        else:
            body.append((_OP["LOAD_FAST"], next(parameters)))
            body += [(_OP["GET_ITER"], 0)] if slot == ITERATOR else []
    if raising is None:
        # JUMP_FORWARD is last: the jump is relative to the prologue's end, where ``offset`` now begins
        prologue = b"".join(_encode(op, arg) for op, arg in [*body, (_OP["JUMP_FORWARD"], point.offset // 2)])
        lines, exceptions = _no_location(len(prologue) // 2), _shifted_exception_table(code, len(prologue))
    else:
        prologue, lines, exceptions = _raising_prologue(code, point.offset, body, raising)
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    made = code.replace(
        co_code=prologue + _localsplus_moved(code.co_code, len(names), len(added)), co_consts=tuple(consts),
        co_names=tuple(co_names), co_linetable=lines + code.co_linetable, co_exceptiontable=exceptions,
        co_argcount=len(names) + len(added), co_posonlyargcount=0, co_kwonlyargcount=0,
        co_nlocals=len(names) + len(added), co_varnames=names + added, co_flags=flags,
        co_stacksize=max(code.co_stacksize, len(point.slots) + 1),
    )  # the names stay the original's: a traceback, a log record's ``funcName`` or a frame's code name show them
    if raising is None:
        ORIGINS[made] = (code, len(prologue))
    return made


def _raising_prologue(code: types.CodeType, offset: int, body: list[tuple[int, int]],
                      line: int) -> tuple[bytes, bytes, bytes]:
    """The unwinding function's prologue (``body``, its last instruction the load of the
    exception, then ``RAISE_VARARGS``), line table and exception table: the raise has
    ``line`` and the handler of the call before ``offset``; an unreachable ``NOP`` after it
    takes the line back to where the original line table starts counting."""
    call = max(i.offset for i in dis.get_instructions(code) if i.offset < offset)
    head = b"".join(_encode(op, arg) for op, arg in body)
    prologue = head + _encode(_OP["RAISE_VARARGS"], 1) + _encode(_OP["NOP"], 0)
    at = len(head) // 2  # the raise, in code units
    delta = line - code.co_firstlineno
    lines = _no_location(at) + _no_columns(delta) + _no_columns(-delta)
    table = bytearray()
    for e in dis._parse_exception_table(code):  # type: ignore[attr-defined]
        if e.start <= call < e.end:  # the innermost entry covering the call (entries do not nest)
            _varint(table, at, first=True)
            _varint(table, 1)
            _varint(table, (e.target + len(prologue)) // 2)
            _varint(table, e.depth << 1 | int(e.lasti))
    return prologue, lines, bytes(table) + _shifted_exception_table(code, len(prologue))


def _no_columns(delta: int) -> bytes:
    """A line-table entry of one code unit: line ``delta`` from the previous entry's, no columns
    (CPython's ``Objects/locations.md``: code 13, a signed varint, 6-bit chunks low first)."""
    value = -delta << 1 | 1 if delta < 0 else delta << 1
    out = bytearray([0x80 | (13 << 3)])
    while value >= 64:
        out.append(64 | value & 63)
        value >>= 6
    out.append(value)
    return bytes(out)


def _localsplus_moved(co_code: bytes, locals_: int, by: int) -> bytes:
    """``co_code`` with each index of a cell or free variable (past the ``locals_`` original
    locals) moved ``by`` places; ``why_not_resumable`` keeps the indices under 256."""
    code = bytearray(co_code)
    for i in range(0, len(code), 2):
        if code[i] in _LOCALSPLUS and code[i + 1] >= locals_ and (i == 0 or code[i - 2] != _OP["EXTENDED_ARG"]):
            code[i + 1] += by
    return bytes(code)


def _encode(op: int, arg: int) -> bytes:
    """One instruction, with the ``EXTENDED_ARG`` prefixes an argument over 255 needs and
    its inline cache entries."""
    prefix = []
    high = arg >> 8
    while high:
        prefix.insert(0, high & 0xFF)
        high >>= 8
    table = dis._inline_cache_entries  # type: ignore[attr-defined]  # by opcode before 3.13, by opname since
    caches = table.get(dis.opname[op], 0) if isinstance(table, dict) else table[op]
    return b"".join(bytes((_OP["EXTENDED_ARG"], b)) for b in prefix) + bytes((op, arg & 0xFF)) + b"\0\0" * caches


def _no_location(units: int) -> bytes:
    entries = []
    while units > 0:
        n = min(units, 8)
        entries.append(_NO_LOCATION | (n - 1))
        units -= n
    return bytes(entries)


def _shifted_exception_table(code: types.CodeType, shift: int) -> bytes:
    """``code``'s exception table with every offset moved by ``shift`` bytes."""
    out = bytearray()
    for e in dis._parse_exception_table(code):  # type: ignore[attr-defined]
        start = (e.start + shift) // 2
        _varint(out, start, first=True)
        _varint(out, (e.end - e.start) // 2)
        _varint(out, (e.target + shift) // 2)
        _varint(out, e.depth << 1 | int(e.lasti))
    return bytes(out)


def _varint(out: bytearray, value: int, first: bool = False) -> None:
    """CPython's exception-table number: 6-bit chunks, most significant first, bit 6 says
    more follow, bit 7 marks an entry's first byte."""
    chunks = [value & 0x3F]
    value >>= 6
    while value:
        chunks.insert(0, value & 0x3F)
        value >>= 6
    for i, chunk in enumerate(chunks):
        out.append(chunk | (0x40 if i < len(chunks) - 1 else 0) | (0x80 if first and i == 0 else 0))
