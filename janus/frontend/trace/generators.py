"""Generators run eagerly at trace time (issue #7).

A generator function called during tracing runs its whole body at once; the values it
yields are collected into a :class:`GenIter` its consumer iterates. That is CPython's
order of effects only when the consumer takes every item before doing anything else, so
a generator may be consumed only whole, by ``UNPACK_SEQUENCE`` or a builtin such as
``list``/``tuple``/``sum`` (checked after the call); a ``for`` loop over it (whose body
would interleave with the generator's) or a partial consumer (``any``, ``zip``,
``next``) is NotConvertible. When the trace may split (``segments``), such a generator
is traced again as a boundary instead (``RunLazily``): Python makes the generator, and a
``for`` loop over it takes each item in Python with its body compiled (``split.end_for``).
"""

from __future__ import annotations

import inspect
import types
from typing import Any

from janus.frontend.trace.branches import SymIter
from janus.frontend.values import NotConvertible

#: code flags that are never traced (a generator function alone is run eagerly)
UNSUPPORTED = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def is_generator(code: types.CodeType) -> bool:
    return bool(code.co_flags & inspect.CO_GENERATOR)


class GenIter(SymIter):
    """The yields of a generator run eagerly; ``exhausted`` once its end was reached;
    ``code`` is the generator function's, None for ``map``/``filter`` and the generators the
    trace made itself (a generator expression, an inner generator function: Python cannot
    make those at a boundary)."""

    def __init__(self, items: list[Any], name: str, code: types.CodeType | None = None) -> None:
        super().__init__(items)
        self.name, self.exhausted, self.code = name, False, code

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except StopIteration:
            self.exhausted = True
            raise


class RunLazily(Exception):
    """A generator run eagerly met a consumer that takes its items one at a time: the trace
    starts again with calls of ``code`` as boundaries (``generate``); ``reason`` is said
    where that cannot be (no splitting, or the same generator again)."""

    def __init__(self, code: types.CodeType, reason: NotConvertible) -> None:
        super().__init__(str(reason))
        self.code, self.reason = code, reason


def _refuse(value: GenIter, reason: str) -> None:
    error = NotConvertible(reason)
    if value.code is not None:
        raise RunLazily(value.code, error)
    raise error


def lazy_call(code: types.CodeType) -> NotConvertible:
    """The reason a call of a generator function ``code`` ends the segment (``RunLazily``)."""
    return NotConvertible(f"{code.co_name}() is a generator taken item by item (Python runs it, one step at a time)")


def check_consumed(args: list[Any], consumer: str) -> None:
    """After a builtin call: a generator among ``args`` must have been consumed whole."""
    for arg in args:
        if isinstance(arg, GenIter) and not arg.exhausted:
            _refuse(arg, f"{arg.name} is not consumed whole by {consumer} (it was run eagerly)")


def refuse_loop(value: Any) -> None:
    """``GET_ITER`` on a generator: a for loop's body would interleave with its body."""
    if isinstance(value, GenIter):
        _refuse(value, f"a for loop over {value.name} (a generator is only run eagerly for whole consumers)")


def collect(yields: list[Any], value: Any, code: types.CodeType, active_loops: set) -> None:
    """``YIELD_VALUE``: record ``value``; a yield in a loop traced as a region cannot be collected."""
    if any(loop_code is code for loop_code, _ in active_loops):
        raise NotConvertible(f"yield inside a graph loop of {code.co_name}")
    yields.append(value)
