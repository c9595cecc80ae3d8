"""Zero-argument ``super()`` in traced methods: ``{**super().parameters(), "W": self.W}``.

CPython's ``super()`` reads the method's ``__class__`` cell and its first argument. The
tracer does the same: the cell is read like any closure cell (a heap read, so its value
is checked on every call), the first argument is the frame's first local. An attribute
of the proxy is looked up statically along the MRO of the object's exact type (the
version is already specialized on it) after ``__class__``; only plain functions are
supported, bound to the traced ``self`` and inlined. The lookup is recorded like a global
read (``ParentLookup`` is the namespace), so a call after someone rebinds the parent's
method, or adds an override in between, does not run this version.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from janus.frontend.heap.access import HeapRef
from janus.frontend.values import NotConvertible

if TYPE_CHECKING:
    from janus.frontend.trace.frame import Frame
    from janus.frontend.trace.interpreter import Tracer


@dataclass(frozen=True)
class ParentLookup:
    """Attributes of the classes after ``start`` in ``owner``'s MRO, as a namespace
    ``resolve_global`` can read again on every call."""

    owner: type
    start: type

    def _classes(self) -> list[type]:
        mro = self.owner.__mro__
        return list(mro[mro.index(self.start) + 1:])

    def __contains__(self, name: object) -> bool:
        return any(name in vars(klass) for klass in self._classes())

    def __getitem__(self, name: str) -> Any:
        for klass in self._classes():
            if name in vars(klass):
                return vars(klass)[name]
        raise KeyError(name)


@dataclass(frozen=True)
class SymSuper:
    """The traced value of ``super()``: a lookup namespace and the object it binds to."""

    lookup: ParentLookup
    obj: HeapRef

    def attribute(self, tracer: "Tracer", name: str) -> types.MethodType:
        fn = self.lookup[name] if name in self.lookup else None
        if type(fn) is not types.FunctionType:
            raise NotConvertible(f"super().{name} is not a plain method")
        tracer.globals_read[(id(self.lookup), name)] = (self.lookup, name, fn)  # type: ignore[assignment]
        return types.MethodType(fn, self.obj)


def make(frame: "Frame") -> SymSuper:
    """``super()`` with no arguments, in ``frame``."""
    code = frame.bc.code
    if "__class__" not in code.co_freevars or not code.co_argcount:
        raise NotConvertible("super() outside a method (no __class__ cell or no first argument)")
    start = frame.cells["__class__"].contents
    obj = frame.locals.get(code.co_varnames[0])
    if not isinstance(obj, HeapRef) or not isinstance(start, type) or not isinstance(obj.obj, start):
        raise NotConvertible("super() whose first argument is not a heap object of its class")
    return SymSuper(ParentLookup(type(obj.obj), start), obj)
