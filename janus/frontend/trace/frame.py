"""The symbolic frame the tracer steps: locals, the value stack, and argument binding."""

from __future__ import annotations

import builtins
import inspect
import types
from dataclasses import dataclass, field
from typing import Any

from janus.frontend.trace.branches import Cell
from janus.frontend.trace.bytecode import Bytecode
from janus.frontend.trace.versions import DIALECT
from janus.frontend.values import NotConvertible, Tensor

NULL = object()  # the stack marker PUSH_NULL / LOAD_GLOBAL / LOAD_METHOD leave for CALL

#: local containers whose methods may be called (they live only in the traced frame)
LOCAL_CONTAINERS = (list, dict, tuple, str, range)


class ArgumentList(list):
    """A list passed in by the caller: readable, but mutating it would be a heap write."""


MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"})


@dataclass
class BoundTensorMethod:
    receiver: Tensor
    name: str


@dataclass
class Frame:
    bc: Bytecode
    globals: dict
    locals: dict[str, Any]
    cells: dict[str, Cell] = field(default_factory=dict)
    stack: list[Any] = field(default_factory=list)
    kw_names: tuple[str, ...] = ()
    result: Any = NULL
    #: branches this (forked) frame is a side of: reaching one again means a data-dependent loop
    forking: frozenset[int] = frozenset()
    #: a generator's yields so far (None: not a generator; see ``generators``)
    yields: list[Any] | None = None

    def push_callable(self, fn: Any, null: bool = True) -> None:
        """``fn``, and (``null``) the NULL a ``CALL`` finds beside it, in the running version's order."""
        if not null:
            self.stack.append(fn)
        else:
            self.stack.extend((fn, NULL) if DIALECT.null_after_callable else (NULL, fn))

    def pop(self, n: int) -> list[Any]:
        if n == 0:
            return []
        values = self.stack[-n:]
        del self.stack[-n:]
        return values


def local_dict(pairs: Any) -> dict:
    """A dict built by the traced code; its keys must be static (a graph value or heap
    object hashes by identity, not by what Python would compare)."""
    result = {}
    for key, value in pairs:
        if not _static_key(key):
            raise NotConvertible(f"a dict key of type {type(key).__name__} (only static keys)")
        result[key] = value
    return result


def _static_key(key: Any) -> bool:
    return type(key) in (bool, int, float, str, type(None)) or type(key) is tuple and all(map(_static_key, key))


def resolve_global(namespace: dict, name: str, default: Any) -> Any:
    """``name`` as ``LOAD_GLOBAL`` sees it: module globals first, then builtins."""
    return namespace[name] if name in namespace else vars(builtins).get(name, default)


def bind_arguments(code: types.CodeType, defaults: tuple, kwdefaults: dict, args: list, kwargs: dict) -> dict[str, Any]:
    """Parameters of ``code`` bound to a call's arguments, as CPython binds them (extra
    positional arguments into ``*args``, extra keywords into ``**kwargs``)."""
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[: npos + nkw]
    star = code.co_varnames[npos + nkw] if code.co_flags & inspect.CO_VARARGS else None
    starstar = code.co_varnames[npos + nkw + (star is not None)] if code.co_flags & inspect.CO_VARKEYWORDS else None
    if len(args) > npos and star is None:
        raise NotConvertible(f"{code.co_name}() got too many positional arguments")
    bound = dict(zip(names, args[:npos]))
    extra: dict[str, Any] = {}
    for name, value in kwargs.items():
        named = name in names and names.index(name) >= code.co_posonlyargcount
        if named and name not in bound:
            bound[name] = value
        elif not named and starstar is not None:
            extra[name] = value
        else:
            raise NotConvertible(f"{code.co_name}() got an unexpected keyword argument {name!r}")
    first_default = npos - len(defaults)
    for i, name in enumerate(names):
        if name in bound:
            continue
        if first_default <= i < npos:
            bound[name] = defaults[i - first_default]
        elif name in kwdefaults:
            bound[name] = kwdefaults[name]
        else:
            raise NotConvertible(f"{code.co_name}() missing argument {name!r}")
    if star is not None:
        bound[star] = tuple(args[npos:])
    if starstar is not None:
        bound[starstar] = extra
    return bound
