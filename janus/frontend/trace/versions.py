"""What differs between the CPython versions the frontend reads: one small table per version.

The tracer has one set of opcode handlers (``opcodes``), written against CPython 3.11. A
later version's opcode either has a handler of its own there (``TO_BOOL``, ``CALL_KW``...)
or is decoded (``bytecode.decode``) into instructions that already have one: a rewrite
below, whose docstring is the opcode's coverage-table entry. The remaining differences are
the few facts of ``Dialect``. Nothing else in the frontend asks which version it runs on.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable

@dataclass(frozen=True)
class Part:
    """One instruction a rewrite decodes an opcode into (the rest is the original's)."""

    opname: str
    arg: int | None
    argval: object


Rewrite = Callable[[int | None, object, frozenset[str]], tuple[Part, ...]]


def _returns_constant(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `LOAD_CONST`, `RETURN_VALUE`"""
    return Part("LOAD_CONST", arg, argval), Part("RETURN_VALUE", None, None)


def _checked_local(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `LOAD_FAST` (the tracer checks every local is bound)"""
    return (Part("LOAD_FAST", arg, argval),)


def _slice_read(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `BUILD_SLICE 2`, `BINARY_SUBSCR`"""
    return Part("BUILD_SLICE", 2, 2), Part("BINARY_SUBSCR", None, None)


def _slice_write(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `BUILD_SLICE 2`, `STORE_SUBSCR`"""
    return Part("BUILD_SLICE", 2, 2), Part("STORE_SUBSCR", None, None)


def _attribute(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """with the method bit set, decoded as `LOAD_METHOD`; otherwise `LOAD_ATTR`"""
    return (Part("LOAD_METHOD" if arg is not None and arg & 1 else "LOAD_ATTR", arg, argval),)


def _compare(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """with the bool bit (16) set, decoded as `COMPARE_OP`, `TO_BOOL`; otherwise `COMPARE_OP`"""
    if arg is not None and arg & 16:
        return Part("COMPARE_OP", arg, argval), Part("TO_BOOL", None, None)
    return (Part("COMPARE_OP", arg, argval),)


def _local(name: str, cells: frozenset[str]) -> Part:
    """3.13 loads a closure cell for ``MAKE_FUNCTION`` with ``LOAD_FAST`` (3.12's ``LOAD_CLOSURE``)."""
    return Part("LOAD_CLOSURE" if name in cells else "LOAD_FAST", None, name)


def _fast_local(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """of a cell variable, decoded as `LOAD_CLOSURE` (3.13 has no such opcode); otherwise `LOAD_FAST`"""
    return (_local(argval, cells),)  # type: ignore[arg-type]


def _two_loads(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `LOAD_FAST`, `LOAD_FAST`"""
    first, second = argval  # type: ignore[misc]
    return _local(first, cells), _local(second, cells)


def _store_load(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `STORE_FAST`, `LOAD_FAST`"""
    first, second = argval  # type: ignore[misc]
    return Part("STORE_FAST", None, first), _local(second, cells)


def _two_stores(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `STORE_FAST`, `STORE_FAST`"""
    first, second = argval  # type: ignore[misc]
    return Part("STORE_FAST", None, first), Part("STORE_FAST", None, second)


def _format_simple(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `FORMAT_VALUE 0` (no conversion, no spec)"""
    return (Part("FORMAT_VALUE", 0, None),)


def _format_spec(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `FORMAT_VALUE 4` (the spec on the stack)"""
    return (Part("FORMAT_VALUE", 4, None),)


def _convert(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """decoded as `FORMAT_VALUE` with its conversion (str, repr or ascii of the value, a string)"""
    return (Part("FORMAT_VALUE", arg, None),)


#: CALL_INTRINSIC_1's operands that were opcodes on 3.11 (``dis`` names them INTRINSIC_*)
_INTRINSIC_OPCODES = {5: "UNARY_POSITIVE", 6: "LIST_TO_TUPLE"}


def _intrinsic(arg: int | None, argval: object, cells: frozenset[str]) -> tuple[Part, ...]:
    """unary + and list to tuple, decoded as 3.11's `UNARY_POSITIVE` and `LIST_TO_TUPLE`; other intrinsics are not handled yet"""
    return (Part(_INTRINSIC_OPCODES.get(arg, "CALL_INTRINSIC_1"), arg, argval),)  # type: ignore[arg-type]


_3_12: dict[str, Rewrite] = {
    "RETURN_CONST": _returns_constant,
    "LOAD_FAST_CHECK": _checked_local,
    "BINARY_SLICE": _slice_read,
    "STORE_SLICE": _slice_write,
    "LOAD_ATTR": _attribute,
    "CALL_INTRINSIC_1": _intrinsic,
}
_3_13: dict[str, Rewrite] = {
    **_3_12,
    "COMPARE_OP": _compare,
    "LOAD_FAST": _fast_local,
    "LOAD_FAST_LOAD_FAST": _two_loads,
    "STORE_FAST_LOAD_FAST": _store_load,
    "STORE_FAST_STORE_FAST": _two_stores,
    "FORMAT_SIMPLE": _format_simple,
    "FORMAT_WITH_SPEC": _format_spec,
    "CONVERT_VALUE": _convert,
}


@dataclass(frozen=True)
class Dialect:
    """The bytecode facts of one CPython version that the frontend depends on."""

    #: opcode -> how it is decoded into instructions that have handlers
    rewrites: dict[str, Rewrite] = field(default_factory=dict)
    #: instructions after its target that an exhausted ``FOR_ITER`` jumps over (END_FOR, POP_TOP)
    for_iter_skips: int = 0
    #: values ``END_FOR`` pops
    end_for_pops: int = 0
    #: conditional jumps only go forward: ``POP_JUMP_IF_X`` over a ``JUMP_BACKWARD`` is
    #: decoded as 3.11's backward jump on the opposite condition (the bottom test of a loop)
    forward_jumps_only: bool = False
    #: ``LOAD_GLOBAL``/``LOAD_ATTR`` push a callable before its NULL (3.11, 3.12: after)
    null_after_callable: bool = False
    #: the profiler observes through ``sys.monitoring`` (3.12 delivers no opcode events to
    #: ``sys.settrace``); else ``sys.settrace`` with ``f_trace_opcodes``
    monitoring: bool = False


DIALECTS: dict[tuple[int, int], Dialect] = {
    (3, 11): Dialect(),
    (3, 12): Dialect(_3_12, for_iter_skips=1, end_for_pops=2, forward_jumps_only=True, monitoring=True),
    (3, 13): Dialect(_3_13, for_iter_skips=2, end_for_pops=1, forward_jumps_only=True, null_after_callable=True,
                     monitoring=True),
}
#: The interpreters whose bytecode the frontend reads.
SUPPORTED = tuple(DIALECTS)


def running() -> tuple[int, int]:
    """The running interpreter's (major, minor) version."""
    return sys.version_info[:2]  # type: ignore[return-value]


def supported() -> bool:
    """True on a CPython whose bytecode the frontend reads."""
    return sys.implementation.name == "cpython" and running() in DIALECTS


def unsupported_message() -> str:
    """What an unsupported interpreter is told (by jit, export and janus-compile alike)."""
    *first, last = (".".join(map(str, v)) for v in SUPPORTED)
    here = f"{'CPython' if sys.implementation.name == 'cpython' else sys.implementation.name} {'.'.join(map(str, running()))}"
    return f"janus reads the bytecode of CPython {', '.join(first)} and {last}, not of {here}"


#: the running interpreter's table (3.11's on an unsupported one: nothing is traced there)
DIALECT = DIALECTS.get(running(), DIALECTS[(3, 11)])
